//! The HDF5 functions blosc's `set_local` calls, found at run time in the process that
//! called the filter rather than linked: a plugin must work with whichever libhdf5
//! loaded it (the system's for netCDF-C's tools, a copy bundled in h5py's wheel) and
//! must never bring a second one into the process.
//!
//! They are looked up in the process's global scope (`dlsym(RTLD_DEFAULT)`), where a
//! program linked with libhdf5 has them. A library loaded without `RTLD_GLOBAL` (a
//! Python extension's bundled libhdf5) is not in that scope: then the one loaded object
//! whose file name starts with `libhdf5` and is not the high-level library is used, if
//! there is exactly one. Otherwise `set_local` fails, cleanly.

use std::ffi::{c_char, c_int, c_uint};

use loaded_symbols::Scope;

use super::abi::{Herr, Hid};

/// The functions, with the C prototypes of HDF5 1.10 to 2.x.
#[derive(Debug, Clone, Copy)]
pub(super) struct SetLocalFunctions {
    /// `H5Pget_filter_by_id2`.
    pub(super) get_filter_by_id: unsafe extern "C" fn(
        Hid,
        c_int,
        *mut c_uint,
        *mut usize,
        *mut c_uint,
        usize,
        *mut c_char,
        *mut c_uint,
    ) -> Herr,
    /// `H5Pget_chunk`.
    pub(super) get_chunk: unsafe extern "C" fn(Hid, c_int, *mut u64) -> c_int,
    /// `H5Pmodify_filter`.
    pub(super) modify_filter:
        unsafe extern "C" fn(Hid, c_int, c_uint, usize, *const c_uint) -> Herr,
    /// `H5Tget_size`.
    pub(super) type_size: unsafe extern "C" fn(Hid) -> usize,
    /// `H5Tget_class` (an `H5T_class_t`, an `int`).
    pub(super) type_class: unsafe extern "C" fn(Hid) -> c_int,
    /// `H5Tget_super`.
    pub(super) type_super: unsafe extern "C" fn(Hid) -> Hid,
    /// `H5Tclose`.
    pub(super) type_close: unsafe extern "C" fn(Hid) -> Herr,
}

/// The functions of the HDF5 library in this process, or `None` when none is found or
/// several could be the caller.
pub(super) fn set_local_functions() -> Option<SetLocalFunctions> {
    loaded_symbols::find(is_hdf5_library, resolve)
}

/// Every function from `scope`, or `None` when one is missing.
fn resolve(scope: &Scope) -> Option<SetLocalFunctions> {
    Some(SetLocalFunctions {
        get_filter_by_id: loaded_symbols::function!(
            scope,
            c"H5Pget_filter_by_id2",
            unsafe extern "C" fn(
                Hid,
                c_int,
                *mut c_uint,
                *mut usize,
                *mut c_uint,
                usize,
                *mut c_char,
                *mut c_uint,
            ) -> Herr
        ),
        get_chunk: loaded_symbols::function!(
            scope,
            c"H5Pget_chunk",
            unsafe extern "C" fn(Hid, c_int, *mut u64) -> c_int
        ),
        modify_filter: loaded_symbols::function!(
            scope,
            c"H5Pmodify_filter",
            unsafe extern "C" fn(Hid, c_int, c_uint, usize, *const c_uint) -> Herr
        ),
        type_size: loaded_symbols::function!(
            scope,
            c"H5Tget_size",
            unsafe extern "C" fn(Hid) -> usize
        ),
        type_class: loaded_symbols::function!(
            scope,
            c"H5Tget_class",
            unsafe extern "C" fn(Hid) -> c_int
        ),
        type_super: loaded_symbols::function!(
            scope,
            c"H5Tget_super",
            unsafe extern "C" fn(Hid) -> Hid
        ),
        type_close: loaded_symbols::function!(
            scope,
            c"H5Tclose",
            unsafe extern "C" fn(Hid) -> Herr
        ),
    })
}

/// Whether a loaded object's path names HDF5's main library (`libhdf5.so`,
/// `libhdf5_serial.so.103`, `libhdf5-9e18f0c6.so.320.0.0`), not its high-level, C++ or
/// Fortran libraries.
fn is_hdf5_library(path: &[u8]) -> bool {
    let file = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
    let Some(stem) = file
        .windows(3)
        .position(|w| w == b".so")
        .map(|at| &file[..at])
    else {
        return false;
    };
    let mut parts = stem.split(|b| *b == b'_' || *b == b'-');
    parts.next() == Some(b"libhdf5")
        && parts.all(|part| !matches!(part, b"hl" | b"cpp" | b"fortran" | b"f90cstub" | b"tools"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hdf5s_main_library_is_told_from_the_others() {
        assert!(is_hdf5_library(
            b"/usr/lib/x86_64-linux-gnu/libhdf5_serial.so.103"
        ));
        assert!(is_hdf5_library(
            b"/venv/h5py.libs/libhdf5-9e18f0c6.so.320.0.0"
        ));
        assert!(is_hdf5_library(b"libhdf5.so"));
        assert!(!is_hdf5_library(
            b"/venv/h5py.libs/libhdf5_hl-69da89c9.so.320.0.0"
        ));
        assert!(!is_hdf5_library(b"/usr/lib/libhdf5_serial_hl.so.100"));
        assert!(!is_hdf5_library(b"/usr/lib/libnetcdf.so.19"));
    }

    #[test]
    fn a_process_without_hdf5_has_no_functions() {
        // This test binary links no libhdf5.
        assert!(set_local_functions().is_none());
    }
}
