//! [`ZipWriter`]: a Zarr store written into a zip archive: entries appended to a
//! temporary file beside the target, the central directory written at the end, then the
//! file renamed onto the target, so that an archive that looks complete is one.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::records::{self, Directory, WrittenEntry};
use super::{ArchiveError, FileReader};
use crate::key::StoreKey;
use crate::traits::{list_keys, Listing, StorageError};
use crate::ReadableStore;
use cleanup::{self as temporaries, Registration};

/// A zip archive being written as a store. Values are appended as stored (uncompressed)
/// entries. The values written last are held in memory first, up to `HELD_BYTES` (and
/// always the last one): a chunk written again and again, slab after slab, is appended
/// once, when it has not been written for a while or at the end. A value written again
/// after it was appended is appended again, and the earlier copy dropped when the
/// archive is finished. Nothing is at the target until [`ZipWriter::finish`].
#[derive(Debug)]
pub struct ZipWriter {
    target: PathBuf,
    /// The directory inside the archive every key is under (`x/`), or empty.
    root: String,
    state: Mutex<State>,
}

/// How many bytes of values written last are held in memory before the oldest are
/// appended to the archive.
pub const HELD_BYTES: usize = 32 << 20;

/// The buffer an entry of another archive is copied through.
const COPY_BUFFER: usize = 1 << 20;

#[derive(Debug)]
struct State {
    temp: Temporary,
    /// Where the next entry goes.
    end: u64,
    /// The entries in the order appended; `None` for one replaced since.
    entries: Vec<Option<WrittenEntry>>,
    /// Each appended value's entry, by key.
    appended: HashMap<StoreKey, usize>,
    /// The values held in memory, by key, with their place in `order`.
    held: HashMap<StoreKey, (Vec<u8>, u64)>,
    /// The held values' keys, oldest first.
    order: BTreeMap<u64, StoreKey>,
    /// The bytes held.
    held_bytes: usize,
    /// The next place in `order`.
    next: u64,
    /// The directories (entries ending in `/`) written.
    directories: HashSet<String>,
    /// Whether some bytes in the file belong to no entry.
    holes: bool,
    finished: bool,
}
/// A temporary file of ours, removed when dropped unless it was renamed.
#[derive(Debug)]
struct Temporary {
    path: PathBuf,
    file: File,
    kept: bool,
    _registration: Registration,
}

impl Temporary {
    fn beside(target: &Path) -> Result<Self, ArchiveError> {
        let (path, file, registration) =
            temporaries::create_temporary_file(target).map_err(|source| ArchiveError::Io {
                path: target.to_path_buf(),
                source,
            })?;
        Ok(Self {
            path,
            file,
            kept: false,
            _registration: registration,
        })
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl ZipWriter {
    /// Starts an archive that replaces `target` (a link is written through), its keys
    /// under the archive directory `root` (`x`, as netCDF-C writes them, which then
    /// starts the archive) or at its top (`None`, as zarr-python writes them).
    pub fn create(target: &Path, root: Option<&str>) -> Result<Self, ArchiveError> {
        let target = temporaries::resolve_links(target);
        let temp = Temporary::beside(&target)?;
        let writer = Self {
            target,
            root: root.map(|r| format!("{r}/")).unwrap_or_default(),
            state: Mutex::new(State {
                temp,
                end: 0,
                entries: Vec::new(),
                appended: HashMap::new(),
                held: HashMap::new(),
                order: BTreeMap::new(),
                held_bytes: 0,
                next: 0,
                directories: HashSet::new(),
                holes: false,
                finished: false,
            }),
        };
        if !writer.root.is_empty() {
            let mut state = writer.lock();
            writer
                .add_directory(&mut state, &writer.root)
                .map_err(|source| writer.io_error(source))?;
        }
        Ok(writer)
    }

    /// The temporary file the archive is written in until it is finished.
    pub fn temporary_path(&self) -> PathBuf {
        self.lock().temp.path.clone()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn io_error(&self, source: std::io::Error) -> ArchiveError {
        ArchiveError::Io {
            path: self.target.clone(),
            source,
        }
    }

    /// Writes the directory entry `name` (ending in `/`) and its parents not written yet.
    fn add_directory(&self, state: &mut State, name: &str) -> std::io::Result<()> {
        let trimmed = name.trim_end_matches('/');
        if let Some((parent, _)) = trimmed.rsplit_once('/') {
            self.add_directory(state, &format!("{parent}/"))?;
        }
        if !state.directories.insert(name.to_string()) {
            return Ok(());
        }
        let entry = WrittenEntry::stored(name.to_string(), 0, 0, state.end);
        let header = entry.local_header();
        state.temp.file.write_all_at(&header, state.end)?;
        state.end += header.len() as u64;
        state.entries.push(Some(entry));
        Ok(())
    }

    /// Appends the value of `key` to the archive, replacing any earlier entry of it.
    fn append(&self, state: &mut State, key: &StoreKey, value: &[u8]) -> std::io::Result<()> {
        let name = format!("{}{}", self.root, key.as_str());
        if !self.root.is_empty() {
            if let Some((parent, _)) = name.rsplit_once('/') {
                self.add_directory(state, &format!("{parent}/"))?;
            }
        }
        let mut crc = flate2::Crc::new();
        crc.update(value);
        let entry = WrittenEntry::stored(name, crc.sum(), value.len() as u64, state.end);
        let header = entry.local_header();
        let data_at = entry.local_offset + header.len() as u64;
        state.temp.file.write_all_at(&header, entry.local_offset)?;
        state.temp.file.write_all_at(value, data_at)?;
        state.end = data_at + entry.size;
        state.entries.push(Some(entry));
        let at = state.entries.len() - 1;
        if let Some(old) = state.appended.insert(key.clone(), at) {
            state.entries[old] = None;
            state.holes = true;
        }
        Ok(())
    }

    /// Copies every entry of `old` into the archive as it is stored there (deflated ones
    /// deflated, with their CRC and sizes), its bytes streamed file to file through a
    /// bounded buffer and never inflated: the values under the store root under their
    /// keys (to be replaced by later writes), the entries beside the root (a README
    /// beside netCDF-C's `x/`) under their names, in the order of the old archive.
    /// Directory entries are written as this writer writes them.
    pub fn copy_entries_of(&self, old: &super::ZipStore) -> Result<(), StorageError> {
        let mut state = self.lock();
        for copied in old.entries_as_stored() {
            let io = |source| StorageError::Io {
                what: format!("{}:{}", old.path().display(), copied.entry.name),
                source,
            };
            if copied.entry.name.ends_with('/') {
                self.add_directory(&mut state, &copied.entry.name)
                    .map_err(io)?;
                continue;
            }
            // Parents get directory entries only in a layout that writes them (netCDF-C's,
            // under a root directory), as new values do.
            if !self.root.is_empty() {
                if let Some((parent, _)) = copied.entry.name.rsplit_once('/') {
                    self.add_directory(&mut state, &format!("{parent}/"))
                        .map_err(io)?;
                }
            }
            let data = old.data_start(&copied.entry).map_err(io)?;
            let entry = WrittenEntry {
                name: copied.entry.name.clone(),
                method: copied.entry.method,
                crc: copied.entry.crc,
                compressed: copied.entry.compressed,
                size: copied.entry.size,
                local_offset: state.end,
            };
            let header = entry.local_header();
            state
                .temp
                .file
                .write_all_at(&header, entry.local_offset)
                .map_err(io)?;
            let mut at = entry.local_offset + header.len() as u64;
            let mut buffer = vec![0u8; COPY_BUFFER];
            let mut left = entry.compressed;
            let mut from = data;
            while left > 0 {
                let n = usize::try_from(left)
                    .unwrap_or(COPY_BUFFER)
                    .min(COPY_BUFFER);
                old.file()
                    .read_exact_at(&mut buffer[..n], from)
                    .map_err(io)?;
                state.temp.file.write_all_at(&buffer[..n], at).map_err(io)?;
                (from, at, left) = (from + n as u64, at + n as u64, left - n as u64);
            }
            state.end = at;
            state.entries.push(Some(entry));
            let index = state.entries.len() - 1;
            if let Some(key) = copied.key {
                if let Some(earlier) = state.appended.insert(key, index) {
                    state.entries[earlier] = None;
                    state.holes = true;
                }
            }
        }
        Ok(())
    }

    /// Appends the oldest held values until no more than [`HELD_BYTES`] are held (or
    /// one value); all of them when `all`.
    fn release(&self, state: &mut State, all: bool) -> std::io::Result<()> {
        while all && !state.held.is_empty() || state.held_bytes > HELD_BYTES && state.held.len() > 1
        {
            let Some((_, key)) = state.order.pop_first() else {
                break;
            };
            let Some((value, _)) = state.held.remove(&key) else {
                continue;
            };
            state.held_bytes -= value.len();
            self.append(state, &key, &value)?;
        }
        Ok(())
    }

    /// The bytes `start..end` (cut to the value's size) of the value of `key`.
    fn read(&self, key: &StoreKey, start: u64, end: u64) -> Result<Option<Vec<u8>>, StorageError> {
        let state = self.lock();
        if let Some((value, _)) = state.held.get(key) {
            let cut = |v: u64| usize::try_from(v).unwrap_or(usize::MAX).min(value.len());
            return Ok(Some(value[cut(start)..cut(end).max(cut(start))].to_vec()));
        }
        let Some(entry) = state
            .appended
            .get(key)
            .and_then(|i| state.entries[*i].as_ref())
        else {
            return Ok(None);
        };
        let (start, end) = (
            start.min(entry.size),
            end.min(entry.size).max(start.min(entry.size)),
        );
        let data = entry.local_offset + entry.local_header().len() as u64;
        let io = |source| StorageError::Io {
            what: self.describe(key),
            source,
        };
        if entry.method == records::DEFLATED {
            // An entry copied deflated from the archive appended to (whose size the
            // reader bounded by its compressed size): inflated as a stream, the bytes
            // before `start` dropped, those up to `end` kept.
            let source = FileReader::new(&state.temp.file, data).take(entry.compressed);
            let mut inflate = flate2::read::DeflateDecoder::new(source);
            std::io::copy(&mut inflate.by_ref().take(start), &mut std::io::sink()).map_err(io)?;
            let mut buf = Vec::new();
            inflate
                .take(end - start)
                .read_to_end(&mut buf)
                .map_err(io)?;
            if (buf.len() as u64) < end - start {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "its deflated bytes end before its stated size",
                )));
            }
            return Ok(Some(buf));
        }
        let len = usize::try_from(end - start).unwrap_or(usize::MAX);
        let mut buf = vec![0; len];
        state
            .temp
            .file
            .read_exact_at(&mut buf, data + start)
            .map_err(io)?;
        Ok(Some(buf))
    }

    /// Writes the central directory and moves the archive onto the target. Entries
    /// replaced by later writes are left out: the archive is copied without them first.
    pub fn finish(&self) -> Result<(), ArchiveError> {
        let mut state = self.lock();
        if state.finished {
            return Ok(());
        }
        self.release(&mut state, true)
            .map_err(|source| self.io_error(source))?;
        if state.holes {
            self.compact(&mut state)
                .map_err(|source| self.io_error(source))?;
        }
        let mut directory = Vec::new();
        let mut count = 0u64;
        for entry in state.entries.iter().flatten() {
            entry.central_header(&mut directory);
            count += 1;
        }
        let end = records::end_records(Directory {
            entries: count,
            size: directory.len() as u64,
            offset: state.end,
        });
        directory.extend(end);
        let write = state
            .temp
            .file
            .write_all_at(&directory, state.end)
            .and_then(|()| state.temp.file.set_len(state.end + directory.len() as u64))
            .map(|()| cleanup::keep_permissions_of(&self.target, &state.temp.path))
            .and_then(|()| std::fs::rename(&state.temp.path, &self.target));
        write.map_err(|source| self.io_error(source))?;
        state.temp.kept = true;
        state.finished = true;
        Ok(())
    }

    /// Copies the live entries into a new temporary file, which replaces the old one.
    fn compact(&self, state: &mut State) -> std::io::Result<()> {
        let fresh = Temporary::beside(&self.target).map_err(|e| match e {
            ArchiveError::Io { source, .. } => source,
            ArchiveError::Damaged { problem, .. } => std::io::Error::other(problem),
        })?;
        let mut out = BufWriter::new(&fresh.file);
        let mut at = 0u64;
        for entry in state.entries.iter_mut().flatten() {
            let old_header = entry.local_header().len() as u64;
            let old = entry.local_offset;
            entry.local_offset = at;
            let header = entry.local_header();
            out.write_all(&header)?;
            let copied = std::io::copy(
                &mut FileReader::new(&state.temp.file, old + old_header).take(entry.compressed),
                &mut out,
            )?;
            if copied != entry.compressed {
                return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
            }
            at += header.len() as u64 + entry.compressed;
        }
        out.flush()?;
        drop(out);
        state.temp = fresh;
        state.end = at;
        state.holes = false;
        Ok(())
    }
}

impl ReadableStore for ZipWriter {
    fn describe(&self, key: &StoreKey) -> String {
        format!("{}:{}{}", self.target.display(), self.root, key.as_str())
    }

    fn get(&self, key: &StoreKey, cap: u64) -> Result<Option<Vec<u8>>, StorageError> {
        let Some(size) = self.size(key)? else {
            return Ok(None);
        };
        StorageError::within_cap(|| self.describe(key), size, cap)?;
        self.read(key, 0, size)
    }

    fn get_range(
        &self,
        key: &StoreKey,
        offset: u64,
        length: u64,
    ) -> Result<Option<Vec<u8>>, StorageError> {
        self.read(key, offset, offset.saturating_add(length))
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        let state = self.lock();
        if let Some((value, _)) = state.held.get(key) {
            return Ok(Some(value.len() as u64));
        }
        Ok(state
            .appended
            .get(key)
            .and_then(|i| state.entries[*i].as_ref())
            .map(|e| e.size))
    }
}

impl crate::ListableStore for ZipWriter {
    fn list_dir(&self, prefix: &StoreKey) -> Result<Listing, StorageError> {
        let state = self.lock();
        Ok(list_keys(
            state.appended.keys().chain(state.held.keys()),
            prefix,
        ))
    }
}

impl crate::WritableStore for ZipWriter {
    fn set(&self, key: &StoreKey, value: &[u8]) -> Result<(), StorageError> {
        let mut state = self.lock();
        let io = |source| StorageError::Io {
            what: self.describe(key),
            source,
        };
        if state.finished {
            return Err(io(std::io::Error::other("the archive is finished")));
        }
        if let Some((old, at)) = state.held.remove(key) {
            state.order.remove(&at);
            state.held_bytes -= old.len();
        }
        let at = state.next;
        state.next += 1;
        state.order.insert(at, key.clone());
        state.held_bytes += value.len();
        state.held.insert(key.clone(), (value.to_vec(), at));
        self.release(&mut state, false).map_err(io)
    }
}
