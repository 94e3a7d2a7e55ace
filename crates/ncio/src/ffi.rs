//! Small safe helpers around the raw libnetcdf API: status checks, names, the lock.

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use hdf5_metno_sys as hdf5_sys;
use netcdf_sys::{libnetcdf_lock, nc_strerror};

use crate::error::NcError;

/// `NC_MAX_NAME`: the longest name, in bytes, without the terminating NUL.
pub(crate) const NC_MAX_NAME: usize = 256;

/// Takes the shared library lock for the duration of `f`.
pub(crate) fn locked<T>(f: impl FnOnce() -> T) -> T {
    let _guard = libnetcdf_lock.lock();
    silence_hdf5_errors();
    f()
}

thread_local! {
    static HDF5_SILENCED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Turns off HDF5's automatic error printing on this thread, once. libnetcdf does it on
/// the thread that initialises it; HDF5 keeps the setting per thread, and an expected
/// miss (an absent attribute) would otherwise print a stack of "HDF5-DIAG" lines.
fn silence_hdf5_errors() {
    HDF5_SILENCED.with(|done| {
        if !done.get() {
            // SAFETY: H5Eset_auto2 with no handler only changes this thread's error stack.
            unsafe {
                hdf5_sys::h5e::H5Eset_auto2(hdf5_sys::h5e::H5E_DEFAULT, None, std::ptr::null_mut());
            }
            done.set(true);
        }
    });
}

/// libnetcdf's message for a status code.
pub(crate) fn message(code: c_int) -> String {
    // SAFETY: nc_strerror returns a pointer to a static NUL-terminated string.
    let text = unsafe { CStr::from_ptr(nc_strerror(code)) };
    text.to_string_lossy().into_owned()
}

/// Turns a status code into a result, describing the failure with `context`.
pub(crate) fn check(code: c_int, context: impl FnOnce() -> String) -> Result<(), NcError> {
    if code == 0 {
        Ok(())
    } else {
        Err(NcError {
            code,
            message: message(code),
            context: context(),
        })
    }
}

/// A buffer for a name returned by libnetcdf.
pub(crate) struct NameBuf([c_char; NC_MAX_NAME + 1]);

impl NameBuf {
    /// A zeroed buffer.
    pub(crate) fn new() -> Self {
        Self([0; NC_MAX_NAME + 1])
    }

    /// The pointer to pass to libnetcdf.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut c_char {
        self.0.as_mut_ptr()
    }

    /// The name, up to its NUL (lossy for invalid UTF-8).
    pub(crate) fn to_text(&self) -> String {
        let bytes: Vec<u8> = self
            .0
            .iter()
            .take_while(|c| **c != 0)
            .map(|c| *c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// A name as a C string; names with an interior NUL cannot exist in netCDF.
pub(crate) fn c_name(name: &str, context: impl FnOnce() -> String) -> Result<CString, NcError> {
    CString::new(name).map_err(|_| NcError {
        code: -53,
        message: "name contains a NUL byte".into(),
        context: context(),
    })
}

extern "C" {
    /// `nc_reclaim_data` (netCDF-C 4.9): frees what nested instances point to (strings,
    /// vlens), not the top-level memory.
    pub(crate) fn nc_reclaim_data(
        ncid: c_int,
        xtypeid: c_int,
        memory: *mut c_void,
        count: usize,
    ) -> c_int;
}
