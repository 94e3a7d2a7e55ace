//! The key-value interface every Zarr store is read and written through, modelled on
//! object stores: values named by [`StoreKey`]s, listed by prefix, read whole with a cap
//! on their size, and written whole. A backend answers only for keys; it alone knows how
//! a key maps onto its medium (a file under a directory, an object in a bucket).
//!
//! Writers commit by writing metadata last: a reader that lists a store sees a node only
//! once its metadata document is there, and its chunks are written before it.

use std::fmt;

use crate::key::{KeyError, StoreKey};

/// A failure of a key-value store.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The name is not a valid key.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The value is something other than a regular file (a device, a FIFO, a socket).
    #[error("{what} is not a regular file; a store holds only regular files")]
    NotRegular {
        /// The value, as [`ReadableStore::describe`] names it.
        what: String,
    },
    /// The value is a symbolic link to a place outside the store.
    #[error("{what} leads outside the store (to {target}); it is not read")]
    Outside {
        /// The value, as [`ReadableStore::describe`] names it.
        what: String,
        /// Where it leads.
        target: String,
    },
    /// A writer met a link where it writes: a symbolic link (to a file or a directory)
    /// at a key or at one of the prefixes above it, or a file with other names (a hard
    /// link). Writing through it would change what it leads to, outside the store.
    #[error(
        "{what} is {how}; nctools never writes through a link into an existing store: \
         remove the link, or write a new store"
    )]
    Linked {
        /// The value or prefix, as [`ReadableStore::describe`] names it.
        what: String,
        /// What kind of link it is.
        how: &'static str,
    },
    /// The value is larger than what its reader can use.
    #[error(
        "{what} holds {size} bytes, more than the {cap} its metadata allows; the store is damaged"
    )]
    TooLarge {
        /// The value, as [`ReadableStore::describe`] names it.
        what: String,
        /// Its size (at least this).
        size: u64,
        /// The most the reader takes.
        cap: u64,
    },
    /// The medium failed.
    #[error("{what}: {source}")]
    Io {
        /// The value or prefix, as [`ReadableStore::describe`] names it.
        what: String,
        /// The system's error.
        source: std::io::Error,
    },
}

impl StorageError {
    /// `Ok` when a value of `size` bytes is within `cap`; the refusal naming `what`
    /// otherwise.
    pub fn within_cap(what: impl FnOnce() -> String, size: u64, cap: u64) -> Result<(), Self> {
        if size > cap {
            return Err(Self::TooLarge {
                what: what(),
                size,
                cap,
            });
        }
        Ok(())
    }
}

/// The immediate children of a prefix: the values directly under it and the prefixes
/// below it, each by its last segment, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// Names of the values directly under the prefix.
    pub values: Vec<String>,
    /// Names of the prefixes directly under it.
    pub prefixes: Vec<String>,
}

/// Reading values: what every store does (as zarrs' `ReadableStorageTraits`).
pub trait ReadableStore: Send + Sync + fmt::Debug {
    /// How messages name the value or prefix `key` (a path, for a directory store).
    fn describe(&self, key: &StoreKey) -> String;

    /// The value of `key`, or `None` when there is none. A value longer than `cap`
    /// bytes is refused without reading more than `cap + 1` bytes of it.
    fn get(&self, key: &StoreKey, cap: u64) -> Result<Option<Vec<u8>>, StorageError>;

    /// The bytes `offset..offset + length` of the value of `key` (fewer where the value
    /// ends first), or `None` when there is none: an object store's ranged read.
    fn get_range(
        &self,
        key: &StoreKey,
        offset: u64,
        length: u64,
    ) -> Result<Option<Vec<u8>>, StorageError>;

    /// The byte ranges `ranges` (offset and length of each) of the value of `key`, each as
    /// [`ReadableStore::get_range`] gives it, or `None` when there is none: where the store
    /// can, one request for them all (a directory store opens the file once).
    fn get_ranges(
        &self,
        key: &StoreKey,
        ranges: &[(u64, u64)],
    ) -> Result<Option<Vec<Vec<u8>>>, StorageError> {
        let mut parts = Vec::with_capacity(ranges.len());
        for (offset, length) in ranges {
            match self.get_range(key, *offset, *length)? {
                Some(bytes) => parts.push(bytes),
                None => return Ok(None),
            }
        }
        Ok(Some(parts))
    }

    /// The size of the value of `key`, or `None` when there is none.
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StorageError>;

    /// Whether the store holds a value under `key`.
    fn contains(&self, key: &StoreKey) -> Result<bool, StorageError> {
        Ok(self.size(key)?.is_some())
    }
}

/// Listing what is under a prefix (a plain HTTP server cannot; it says so in
/// [`ListableStore::lists`]).
pub trait ListableStore: ReadableStore {
    /// The values and prefixes directly under `prefix` (empty when there is none).
    fn list_dir(&self, prefix: &StoreKey) -> Result<Listing, StorageError>;

    /// What `prefix` is on the medium, when two prefixes can be the same place (a
    /// directory reached through a symbolic link): equal identities mean the same
    /// place, so a reader can tell a loop. `None` where every prefix is its own place
    /// (object stores) or there is nothing there.
    fn identity(&self, prefix: &StoreKey) -> Option<String> {
        let _ = prefix;
        None
    }

    /// Whether [`ListableStore::list_dir`] can answer at all: `false` for a plain HTTP
    /// server, where a store can be read only through metadata that names every node
    /// (consolidated metadata, NCZarr's), taken as it is.
    fn lists(&self) -> bool {
        true
    }
}

/// Writing and removing values: each refused by default, for a store opened to be read.
pub trait WritableStore: ReadableStore {
    /// Stores `value` under `key`, replacing what was there. Refused by default, for a
    /// store opened only to be read.
    fn set(&self, key: &StoreKey, value: &[u8]) -> Result<(), StorageError> {
        let _ = value;
        Err(StorageError::Io {
            what: self.describe(key),
            source: std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this store is opened only to be read",
            ),
        })
    }

    /// Stores `value` under `key` so that a reader sees the old value or the new one,
    /// never part of either (a metadata document updated while readers open the store).
    /// The default is [`WritableStore::set`], right for a store whose writes replace a
    /// value whole (an object store's PUT); a directory writes a temporary file and
    /// renames it.
    fn set_atomic(&self, key: &StoreKey, value: &[u8]) -> Result<(), StorageError> {
        self.set(key, value)
    }

    /// Stores the concatenation of `parts` under `key`, taking them: a backend that can
    /// write or send them one after another (a file, an object store's request body)
    /// never joins them in one buffer (a shard's encoded inner chunks and its index).
    fn set_parts(&self, key: &StoreKey, parts: Vec<Vec<u8>>) -> Result<(), StorageError> {
        self.set(key, &parts.concat())
    }

    /// Stores `value` under `key` only if the key holds nothing yet, atomically (a file
    /// created with `O_EXCL`, an object store's conditional PUT): `false`, storing
    /// nothing, when it holds something. How a writer takes a lock object. Refused by
    /// default, for a store that cannot do it.
    fn create_new(&self, key: &StoreKey, value: &[u8]) -> Result<bool, StorageError> {
        let _ = value;
        Err(StorageError::Io {
            what: self.describe(key),
            source: std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this store cannot create a value only where there is none",
            ),
        })
    }

    /// Removes the value of `key`, if there is one: how a writer that cannot rename takes
    /// back a marker of its own. Refused by default, as [`WritableStore::remove_all`].
    fn remove(&self, key: &StoreKey) -> Result<(), StorageError> {
        Err(StorageError::Io {
            what: self.describe(key),
            source: std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this store does not remove values",
            ),
        })
    }

    /// Removes every value under `prefix` (every value of the store for the root):
    /// how a writer that cannot rename (an object store) replaces a store or takes
    /// back what it wrote. Stores written under a temporary name never need it, and
    /// refuse it by default.
    fn remove_all(&self, prefix: &StoreKey) -> Result<(), StorageError> {
        Err(StorageError::Io {
            what: self.describe(prefix),
            source: std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this store does not remove values",
            ),
        })
    }
}

/// A store of values named by keys, as the Zarr engine holds it: one that reads, lists
/// and writes, each capability its own trait, a store implementing what it can and
/// taking the defaults of the rest.
pub trait KeyValueStore: ReadableStore + ListableStore + WritableStore {}

impl<T: ReadableStore + ListableStore + WritableStore + ?Sized> KeyValueStore for T {}

/// The listing of `prefix` among `keys` (every value's key, in any order): what a store
/// that holds its keys in memory answers for [`ListableStore::list_dir`].
pub fn list_keys<'a>(keys: impl Iterator<Item = &'a StoreKey>, prefix: &StoreKey) -> Listing {
    let mut listing = Listing::default();
    let start = if prefix.is_root() {
        String::new()
    } else {
        format!("{}/", prefix.as_str())
    };
    for key in keys {
        let Some(rest) = key.as_str().strip_prefix(&start) else {
            continue;
        };
        match rest.split_once('/') {
            Some((child, _)) => listing.prefixes.push(child.to_string()),
            None => listing.values.push(rest.to_string()),
        }
    }
    listing.values.sort();
    listing.values.dedup();
    listing.prefixes.sort();
    listing.prefixes.dedup();
    listing
}
