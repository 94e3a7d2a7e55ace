//! Errors of a store, with what was being done. Every backend says what kind of failure
//! it met in the same words ([`ErrorKind`]), so that the front ends explain them without
//! knowing any library's status codes.

/// What kind of failure a store operation met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No such file, store, group or variable.
    NotFound,
    /// Not a netCDF file or a store of any format the backend knows.
    NotNetcdf,
    /// A damaged or truncated file or store.
    Corrupt,
    /// Something the backend cannot hold or do: a type, a layout, a feature, a URL form.
    Unsupported,
    /// A request that is malformed or out of range (a hyperslab outside a variable).
    InvalidRequest,
    /// A codec (filter) that is not available.
    CodecMissing,
    /// A codec (filter) that failed on the data.
    CodecFailed,
    /// The underlying library (libhdf5 under libnetcdf) failed; for a filtered variable,
    /// usually a chunk its filters cannot decode.
    LibraryFailed,
    /// The operating system refused an operation, with its `errno` when known.
    System {
        /// The system's error number.
        errno: Option<i32>,
    },
    /// Any other failure.
    Other,
}

/// A store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{context}: {message}")]
pub struct StoreError {
    /// What kind of failure it was.
    pub kind: ErrorKind,
    /// What went wrong (`nc_strerror`'s text for libnetcdf).
    pub message: String,
    /// What was being done, e.g. `reading variable /g/v`.
    pub context: String,
}

impl StoreError {
    /// An error of `kind` with `message` and `context`.
    pub fn new(kind: ErrorKind, message: impl Into<String>, context: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            context: context.into(),
        }
    }

    /// The error of an I/O failure `error` while doing `context`: a system error, with
    /// its `errno` when it has one.
    pub fn io(error: &std::io::Error, context: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::System {
                errno: error.raw_os_error(),
            },
            error.to_string(),
            context,
        )
    }

    /// Whether the underlying library failed ([`ErrorKind::LibraryFailed`]): for a
    /// filtered variable, usually a chunk its filters cannot decode.
    pub fn is_library_failure(&self) -> bool {
        self.kind == ErrorKind::LibraryFailed
    }

    /// Whether the failure came from a filter (failed or unavailable). libnetcdf reports
    /// some filter failures only in its message.
    pub fn is_filter_error(&self) -> bool {
        matches!(self.kind, ErrorKind::CodecMissing | ErrorKind::CodecFailed)
            || self.message.contains("Filter error")
    }

    /// The system's error number, for a failure the operating system reported.
    pub fn errno(&self) -> Option<i32> {
        match self.kind {
            ErrorKind::System { errno } => errno,
            _ => None,
        }
    }
}
