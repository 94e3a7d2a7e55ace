//! Zarr stores in object stores for nctools: Amazon S3 (and servers speaking its
//! protocol), Google Cloud Storage, Azure Blob Storage, and plain HTTP(S) servers (read
//! only), through Apache Arrow's `object_store`.
//!
//! [`open`] (and [`ObjectStores`], the same as a [`store::RemoteStores`] that the front
//! end hands the Zarr backend) is the one place a remote root ([`RemoteRoot`], decided by
//! `store::Location`) becomes the [`KeyValueStore`] readers and writers use, an
//! [`ObjectKvStore`]. The object store
//! runs its requests on a small tokio runtime of its own and answers the synchronous
//! trait, so that nothing else in nctools deals with async code.

mod aws_profile;
mod backend;
mod capped_http;
mod object_kv;
mod ranges;
mod url_options;

use std::sync::Arc;

use kv::KeyValueStore;
use store::{Access, ErrorKind, RemoteRoot, StoreError};

pub use object_kv::{Kind, ObjectKvStore};

/// The object stores and HTTP servers nctools reaches, as the [`store::RemoteStores`]
/// the front end hands the Zarr backend.
#[derive(Debug, Clone, Copy, Default)]
pub struct ObjectStores;

impl store::RemoteStores for ObjectStores {
    fn open(
        &self,
        remote: &RemoteRoot,
        access: Access,
    ) -> Result<Arc<dyn KeyValueStore>, StoreError> {
        open(remote, access)
    }
}

/// The store at `remote`, opened for `access`: a plain HTTP server named for writing
/// is refused, and so are settings the client cannot be built from (a bad region,
/// endpoint or credential setting).
pub fn open(remote: &RemoteRoot, access: Access) -> Result<Arc<dyn KeyValueStore>, StoreError> {
    let url = remote.display_url();
    let refused = |kind, message: String| StoreError::new(kind, message, format!("opening {url}"));
    if access == Access::Write && !remote.service.writable() {
        return Err(refused(
            ErrorKind::Unsupported,
            format!(
                "{url}: a plain HTTP(S) server can only be read; to write a Zarr store there, \
                 name it as an object store (s3://BUCKET/PREFIX, or \
                 https://HOST/BUCKET/PREFIX#mode=nczarr,s3)"
            ),
        ));
    }
    let built = backend::build(remote).map_err(|reason| {
        let reason = store::escape_for_message(&store::redact_url(&reason));
        refused(ErrorKind::InvalidRequest, format!("{url}: {reason}"))
    })?;
    let kind = Kind {
        plain_http: remote.service == store::RemoteService::Http,
        anonymous: built.anonymous,
    };
    let store = ObjectKvStore::new(built.store, &built.prefix, url.clone(), kind)
        .map(|store| store.with_pager(built.pager))
        .map_err(|e| refused(ErrorKind::InvalidRequest, format!("{url}: {e}")))?;
    Ok(Arc::new(store))
}
