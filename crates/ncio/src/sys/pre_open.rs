//! What nctools checks in a netCDF-4 file with HDF5 before libnetcdf opens it, because
//! libnetcdf would act on it at once: objects that make HDF5 read another file
//! ([`super::foreign_storage`]), variable-length attributes that would take more memory
//! than the file could hold ([`super::attribute_strings`]), and a variable stored under
//! two names (`v` and `_nc4_non_coord_v`), which libnetcdf lists twice while nctools'
//! checks of its chunks would look at one of them only.

use std::ffi::{c_char, c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt;

use hdf5_metno_sys::h5::{herr_t, H5_index_t, H5_iter_order_t};
use hdf5_metno_sys::h5f::H5F_ACC_RDONLY;
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5l::{H5L_info1_t, H5L_type_t, H5Lexists, H5Lvisit1};
use hdf5_metno_sys::h5p::H5P_DEFAULT;

use super::hdf5::{init, open_file, Object};
use super::{attribute_strings, filtered_heaps, foreign_storage, object_headers, Lib};

/// The prefix libnetcdf gives the dataset of a variable named like a dimension it does
/// not start with.
const NON_COORD_PREFIX: &str = "_nc4_non_coord_";

/// Why a file is refused before it is opened.
pub(crate) enum Refusal {
    /// An object reads another file (described for people).
    ReachesAnotherFile(String),
    /// The variable-length attributes would take more than their budget (the first
    /// attribute past it, described for people).
    OversizedAttributes(String),
    /// A variable stored under two names (its path, described for people).
    TwoDatasets(String),
    /// An object reached by several hard links (its path and count).
    LinkedTwice(String),
    /// A soft link (its path): libnetcdf reads what it names once more, and a link to a
    /// group above it for ever.
    SoftLink(String),
    /// An attribute's variable-length value names a heap object that does not match it
    /// (the attribute, and what is wrong).
    BadReference(String),
    /// A fractal heap of the file's metadata is filtered, or an object header cannot be
    /// read to tell (where, and what is wrong).
    FilteredHeap(String),
    /// The file has this many bytes of holes (a sparse file).
    Sparse(u64),
    /// The file has HDF5's signature, but HDF5 cannot open it for the checks.
    Unopenable,
}

/// The most bytes of holes an HDF5 file may have ([`kv::input_file::MAX_HOLE_BYTES`]).
/// libhdf5 trusts the sizes of its structures (heaps, attributes, chunks) as far as the
/// file's length, and a hole costs nothing to make: a 4 KB sparse file stating a 1 GB
/// heap took 2 GB. Real files have none (HDF5 writes what it allocates).
const MAX_HOLE_BYTES: u64 = kv::input_file::MAX_HOLE_BYTES;

/// The bytes of holes in the file `path` ([`kv::input_file::hole_bytes`]).
fn hole_bytes(path: &CStr) -> Option<u64> {
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(path.to_bytes()));
    kv::input_file::hole_bytes(&std::fs::File::open(path).ok()?)
}

/// What is wrong with the object headers HDF5's open would load from the file `path`
/// ([`object_headers::check_opened_headers`]); `None` when nothing is (or it cannot be
/// read: HDF5 then says so).
fn opened_headers(path: &CStr) -> Option<String> {
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(path.to_bytes()));
    let file = std::fs::File::open(path).ok()?;
    object_headers::check_opened_headers(&file).err()
}

/// Why the HDF5 file `path` is to be refused before libnetcdf opens it, its
/// variable-length attributes taking at most `attribute_budget` bytes once read; `None`
/// when it may be opened, or when it has no HDF5 signature (libnetcdf then says what it
/// is).
pub(crate) fn refusal_before_open(
    lib: &Lib,
    path: &CStr,
    attribute_budget: usize,
) -> Option<Refusal> {
    init(lib);
    // Before HDF5 opens it: opening loads the root group's header at its stated size
    // (before, a 4 KB sparse file whose root header said 1.5e9 bytes took 2.96 GB).
    // SAFETY: path is NUL-terminated; H5Fis_hdf5 only looks for the superblock's
    // signature.
    if unsafe { hdf5_metno_sys::h5f::H5Fis_hdf5(path.as_ptr()) } <= 0 {
        return None;
    }
    if let Some(holes) = hole_bytes(path).filter(|h| *h > MAX_HOLE_BYTES) {
        return Some(Refusal::Sparse(holes));
    }
    // The headers HDF5's open loads, read by nctools first.
    if let Some(what) = opened_headers(path) {
        return Some(Refusal::FilteredHeap(what));
    }
    // A file the checks cannot open is not handed to libnetcdf unchecked (its open
    // differs: another access property list, another attempt).
    let Some(file) = open_file(lib, path, H5F_ACC_RDONLY) else {
        return Some(Refusal::Unopenable);
    };
    // First: every other check lists links and attributes, which reads their heaps.
    let mut linked = std::collections::HashSet::new();
    if let Some(what) = filtered_heaps::filtered_heap(lib, &file, &mut linked) {
        return Some(Refusal::FilteredHeap(what));
    }
    if let Some(what) = foreign_storage::reaches_another_file(lib, &file) {
        return Some(Refusal::ReachesAnotherFile(what));
    }
    if let Some(found) = stored_twice(&file) {
        return Some(found);
    }
    attribute_strings::oversized_attributes(lib, file.id, attribute_budget, &linked).map(
        |refusal| match refusal {
            attribute_strings::AttributeRefusal::Oversized(what) => {
                Refusal::OversizedAttributes(what)
            }
            attribute_strings::AttributeRefusal::LinkedTwice(what) => Refusal::LinkedTwice(what),
            attribute_strings::AttributeRefusal::BadReference(what) => Refusal::BadReference(what),
            attribute_strings::AttributeRefusal::Structure(what) => Refusal::FilteredHeap(what),
        },
    )
}

/// The first link `…/_nc4_non_coord_X` of the open `file` beside a link `…/X` in the same
/// group, as `/…/X`; `None` when there is none.
fn stored_twice(file: &Object) -> Option<Refusal> {
    let mut found: Option<Refusal> = None;
    // SAFETY: the file is open; the callback has H5Lvisit's signature and `found`
    // outlives the call, which is synchronous.
    unsafe {
        H5Lvisit1(
            file.id,
            H5_index_t::H5_INDEX_NAME,
            // Native order builds no table (red team s34 RH12: by name, libhdf5 sorted
            // a table sized by a count the file states).
            H5_iter_order_t::H5_ITER_NATIVE,
            Some(visit),
            std::ptr::from_mut(&mut found).cast(),
        );
    }
    found
}

/// H5Lvisit's callback: stops (1) at a soft link, or at a `_nc4_non_coord_X` link whose
/// group also has `X`.
///
/// # Safety
/// HDF5's contract for `H5L_iterate1_t`: `root` is open, `name` (a path from it) is
/// NUL-terminated, `info` valid during the call; `data` is the `Option<Refusal>` given to
/// H5Lvisit.
unsafe extern "C" fn visit(
    root: hid_t,
    name: *const c_char,
    info: *const H5L_info1_t,
    data: *mut c_void,
) -> herr_t {
    if name.is_null() || data.is_null() {
        return 0;
    }
    // SAFETY: per the contract.
    let path = unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned();
    // (Before, a group soft-linked from ten places was read ten times, 1.5 GB, and a
    // soft link to a group above itself made libnetcdf recurse until it crashed.)
    // SAFETY: per the contract.
    if !info.is_null() && unsafe { (*info).type_ } == H5L_type_t::H5L_TYPE_SOFT {
        // SAFETY: per the contract.
        let found = unsafe { &mut *data.cast::<Option<Refusal>>() };
        *found = Some(Refusal::SoftLink(format!("/{path}")));
        return 1;
    }
    let (group, last) = match path.rsplit_once('/') {
        Some((group, last)) => (format!("{group}/"), last),
        None => (String::new(), path.as_str()),
    };
    let Some(plain) = last.strip_prefix(NON_COORD_PREFIX) else {
        return 0;
    };
    let Ok(sibling) = CString::new(format!("{group}{plain}")) else {
        return 0;
    };
    // SAFETY: root is open (the contract); the path is NUL-terminated, and its groups
    // exist (the visited link is in the same group).
    let exists = unsafe { H5Lexists(root, sibling.as_ptr(), H5P_DEFAULT) } > 0;
    // A dimension that is not a variable is stored under the plain name: that is how
    // libnetcdf writes a variable named like a dimension it does not start with.
    if exists && !is_dimension_only(root, &sibling) {
        // SAFETY: per the contract.
        let found = unsafe { &mut *data.cast::<Option<Refusal>>() };
        *found = Some(Refusal::TwoDatasets(format!("/{group}{plain}")));
        return 1;
    }
    0
}

/// What libnetcdf writes in the `NAME` attribute of a dimension without a variable.
const DIMENSION_ONLY: &[u8] = b"This is a netCDF dimension but not a netCDF variable";

/// Whether the object at `path` from `root` is a dimension without a variable: its `NAME`
/// attribute, a fixed-length string of at most 1 KiB, says so.
fn is_dimension_only(root: hid_t, path: &CStr) -> bool {
    use hdf5_metno_sys::h5a::{H5Aclose, H5Aget_space, H5Aget_type, H5Aopen_by_name, H5Aread};
    use hdf5_metno_sys::h5s::{H5Sclose, H5Sget_simple_extent_npoints};
    use hdf5_metno_sys::h5t::{H5Tclose, H5Tget_size, H5Tis_variable_str};
    // SAFETY: root is open and path NUL-terminated (the caller's); each id is checked and
    // closed by `Object`; the buffer holds the attribute's one fixed-length string of the
    // type's size (at most 1 KiB, checked before the read).
    unsafe {
        let attribute = H5Aopen_by_name(
            root,
            path.as_ptr(),
            c"NAME".as_ptr(),
            H5P_DEFAULT,
            H5P_DEFAULT,
        );
        if attribute < 0 {
            return false;
        }
        let attribute = Object {
            id: attribute,
            close: H5Aclose,
        };
        let string_type = H5Aget_type(attribute.id);
        if string_type < 0 {
            return false;
        }
        let string_type = Object {
            id: string_type,
            close: H5Tclose,
        };
        let size = H5Tget_size(string_type.id);
        if H5Tis_variable_str(string_type.id) != 0 || size == 0 || size > 1024 {
            return false;
        }
        // One string, no more: the buffer holds one (red team s34 RH4: 2,000 of them
        // overflowed it, SIGBUS).
        let space = H5Aget_space(attribute.id);
        if space < 0 {
            return false;
        }
        let points = H5Sget_simple_extent_npoints(space);
        H5Sclose(space);
        if points != 1 {
            return false;
        }
        let mut text = vec![0u8; size];
        if H5Aread(attribute.id, string_type.id, text.as_mut_ptr().cast()) < 0 {
            return false;
        }
        text.starts_with(DIMENSION_ONLY)
    }
}
