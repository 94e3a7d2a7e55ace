//! The store a Zarr dataset lives in, as this crate uses it: a shared handle to a
//! [`KeyValueStore`], and the reads every part of the crate makes through it (metadata
//! documents and chunks, each with its cap). No code of this crate builds a file-system
//! path from a key; only the store does.

use std::sync::Arc;

use kv::zip::{ArchiveError, ZipStore};
use kv::{DirectoryStore, KeyError, KeyValueStore, StorageError, StoreKey};
use store::{Access, ErrorKind, RemoteStores, StoreError, StoreRoot};

use crate::error::{Result, ZarrError};

/// A shared handle to the store.
pub type Store = Arc<dyn KeyValueStore>;

/// The store at `root`, opened for `access` while doing `context`: a directory, or a zip
/// archive for reading (a writer makes a new archive with `kv::zip::ZipWriter`), opened
/// here; a remote root through `remote`, which the front end hands the backend.
pub fn open_root(
    root: &StoreRoot,
    access: Access,
    remote: &dyn RemoteStores,
    context: &str,
) -> Result<Store, StoreError> {
    match root {
        StoreRoot::Directory(path) => Ok(Arc::new(DirectoryStore::new(path))),
        StoreRoot::Zip(zip) if access == Access::Write => Err(StoreError::new(
            ErrorKind::InvalidRequest,
            format!(
                "{}: a zip archive is written whole, by kv::zip::ZipWriter",
                zip.path.display()
            ),
            context,
        )),
        StoreRoot::Zip(zip) => match ZipStore::open(&zip.path) {
            Ok(archive) => Ok(Arc::new(archive)),
            Err(e) => Err(archive_error(e, context)),
        },
        StoreRoot::Remote(remote_root) => remote.open(remote_root, access).map_err(|mut e| {
            e.context = context.to_string();
            e
        }),
    }
}

/// The [`StoreError`] of a zip archive that cannot be read or written, while doing
/// `context`.
pub fn archive_error(e: ArchiveError, context: &str) -> StoreError {
    let kind = match &e {
        ArchiveError::Io { source, .. } => ErrorKind::System {
            errno: source.raw_os_error(),
        },
        ArchiveError::Damaged { .. } => ErrorKind::Corrupt,
    };
    StoreError::new(kind, e.to_string(), context)
}

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
