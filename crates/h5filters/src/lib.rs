//! HDF5 filters implemented in Rust, carried inside the nctools binaries:
//!
//! - [`register_builtin_filters`]: bzip2 (307), blosc (32001), lz4 (32004) and zstd
//!   (32015) registered
//!   in-process with HDF5 at start-up, so they work with no plugin installed (turned off by
//!   `NCTOOLS_BUILTIN_FILTERS=0`); their chunks are those of the standard plugins
//!   ([`wire`]);
//! - [`with_decoded_chunk_limit`]: the size a chunk may decode to on this thread, so that
//!   a hostile file cannot make a filter allocate gigabytes; every decoder here is
//!   bounded;
//! - [`ChunkEncoder`]: a whole chunk encoded exactly as HDF5's pipeline would (shuffle,
//!   deflate, bzip2), so that nccopy can compress on several threads and hand the chunks
//!   to HDF5's direct chunk write;
//! - [`ChunkDecoder`]: the inverse, stored chunks decoded as HDF5's pipeline would give
//!   them back, so that readers can decode on every core.
//!
//! All the crate's `unsafe` code is in one private module, `ffi`.

pub mod blosc;
mod callback;
mod codec;
mod decoder;
mod encoder;
#[allow(unsafe_code)]
mod ffi;
mod limit;
pub mod numcodecs;
mod register;
pub mod wire;

pub use callback::in_filter_callback;
pub use codec::{
    bzip2_compress, bzip2_decompress, deflate, inflate, shuffle, unshuffle, DecodeError,
};
pub use decoder::ChunkDecoder;
pub use encoder::{ChunkEncoder, EncodeError};
pub use limit::{decoded_chunk_limit, with_decoded_chunk_limit, with_slack, HDF5_MAX_CHUNK_BYTES};
pub use register::{
    builtins_enabled, register_builtin_filters, register_placeholder_filter, BuiltinFilter,
    BUILTIN_FILTERS, DISABLE_VARIABLE,
};
