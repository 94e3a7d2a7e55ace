//! Store keys and the key-value stores Zarr data lives in: values named by validated
//! [`StoreKey`]s, never by paths, read with a cap on their size, listed by prefix and
//! written whole. Backends here: a directory ([`DirectoryStore`], which writes through
//! one path that follows no link), memory ([`MemoryStore`]) and zip archives ([`zip`]);
//! object stores implement the same traits in `objstore`. Nothing here links C or needs
//! an async runtime.

pub mod directory;
pub mod input_file;
mod key;
mod memory;
mod traits;
pub mod zip;

pub use directory::DirectoryStore;
pub use key::{KeyError, StoreKey};
pub use memory::MemoryStore;
pub use traits::{
    list_keys, KeyValueStore, ListableStore, Listing, ReadableStore, StorageError, WritableStore,
};

/// The names of the documents that make a directory (or an archive's folder) a Zarr
/// node: a v2 group or array, v2 consolidated metadata, a v3 node.
pub const ZARR_MARKERS: [&str; 4] = [".zgroup", ".zarray", ".zmetadata", "zarr.json"];
