//! What the variable-length attributes of a netCDF-4 file would take once read, measured
//! before libnetcdf reads them, and their heap references checked.
//!
//! An attribute of `string` (or vlen) type holds 16-byte references into the file's heap,
//! and nothing stops every element from naming one large heap object: libnetcdf reads an
//! object's attributes whole, so an 878 KB file made even `ncdump -h` take 4.7 GB. HDF5
//! materialises each copy whatever transfer list is given, so the references are read
//! instead ([`super::heap_references`]), and each is checked against its heap object
//! (one larger than its length overflowed libhdf5's buffer).

use std::collections::HashSet;
use std::ffi::{c_char, c_void, CStr};

use hdf5_metno_sys::h5::{herr_t, hsize_t, H5_index_t, H5_iter_order_t};
use hdf5_metno_sys::h5a::{
    H5A_info_t, H5Aclose, H5Aget_space, H5Aget_type, H5Aiterate_by_name, H5Aopen, H5Aread,
};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5o::{H5O_info1_t, H5O_type_t, H5Ovisit2, H5O_INFO_BASIC};
use hdf5_metno_sys::h5p::H5P_DEFAULT;
use hdf5_metno_sys::h5s::{H5Sclose, H5Sget_simple_extent_ndims, H5Sget_simple_extent_npoints};
use hdf5_metno_sys::h5t::{H5Tclose, H5Tget_size};

use super::global_heap::HeapReference;
use super::hdf5::Object;
use super::heap_references::{decode_references, references_type, FileHeap, Measured};
use super::Lib;

/// Why the attributes of a file may not be read.
pub(crate) enum AttributeRefusal {
    /// The variable-length attributes would take more than the budget: the first
    /// attribute past it, described for people.
    Oversized(String),
    /// An object is reached by more than one hard link, and libnetcdf would read it (its
    /// attributes, and a group's whole tree) once per link: its path and link count.
    LinkedTwice(String),
    /// A variable-length value of an attribute names a heap object that does not match
    /// it: the attribute, and what is wrong.
    BadReference(String),
    /// An object's structure is one libhdf5 would mishandle (an index that states more
    /// than it holds): the object, and what is wrong.
    Structure(String),
}

/// Why the attributes of the open HDF5 `file` may not be read: variable-length
/// attributes of the whole file that would take more than `budget` bytes once read, or
/// an object reached by several hard links; `None` when they fit (or HDF5 cannot tell).
pub(crate) fn oversized_attributes(
    lib: &Lib,
    file: hid_t,
    budget: usize,
    linked: &HashSet<u64>,
) -> Option<AttributeRefusal> {
    super::heap_references::register(lib);
    let mut walk = Walk {
        heap: FileHeap::of_file(lib, file),
        budget,
        used: 0,
        found: None,
        linked,
    };
    // SAFETY: the file is open (the caller's); the callback has H5Ovisit's signature and
    // `walk` outlives the call, which is synchronous.
    unsafe {
        H5Ovisit2(
            file,
            H5_index_t::H5_INDEX_NAME,
            H5_iter_order_t::H5_ITER_NATIVE,
            Some(visit_object),
            std::ptr::from_mut(&mut walk).cast(),
            H5O_INFO_BASIC,
        );
    }
    walk.found
}

/// The state of one walk.
struct Walk<'l> {
    /// The file's heap, when HDF5 tells where it is (else references are not checked).
    heap: Option<FileHeap>,
    budget: usize,
    used: usize,
    found: Option<AttributeRefusal>,
    /// The objects the file's hard links name (every object the walk may reach).
    linked: &'l HashSet<u64>,
}

/// The attribute being measured, for its callback.
struct AttributeWalk<'w, 'l> {
    walk: &'w mut Walk<'l>,
    object: String,
    /// The attributes met so far.
    met: u64,
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
    let walk = unsafe { &mut *data.cast::<Walk<'_>>() };
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
    // A group's link index, checked before anything iterates its links in another order
    // (see index_counts).
    if kind == H5O_type_t::H5O_TYPE_GROUP {
        // SAFETY: root is open and name one of its groups (per the contract).
        if let Err(wrong) = unsafe { super::index_counts::check_links(root, name) } {
            walk.found = Some(AttributeRefusal::Structure(format!("/{object}: {wrong}")));
            return 1;
        }
    }
    let mut attributes = AttributeWalk {
        walk,
        object,
        met: 0,
    };
    let mut index: hsize_t = 0;
    // In the heap's own order HDF5 reads one attribute at a time; in any other order
    // it first reads all of an object's dense attributes into a table, values and all
    // (before, 20 attributes stating 20 MB each in a 21 MB file took 480 MB here).
    // SAFETY: root is open and name one of its objects (per the contract); the callback
    // has H5Aiterate's signature and `attributes` outlives the synchronous call.
    unsafe {
        H5Aiterate_by_name(
            root,
            name,
            H5_index_t::H5_INDEX_NAME,
            H5_iter_order_t::H5_ITER_NATIVE,
            &mut index,
            Some(visit_attribute),
            std::ptr::from_mut(&mut attributes).cast(),
            H5P_DEFAULT,
        );
    }
    if attributes.walk.found.is_none() {
        // SAFETY: root is open and name one of its objects (per the contract).
        let checked = unsafe { super::index_counts::check_attributes(root, name, attributes.met) };
        if let Err(wrong) = checked {
            let object = &attributes.object;
            attributes.walk.found =
                Some(AttributeRefusal::Structure(format!("/{object}: {wrong}")));
        }
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
    let attributes = unsafe { &mut *data.cast::<AttributeWalk<'_, '_>>() };
    attributes.met += 1;
    // SAFETY: per the contract.
    let walk = &*attributes.walk;
    // SAFETY: per the contract.
    let Some(measured) =
        (unsafe { variable_bytes(location, name, walk.heap.as_ref(), walk.linked) })
    else {
        return 0;
    };
    // SAFETY: per the contract.
    let attribute = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    let object = match attributes.object.as_str() {
        "." => String::new(),
        other => format!("/{other}"),
    };
    let walk = &mut *attributes.walk;
    let bytes = match measured {
        Ok(bytes) => bytes,
        Err(wrong) => {
            walk.found = Some(AttributeRefusal::BadReference(format!(
                "{object}/{attribute}: {wrong}"
            )));
            return 1;
        }
    };
    walk.used = walk.used.saturating_add(bytes);
    if walk.used <= walk.budget {
        return 0;
    }
    walk.found = Some(AttributeRefusal::Oversized(format!(
        "{object}/{attribute}: its values, with the attributes before it, would take more \
         than {} bytes once read",
        walk.budget
    )));
    1
}

/// The bytes the attribute `name` of `location` takes once read: its values as stored,
/// and, when its type holds variable-length strings or sequences (at any depth of
/// compounds and arrays), what they take, their references checked against `heap`
/// (`Err` says what is wrong); `None` when HDF5 fails; `usize::MAX` for one that cannot
/// be measured (a sequence of variable-length values).
///
/// # Safety
/// `location` is open and `name` NUL-terminated.
unsafe fn variable_bytes(
    location: hid_t,
    name: *const c_char,
    heap: Option<&FileHeap>,
    linked: &HashSet<u64>,
) -> Option<Result<usize, String>> {
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
        let space = H5Aget_space(attribute.id);
        if space < 0 {
            return None;
        }
        let points = H5Sget_simple_extent_npoints(space);
        let rank = H5Sget_simple_extent_ndims(space);
        H5Sclose(space);
        let points = usize::try_from(points).ok()?;
        if CStr::from_ptr(name).to_bytes() == b"DIMENSION_LIST" {
            if let Err(wrong) = dimension_list_shape(location, file_type.id, rank, points) {
                return Some(Err(wrong));
            }
        }
        let checked = super::reserved_attributes::check(
            attribute.id,
            CStr::from_ptr(name).to_bytes(),
            file_type.id,
            points,
        );
        if let Err(wrong) = checked {
            return Some(Err(wrong));
        }
        // What libnetcdf reads of the values themselves, fixed-size ones included: the
        // values of several attributes may all name the same stored bytes (before, 12
        // attributes whose "huge" heap objects overlapped took 1.5 GB from 819 KB).
        // What nctools holds of them decoded (a user type's far more than stored:
        // before, 20 million one-byte compounds, 4 KB stored, took 2.26 GB), its type's
        // depth checked before HDF5 converts anything of it.
        let weight = match super::type_weight::weigh(file_type.id) {
            Ok(weight) => weight.total().max(H5Tget_size(file_type.id)),
            Err(wrong) => return Some(Err(wrong)),
        };
        let fixed = points.saturating_mul(weight);
        let references = match references_type(file_type.id) {
            Measured::Nothing => return Some(Ok(fixed)),
            Measured::Unmeasurable => return Some(Ok(usize::MAX)),
            Measured::References(references) => references,
        };
        // Sixteen bytes a reference, as many as each stored one takes (or more than the
        // 12 of a file of 4-byte addresses): what the attribute holds, give or take.
        let count = points.checked_mul(references.per_value)?;
        let mut values: Vec<u8> = Vec::new();
        values.try_reserve_exact(count.checked_mul(16)?).ok()?;
        values.resize(count * 16, 0);
        if count > 0
            && H5Aread(
                attribute.id,
                references.memory_type.id,
                values.as_mut_ptr().cast(),
            ) < 0
        {
            return None;
        }
        let mut found = decode_references(&values);
        // A value's memory: its bytes (and a string's NUL), and a pointer; a sequence's
        // elements as nctools holds them decoded (s33b HH7).
        let factor = super::type_weight::sequence_factor(file_type.id);
        let bytes = found.iter().fold(0usize, |total, r| {
            total.saturating_add(
                usize::try_from(r.bytes)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(factor)
                    .saturating_add(16),
            )
        });
        if let Some(heap) = heap {
            if let Err(wrong) = heap.check(&mut found) {
                return Some(Err(wrong));
            }
            // SAFETY: per the contract, NUL-terminated.
            // (An empty set: the object walk could not list the links.)
            if CStr::from_ptr(name).to_bytes() == b"DIMENSION_LIST" && !linked.is_empty() {
                if let Err(wrong) = dimension_scales_linked(heap, &found, linked) {
                    return Some(Err(wrong));
                }
            }
        }
        Some(Ok(bytes.saturating_add(fixed)))
    }
}

/// Checks that every object the `DIMENSION_LIST` references in `found` name (object
/// references, an address each, inside their heap objects) is one a hard link names:
/// libnetcdf opens each (`H5DSiterate_scales`), and one no link names is one the object
/// walk never read (s33b HH2: a self-sharing header reached only so crashed libhdf5).
fn dimension_scales_linked(
    heap: &FileHeap,
    found: &[HeapReference],
    linked: &HashSet<u64>,
) -> Result<(), String> {
    let width = heap.layout().address_size;
    let named: Vec<HeapReference> = found.iter().filter(|r| r.bytes > 0).copied().collect();
    for bytes in heap.objects(&named, 1 << 20)? {
        for address in bytes.chunks_exact(width) {
            let address = address
                .iter()
                .rev()
                .fold(0u64, |n, b| (n << 8) | u64::from(*b));
            if !linked.contains(&address) {
                return Err(format!(
                    "its dimension scales name an object at {address} that no link names \
                     (netCDF-4 dimension scales are variables of the file)"
                ));
            }
        }
    }
    Ok(())
}

/// Checks that the `DIMENSION_LIST` attribute of the object `location`, of `file_type`
/// and of `points` values in `rank` dimensions, is what HDF5's dimension scale calls
/// read: one sequence of object references per dimension of a dataset. They read it into
/// one `hvl_t` per dimension of the dataset, whatever the attribute holds (s33c NH1: a
/// plain integer attribute of that name had its bytes taken for a pointer, SIGSEGV; NH2:
/// more values than dimensions overflowed the buffer).
///
/// # Safety
/// `location` and `file_type` are open.
unsafe fn dimension_list_shape(
    location: hid_t,
    file_type: hid_t,
    rank: i32,
    points: usize,
) -> Result<(), String> {
    use hdf5_metno_sys::h5d::H5Dget_space;
    use hdf5_metno_sys::h5i::{H5I_type_t, H5Iget_type};
    use hdf5_metno_sys::h5t::{H5T_class_t, H5Tget_class, H5Tget_super};
    let wrong = || {
        "its dimension scales (DIMENSION_LIST) are not one sequence of object references \
         per dimension of its dataset"
            .to_string()
    };
    // SAFETY: per the contract; each id made here is checked, and closed once.
    unsafe {
        if H5Iget_type(location) != H5I_type_t::H5I_DATASET {
            return Ok(());
        }
        let space = H5Dget_space(location);
        if space < 0 {
            return Err(wrong());
        }
        let dataset_rank = H5Sget_simple_extent_ndims(space);
        H5Sclose(space);
        if H5Tget_class(file_type) != H5T_class_t::H5T_VLEN
            || rank != 1
            || usize::try_from(dataset_rank).ok() != Some(points)
        {
            return Err(wrong());
        }
        let base = H5Tget_super(file_type);
        if base < 0 {
            return Err(wrong());
        }
        let base = Object {
            id: base,
            close: H5Tclose,
        };
        if H5Tget_class(base.id) != H5T_class_t::H5T_REFERENCE {
            return Err(wrong());
        }
    }
    Ok(())
}
