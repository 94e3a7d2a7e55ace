//! Errors of a store, with what was being done. Codes are libnetcdf's status codes, so
//! that every backend's failures are explained by the same words.

/// libnetcdf's code for an HDF5 failure.
pub const NC_EHDFERR: i32 = -101;

/// libnetcdf's code for "not a netCDF file".
pub const NC_ENOTNC: i32 = -51;

/// libnetcdf's code for a filter that is not available.
pub const NC_ENOFILTER: i32 = -136;

/// libnetcdf's "NetCDF: Filter error" codes: a filter failed or is not available.
const FILTER_CODES: [i32; 2] = [-132, NC_ENOFILTER];

/// A store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{context}: {message}")]
pub struct StoreError {
    /// libnetcdf's status code, or the code that means the same for another backend.
    pub code: i32,
    /// What went wrong (`nc_strerror`'s text for libnetcdf).
    pub message: String,
    /// What was being done, e.g. `reading variable /g/v`.
    pub context: String,
}

impl StoreError {
    /// An error with `code`, `message` and `context`.
    pub fn new(code: i32, message: impl Into<String>, context: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            context: context.into(),
        }
    }

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
