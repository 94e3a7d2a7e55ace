//! What the variable-length attributes of a netCDF-4 file would take once read, measured
//! before libnetcdf reads them.
//!
//! An attribute of `string` (or vlen) type holds 16-byte references into the file's heap,
//! and nothing stops every element from naming one large heap object: libnetcdf reads an
//! object's attributes whole, so an 878 KB file made even `ncdump -h` take 4.7 GB. HDF5
//! materialises each copy whatever transfer list is given, so the lengths are read
//! instead: a conversion function registered with HDF5 turns each stored reference into
//! its length (the first four bytes of the file's form, little-endian, in the HDF5 file
//! format), into a 4-byte opaque type of nctools' own that nothing else converts to.

use std::ffi::{c_char, c_uint, c_void, CStr};
use std::sync::Once;

use hdf5_metno_sys::h5::{herr_t, hsize_t, H5_index_t, H5_iter_order_t};
use hdf5_metno_sys::h5a::{
    H5A_info_t, H5Aclose, H5Aget_space, H5Aget_type, H5Aiterate_by_name, H5Aopen, H5Aread,
};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5o::{H5O_info1_t, H5O_type_t, H5Ovisit2, H5O_INFO_BASIC};
use hdf5_metno_sys::h5p::H5P_DEFAULT;
use hdf5_metno_sys::h5s::{H5Sclose, H5Sget_simple_extent_npoints};
use hdf5_metno_sys::h5t::{
    H5T_bkg_t, H5T_cdata_t, H5T_class_t, H5T_cmd_t, H5T_pers_t, H5Tclose, H5Tcopy, H5Tcreate,
    H5Tget_class, H5Tget_size, H5Tget_super, H5Tget_tag, H5Tis_variable_str, H5Tregister,
    H5Tset_size, H5Tset_tag, H5T_C_S1, H5T_VARIABLE,
};

use super::hdf5::Object;
use super::Lib;

/// The tag of the opaque type the lengths are converted to.
const LENGTH_TAG: &CStr = c"nctools: the length of a variable-length value";

/// Why the attributes of a file may not be read.
pub(crate) enum AttributeRefusal {
    /// The variable-length attributes would take more than the budget: the first
    /// attribute past it, described for people.
    Oversized(String),
    /// An object is reached by more than one hard link, and libnetcdf would read it (its
    /// attributes, and a group's whole tree) once per link: its path and link count.
    LinkedTwice(String),
}

/// Why the attributes of the open HDF5 `file` may not be read: variable-length
/// attributes of the whole file that would take more than `budget` bytes once read, or
/// an object reached by several hard links; `None` when they fit (or HDF5 cannot tell).
pub(crate) fn oversized_attributes(
    lib: &Lib,
    file: hid_t,
    budget: usize,
) -> Option<AttributeRefusal> {
    register(lib);
    let length_type = length_type()?;
    let mut walk = Walk {
        length_type: length_type.id,
        budget,
        used: 0,
        found: None,
    };
    // SAFETY: the file is open (the caller's); the callback has H5Ovisit's signature and
    // `walk` outlives the call, which is synchronous.
    unsafe {
        H5Ovisit2(
            file,
            H5_index_t::H5_INDEX_NAME,
            H5_iter_order_t::H5_ITER_INC,
            Some(visit_object),
            std::ptr::from_mut(&mut walk).cast(),
            H5O_INFO_BASIC,
        );
    }
    walk.found
}

/// The state of one walk.
struct Walk {
    length_type: hid_t,
    budget: usize,
    used: usize,
    found: Option<AttributeRefusal>,
}

/// The attribute being measured, for its callback.
struct AttributeWalk<'w> {
    walk: &'w mut Walk,
    object: String,
}

/// H5Ovisit's callback: measures the attributes of the object `name` (relative to
/// `root`); 1 stops the walk once the budget is spent. HDF5's contract for
/// `H5O_iterate_t`: `root` is open, `name` NUL-terminated; `data` is the `Walk` given to
/// H5Ovisit (the only caller).
extern "C" fn visit_object(
    root: hid_t,
    name: *const c_char,
    info: *const H5O_info1_t,
    data: *mut c_void,
) -> herr_t {
    if name.is_null() || data.is_null() {
        return 0;
    }
    // SAFETY: per the contract.
    let walk = unsafe { &mut *data.cast::<Walk>() };
    // SAFETY: per the contract.
    let object = unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned();
    // HDF5 visits an object once; libnetcdf reads it once per link (before, a group
    // linked from ten places took 2.85 GB through attributes counted once).
    // (A committed datatype counts each use of it too.)
    let (links, kind) = if info.is_null() {
        (1, H5O_type_t::H5O_TYPE_UNKNOWN)
    } else {
        // SAFETY: per the contract, `info` is valid during the call (not null here).
        unsafe { ((*info).rc, (*info).type_) }
    };
    let linkable = matches!(
        kind,
        H5O_type_t::H5O_TYPE_GROUP | H5O_type_t::H5O_TYPE_DATASET
    );
    if links > 1 && linkable {
        walk.found = Some(AttributeRefusal::LinkedTwice(format!(
            "/{object}: reached by {links} hard links"
        )));
        return 1;
    }
    let mut attributes = AttributeWalk { walk, object };
    let mut index: hsize_t = 0;
    // SAFETY: root is open and name one of its objects (per the contract); the callback
    // has H5Aiterate's signature and `attributes` outlives the synchronous call.
    unsafe {
        H5Aiterate_by_name(
            root,
            name,
            H5_index_t::H5_INDEX_NAME,
            H5_iter_order_t::H5_ITER_INC,
            &mut index,
            Some(visit_attribute),
            std::ptr::from_mut(&mut attributes).cast(),
            H5P_DEFAULT,
        );
    }
    i32::from(attributes.walk.found.is_some())
}

/// H5Aiterate's callback: adds what the attribute `name` of `location` takes; 1 stops
/// once the budget is spent.
///
/// # Safety
/// HDF5's contract for `H5A_operator2_t`: `location` is open, `name` NUL-terminated;
/// `data` is the `AttributeWalk` given to H5Aiterate.
unsafe extern "C" fn visit_attribute(
    location: hid_t,
    name: *const c_char,
    _info: *const H5A_info_t,
    data: *mut c_void,
) -> herr_t {
    if name.is_null() || data.is_null() {
        return 0;
    }
    // SAFETY: per the contract.
    let attributes = unsafe { &mut *data.cast::<AttributeWalk<'_>>() };
    // SAFETY: per the contract.
    let Some(bytes) = (unsafe { variable_bytes(location, name, attributes.walk.length_type) })
    else {
        return 0;
    };
    let walk = &mut *attributes.walk;
    walk.used = walk.used.saturating_add(bytes);
    if walk.used <= walk.budget {
        return 0;
    }
    // SAFETY: per the contract.
    let attribute = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    let object = match attributes.object.as_str() {
        "." => String::new(),
        other => format!("/{other}"),
    };
    walk.found = Some(AttributeRefusal::Oversized(format!(
        "{object}/{attribute}: its variable-length values, with the attributes before it, \
         would take more than {} bytes once read",
        walk.budget
    )));
    1
}

/// The bytes the attribute `name` of `location` takes once read, when its type holds
/// variable-length strings or sequences (at any depth of compounds and arrays); `None`
/// for other types or when HDF5 fails; `usize::MAX` for one that cannot be measured (a
/// sequence of variable-length values).
///
/// # Safety
/// `location` is open and `name` NUL-terminated.
unsafe fn variable_bytes(
    location: hid_t,
    name: *const c_char,
    length_type: hid_t,
) -> Option<usize> {
    // SAFETY: per the contract; each id is checked and closed by `Object`.
    unsafe {
        let attribute = H5Aopen(location, name, H5P_DEFAULT);
        if attribute < 0 {
            return None;
        }
        let attribute = Object {
            id: attribute,
            close: H5Aclose,
        };
        let file_type = H5Aget_type(attribute.id);
        if file_type < 0 {
            return None;
        }
        let file_type = Object {
            id: file_type,
            close: H5Tclose,
        };
        let lengths = match lengths_type(file_type.id, length_type) {
            Measured::Nothing => return None,
            Measured::Unmeasurable => return Some(usize::MAX),
            Measured::Lengths(lengths) => lengths,
        };
        let space = H5Aget_space(attribute.id);
        if space < 0 {
            return None;
        }
        let points = H5Sget_simple_extent_npoints(space);
        H5Sclose(space);
        let points = usize::try_from(points).ok()?;
        // Four bytes a length, fewer than the 12 or 16 of each stored reference: less than
        // the attribute holds.
        let count = points.checked_mul(lengths.per_value)?;
        let mut values: Vec<u32> = vec![0; count];
        if count > 0
            && H5Aread(
                attribute.id,
                lengths.memory_type.id,
                values.as_mut_ptr().cast(),
            ) < 0
        {
            return None;
        }
        // A value's memory: its bytes (and a string's NUL), and a pointer.
        Some(values.iter().fold(0usize, |total, len| {
            total.saturating_add(
                (*len as usize)
                    .saturating_mul(lengths.unit)
                    .saturating_add(16),
            )
        }))
    }
}

/// What measuring a type takes.
enum Measured {
    /// The type holds no variable-length part.
    Nothing,
    /// It holds a sequence of variable-length values, which its lengths do not bound.
    Unmeasurable,
    /// Read it as this type: its variable-length parts' lengths, nothing else.
    Lengths(Lengths),
}

/// A type made of the lengths of another's variable-length parts.
struct Lengths {
    /// The type: a length, or a compound or array of them.
    memory_type: Object,
    /// How many lengths one value holds.
    per_value: usize,
    /// The most bytes one unit of length stands for (a string's byte, a sequence's
    /// element).
    unit: usize,
}

/// The lengths-only type of the file type `t` (see [`Measured`]): each variable-length
/// string or sequence becomes `length_type` (4 bytes), compound members without one are
/// left out (HDF5 converts members by name), and arrays keep their dimensions.
fn lengths_type(t: hid_t, length_type: hid_t) -> Measured {
    use hdf5_metno_sys::h5t::{
        H5Tarray_create2, H5Tget_array_dims2, H5Tget_array_ndims, H5Tget_member_name,
        H5Tget_member_type, H5Tget_nmembers,
    };
    let copy = |id: hid_t| -> Option<Object> {
        // SAFETY: the id is HDF5's; the copy is checked, and closed by `Object`.
        let copied = unsafe { H5Tcopy(id) };
        (copied >= 0).then_some(Object {
            id: copied,
            close: H5Tclose,
        })
    };
    let single = |unit: usize| match copy(length_type) {
        Some(memory_type) => Measured::Lengths(Lengths {
            memory_type,
            per_value: 1,
            unit,
        }),
        None => Measured::Unmeasurable,
    };
    // SAFETY: `t` is an open type (the caller's); every id made here is checked and
    // closed by `Object`; member names from HDF5 are NUL-terminated and freed once.
    unsafe {
        match H5Tget_class(t) {
            H5T_class_t::H5T_STRING if H5Tis_variable_str(t) > 0 => single(1),
            H5T_class_t::H5T_VLEN => {
                let Some(base) = super_type(t) else {
                    return Measured::Unmeasurable;
                };
                match lengths_type(base.id, length_type) {
                    Measured::Nothing => single(H5Tget_size(base.id).max(1)),
                    _ => Measured::Unmeasurable,
                }
            }
            H5T_class_t::H5T_ARRAY => {
                let Some(base) = super_type(t) else {
                    return Measured::Unmeasurable;
                };
                let inner = match lengths_type(base.id, length_type) {
                    Measured::Lengths(inner) => inner,
                    other => return other,
                };
                let Ok(rank_len) = usize::try_from(H5Tget_array_ndims(t)) else {
                    return Measured::Unmeasurable;
                };
                let mut dims: Vec<hsize_t> = vec![0; rank_len.max(1)];
                if H5Tget_array_dims2(t, dims.as_mut_ptr()) < 0 {
                    return Measured::Unmeasurable;
                }
                let elements = dims[..rank_len]
                    .iter()
                    .try_fold(1usize, |n, d| n.checked_mul(usize::try_from(*d).ok()?));
                let Ok(rank) = c_uint::try_from(rank_len) else {
                    return Measured::Unmeasurable;
                };
                let array = H5Tarray_create2(inner.memory_type.id, rank, dims.as_ptr());
                match (elements, array >= 0) {
                    (Some(elements), true) => Measured::Lengths(Lengths {
                        memory_type: Object {
                            id: array,
                            close: H5Tclose,
                        },
                        per_value: inner.per_value.saturating_mul(elements),
                        unit: inner.unit,
                    }),
                    _ => Measured::Unmeasurable,
                }
            }
            H5T_class_t::H5T_COMPOUND => {
                let members = u32::try_from(H5Tget_nmembers(t)).unwrap_or(0);
                let mut parts: Vec<(*mut c_char, Lengths)> = Vec::new();
                let mut unmeasurable = false;
                for i in 0..members {
                    let member = H5Tget_member_type(t, i);
                    if member < 0 {
                        unmeasurable = true;
                        continue;
                    }
                    let member = Object {
                        id: member,
                        close: H5Tclose,
                    };
                    match lengths_type(member.id, length_type) {
                        Measured::Nothing => {}
                        Measured::Unmeasurable => unmeasurable = true,
                        Measured::Lengths(lengths) => {
                            parts.push((H5Tget_member_name(t, i), lengths));
                        }
                    }
                }
                let measured = if unmeasurable || parts.iter().any(|(n, _)| n.is_null()) {
                    Measured::Unmeasurable
                } else if parts.is_empty() {
                    Measured::Nothing
                } else {
                    compound_of(&parts)
                };
                for (name, _) in parts {
                    if !name.is_null() {
                        libc::free(name.cast());
                    }
                }
                measured
            }
            _ => Measured::Nothing,
        }
    }
}

/// The base type of the sequence or array type `t`, open; `None` when HDF5 fails.
fn super_type(t: hid_t) -> Option<Object> {
    // SAFETY: `t` is an open type (the caller's); the id is checked, and closed by
    // `Object`.
    let base = unsafe { H5Tget_super(t) };
    (base >= 0).then_some(Object {
        id: base,
        close: H5Tclose,
    })
}

/// A compound of the named lengths-only `parts`, packed.
///
/// # Safety
/// Each name is a NUL-terminated string.
unsafe fn compound_of(parts: &[(*mut c_char, Lengths)]) -> Measured {
    use hdf5_metno_sys::h5t::H5Tinsert;
    // SAFETY: the types are open; sizes come from HDF5; the compound id is checked, and
    // closed by `Object`; names per the contract.
    unsafe {
        let size: usize = parts
            .iter()
            .map(|(_, l)| H5Tget_size(l.memory_type.id))
            .sum();
        let id = H5Tcreate(H5T_class_t::H5T_COMPOUND, size.max(1));
        if id < 0 {
            return Measured::Unmeasurable;
        }
        let compound = Object {
            id,
            close: H5Tclose,
        };
        let mut offset = 0usize;
        for (name, lengths) in parts {
            if H5Tinsert(compound.id, *name, offset, lengths.memory_type.id) < 0 {
                return Measured::Unmeasurable;
            }
            offset += H5Tget_size(lengths.memory_type.id);
        }
        Measured::Lengths(Lengths {
            memory_type: compound,
            per_value: parts.iter().map(|(_, l)| l.per_value).sum(),
            unit: parts.iter().map(|(_, l)| l.unit).max().unwrap_or(1),
        })
    }
}

/// The opaque type the lengths are converted to.
fn length_type() -> Option<Object> {
    // SAFETY: the type id is checked, and closed by `Object`; the tag is NUL-terminated.
    unsafe {
        let id = H5Tcreate(H5T_class_t::H5T_OPAQUE, 4);
        if id < 0 {
            return None;
        }
        let length_type = Object {
            id,
            close: H5Tclose,
        };
        (H5Tset_tag(id, LENGTH_TAG.as_ptr()) >= 0).then_some(length_type)
    }
}

/// Registers the conversion from stored variable-length values to their lengths, once.
fn register(_lib: &Lib) {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        let Some(length_type) = length_type() else {
            return;
        };
        // SAFETY: the string type's id is checked and closed; the registration copies
        // what it needs from the two types; the function has H5T_conv_t's signature.
        unsafe {
            let strings = H5Tcopy(*H5T_C_S1);
            if strings < 0 {
                return;
            }
            let strings = Object {
                id: strings,
                close: H5Tclose,
            };
            if H5Tset_size(strings.id, H5T_VARIABLE) < 0 {
                return;
            }
            H5Tregister(
                H5T_pers_t::H5T_PERS_SOFT,
                c"nctools lengths".as_ptr(),
                strings.id,
                length_type.id,
                Some(convert_to_lengths),
            );
        }
    });
}

/// The conversion HDF5 runs from an attribute's stored variable-length values (strings
/// or sequences, in the file's form: a 4-byte little-endian length, then a heap
/// reference) to [`length_type`]: each value's length, as a native `u32`. Any other pair
/// of types is declined.
extern "C" fn convert_to_lengths(
    source: hid_t,
    destination: hid_t,
    data: *mut H5T_cdata_t,
    count: usize,
    stride: usize,
    _background_stride: usize,
    buffer: *mut c_void,
    _background: *mut c_void,
    _transfer: hid_t,
) -> herr_t {
    if data.is_null() {
        return -1;
    }
    // SAFETY: HDF5 passes its live conversion data.
    let data = unsafe { &mut *data };
    match data.command {
        H5T_cmd_t::H5T_CONV_INIT => {
            data.need_bkg = H5T_bkg_t::H5T_BKG_NO;
            if is_stored_variable(source) && is_length_type(destination) {
                0
            } else {
                -1
            }
        }
        H5T_cmd_t::H5T_CONV_CONV => {
            // SAFETY: the source type id is HDF5's, open during the call.
            let source_size = unsafe { H5Tget_size(source) };
            if buffer.is_null() || source_size < 4 {
                return -1;
            }
            let (from, to) = if stride == 0 {
                (source_size, 4)
            } else {
                (stride, stride)
            };
            let bytes = buffer.cast::<u8>();
            for i in 0..count {
                // SAFETY: the buffer holds `count` values of the source type `from` bytes
                // apart, each at least 4 bytes; the lengths are written `to` <= `from`
                // bytes apart, in order, so each value is read before anything is
                // written over it.
                unsafe {
                    let mut length = [0u8; 4];
                    std::ptr::copy_nonoverlapping(bytes.add(i * from), length.as_mut_ptr(), 4);
                    let length = u32::from_le_bytes(length);
                    std::ptr::write_unaligned(bytes.add(i * to).cast::<u32>(), length);
                }
            }
            0
        }
        H5T_cmd_t::H5T_CONV_FREE => 0,
    }
}

/// Whether `source` is a variable-length string or sequence in the file's form (a
/// string's memory form is a pointer, shorter than the file's 10 to 16 bytes).
fn is_stored_variable(source: hid_t) -> bool {
    // SAFETY: the id is HDF5's, open during the conversion call.
    unsafe {
        if H5Tis_variable_str(source) > 0 {
            H5Tget_size(source) > size_of::<*const c_char>()
        } else {
            H5Tget_class(source) == H5T_class_t::H5T_VLEN
        }
    }
}

/// Whether `destination` is nctools' length type.
fn is_length_type(destination: hid_t) -> bool {
    // SAFETY: the id is HDF5's, open during the conversion call; the tag HDF5 returns is
    // NUL-terminated and freed once, here, with libc's free (HDF5 allocates it with
    // malloc).
    unsafe {
        if H5Tget_class(destination) != H5T_class_t::H5T_OPAQUE || H5Tget_size(destination) != 4 {
            return false;
        }
        let tag = H5Tget_tag(destination);
        if tag.is_null() {
            return false;
        }
        let same = CStr::from_ptr(tag) == LENGTH_TAG;
        libc::free(tag.cast());
        same
    }
}
