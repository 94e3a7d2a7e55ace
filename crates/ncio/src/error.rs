//! Errors from libnetcdf, with what was being done.

/// libnetcdf's code for an HDF5 failure.
pub(crate) const NC_EHDFERR: i32 = -101;

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
    /// Whether HDF5 itself failed (`NC_EHDFERR`): for a filtered variable, usually a chunk
    /// its filters cannot decode.
    pub fn is_hdf5_error(&self) -> bool {
        self.code == NC_EHDFERR
    }

    /// Whether the failure came from a filter (failed or unavailable).
    pub fn is_filter_error(&self) -> bool {
        FILTER_CODES.contains(&self.code) || self.message.contains("Filter error")
    }
}
