//! The store a Zarr dataset lives in, as this crate uses it: a shared handle to a
//! [`KeyValueStore`], and the reads every part of the crate makes through it (metadata
//! documents and chunks, each with its cap). No code of this crate builds a file-system
//! path from a key; only the store does.

use std::sync::Arc;

use kv::{KeyError, KeyValueStore, StorageError, StoreKey};

use crate::error::{Result, ZarrError};

/// A shared handle to the store.
pub type Store = Arc<dyn KeyValueStore>;

/// The largest metadata document read (`.zarray`, `zarr.json`, `.zmetadata`...): a
/// guard against a hostile store. Consolidated metadata of real stores with thousands
/// of arrays is a few megabytes.
pub const MAX_METADATA: u64 = 64 << 20;

impl From<StorageError> for ZarrError {
    fn from(e: StorageError) -> Self {
        match e {
            StorageError::Io { what, source } => ZarrError::Io { path: what, source },
            StorageError::Key(k) => ZarrError::Corrupt(k.to_string()),
            other => ZarrError::Corrupt(other.to_string()),
        }
    }
}

impl From<KeyError> for ZarrError {
    fn from(e: KeyError) -> Self {
        ZarrError::Corrupt(e.to_string())
    }
}

/// The key of `name` under `node`; a name that cannot be a key is an error naming
/// `what` (`group /g lists the variable`).
pub fn child_key(node: &StoreKey, name: &str, what: &str) -> Result<StoreKey> {
    node.child(name).map_err(|e: KeyError| {
        ZarrError::Corrupt(format!(
            "{what} {name:?}, which cannot name anything in a store ({}); the store is damaged",
            e.reason
        ))
    })
}
