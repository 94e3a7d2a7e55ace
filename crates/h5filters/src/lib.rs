//! The HDF5 side of nctools' filters: the codecs of the `codecs` crate registered with
//! HDF5 in-process, so that they work with no plugin installed.
//!
//! - [`register_builtin_filters`]: bzip2 (307), blosc (32001), lz4 (32004) and zstd
//!   (32015) registered in-process with HDF5 at start-up (turned off by
//!   `NCTOOLS_BUILTIN_FILTERS=0`); their chunks are those of the standard plugins
//!   (`codecs::wire`);
//! - [`register_placeholder_filter`]: a filter id HDF5 may declare while nccopy copies
//!   its chunks as stored;
//! - the callbacks HDF5 runs, bounded by `codecs::with_decoded_chunk_limit` and safe
//!   against panics, are `h5callbacks`', shared with the plugin libraries
//!   (`crates/plugins`); here their output comes from HDF5's own allocator.
//!
//! The codecs themselves are in the `codecs` crate. All the crate's `unsafe` code is in
//! one private module, `ffi`.

#[allow(unsafe_code)]
mod ffi;
mod register;

pub use h5callbacks::{in_filter_callback, is_nctools_plugin_name};
pub use register::{register_builtin_filters, register_placeholder_filter};
