//! A reader of netCDF classic files (CDF-1 "classic", CDF-2 "64-bit offset" and CDF-5
//! "64-bit data"), in pure Rust, so that no C parser ever sees an untrusted header.
//!
//! The header is parsed from bytes with every count, offset and size checked against the
//! file's length before it is used ([`Header::parse`]); a header that does not add up is
//! an error that says what is wrong and at which byte. The variables' data must lie
//! within the file: a file cut short is refused with the length it should have, unless
//! the caller asks for what is there ([`OpenOptions::fill_missing`]).

mod backend;
mod error;
mod file;
mod header;
mod layout;
mod values;

pub use backend::capabilities;
pub use error::ClassicError;
pub use file::{ClassicFile, OpenOptions};
pub use header::{Header, HeaderAttribute, HeaderDim, HeaderVar, Version};
pub use layout::{Missing, VarLayout};

/// Whether `bytes` (the start of a file) carry a classic file's signature: `CDF` and the
/// version byte 1, 2 or 5.
pub fn is_classic_signature(bytes: &[u8]) -> bool {
    matches!(bytes, [b'C', b'D', b'F', 1 | 2 | 5, ..])
}

pub mod testfile;
