//! The crate's errors, turned into [`store::StoreError`] at the trait boundary.

use store::{StoreError, NC_ENOFILTER, NC_ENOTNC};

/// libnetcdf's `NC_EIO`-like code used for unreadable or corrupt stores.
pub const NC_EIO: i32 = -68;

/// libnetcdf's `NC_EINVAL`: an invalid argument (a slab out of range, a bad dataset).
pub const NC_EINVAL: i32 = -36;

/// libnetcdf's `NC_EBADTYPE`: a type this store cannot hold.
pub const NC_EBADTYPE: i32 = -45;

/// What went wrong in the Zarr backend.
#[derive(Debug, thiserror::Error)]
pub enum ZarrError {
    /// The directory is not a Zarr store.
    #[error("{0}")]
    NotAStore(String),
    /// A file of the store could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// The store's metadata or data is not what Zarr allows.
    #[error("{0}")]
    Corrupt(String),
    /// A codec nctools lacks.
    #[error("{0}")]
    NoCodec(String),
    /// The request cannot be done (bad slab, unsupported type...).
    #[error("{0}")]
    Invalid(String),
    /// A type Zarr here cannot hold.
    #[error("{0}")]
    BadType(String),
}

impl ZarrError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// The [`StoreError`] for this error while doing `context`.
    pub fn into_store(self, context: impl Into<String>) -> StoreError {
        let code = match &self {
            Self::NotAStore(_) => NC_ENOTNC,
            Self::Io { .. } | Self::Corrupt(_) => NC_EIO,
            Self::NoCodec(_) => NC_ENOFILTER,
            Self::Invalid(_) => NC_EINVAL,
            Self::BadType(_) => NC_EBADTYPE,
        };
        StoreError::new(code, self.to_string(), context)
    }
}

/// A result of this crate.
pub type Result<T, E = ZarrError> = std::result::Result<T, E>;
