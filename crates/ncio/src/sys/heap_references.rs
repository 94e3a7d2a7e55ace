//! The heap references of a netCDF-4 file's variable-length values, read without
//! reading the values, and checked against the file's global heap
//! ([`super::global_heap`]) before libhdf5 reads them.
//!
//! A conversion function registered with HDF5 turns each stored value (its length and a
//! reference to a heap object, in the file's form) into nctools' own 16-byte opaque
//! type, which nothing else converts to: the bytes the object must hold, and where it
//! is. Reading an attribute or a slab as a type made of those
//! ([`references_type`]) materialises nothing, so what the values would take is known
//! before they are read (an 878 KB file whose attribute named one large string from
//! every element made `ncdump -h` take 4.7 GB), and every reference is checked against
//! its heap object (libhdf5 1.10 copies a whole object into a buffer sized from the
//! stored length).

use std::ffi::{c_char, c_uint, c_void, CStr, CString};
use std::os::fd::RawFd;
use std::sync::Once;

use hdf5_metno_sys::h5::{herr_t, hsize_t};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5t::{
    H5T_bkg_t, H5T_cdata_t, H5T_class_t, H5T_cmd_t, H5T_pers_t, H5Tclose, H5Tcopy, H5Tcreate,
    H5Tget_class, H5Tget_size, H5Tget_super, H5Tget_tag, H5Tis_variable_str, H5Tregister,
    H5Tset_size, H5Tset_tag, H5T_C_S1, H5T_VARIABLE,
};

use super::global_heap::{check_references, HeapLayout, HeapReference, ReadAt};
use super::hdf5::Object;
use super::Lib;

/// The tag of the opaque type the references are converted to.
const REFERENCE_TAG: &CStr = c"nctools: a variable-length value's heap reference";

/// The bytes of one converted reference.
const REFERENCE_SIZE: usize = 16;

extern "C" {
    /// HDF5's POSIX (`sec2`) file driver's id, which `H5FD_SEC2` names in C.
    fn H5FD_sec2_init() -> hid_t;
}

/// The heap of an open HDF5 file, read through HDF5's own file descriptor (the file
/// HDF5 reads, not a path opened again).
pub(super) struct FileHeap {
    descriptor: RawFd,
    layout: HeapLayout,
}

impl FileHeap {
    /// The heap of the open HDF5 file `file` (opened with HDF5's default, POSIX driver);
    /// `None` when HDF5 cannot tell its layout or descriptor.
    pub(super) fn of_file(_lib: &Lib, file: hid_t) -> Option<Self> {
        use hdf5_metno_sys::h5f::{H5Fget_access_plist, H5Fget_create_plist, H5Fget_vfd_handle};
        use hdf5_metno_sys::h5p::{H5Pclose, H5Pget_driver, H5Pget_sizes, H5Pget_userblock};
        // SAFETY: the file is open (the caller's); each property list is checked and
        // closed once; the sizes and the handle are written by HDF5 into valid places;
        // the POSIX driver's handle points to its `int` descriptor, which lives as long
        // as the file stays open (the caller keeps it open while this is used).
        unsafe {
            let access = H5Fget_access_plist(file);
            if access < 0 {
                return None;
            }
            let driver = H5Pget_driver(access);
            let posix = driver >= 0 && driver == H5FD_sec2_init();
            let mut handle: *mut c_void = std::ptr::null_mut();
            let got = posix && H5Fget_vfd_handle(file, access, &mut handle) >= 0;
            H5Pclose(access);
            if !got || handle.is_null() {
                return None;
            }
            let descriptor = *handle.cast::<libc::c_int>();
            let create = H5Fget_create_plist(file);
            if create < 0 {
                return None;
            }
            let (mut address_size, mut length_size, mut user_block) = (0usize, 0usize, 0);
            let known = H5Pget_sizes(create, &mut address_size, &mut length_size) >= 0
                && H5Pget_userblock(create, &mut user_block) >= 0;
            H5Pclose(create);
            known.then_some(Self {
                descriptor,
                layout: HeapLayout {
                    base: user_block,
                    length_size,
                    address_size,
                },
            })
        }
    }

    /// The file's layout: its base address and the sizes of its addresses and lengths.
    pub(super) fn layout(&self) -> HeapLayout {
        self.layout
    }

    /// Checks `references` against the heap ([`check_references`]).
    pub(super) fn check(&self, references: &mut Vec<HeapReference>) -> Result<(), String> {
        check_references(self, self.layout, references)
    }

    /// The bytes of the heap objects `references` name (at most `max` in all).
    pub(super) fn objects(
        &self,
        references: &[HeapReference],
        max: u64,
    ) -> Result<Vec<Vec<u8>>, String> {
        super::global_heap::objects_bytes(self, self.layout, references, max)
    }
}

impl FileHeap {
    /// `fstat` of the file HDF5 reads.
    fn status(&self) -> std::io::Result<libc::stat> {
        // SAFETY: a zeroed stat is a valid place for fstat to write; the descriptor is
        // open (see `of_file`).
        let mut status: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::fstat(self.descriptor, &mut status) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(status)
    }
}

impl ReadAt for FileHeap {
    fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
        let mut done = 0;
        while done < buffer.len() {
            let at = i64::try_from(offset + done as u64).map_err(std::io::Error::other)?;
            // SAFETY: the descriptor is open (see `of_file`); the destination is the
            // rest of `buffer`, `buffer.len() - done` bytes.
            let read = unsafe {
                libc::pread(
                    self.descriptor,
                    buffer[done..].as_mut_ptr().cast(),
                    buffer.len() - done,
                    at,
                )
            };
            match read {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n if n < 0 => {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
                n => done += n.unsigned_abs(),
            }
        }
        Ok(())
    }

    fn length(&self) -> std::io::Result<u64> {
        u64::try_from(self.status()?.st_size).map_err(std::io::Error::other)
    }

    fn stored(&self) -> std::io::Result<u64> {
        let status = self.status()?;
        let length = u64::try_from(status.st_size).map_err(std::io::Error::other)?;
        let blocks = u64::try_from(status.st_blocks).map_err(std::io::Error::other)?;
        Ok(length.min(blocks.saturating_mul(512)))
    }
}

/// What reading a type's heap references takes.
pub(super) enum Measured {
    /// The type holds no variable-length part.
    Nothing,
    /// It holds a sequence of variable-length values, whose inner references are in the
    /// heap, out of reach of one conversion ([`references_at_depth`] reaches them).
    Unmeasurable,
    /// Read it as this type: its variable-length parts' references, nothing else.
    References(References),
}

/// A type made of the heap references of another's variable-length parts.
pub(super) struct References {
    /// The type: a reference, or a compound or array of them.
    pub(super) memory_type: Object,
    /// How many references one value holds.
    pub(super) per_value: usize,
}

/// The references-only type of the file type `t` (see [`Measured`]): each
/// variable-length string or sequence becomes [`reference_type`] (16 bytes), compound
/// members without one are left out (HDF5 converts members by name), and arrays keep
/// their dimensions.
pub(super) fn references_type(t: hid_t) -> Measured {
    if references_at_depth(t, 1).is_some() {
        return Measured::Unmeasurable;
    }
    match references_at_depth(t, 0) {
        None => Measured::Nothing,
        Some((memory_type, shape)) => Measured::References(References {
            memory_type,
            per_value: shape.references(),
        }),
    }
}

/// Where the references lie in a memory type made by [`references_at_depth`].
pub(super) enum Shape {
    /// One reference ([`REFERENCE_SIZE`] bytes).
    Reference,
    /// A memory sequence (`hvl_t`: its length, then a pointer to its elements), of
    /// elements of `size` bytes each.
    Sequence { inner: Box<Shape>, size: usize },
    /// `count` elements of `size` bytes each.
    Array {
        inner: Box<Shape>,
        count: usize,
        size: usize,
    },
    /// Members, each at its offset.
    Compound(Vec<(usize, Shape)>),
}

impl Shape {
    /// How many references one value holds, not counting those inside sequences.
    fn references(&self) -> usize {
        match self {
            Shape::Reference => 1,
            Shape::Sequence { .. } => 0,
            Shape::Array { inner, count, .. } => inner.references().saturating_mul(*count),
            Shape::Compound(members) => members.iter().map(|(_, m)| m.references()).sum(),
        }
    }

    /// The references of the value at `value` (of this shape), sequences followed.
    ///
    /// # Safety
    /// `value` points to a value of the type this shape describes, written by HDF5 (its
    /// sequences' pointers are null or point to their elements).
    pub(super) unsafe fn collect(&self, value: *const u8, out: &mut Vec<HeapReference>) {
        // SAFETY: per the contract: every offset below lies within the value, and a
        // sequence's elements lie where its pointer says.
        unsafe {
            match self {
                Shape::Reference => {
                    let mut bytes = [0u8; REFERENCE_SIZE];
                    std::ptr::copy_nonoverlapping(value, bytes.as_mut_ptr(), REFERENCE_SIZE);
                    out.extend(decode_references(&bytes));
                }
                Shape::Sequence { inner, size } => {
                    let length = std::ptr::read_unaligned(value.cast::<usize>());
                    let elements =
                        std::ptr::read_unaligned(value.add(size_of::<usize>()).cast::<*const u8>());
                    if !elements.is_null() {
                        for i in 0..length {
                            inner.collect(elements.add(i * size), out);
                        }
                    }
                }
                Shape::Array { inner, count, size } => {
                    for i in 0..*count {
                        inner.collect(value.add(i * size), out);
                    }
                }
                Shape::Compound(members) => {
                    for (offset, member) in members {
                        member.collect(value.add(*offset), out);
                    }
                }
            }
        }
    }
}

/// The memory type that reads the references `depth` sequences deep in values of the
/// file type `t`, and its [`Shape`]: sequences less deep are read as memory sequences
/// (their heap objects, whose references a shallower read checked), those at `depth`
/// as [`reference_type`]; compound members without such references are left out (HDF5
/// converts members by name), arrays keep their dimensions. `None` when no value of `t`
/// holds references that deep, or HDF5 fails.
pub(super) fn references_at_depth(t: hid_t, depth: usize) -> Option<(Object, Shape)> {
    use hdf5_metno_sys::h5t::{
        H5Tarray_create2, H5Tget_array_dims2, H5Tget_array_ndims, H5Tget_member_name,
        H5Tget_member_type, H5Tget_nmembers, H5Tinsert, H5Tvlen_create,
    };
    let made = |id: hid_t| {
        (id >= 0).then_some(Object {
            id,
            close: H5Tclose,
        })
    };
    // SAFETY: `t` is an open type (the caller's); every id made here is checked and
    // closed by `Object`; member names from HDF5 are NUL-terminated and freed once.
    unsafe {
        match H5Tget_class(t) {
            H5T_class_t::H5T_STRING if H5Tis_variable_str(t) > 0 => (depth == 0)
                .then(|| Some((reference_type()?, Shape::Reference)))
                .flatten(),
            H5T_class_t::H5T_VLEN if depth == 0 => Some((reference_type()?, Shape::Reference)),
            H5T_class_t::H5T_VLEN => {
                let base = super_type(t)?;
                let (inner, shape) = references_at_depth(base.id, depth - 1)?;
                let size = H5Tget_size(inner.id);
                let sequence = made(H5Tvlen_create(inner.id))?;
                Some((
                    sequence,
                    Shape::Sequence {
                        inner: Box::new(shape),
                        size,
                    },
                ))
            }
            H5T_class_t::H5T_ARRAY => {
                let base = super_type(t)?;
                let (inner, shape) = references_at_depth(base.id, depth)?;
                let rank_len = usize::try_from(H5Tget_array_ndims(t)).ok()?;
                let mut dims: Vec<hsize_t> = vec![0; rank_len.max(1)];
                if H5Tget_array_dims2(t, dims.as_mut_ptr()) < 0 {
                    return None;
                }
                let count = dims[..rank_len]
                    .iter()
                    .try_fold(1usize, |n, d| n.checked_mul(usize::try_from(*d).ok()?))?;
                let rank = c_uint::try_from(rank_len).ok()?;
                let size = H5Tget_size(inner.id);
                let array = made(H5Tarray_create2(inner.id, rank, dims.as_ptr()))?;
                Some((
                    array,
                    Shape::Array {
                        inner: Box::new(shape),
                        count,
                        size,
                    },
                ))
            }
            H5T_class_t::H5T_COMPOUND => {
                let members = u32::try_from(H5Tget_nmembers(t)).unwrap_or(0);
                let mut parts: Vec<(CString, Object, Shape)> = Vec::new();
                for i in 0..members {
                    let member = made(H5Tget_member_type(t, i))?;
                    let Some((memory, shape)) = references_at_depth(member.id, depth) else {
                        continue;
                    };
                    let name = H5Tget_member_name(t, i);
                    if name.is_null() {
                        return None;
                    }
                    let owned = CStr::from_ptr(name).to_owned();
                    libc::free(name.cast());
                    parts.push((owned, memory, shape));
                }
                if parts.is_empty() {
                    return None;
                }
                let size: usize = parts.iter().map(|(_, m, _)| H5Tget_size(m.id)).sum();
                let compound = made(H5Tcreate(H5T_class_t::H5T_COMPOUND, size.max(1)))?;
                let mut offset = 0usize;
                let mut shapes = Vec::with_capacity(parts.len());
                for (name, memory, shape) in parts {
                    if H5Tinsert(compound.id, name.as_ptr(), offset, memory.id) < 0 {
                        return None;
                    }
                    shapes.push((offset, shape));
                    offset += H5Tget_size(memory.id);
                }
                Some((compound, Shape::Compound(shapes)))
            }
            _ => None,
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

/// The opaque type the stored references are converted to ([`REFERENCE_SIZE`] bytes).
fn reference_type() -> Option<Object> {
    // SAFETY: the type id is checked, and closed by `Object`; the tag is NUL-terminated.
    unsafe {
        let id = H5Tcreate(H5T_class_t::H5T_OPAQUE, REFERENCE_SIZE);
        if id < 0 {
            return None;
        }
        let reference_type = Object {
            id,
            close: H5Tclose,
        };
        (H5Tset_tag(id, REFERENCE_TAG.as_ptr()) >= 0).then_some(reference_type)
    }
}

/// Registers the conversion from stored variable-length values to their references,
/// once.
pub(super) fn register(_lib: &Lib) {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        let Some(reference_type) = reference_type() else {
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
                c"nctools heap references".as_ptr(),
                strings.id,
                reference_type.id,
                Some(convert_to_references),
            );
        }
    });
}

/// The conversion HDF5 runs from stored variable-length values (strings or sequences, in
/// the file's form: a 4-byte little-endian length, the heap collection's address in the
/// file's address size, the object's 4-byte index) to [`reference_type`]: the bytes the
/// object must hold (the length times one element's stored size), then the address
/// (48 bits) and index (16 bits) in one word, both native little-endian `u64`s. An
/// address or index too large for its bits is written as index 0, which names no
/// object. Any other pair of types is declined.
extern "C" fn convert_to_references(
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
            if is_stored_variable(source) && is_reference_type(destination) {
                0
            } else {
                -1
            }
        }
        H5T_cmd_t::H5T_CONV_CONV => {
            // SAFETY: the source type id is HDF5's, open during the call.
            let source_size = unsafe { H5Tget_size(source) };
            let Some(unit) = element_size(source) else {
                return -1;
            };
            if buffer.is_null() || !(10..=16).contains(&source_size) {
                return -1;
            }
            let (from, to) = if stride == 0 {
                (source_size, REFERENCE_SIZE)
            } else {
                (stride, stride)
            };
            let bytes = buffer.cast::<u8>();
            let convert = |i: usize| {
                let mut stored = [0u8; 16];
                // SAFETY: the buffer holds `count` values `from` bytes apart (HDF5 sizes
                // it for the larger of the two types), each `source_size` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        bytes.add(i * from),
                        stored.as_mut_ptr(),
                        source_size,
                    );
                }
                let reference = encode_reference(&stored[..source_size], unit);
                // SAFETY: each reference is written at `to` bytes apart, within the
                // buffer (as above).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        reference.as_ptr(),
                        bytes.add(i * to),
                        REFERENCE_SIZE,
                    );
                }
            };
            // Written in an order in which no value is written over before it is read:
            // from the last when the references are wider than the stored values.
            if to > from {
                (0..count).rev().for_each(convert);
            } else {
                (0..count).for_each(convert);
            }
            0
        }
        H5T_cmd_t::H5T_CONV_FREE => 0,
    }
}

/// The bytes one element of the stored variable-length type `source` takes in the heap:
/// 1 for a string, the base type's stored size for a sequence.
fn element_size(source: hid_t) -> Option<u64> {
    // SAFETY: the id is HDF5's, open during the conversion call.
    if unsafe { H5Tis_variable_str(source) } > 0 {
        return Some(1);
    }
    let base = super_type(source)?;
    // SAFETY: the base type is open (`base` is alive).
    u64::try_from(unsafe { H5Tget_size(base.id) }).ok()
}

/// The reference ([`REFERENCE_SIZE`] bytes) of one stored value `stored` (4-byte length,
/// address, 4-byte index) whose elements take `unit` bytes.
fn encode_reference(stored: &[u8], unit: u64) -> [u8; REFERENCE_SIZE] {
    let word = |b: &[u8]| b.iter().rev().fold(0u64, |n, x| (n << 8) | u64::from(*x));
    let address_size = stored.len() - 8;
    let length = word(&stored[..4]);
    let address = word(&stored[4..4 + address_size]);
    let index = word(&stored[4 + address_size..]);
    let located = match u16::try_from(index) {
        Ok(index) if address < 1 << 48 => address | (u64::from(index) << 48),
        _ => (1 << 48) - 1,
    };
    let mut reference = [0u8; REFERENCE_SIZE];
    reference[..8].copy_from_slice(&length.saturating_mul(unit).to_le_bytes());
    reference[8..].copy_from_slice(&located.to_le_bytes());
    reference
}

/// The references in `buffer`, which holds values of a [`references_type`] (its
/// references back to back).
pub(super) fn decode_references(buffer: &[u8]) -> Vec<HeapReference> {
    buffer
        .chunks_exact(REFERENCE_SIZE)
        .map(|r| {
            let word =
                |b: &[u8]| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            let located = word(&r[8..]);
            HeapReference {
                address: located & ((1 << 48) - 1),
                index: (located >> 48) as u16,
                bytes: word(&r[..8]),
            }
        })
        .collect()
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

/// Whether `destination` is nctools' reference type.
fn is_reference_type(destination: hid_t) -> bool {
    // SAFETY: the id is HDF5's, open during the conversion call; the tag HDF5 returns is
    // NUL-terminated and freed once, here, with libc's free (HDF5 allocates it with
    // malloc).
    unsafe {
        if H5Tget_class(destination) != H5T_class_t::H5T_OPAQUE
            || H5Tget_size(destination) != REFERENCE_SIZE
        {
            return false;
        }
        let tag = H5Tget_tag(destination);
        if tag.is_null() {
            return false;
        }
        let same = CStr::from_ptr(tag) == REFERENCE_TAG;
        libc::free(tag.cast());
        same
    }
}
