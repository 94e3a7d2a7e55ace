//! Errors from libnetcdf, with what was being done.

/// libnetcdf's "NetCDF: Filter error" codes: a filter failed or is not available.
const FILTER_CODES: [i32; 2] = [-132, -136];

/// A libnetcdf call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{context}: {message}")]
pub struct NcError {
    /// libnetcdf's status code.
    pub code: i32,
    /// libnetcdf's message for the code (`nc_strerror`).
    pub message: String,
    /// What was being done, e.g. `reading variable /g/v`.
    pub context: String,
}

impl NcError {
    /// Whether the failure came from a filter (failed or unavailable).
    pub fn is_filter_error(&self) -> bool {
        FILTER_CODES.contains(&self.code) || self.message.contains("Filter error")
    }
}
