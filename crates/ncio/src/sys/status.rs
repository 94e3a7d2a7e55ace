//! libnetcdf status codes turned into results.

use std::ffi::{c_int, CStr};

use crate::error::NcError;

/// libnetcdf's message for a status code.
pub(crate) fn message(code: c_int) -> String {
    // SAFETY: nc_strerror takes any code and returns a pointer to a static NUL-terminated
    // string (a fixed text for unknown codes); it touches no shared state.
    let text = unsafe { CStr::from_ptr(netcdf_sys::nc_strerror(code)) };
    text.to_string_lossy().into_owned()
}

/// Turns a status code into a result, describing the failure with `context`.
pub(crate) fn check(code: c_int, context: impl FnOnce() -> String) -> Result<(), NcError> {
    if code == 0 {
        Ok(())
    } else {
        Err(crate::error::from_status(code, context()))
    }
}
