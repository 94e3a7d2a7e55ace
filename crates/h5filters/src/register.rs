//! The built-in filters registered with HDF5 (`H5Zregister`) at start-up of each binary,
//! so that the codecs the registry carries into HDF5 (`codecs::registry`: bzip2 307,
//! blosc 32001, lz4 32004 and zstd 32015) work with no plugin installed. Blosc's `set_local` rewrites its first four parameters as the standard
//! plugin does. Their chunks are those of the standard plugins (see `codecs::wire`).
//! Buffers handed to HDF5 come from HDF5's allocator; corrupt input, a chunk that
//! decodes beyond the limit (`codecs::with_decoded_chunk_limit`) or a panic make the
//! filter fail (HDF5 reports a filter error), never crash. The callbacks themselves are
//! `h5callbacks`', shared with the plugin libraries.

use std::ffi::CString;
use std::sync::OnceLock;

use crate::ffi;
use codecs::builtins_enabled;

/// Registers every built-in filter with HDF5, unless `NCTOOLS_BUILTIN_FILTERS=0`. Returns
/// the ids registered. Safe to call more than once.
pub fn register_builtin_filters() -> Vec<u32> {
    if !builtins_enabled() {
        return Vec::new();
    }
    builtin_names()
        .iter()
        .filter(|(id, name)| ffi::register_filter(*id, name))
        .map(|(id, _)| *id)
        .collect()
}

/// The filters carried into HDF5, each with the name HDF5 records with it (`bzip2
/// (nctools built-in)`), made once: HDF5 keeps the pointer for the life of the process.
fn builtin_names() -> &'static [(u32, CString)] {
    static NAMES: OnceLock<Vec<(u32, CString)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        codecs::registry::carried_into_hdf5()
            .filter_map(|id| {
                let name = codecs::known::name_of(id).unwrap_or("filter");
                let name = CString::new(format!("{name} (nctools built-in)")).ok()?;
                Some((id, name))
            })
            .collect()
    })
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
