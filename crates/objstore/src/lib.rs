//! Zarr stores in object stores for nctools: Amazon S3 (and servers speaking its
//! protocol), Google Cloud Storage, Azure Blob Storage, and plain HTTP(S) servers (read
//! only), through Apache Arrow's `object_store`.
//!
//! [`open`] is the one place a Zarr store's root ([`StoreRoot`], decided by
//! `store::Location`) becomes the [`KeyValueStore`] every reader and writer uses: a
//! directory store for a local root, a `kv::zip::ZipStore` for a zip archive read, an
//! [`ObjectKvStore`] otherwise. The object store
//! runs its requests on a small tokio runtime of its own and answers the synchronous
//! trait, so that nothing else in nctools deals with async code.

mod aws_profile;
mod backend;
mod capped_http;
mod object_kv;
mod ranges;

use std::sync::Arc;

use kv::zip::{ArchiveError, ZipStore};
use kv::{DirectoryStore, KeyValueStore};
use store::StoreRoot;

pub use object_kv::{Kind, ObjectKvStore};

/// What a store is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading only.
    Read,
    /// Writing (and reading back).
    Write,
}

/// A store that cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// A plain HTTP server was named as the target of a write.
    #[error(
        "{url}: a plain HTTP(S) server can only be read; to write a Zarr store there, name \
         it as an object store (s3://BUCKET/PREFIX, or https://HOST/BUCKET/PREFIX#mode=nczarr,s3)"
    )]
    ReadOnly {
        /// The store's URL.
        url: String,
    },
    /// The object store's client could not be built from the URL, the environment and
    /// the profile (a bad region, endpoint or credential setting).
    #[error("{url}: {reason}")]
    Config {
        /// The store's URL.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// A zip archive could not be read.
    #[error(transparent)]
    Zip(#[from] ArchiveError),
}

/// The store at `root`, opened for `access`. A zip archive is opened here for reading
/// only: a writer makes a new one with `kv::zip::ZipWriter`.
pub fn open(root: &StoreRoot, access: Access) -> Result<Arc<dyn KeyValueStore>, OpenError> {
    match root {
        StoreRoot::Directory(path) => Ok(Arc::new(DirectoryStore::new(path))),
        StoreRoot::Zip(zip) => {
            if access == Access::Write {
                return Err(OpenError::Config {
                    url: zip.path.display().to_string(),
                    reason: "a zip archive is written whole, by kv::zip::ZipWriter".into(),
                });
            }
            Ok(Arc::new(ZipStore::open(&zip.path)?))
        }
        StoreRoot::Remote(remote) => {
            if access == Access::Write && !remote.service.writable() {
                return Err(OpenError::ReadOnly {
                    url: remote.display_url(),
                });
            }
            let built = backend::build(remote).map_err(|reason| OpenError::Config {
                url: remote.display_url(),
                reason: store::escape_for_message(&store::redact_url(&reason)),
            })?;
            let kind = Kind {
                plain_http: remote.service == store::RemoteService::Http,
                anonymous: built.anonymous,
            };
            let store = ObjectKvStore::new(built.store, &built.prefix, remote.display_url(), kind)
                .map(|store| store.with_pager(built.pager))
                .map_err(|e| OpenError::Config {
                    url: remote.display_url(),
                    reason: e.to_string(),
                })?;
            Ok(Arc::new(store))
        }
    }
}
