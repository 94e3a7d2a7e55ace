//! The boundary with libnetcdf and libhdf5. Every `unsafe` call that nctools' storage code
//! makes into C lives in this module, behind safe functions that check their own
//! preconditions:
//!
//! - the library lock is a token, [`Lib`], that every wrapper takes as an argument: it only
//!   exists inside [`with_lib`], while the lock is held, and cannot leave the thread;
//! - ids are tied to the lifetime of their open file ([`OpenFile`], [`Grp`]);
//! - names are read into buffers as large as the file's format allows ([`NameCapacity`]),
//!   not into `NC_MAX_NAME + 1` bytes, because libnetcdf copies names of any length;
//! - ranks and counts are checked against the variable, buffer sizes computed with
//!   `checked_mul`, values checked against their type before any pointer reaches C.
//!
//! The model is how zstd-safe and rusqlite wrap their C libraries: small wrappers, each
//! `unsafe` block with the invariant that makes it sound established right above it.

mod attribute_strings;
mod contained;
pub(crate) mod define;
mod dl;
mod file;
mod filtered_heaps;
mod foreign_storage;
mod global_heap;
mod hdf5;
mod hdf5_strings;
mod heap_references;
mod index_counts;
pub(crate) mod inquire;
pub(crate) mod library_stderr;
mod memory;
mod object_headers;
mod plugin_pair;
mod pre_open;
mod reserved_attributes;
mod status;
mod type_weight;
mod v1_btrees;
pub(crate) mod values;
mod vlen_budget;

use std::marker::PhantomData;

pub(crate) use contained::ContainedError;
pub(crate) use define::{ChunkingRequest, FieldShape, TypeDefinition};
pub(crate) use dl::{dlopen_filter_info, PluginInfo};
pub(crate) use file::{Grp, NameCapacity, OpenFile};
pub(crate) use filtered_heaps::value_limit_words;
pub(crate) use hdf5::{
    filter_available, filter_plugins_enabled, hdf5_version, netcdf_version, plugin_search_paths,
    stored_sizes, ChunkOrigin, ChunkTarget,
};
pub(crate) use hdf5_strings::{HdfStrings, StringReadError};
pub(crate) use memory::Encoded;
pub use memory::RawBuffer;
pub(crate) use plugin_pair::{
    load_plugin_parts, PluginCodecClass, PluginFilter, PluginParts, DECODED_PAST,
};
pub(crate) use pre_open::{refusal_before_open, Refusal};
pub(crate) use status::{check, message};
pub(crate) use values::TypeTable;

/// Proof that the shared library lock (libnetcdf's and HDF5's, one reentrant mutex) is held
/// by this thread. Only [`with_lib`] makes one, and only lends it to its closure.
pub(crate) struct Lib {
    /// Not `Send` or `Sync`: the lock belongs to the thread that took it.
    _thread_bound: PhantomData<*const ()>,
}

/// Runs `f` with the library lock held, lending it the token every wrapper asks for.
pub(crate) fn with_lib<T>(f: impl FnOnce(&Lib) -> T) -> T {
    let _guard = netcdf_sys::libnetcdf_lock.lock();
    let _call = crash_guard::LibraryCall::enter();
    // Dropped first: descriptor 2 is back before the lock is let go.
    let _stderr = library_stderr::begin();
    let lib = Lib {
        _thread_bound: PhantomData,
    };
    hdf5::silence_errors(&lib);
    f(&lib)
}
