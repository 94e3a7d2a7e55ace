//! The bytes variables take on disk (`H5Dget_storage_size`: the sum of their chunks as
//! stored, after filters). HDF5 opens the file a second time, read-only, beside any
//! libnetcdf handle on it; only object headers are read, never data, so no filter is
//! needed.

use std::ffi::CString;

use hdf5_metno_sys::h5d::{H5Dclose, H5Dget_storage_size, H5Dopen2};
use hdf5_metno_sys::h5f::{H5Fclose, H5Fopen, H5F_ACC_RDONLY};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5l::H5Lexists;
use hdf5_metno_sys::h5p::H5P_DEFAULT;

use crate::ffi::locked;

/// The prefix netCDF-4 gives the dataset of a variable named like a dimension it does not
/// start with.
const NON_COORD_PREFIX: &str = "_nc4_non_coord_";

/// The stored size in bytes of each variable of the netCDF-4 file at `path`, given by full
/// path (`/v`, `/g/v`), in the order given; `None` where it cannot be told (not an HDF5
/// file, no such dataset).
pub fn stored_sizes(path: &str, vars: &[String]) -> Vec<Option<u64>> {
    let none = || vec![None; vars.len()];
    let Ok(file_name) = CString::new(path) else {
        return none();
    };
    locked(|| {
        // SAFETY: H5open initialises the library if needed; file_name is a valid C string.
        let file = unsafe {
            hdf5_metno_sys::h5::H5open();
            H5Fopen(file_name.as_ptr(), H5F_ACC_RDONLY, H5P_DEFAULT)
        };
        if file < 0 {
            return none();
        }
        let sizes = vars.iter().map(|v| dataset_size(file, v)).collect();
        // SAFETY: file was opened above and is closed once.
        unsafe { H5Fclose(file) };
        sizes
    })
}

/// The stored size of the variable at `var` (a full path) in the open `file`.
fn dataset_size(file: hid_t, var: &str) -> Option<u64> {
    let (group, name) = var.rsplit_once('/')?;
    // The prefixed name first: where it exists, the plain name is the dimension's.
    [format!("{NON_COORD_PREFIX}{name}"), name.to_string()]
        .iter()
        .find_map(|candidate| {
            let object = CString::new(format!("{group}/{candidate}")).ok()?;
            // SAFETY: file is open; object is a valid C string. H5Lexists first, so that a
            // missing name is a plain "no" rather than an error.
            let exists = unsafe { H5Lexists(file, object.as_ptr(), H5P_DEFAULT) };
            if exists <= 0 {
                return None;
            }
            // SAFETY: as above.
            let dataset = unsafe { H5Dopen2(file, object.as_ptr(), H5P_DEFAULT) };
            if dataset < 0 {
                return None;
            }
            // SAFETY: dataset is open; it is closed once, right after.
            let size = unsafe { H5Dget_storage_size(dataset) };
            // SAFETY: as above.
            unsafe { H5Dclose(dataset) };
            Some(size)
        })
}
