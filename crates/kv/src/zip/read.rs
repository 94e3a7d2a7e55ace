//! [`ZipStore`]: a Zarr store read from a zip archive, its central directory parsed once
//! and every value read by offset.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::records::{self, CentralEntry, Directory};
use super::{ArchiveError, FileReader, MAX_DIRECTORY};
use crate::key::StoreKey;
use crate::traits::{list_keys, Listing, StorageError};
use crate::ReadableStore;

/// How many times its compressed size deflate can make a value at most (about 1032:1,
/// rounded up): a deflated entry that claims more is damaged.
const DEFLATE_MAX_RATIO: u64 = 1100;

/// How many inflated bytes a ranged read of a deflated entry holds at once while it
/// skips to its ranges and copies them out.
const INFLATE_WINDOW: usize = 64 << 10;

/// The inflate of one deflated entry, stopped where the last ranged read of it ended, for
/// the next ranged read to go on from when it starts there or later (a shard's inner
/// chunks are read in order, one batch after another): a decoder and its window, some
/// tens of kilobytes.
struct Inflation {
    key: StoreKey,
    /// How many inflated bytes the decoder has given.
    at: u64,
    decoder: flate2::read::DeflateDecoder<std::io::Take<FileReader<File>>>,
}

impl std::fmt::Debug for Inflation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflation")
            .field("key", &self.key)
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

/// A zip archive read as a store: its entries by key, below the archive's store root
/// (the archive's top, as zarr-python's `ZipStore` writes it, or the directory netCDF-C
/// puts the dataset under).
#[derive(Debug)]
pub struct ZipStore {
    path: PathBuf,
    file: File,
    /// The file's size when it was opened.
    file_size: u64,
    /// The entries under the root, by key relative to it; the last of equal names.
    entries: BTreeMap<StoreKey, CentralEntry>,
    /// The directory inside the archive the store's root is (`x/`), or empty.
    root: String,
    /// The last ranged read's inflate, to go on from.
    inflation: Mutex<Option<Inflation>>,
    /// The entries beside the root (not under it), by name: kept when the archive is
    /// appended to, never read as values.
    beside: BTreeMap<String, CentralEntry>,
}

/// An entry of the archive as it is stored, for an append to copy without inflating it.
pub(super) struct EntryAsStored {
    /// Its central directory header.
    pub entry: CentralEntry,
    /// Its key, when it is under the store root.
    pub key: Option<StoreKey>,
}

/// Refuses entries whose bytes overlap (from each local header to the end of its stored
/// bytes, the header counted at its least length): the form of zip bombs, where many
/// entries name one blob; an append would copy it once per entry (before: a 640 KB
/// archive of 2,000 entries naming one 512 KiB blob became 1 GB on its first append).
fn check_disjoint<'a>(entries: impl Iterator<Item = &'a CentralEntry>) -> Result<(), String> {
    let mut extents: Vec<(u64, u64, &str)> = entries
        .filter(|e| !e.name.ends_with('/'))
        .map(|e| {
            let end = e
                .local_offset
                .saturating_add(records::LOCAL_LEN)
                .saturating_add(e.name.len() as u64)
                .saturating_add(e.compressed);
            (e.local_offset, end, e.name.as_str())
        })
        .collect();
    extents.sort_unstable();
    match extents.windows(2).find(|pair| pair[1].0 < pair[0].1) {
        Some(pair) => Err(format!(
            "the entries {:?} and {:?} share bytes (overlapping entries, the form of a zip \
             bomb)",
            pair[0].2, pair[1].2
        )),
        None => Ok(()),
    }
}

impl ZipStore {
    /// Opens the archive at `path` and reads its central directory.
    ///
    /// Every count, size and offset the archive states is checked against the file's
    /// real size before anything is allocated for it. Every entry's name must be a valid
    /// key (no `..`, no leading `/`, no empty segment, NUL or backslash); directory
    /// entries (names ending in `/`) are skipped. Of two entries with one name, the
    /// later in the central directory is the one read, as Python's `zipfile` reads them;
    /// entries whose bytes overlap are refused.
    pub fn open(path: &Path) -> Result<Self, ArchiveError> {
        let fail = |problem: String| ArchiveError::Damaged {
            path: path.to_path_buf(),
            problem,
        };
        let io = |source: std::io::Error| ArchiveError::Io {
            path: path.to_path_buf(),
            source,
        };
        // A FIFO named as the archive is refused here, before anything blocks on it.
        let file = crate::input_file::open_regular_file(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        let file_size = meta.len();
        let tail_len = file_size.min((records::END_LEN + records::MAX_COMMENT) as u64);
        let tail_start = file_size - tail_len;
        let tail = read_at(&file, tail_start, tail_len).map_err(io)?;
        let (end_at, mut directory, zip64) = records::find_end(&tail, tail_start).map_err(fail)?;
        if zip64 {
            let locator_at = end_at
                .checked_sub(records::LOCATOR64_BEFORE_END)
                .ok_or_else(|| {
                    fail("the end record asks for zip64 fields that are not there".into())
                })?;
            let locator = read_at(&file, locator_at, records::LOCATOR64_BEFORE_END).map_err(io)?;
            let end64_at = records::zip64_locator(&locator).map_err(fail)?;
            let fits = end64_at
                .checked_add(records::END64_READ as u64)
                .is_some_and(|e| e <= locator_at);
            if !fits {
                return Err(fail("the zip64 end record lies outside the file".into()));
            }
            let end64 = read_at(&file, end64_at, records::END64_READ as u64).map_err(io)?;
            directory = records::zip64_end(&end64).map_err(fail)?;
        }
        let entries = read_directory(&file, directory, end_at).map_err(|e| match e {
            DirectoryError::Io(e) => io(e),
            DirectoryError::Problem(p) => fail(p),
        })?;
        let root = store_root(&entries);
        let mut by_key = BTreeMap::new();
        let mut beside = BTreeMap::new();
        for entry in entries {
            let relative = entry.name.strip_prefix(&root).filter(|r| !r.is_empty());
            let Some(relative) = relative.filter(|r| !r.ends_with('/')) else {
                if relative.is_none() && !entry.name.ends_with('/') {
                    check_extent(&entry, file_size).map_err(fail)?;
                }
                if relative.is_none() && entry.name != root {
                    // Kept, and copied by an append: its name must be one an extractor
                    // can take safely, as a store's keys are (red team s35 RA4: `../`,
                    // `/abs/` and backslashes passed, and an append wrote them again).
                    let name = entry.name.trim_end_matches('/');
                    StoreKey::parse(name).map_err(|e| {
                        fail(format!(
                            "the entry {:?} beside the store is no safe name: {}",
                            entry.name, e.reason
                        ))
                    })?;
                    // A drive (`C:/evil`) is a path to a Windows extractor (red team s35
                    // RC4).
                    if name
                        .split('/')
                        .next()
                        .is_some_and(|first| first.contains(':'))
                    {
                        return Err(fail(format!(
                            "the entry {:?} beside the store is no safe name: it names a \
                             drive",
                            entry.name
                        )));
                    }
                    beside.insert(entry.name.clone(), entry);
                }
                continue;
            };
            let key = StoreKey::parse(relative).map_err(|e| {
                fail(format!(
                    "the entry {:?} cannot be a store's value: {}",
                    entry.name, e.reason
                ))
            })?;
            check_extent(&entry, file_size).map_err(fail)?;
            by_key.insert(key, entry);
        }
        check_disjoint(by_key.values().chain(beside.values())).map_err(fail)?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            file_size,
            entries: by_key,
            root,
            inflation: Mutex::new(None),
            beside,
        })
    }

    /// Every entry an append keeps, in the order of the archive: the values under the
    /// root (the last of equal names), the entries beside it, directories beside it.
    pub(super) fn entries_as_stored(&self) -> Vec<EntryAsStored> {
        let mut all: Vec<EntryAsStored> = self
            .entries
            .iter()
            .map(|(key, entry)| EntryAsStored {
                entry: entry.clone(),
                key: Some(key.clone()),
            })
            .chain(self.beside.values().map(|entry| EntryAsStored {
                entry: entry.clone(),
                key: None,
            }))
            .collect();
        all.sort_by_key(|e| e.entry.local_offset);
        all
    }

    /// The archive's file.
    pub(super) fn file(&self) -> &File {
        &self.file
    }

    /// The archive's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Where the stored bytes of `entry` (of this archive, its extent checked when it
    /// was opened) start, after its local header.
    pub(super) fn data_start(&self, entry: &CentralEntry) -> std::io::Result<u64> {
        let header = read_at(&self.file, entry.local_offset, records::LOCAL_LEN)?;
        let variable = records::local_variable_len(&header)
            .map_err(|p| std::io::Error::new(std::io::ErrorKind::InvalidData, p))?;
        let start = entry.local_offset + records::LOCAL_LEN + variable;
        if start
            .checked_add(entry.compressed)
            .is_none_or(|end| end > self.file_size)
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the entry's bytes run past the end of the archive",
            ));
        }
        Ok(start)
    }

    /// The keys of the store, in the order their entries are in the archive.
    pub fn keys_in_order(&self) -> Vec<StoreKey> {
        let mut keys: Vec<(&StoreKey, u64)> = self
            .entries
            .iter()
            .map(|(key, entry)| (key, entry.local_offset))
            .collect();
        keys.sort_by_key(|(_, at)| *at);
        keys.into_iter().map(|(key, _)| key.clone()).collect()
    }

    /// The directory inside the archive that is the store's root (`x/`), empty when the
    /// store is at the archive's top.
    pub fn root_directory(&self) -> &str {
        &self.root
    }

    fn io(&self, key: &StoreKey, source: std::io::Error) -> StorageError {
        StorageError::Io {
            what: self.describe(key),
            source,
        }
    }

    fn damaged(&self, key: &StoreKey, problem: impl Into<String>) -> StorageError {
        self.io(
            key,
            std::io::Error::new(std::io::ErrorKind::InvalidData, problem.into()),
        )
    }

    /// Where the entry's stored bytes start and how many there are.
    fn data_extent(
        &self,
        key: &StoreKey,
        entry: &CentralEntry,
    ) -> Result<(u64, u64), StorageError> {
        if entry.encrypted {
            return Err(self.damaged(key, "the entry is encrypted, which nctools does not read"));
        }
        let header = read_at(&self.file, entry.local_offset, records::LOCAL_LEN)
            .map_err(|e| self.io(key, e))?;
        let variable = records::local_variable_len(&header).map_err(|p| self.damaged(key, p))?;
        let start = entry.local_offset + records::LOCAL_LEN + variable;
        let end = start.checked_add(entry.compressed);
        if end.is_none_or(|end| end > self.file_size) {
            return Err(self.damaged(key, "the entry's bytes run past the end of the archive"));
        }
        Ok((start, entry.compressed))
    }

    /// The first `limit` decompressed bytes of the entry (all of them when it has fewer).
    fn read_entry(
        &self,
        key: &StoreKey,
        entry: &CentralEntry,
        limit: u64,
    ) -> Result<Vec<u8>, StorageError> {
        let (start, stored) = self.data_extent(key, entry)?;
        match entry.method {
            records::STORED => {
                read_at(&self.file, start, stored.min(limit)).map_err(|e| self.io(key, e))
            }
            records::DEFLATED => {
                let wanted = entry.size.min(limit);
                let source = FileReader::new(&self.file, start).take(stored);
                let mut out = Vec::with_capacity(usize::try_from(wanted).unwrap_or(0).min(1 << 26));
                flate2::read::DeflateDecoder::new(source)
                    .take(wanted)
                    .read_to_end(&mut out)
                    .map_err(|e| self.damaged(key, format!("its deflated bytes: {e}")))?;
                if (out.len() as u64) < wanted {
                    return Err(self.damaged(key, "its deflated bytes end before its stated size"));
                }
                Ok(out)
            }
            other => Err(self.damaged(
                key,
                format!(
                    "the entry is compressed with method {other}; nctools reads stored (0) and \
                     deflated (8) entries"
                ),
            )),
        }
    }
}

impl ZipStore {
    /// The bytes `start..end` of the deflated entry of `key` for each of `cut` (ranges
    /// already cut to its size), from one inflate for all of them that keeps only the
    /// bytes inside them: [`INFLATE_WINDOW`] bytes at a time are inflated and the rest
    /// dropped, so memory is the ranges' bytes (which grow as bytes arrive, never to a
    /// size the archive merely states) and a window. The inflate stops at the ranges'
    /// end, and at the entry's declared size (which [`ZipStore::open`] bounds by
    /// [`DEFLATE_MAX_RATIO`] times its compressed size). The inflate is kept to go on
    /// from for a later read of the same entry that starts at or after its end.
    fn inflate_ranges(
        &self,
        key: &StoreKey,
        entry: &CentralEntry,
        cut: &[(u64, u64)],
    ) -> Result<Vec<Vec<u8>>, StorageError> {
        let mut parts: Vec<Vec<u8>> = cut
            .iter()
            .map(|(start, end)| {
                Vec::with_capacity(
                    usize::try_from(end - start)
                        .unwrap_or(0)
                        .min(INFLATE_WINDOW),
                )
            })
            .collect();
        let mut order: Vec<usize> = (0..cut.len()).filter(|i| cut[*i].0 < cut[*i].1).collect();
        order.sort_by_key(|i| cut[*i].0);
        let (Some(first), Some(last)) = (
            order.first().map(|i| cut[*i].0),
            order.iter().map(|i| cut[*i].1).max(),
        ) else {
            return Ok(parts);
        };
        let kept = self
            .inflation
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .filter(|i| i.key == *key && i.at <= first);
        let mut inflation = match kept {
            Some(inflation) => inflation,
            None => {
                let (start, stored) = self.data_extent(key, entry)?;
                let file = self.file.try_clone().map_err(|e| self.io(key, e))?;
                Inflation {
                    key: key.clone(),
                    at: 0,
                    decoder: flate2::read::DeflateDecoder::new(
                        FileReader::new(file, start).take(stored),
                    ),
                }
            }
        };
        let mut window = vec![0u8; INFLATE_WINDOW];
        let mut done = 0;
        while inflation.at < last {
            let want = usize::try_from(last - inflation.at)
                .unwrap_or(usize::MAX)
                .min(INFLATE_WINDOW);
            let n = inflation
                .decoder
                .read(&mut window[..want])
                .map_err(|e| self.damaged(key, format!("its deflated bytes: {e}")))?;
            if n == 0 {
                return Err(self.damaged(key, "its deflated bytes end before its stated size"));
            }
            let (from, to) = (inflation.at, inflation.at + n as u64);
            while done < order.len() && cut[order[done]].1 <= from {
                done += 1;
            }
            for &i in &order[done..] {
                let (start, end) = cut[i];
                if start >= to {
                    break;
                }
                let (low, high) = (start.max(from), end.min(to));
                if low < high {
                    // Both within this window of fewer than `INFLATE_WINDOW` bytes.
                    parts[i]
                        .extend_from_slice(&window[(low - from) as usize..(high - from) as usize]);
                }
            }
            inflation.at = to;
        }
        if inflation.at < entry.size {
            *self
                .inflation
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(inflation);
        }
        Ok(parts)
    }
}

/// Why the central directory could not be read.
enum DirectoryError {
    Io(std::io::Error),
    Problem(String),
}

/// The central directory `directory` describes, which must end where the end records
/// start (`end_at`), and be no larger than [`MAX_DIRECTORY`].
fn read_directory(
    file: &File,
    directory: Directory,
    end_at: u64,
) -> Result<Vec<CentralEntry>, DirectoryError> {
    let inside = directory
        .offset
        .checked_add(directory.size)
        .is_some_and(|end| end <= end_at);
    if !inside {
        return Err(DirectoryError::Problem(format!(
            "the central directory ({} bytes at {}) lies outside the file",
            directory.size, directory.offset
        )));
    }
    if directory.size > MAX_DIRECTORY {
        return Err(DirectoryError::Problem(format!(
            "the central directory holds {} bytes, more than the {MAX_DIRECTORY} nctools reads",
            directory.size
        )));
    }
    // Sizes are checked against the file's length, which counts holes a file system does
    // not store: a sparse archive could state a 500 MiB central directory from 8 KB (red
    // team s35 RA12: read whole, 537 MB), or store entries over holes.
    let holes = crate::input_file::hole_bytes(file).unwrap_or(0);
    if holes > crate::input_file::MAX_HOLE_BYTES {
        return Err(DirectoryError::Problem(format!(
            "the archive has {holes} bytes of holes (a sparse file), which no zip writer \
             makes; for an archive you trust, copy it whole first (cp --sparse=never)"
        )));
    }
    let bytes = read_at(file, directory.offset, directory.size).map_err(DirectoryError::Io)?;
    records::central_entries(&bytes, directory.entries).map_err(DirectoryError::Problem)
}

/// The archive directory the store's root is: empty when Zarr metadata is at the top (as
/// zarr-python writes), else the first segment of the first entry's name when that
/// directory holds Zarr metadata (netCDF-C puts the dataset under a directory named
/// after the file and takes its name from the first entry). A root without a document
/// of its own, whose arrays or groups are right below it (xarray leaves the root's
/// `.zgroup` out at times; netCDF-C reads such a store), is found the same way, after
/// the roots with one.
fn store_root(entries: &[CentralEntry]) -> String {
    let has = |prefix: &str| {
        entries.iter().any(|e| {
            e.name
                .strip_prefix(prefix)
                .is_some_and(|rest| crate::ZARR_MARKERS.contains(&rest))
        })
    };
    let has_children = |prefix: &str| {
        entries.iter().any(|e| {
            e.name
                .strip_prefix(prefix)
                .and_then(|rest| rest.split_once('/'))
                .is_some_and(|(child, doc)| {
                    !child.is_empty() && matches!(doc, ".zarray" | ".zgroup")
                })
        })
    };
    if has("") {
        return String::new();
    }
    let first_dir = entries
        .first()
        .and_then(|first| first.name.split_once('/'))
        .map(|(dir, _)| format!("{dir}/"))
        .filter(|dir| dir.len() > 1);
    match first_dir {
        Some(dir) if has(&dir) || has_children(&dir) => dir,
        _ => String::new(),
    }
}

/// Checks that an entry's stated sizes and offset fit a file of `file_size` bytes.
fn check_extent(entry: &CentralEntry, file_size: u64) -> Result<(), String> {
    let name = &entry.name;
    let fits = entry
        .local_offset
        .checked_add(records::LOCAL_LEN)
        .and_then(|e| e.checked_add(entry.compressed))
        .is_some_and(|end| end <= file_size);
    if !fits {
        return Err(format!(
            "the entry {name:?} claims {} bytes at offset {}, beyond the archive's {file_size} \
             bytes",
            entry.compressed, entry.local_offset
        ));
    }
    let plausible = match entry.method {
        records::STORED => entry.size == entry.compressed,
        records::DEFLATED => {
            entry.size
                <= entry
                    .compressed
                    .saturating_mul(DEFLATE_MAX_RATIO)
                    .saturating_add(64)
        }
        _ => true,
    };
    if !plausible {
        return Err(format!(
            "the entry {name:?} claims {} bytes from {} stored ones, which its method cannot give",
            entry.size, entry.compressed
        ));
    }
    Ok(())
}

/// `len` bytes of `file` from `offset`; the caller has checked they are inside it.
fn read_at(file: &File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let len =
        usize::try_from(len).map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    let mut buf = vec![0; len];
    file.read_exact_at(&mut buf, offset)?;
    Ok(buf)
}

impl ReadableStore for ZipStore {
    fn describe(&self, key: &StoreKey) -> String {
        format!("{}:{}{}", self.path.display(), self.root, key.as_str())
    }

    fn get(&self, key: &StoreKey, cap: u64) -> Result<Option<Vec<u8>>, StorageError> {
        let Some(entry) = self.entries.get(key) else {
            return Ok(None);
        };
        StorageError::within_cap(|| self.describe(key), entry.size, cap)?;
        let bytes = self.read_entry(key, entry, entry.size)?;
        let mut crc = flate2::Crc::new();
        crc.update(&bytes);
        if crc.sum() != entry.crc {
            return Err(self.damaged(key, "its bytes do not match their CRC-32"));
        }
        Ok(Some(bytes))
    }

    fn get_range(
        &self,
        key: &StoreKey,
        offset: u64,
        length: u64,
    ) -> Result<Option<Vec<u8>>, StorageError> {
        Ok(self
            .get_ranges(key, &[(offset, length)])?
            .and_then(|parts| parts.into_iter().next()))
    }

    fn get_ranges(
        &self,
        key: &StoreKey,
        ranges: &[(u64, u64)],
    ) -> Result<Option<Vec<Vec<u8>>>, StorageError> {
        let Some(entry) = self.entries.get(key) else {
            return Ok(None);
        };
        // Each range cut to the value's size: nothing is allocated beyond what it holds.
        let cut: Vec<(u64, u64)> = ranges
            .iter()
            .map(|(offset, length)| {
                let start = (*offset).min(entry.size);
                (start, offset.saturating_add(*length).min(entry.size))
            })
            .collect();
        if entry.method != records::STORED {
            return self.inflate_ranges(key, entry, &cut).map(Some);
        }
        let (data, _) = self.data_extent(key, entry)?;
        let mut parts = Vec::with_capacity(cut.len());
        for (start, end) in cut {
            parts
                .push(read_at(&self.file, data + start, end - start).map_err(|e| self.io(key, e))?);
        }
        Ok(Some(parts))
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        Ok(self.entries.get(key).map(|e| e.size))
    }
}

impl crate::ListableStore for ZipStore {
    fn list_dir(&self, prefix: &StoreKey) -> Result<Listing, StorageError> {
        Ok(list_keys(self.entries.keys(), prefix))
    }
}

impl crate::WritableStore for ZipStore {
    fn set(&self, key: &StoreKey, _value: &[u8]) -> Result<(), StorageError> {
        Err(self.io(
            key,
            std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "a zip archive opened for reading is not written",
            ),
        ))
    }
}
