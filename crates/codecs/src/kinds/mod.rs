//! Each codec's forms, one file per codec: its facts ([`crate::registry::CodecEntry`]),
//! NCZarr's `_Codecs` text, the HDF5 parameters of its numcodecs JSON and back, and its
//! Zarr version 3 name and configuration. [`crate::registry::CODECS`] lists them.

mod blosc;
mod bzip2;
mod deflate;
pub(crate) mod fletcher32;
mod lz4;
mod lzf;
mod numcodecs_only;
mod reader;
mod shuffle;
mod szip;
mod zstd;

pub use blosc::Blosc;
pub use bzip2::Bzip2;
pub use deflate::Deflate;
pub use fletcher32::Fletcher32;
pub use lz4::Lz4;
pub use lzf::Lzf;
pub(crate) use numcodecs_only::CRC32C;
pub use numcodecs_only::{Crc32c, NumcodecsOnly};
pub use reader::ConfigReader;
pub use shuffle::{Shuffle, MAX_SHUFFLE_ELEMENT_SIZE};
pub(crate) use szip::encode_hdf5_chunk as encode_szip_hdf5_chunk;
pub use szip::{hdf5_words as szip_hdf5_words, Szip};
pub use zstd::Zstd;
