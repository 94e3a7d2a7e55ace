//! What can go wrong reading a classic file.

/// A classic file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ClassicError {
    /// The file could not be read at all.
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not start with a classic signature.
    #[error("not a netCDF classic file (no CDF signature)")]
    NotClassic,
    /// The header does not add up.
    #[error("corrupt header at byte {offset}: {what}")]
    Header {
        /// Where in the file the problem was found.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The file is shorter than its header says it must be.
    #[error(
        "the file is truncated: its header needs {expected} bytes, the file has {actual} \
         ({} missing)", expected - actual
    )]
    Truncated {
        /// The length the header requires.
        expected: u64,
        /// The file's length.
        actual: u64,
    },
    /// A read asked for something the variable does not have.
    #[error("{0}")]
    BadRequest(String),
}

impl ClassicError {
    /// A header error at `offset`.
    pub(crate) fn header(offset: u64, what: impl Into<String>) -> Self {
        Self::Header {
            offset,
            what: what.into(),
        }
    }
}
