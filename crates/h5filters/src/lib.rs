//! HDF5 filters implemented in Rust, carried inside the nctools binaries:
//!
//! - [`register_builtin_filters`]: bzip2 (307), blosc (32001), lz4 (32004) and zstd
//!   (32015) registered
//!   in-process with HDF5 at start-up, so they work with no plugin installed (turned off by
//!   `NCTOOLS_BUILTIN_FILTERS=0`); their chunks are those of the standard plugins
//!   ([`wire`]);
//! - [`ChunkEncoder`]: a whole chunk encoded exactly as HDF5's pipeline would (shuffle,
//!   deflate, bzip2), so that nccopy can compress on several threads and hand the chunks
//!   to HDF5's direct chunk write.

pub mod blosc;
mod codec;
mod encoder;
mod register;
pub mod wire;

pub use codec::{bzip2_compress, bzip2_decompress, deflate, inflate, shuffle, unshuffle};
pub use encoder::{ChunkEncoder, EncodeError};
pub use register::{
    builtins_enabled, in_filter_callback, register_builtin_filters, BuiltinFilter, BUILTIN_FILTERS,
    DISABLE_VARIABLE,
};
