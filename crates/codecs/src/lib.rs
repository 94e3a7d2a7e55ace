//! nctools' chunk codecs, pure functions from bytes to bytes that link neither libhdf5
//! nor libnetcdf, shared by the HDF5 glue (`h5filters`), the Zarr backend and the front
//! end:
//!
//! - [`wire`]: the HDF5 filters nctools carries, bzip2 (307), blosc (32001), lz4 (32004)
//!   and zstd (32015), byte for byte as the standard plugins write them; `codec`:
//!   HDF5's own shuffle and deflate;
//! - [`numcodecs`]: the numcodecs codecs that have no HDF5 filter (gzip, checksums,
//!   delta, fixedscaleoffset, bitround, quantize), and whole numcodecs pipelines;
//! - [`ChunkEncoder`] / [`ChunkDecoder`]: a whole chunk through a filter pipeline
//!   exactly as HDF5's pipeline would encode or decode it;
//! - [`with_decoded_chunk_limit`]: the size a chunk may decode to on this thread, so that
//!   a hostile file cannot make a codec allocate gigabytes; every decoder here is
//!   bounded.
//!
//! All the crate's `unsafe` code (the calls into c-blosc) is in one private module, `ffi`.

pub mod blosc;
mod codec;
mod decoder;
mod encoder;
#[allow(unsafe_code)]
mod ffi;
mod kinds;
pub mod known;
mod limit;
pub mod nczarr;
pub mod numcodecs;
pub mod params;
pub mod partial;
pub mod plugin;
pub mod registry;
pub mod wire;
pub mod zarr_codec;

pub use codec::{
    bzip2_compress, bzip2_decompress, deflate, inflate, read_bounded, shuffle, unshuffle,
    DecodeError,
};
pub use decoder::{CheckFailure, ChunkChecker, ChunkDecoder, ForeignFailure, ForeignFilter};
pub use encoder::{ChunkEncoder, EncodeError};
pub use kinds::szip_hdf5_words;
pub use limit::{
    callback_limit, decoded_chunk_limit, with_decoded_chunk_limit, with_slack, HDF5_MAX_CHUNK_BYTES,
};
pub use ncmodel::FilterSpec;

/// The environment variable that turns the built-in filters off (`0`), so that external
/// plugins can be tested.
pub const DISABLE_VARIABLE: &str = settings::BUILTIN_FILTERS;

/// Whether the built-in filters are turned on (`NCTOOLS_BUILTIN_FILTERS` is not `0`).
pub fn builtins_enabled() -> bool {
    settings::builtin_filters()
}
