//! The lock an append holds on its store ([`AppendLock`]): one append at a time, so that
//! two appends started together cannot both read the same length and write their records
//! over each other. Region writes take no lock: many run at once by design, each on its
//! own chunks.

use std::path::Path;
use std::sync::Arc;

use kv::{KeyValueStore, StoreKey};
use store::{Access, ErrorKind, RemoteStores, StoreError, StoreRoot, ZarrLocation};

/// The name of the lock object, at the store's root (beside the archive, for a zip
/// archive, as `.NAME.nctools-append.lock`).
pub const APPEND_LOCK_NAME: &str = ".nctools-append.lock";

/// The lock of an append on its store, taken by creating the lock object exclusively (a
/// file created with `O_EXCL`, an object created by a conditional PUT), and given back,
/// by removing it, when dropped.
#[derive(Debug)]
pub struct AppendLock {
    store: Arc<dyn KeyValueStore>,
    key: StoreKey,
}

impl AppendLock {
    /// Takes the append lock of the store at `location` (a remote one reached through
    /// `remote`), or says that another append holds it (and which object to remove if
    /// none is running).
    pub fn take(location: &ZarrLocation, remote: &dyn RemoteStores) -> Result<Self, StoreError> {
        let context = format!("--append: locking {}", location.text);
        let (store, name): (Arc<dyn KeyValueStore>, String) = match &location.root {
            StoreRoot::Zip(zip) => {
                let parent = zip
                    .path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let file = zip
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (
                    Arc::new(kv::DirectoryStore::new(parent)),
                    format!(".{file}{APPEND_LOCK_NAME}"),
                )
            }
            root => (
                crate::storage::open_root(root, Access::Write, remote, &context)?,
                APPEND_LOCK_NAME.to_string(),
            ),
        };
        let key = StoreKey::parse(&name)
            .map_err(|e| StoreError::new(ErrorKind::InvalidRequest, e.to_string(), &context))?;
        let owner = format!("nccopy --append, process {}\n", std::process::id());
        let fail = |e: kv::StorageError| crate::ZarrError::from(e).into_store(&context);
        if store.create_new(&key, owner.as_bytes()).map_err(fail)? {
            return Ok(Self { store, key });
        }
        Err(StoreError::new(
            ErrorKind::InvalidRequest,
            format!(
                "another append into this store is running (it holds the lock {}); wait \
                 for it to finish, or, if none is running, remove the lock object {}",
                store.describe(&key),
                store.describe(&key)
            ),
            context,
        ))
    }
}

impl Drop for AppendLock {
    fn drop(&mut self) {
        let _ = self.store.remove(&self.key);
    }
}
