//! The built-in filters registered with HDF5 (`H5Zregister`) at start-up of each binary,
//! so that bzip2 (307), blosc (32001), lz4 (32004) and zstd (32015) work with no plugin
//! installed. Blosc's `set_local` rewrites its first four parameters as the standard
//! plugin does. Their chunks are those of the standard plugins (see `codecs::wire`).
//! Buffers handed to HDF5 come from HDF5's allocator; corrupt input, a chunk that
//! decodes beyond the limit (`codecs::with_decoded_chunk_limit`) or a panic make the
//! filter fail (HDF5 reports a filter error), never crash. The callbacks themselves are
//! `h5callbacks`', shared with the plugin libraries.

use std::ffi::CStr;

use crate::ffi;
use codecs::{builtins_enabled, wire};

/// A filter nctools carries.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinFilter {
    /// The HDF5 filter id.
    pub id: u32,
    /// The name HDF5 records with the filter.
    pub name: &'static CStr,
}

/// The filters nctools carries, in id order.
pub const BUILTIN_FILTERS: [BuiltinFilter; 4] = [
    BuiltinFilter {
        id: wire::BZIP2,
        name: c"bzip2 (nctools built-in)",
    },
    BuiltinFilter {
        id: wire::BLOSC,
        name: c"blosc (nctools built-in)",
    },
    BuiltinFilter {
        id: wire::LZ4,
        name: c"lz4 (nctools built-in)",
    },
    BuiltinFilter {
        id: wire::ZSTD,
        name: c"zstd (nctools built-in)",
    },
];

/// Registers every built-in filter with HDF5, unless `NCTOOLS_BUILTIN_FILTERS=0`. Returns
/// the ids registered. Safe to call more than once.
pub fn register_builtin_filters() -> Vec<u32> {
    if !builtins_enabled() {
        return Vec::new();
    }
    BUILTIN_FILTERS
        .iter()
        .filter(|f| ffi::register_filter(f.id, f.name))
        .map(|f| f.id)
        .collect()
}

/// Registers with HDF5 a placeholder for the filter `id`, which nctools lacks and no
/// plugin provides, so that an output variable can declare it while its stored chunks
/// are copied from the input as they are (nccopy). The placeholder fails whenever HDF5
/// runs it, so nothing is ever encoded or decoded through it. Call it only after every
/// check of which filters are available: HDF5 then counts the id as available. Whether
/// HDF5 took it.
pub fn register_placeholder_filter(id: u32) -> bool {
    ffi::register_placeholder(id, c"placeholder (nctools copies its chunks as stored)")
}
