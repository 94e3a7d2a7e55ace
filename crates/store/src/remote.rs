//! How a backend reaches a store in an object store or on an HTTP server without
//! depending on the network stack: the front end hands it a [`RemoteStores`] (the
//! `objstore` crate's, in a build with object stores), and a build without them hands
//! [`NoRemoteStores`], which refuses every remote root with what to do.

use std::sync::Arc;

use kv::KeyValueStore;

use crate::{ErrorKind, RemoteRoot, StoreError};

/// What a store is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading only.
    Read,
    /// Writing (and reading back).
    Write,
}

/// Opens the key-value store at a remote root.
pub trait RemoteStores: Sync {
    /// The store at `remote`, opened for `access`; the error names the root and says why.
    fn open(
        &self,
        remote: &RemoteRoot,
        access: Access,
    ) -> Result<Arc<dyn KeyValueStore>, StoreError>;
}

/// The [`RemoteStores`] of a build without object stores: every remote root refused.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRemoteStores;

impl RemoteStores for NoRemoteStores {
    fn open(
        &self,
        remote: &RemoteRoot,
        _access: Access,
    ) -> Result<Arc<dyn KeyValueStore>, StoreError> {
        Err(StoreError::new(
            ErrorKind::Unsupported,
            format!(
                "{}: this nctools was built without object stores (the cargo feature \
                 `objstore`); build it with default features to read or write S3, GCS, \
                 Azure or HTTP stores",
                remote.display_url()
            ),
            "opening a remote store",
        ))
    }
}
