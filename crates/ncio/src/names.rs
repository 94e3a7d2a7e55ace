//! Names passed to libnetcdf as C strings.

use std::ffi::CString;

use crate::error::NcError;

/// A name as a C string; names with an interior NUL cannot exist in netCDF.
pub(crate) fn c_name(name: &str, context: impl FnOnce() -> String) -> Result<CString, NcError> {
    CString::new(name).map_err(|_| NcError {
        kind: store::ErrorKind::InvalidRequest,
        message: "name contains a NUL byte".into(),
        context: context(),
    })
}

use ncmodel::names::NC_MAX_NAME;

/// A name to define in a new file: like [`c_name`], and refused when libnetcdf would
/// refuse it for its length, with a message that says so.
pub(crate) fn c_new_name(name: &str, context: impl FnOnce() -> String) -> Result<CString, NcError> {
    if name.len() > NC_MAX_NAME {
        return Err(NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: format!(
                "the name is {} bytes long; netCDF files can only be given names of up to \
                 {NC_MAX_NAME} bytes (NC_MAX_NAME)",
                name.len()
            ),
            context: context(),
        });
    }
    c_name(name, context)
}

/// A name as shown in messages: long names are cut, with their length.
pub(crate) fn shown(name: &str) -> String {
    const SHOWN: usize = 40;
    if name.chars().count() <= 2 * SHOWN {
        return name.to_string();
    }
    let head: String = name.chars().take(SHOWN).collect();
    format!("{head}... ({} bytes)", name.len())
}
