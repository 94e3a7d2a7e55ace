//! The bytes variables take on disk (`H5Dget_storage_size`: the sum of their chunks as
//! stored, after filters). HDF5 opens the file a second time, read-only, beside any
//! libnetcdf handle on it; only object headers are read, never data, so no filter is
//! needed.

use std::ffi::CString;

use crate::sys::with_lib;

/// The stored size in bytes of each variable of the netCDF-4 file at `path`, given by full
/// path (`/v`, `/g/v`), in the order given; `None` where it cannot be told (not an HDF5
/// file, no such dataset).
pub fn stored_sizes(path: &str, vars: &[String]) -> Vec<Option<u64>> {
    let Ok(file_name) = CString::new(path) else {
        return vec![None; vars.len()];
    };
    with_lib(|lib| crate::sys::stored_sizes(lib, &file_name, vars))
}
