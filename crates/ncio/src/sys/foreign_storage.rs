//! What in a netCDF-4 file would make HDF5 read another file: a dataset whose values are
//! kept in external raw files (`H5Pset_external`: any file the process can read,
//! `/proc/self/environ` included), a virtual dataset (its values mapped from other
//! files), or an external link. libnetcdf reads all three as ordinary variables and
//! groups, so a file of a kilobyte could print, or copy into a published output, a
//! file it names. They are found by walking the file's links with HDF5 before
//! libnetcdf opens it.

use std::ffi::{c_char, c_void, CStr};

use hdf5_metno_sys::h5::{herr_t, H5_index_t, H5_iter_order_t};
use hdf5_metno_sys::h5d::{H5D_layout_t, H5Dget_create_plist};
use hdf5_metno_sys::h5i::{hid_t, H5I_type_t, H5Iget_type};
use hdf5_metno_sys::h5l::{H5L_info1_t, H5L_type_t, H5Lvisit1};
use hdf5_metno_sys::h5o::{H5Oclose, H5Oopen_by_addr};
use hdf5_metno_sys::h5p::{H5Pclose, H5Pget_external_count, H5Pget_layout};

use super::hdf5::Object;
use super::Lib;

/// The first object of the open HDF5 `file` that reaches another file, described for
/// people (`/e: values kept in external files`); `None` when there is none.
pub(super) fn reaches_another_file(_lib: &Lib, file: &Object) -> Option<String> {
    let mut found: Option<String> = None;
    // SAFETY: the file is open (`file` is alive); the callback has H5Lvisit's signature
    // and `found` outlives the call, which is synchronous.
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

/// H5Lvisit's callback: stops (1) at the first link that reaches another file, noting it
/// in `data`; 0 goes on.
///
/// # Safety
/// HDF5's contract for `H5L_iterate1_t`: `group` is open, `name` is NUL-terminated and
/// `info` valid during the call; `data` is the `Option<String>` given to H5Lvisit.
unsafe extern "C" fn visit(
    group: hid_t,
    name: *const c_char,
    info: *const H5L_info1_t,
    data: *mut c_void,
) -> herr_t {
    if name.is_null() || info.is_null() || data.is_null() {
        return 0;
    }
    // SAFETY: per the contract.
    let (found, link_type) = unsafe { (&mut *data.cast::<Option<String>>(), (*info).type_) };
    // SAFETY: per the contract, NUL-terminated; copied at once.
    let shown = unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned();
    let why = match link_type {
        H5L_type_t::H5L_TYPE_EXTERNAL => Some("an external link, to another file"),
        // SAFETY: the group is open and the link a hard one, per the contract, so its
        // address is the union's member.
        H5L_type_t::H5L_TYPE_HARD => unsafe {
            let mut info = *info;
            dataset_reaches_out(group, *info.u.address())
        },
        _ => None,
    };
    match why {
        Some(why) => {
            *found = Some(format!("/{shown}: {why}"));
            1
        }
        None => 0,
    }
}

/// Why the object at `address` of the file of `location` reaches another file, if it is
/// a dataset that does. Opened by its address, not by its path: opening by a path from
/// the root walked the whole path and built each prefix's name, cubic in the depth of
/// the groups (2,000 nested groups, 294 KB, took 88 s: red team s33 MG2).
///
/// # Safety
/// `location` is open.
unsafe fn dataset_reaches_out(location: hid_t, address: u64) -> Option<&'static str> {
    // SAFETY: per the contract; the id is checked and closed below.
    let object = unsafe { H5Oopen_by_addr(location, address) };
    if object < 0 {
        return None;
    }
    // SAFETY: the object is open; each id made here is checked and closed once.
    let why = unsafe {
        if H5Iget_type(object) == H5I_type_t::H5I_DATASET {
            let dcpl = H5Dget_create_plist(object);
            let why = if dcpl < 0 {
                None
            } else if H5Pget_external_count(dcpl) > 0 {
                Some("its values are kept in external files (HDF5 external storage)")
            } else if H5Pget_layout(dcpl) == H5D_layout_t::H5D_VIRTUAL {
                Some("a virtual dataset, its values mapped from other files")
            } else {
                None
            };
            if dcpl >= 0 {
                H5Pclose(dcpl);
            }
            why
        } else {
            None
        }
    };
    // SAFETY: opened above, closed once.
    unsafe { H5Oclose(object) };
    why
}
