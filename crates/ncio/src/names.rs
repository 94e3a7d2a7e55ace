//! Names passed to libnetcdf as C strings.

use std::ffi::CString;

use crate::error::NcError;

/// A name as a C string; names with an interior NUL cannot exist in netCDF.
pub(crate) fn c_name(name: &str, context: impl FnOnce() -> String) -> Result<CString, NcError> {
    CString::new(name).map_err(|_| NcError {
        code: -53,
        message: "name contains a NUL byte".into(),
        context: context(),
    })
}
