//! [`DirectoryStore`]: a key-value store in a directory of the local file system, one
//! file per value (`g/v/.zarray` is the file `ROOT/g/v/.zarray`). This is the one place
//! where a store key becomes a file-system path.
//!
//! What a store found on disk cannot do here:
//! - name anything outside its root: keys cannot hold `..`, `/` at the start or a NUL
//!   (see [`StoreKey`]), and a symbolic link is followed only when it resolves to a
//!   place inside the root;
//! - make a read block or run without end: only regular files are read (a FIFO, a
//!   device such as `/dev/zero` or a socket is refused, and opened without blocking to
//!   find out), and never more than the caller's cap;
//! - make a listing loop: a linked directory that leads back to the directory being
//!   listed or one above it is not listed.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::key::StoreKey;
use crate::traits::{Listing, StorageError};
use crate::ReadableStore;

/// A store in a directory.
#[derive(Debug)]
pub struct DirectoryStore {
    root: PathBuf,
    /// The root with every symbolic link resolved, once it exists.
    resolved_root: OnceLock<PathBuf>,
}

impl DirectoryStore {
    /// The store whose root is the directory `root` (which need not exist yet for a
    /// store about to be written).
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            resolved_root: OnceLock::new(),
        }
    }

    /// The root with its links resolved; `None` while it does not exist.
    fn resolved_root(&self) -> Option<&Path> {
        if let Some(root) = self.resolved_root.get() {
            return Some(root);
        }
        let root = std::fs::canonicalize(&self.root).ok()?;
        Some(self.resolved_root.get_or_init(|| root))
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path_of(&self, key: &StoreKey) -> PathBuf {
        key.segments().fold(self.root.clone(), |p, s| p.join(s))
    }

    fn io(&self, key: &StoreKey, source: std::io::Error) -> StorageError {
        StorageError::Io {
            what: self.describe(key),
            source,
        }
    }

    /// The path of `key` with its links resolved, when it exists, after checking that it
    /// stays inside the root; `None` when there is nothing there.
    fn resolved(&self, key: &StoreKey) -> Result<Option<PathBuf>, StorageError> {
        let path = self.path_of(key);
        let resolved = match std::fs::canonicalize(&path) {
            Ok(p) => p,
            Err(e) if is_absent(&e) => return Ok(None),
            Err(e) => return Err(self.io(key, e)),
        };
        let inside = self
            .resolved_root()
            .is_some_and(|root| resolved.starts_with(root));
        if !inside {
            return Err(StorageError::Outside {
                what: self.describe(key),
                target: resolved.display().to_string(),
            });
        }
        Ok(Some(resolved))
    }
}

impl DirectoryStore {
    /// The bytes `offset..offset + length` of the open value `file` of `key`, `len`
    /// bytes long (fewer where it ends first).
    fn read_range(
        &self,
        key: &StoreKey,
        file: &File,
        len: u64,
        offset: u64,
        length: u64,
    ) -> Result<Vec<u8>, StorageError> {
        // At most what the file holds from `offset`: the length asked for is not trusted.
        let wanted = length.min(len.saturating_sub(offset));
        let mut bytes = vec![0u8; usize::try_from(wanted).unwrap_or(0)];
        let mut done = 0;
        while done < bytes.len() {
            match file.read_at(&mut bytes[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io(key, e)),
            }
        }
        bytes.truncate(done);
        Ok(bytes)
    }

    /// The file of the value `key`, open for reading, and its length: `None` when there
    /// is none; an error when it is not a regular file or leads outside the root.
    fn open_value(&self, key: &StoreKey) -> Result<Option<(File, u64)>, StorageError> {
        if key.is_root() {
            return Ok(None);
        }
        let Some(path) = self.resolved(key)? else {
            return Ok(None);
        };
        let file = match open_for_reading(&path) {
            Ok(f) => f,
            Err(e) if is_absent(&e) => return Ok(None),
            Err(e) => return Err(self.io(key, e)),
        };
        let meta = file.metadata().map_err(|e| self.io(key, e))?;
        if meta.is_dir() {
            return Ok(None);
        }
        if !meta.is_file() {
            return Err(StorageError::NotRegular {
                what: self.describe(key),
            });
        }
        Ok(Some((file, meta.len())))
    }
}

/// Whether an error means "there is nothing there" (a missing file, or a part of the
/// path that is a file rather than a directory).
fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// Opens `path` for reading without blocking on a FIFO and without making a terminal
/// the controlling one; the caller checks what it opened.
fn open_for_reading(path: &Path) -> std::io::Result<File> {
    crate::input_file::open_without_blocking(path)
}

impl ReadableStore for DirectoryStore {
    fn describe(&self, key: &StoreKey) -> String {
        self.path_of(key).display().to_string()
    }

    fn get(&self, key: &StoreKey, cap: u64) -> Result<Option<Vec<u8>>, StorageError> {
        let Some((file, len)) = self.open_value(key)? else {
            return Ok(None);
        };
        StorageError::within_cap(|| self.describe(key), len, cap)?;
        // The length can change under us: never read past the cap all the same.
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.take(cap.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| self.io(key, e))?;
        StorageError::within_cap(|| self.describe(key), bytes.len() as u64, cap)?;
        Ok(Some(bytes))
    }

    fn get_range(
        &self,
        key: &StoreKey,
        offset: u64,
        length: u64,
    ) -> Result<Option<Vec<u8>>, StorageError> {
        let Some((file, len)) = self.open_value(key)? else {
            return Ok(None);
        };
        self.read_range(key, &file, len, offset, length).map(Some)
    }

    fn get_ranges(
        &self,
        key: &StoreKey,
        ranges: &[(u64, u64)],
    ) -> Result<Option<Vec<Vec<u8>>>, StorageError> {
        let Some((file, len)) = self.open_value(key)? else {
            return Ok(None);
        };
        ranges
            .iter()
            .map(|(offset, length)| self.read_range(key, &file, len, *offset, *length))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        if key.is_root() {
            return Ok(None);
        }
        let Some(path) = self.resolved(key)? else {
            return Ok(None);
        };
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(Some(m.len())),
            Ok(m) if m.is_dir() => Ok(None),
            Ok(_) => Err(StorageError::NotRegular {
                what: self.describe(key),
            }),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(self.io(key, e)),
        }
    }
}

impl crate::ListableStore for DirectoryStore {
    fn list_dir(&self, prefix: &StoreKey) -> Result<Listing, StorageError> {
        let Some(dir) = self.resolved(prefix)? else {
            return Ok(Listing::default());
        };
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if is_absent(&e) => return Ok(Listing::default()),
            Err(e) => return Err(self.io(prefix, e)),
        };
        let mut listing = Listing::default();
        for entry in entries {
            let entry = entry.map_err(|e| self.io(prefix, e))?;
            // A name that cannot be a key segment (not UTF-8, a backslash) cannot be
            // addressed, so it is not listed.
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let Ok(key) = prefix.child(&name) else {
                continue;
            };
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_symlink() {
                // Followed only inside the root, and never back up the tree.
                let Ok(Some(target)) = self.resolved(&key) else {
                    continue;
                };
                match std::fs::metadata(&target) {
                    Ok(m) if m.is_dir() && !dir.starts_with(&target) => listing.prefixes.push(name),
                    Ok(m) if m.is_file() => listing.values.push(name),
                    _ => {}
                }
            } else if file_type.is_dir() {
                listing.prefixes.push(name);
            } else if file_type.is_file() {
                listing.values.push(name);
            }
        }
        listing.values.sort();
        listing.prefixes.sort();
        Ok(listing)
    }

    fn identity(&self, prefix: &StoreKey) -> Option<String> {
        let path = self.resolved(prefix).ok().flatten()?;
        Some(path.display().to_string())
    }
}

impl crate::WritableStore for DirectoryStore {
    fn set(&self, key: &StoreKey, value: &[u8]) -> Result<(), StorageError> {
        self.write(key, true, |dir, name, path| {
            beneath::write_in_place(dir, name, path, &[value])
        })
    }

    fn set_atomic(&self, key: &StoreKey, value: &[u8]) -> Result<(), StorageError> {
        self.write(key, true, |dir, name, path| {
            beneath::write_atomic(dir, name, path, value)
        })
    }

    fn set_parts(&self, key: &StoreKey, parts: Vec<Vec<u8>>) -> Result<(), StorageError> {
        let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        self.write(key, true, |dir, name, path| {
            beneath::write_in_place(dir, name, path, &parts)
        })
    }

    fn create_new(&self, key: &StoreKey, value: &[u8]) -> Result<bool, StorageError> {
        self.write(key, true, |dir, name, _| {
            beneath::create_new(dir, name, value)
        })
    }

    fn remove(&self, key: &StoreKey) -> Result<(), StorageError> {
        self.write(key, false, |dir, name, _| beneath::remove(dir, name))
    }
}

impl DirectoryStore {
    /// Runs `write` on the directory of `key` (reached from the root without following a
    /// link, made on the way with `create`), the key's last segment and its path: the one
    /// way this store writes or removes anything.
    fn write<T>(
        &self,
        key: &StoreKey,
        create: bool,
        write: impl FnOnce(&std::os::fd::OwnedFd, &str, &Path) -> Result<T, beneath::WriteError>,
    ) -> Result<T, StorageError> {
        let segments: Vec<&str> = key.segments().collect();
        let Some((name, parents)) = segments.split_last() else {
            return Err(self.io(
                key,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "the root is not a value"),
            ));
        };
        let path = self.path_of(key);
        let done = beneath::open_dir(&self.root, parents.iter().copied(), create)
            .and_then(|dir| write(&dir, name, &path));
        done.map_err(|e| match e {
            beneath::WriteError::Linked { path, how } => StorageError::Linked {
                what: path.display().to_string(),
                how,
            },
            beneath::WriteError::NotRegular => StorageError::NotRegular {
                what: self.describe(key),
            },
            beneath::WriteError::Io(e) => self.io(key, e),
        })
    }
}

mod beneath;

#[cfg(test)]
mod tests;
