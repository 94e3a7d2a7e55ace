//! The crate's errors, turned into [`store::StoreError`] at the trait boundary.

use store::{ErrorKind, StoreError};

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
    /// A metadata document heavier than nctools parses
    /// ([`crate::json::MAX_DOCUMENT_WEIGHT`]).
    #[error("{0}")]
    TooLarge(String),
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
        let kind = match &self {
            Self::NotAStore(_) => ErrorKind::NotNetcdf,
            Self::Io { source, .. } => ErrorKind::System {
                errno: source.raw_os_error(),
            },
            Self::Corrupt(_) => ErrorKind::Corrupt,
            Self::NoCodec(_) => ErrorKind::CodecMissing,
            Self::Invalid(_) => ErrorKind::InvalidRequest,
            Self::BadType(_) | Self::TooLarge(_) => ErrorKind::Unsupported,
        };
        StoreError::new(kind, self.to_string(), context)
    }
}

/// A result of this crate.
pub type Result<T, E = ZarrError> = std::result::Result<T, E>;
