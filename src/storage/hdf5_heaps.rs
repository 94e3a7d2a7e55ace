//! A structural check of an HDF5 file's global heap collections, made before libhdf5
//! opens the file.
//!
//! Variable-length data (the `DIMENSION_LIST` attributes netCDF-4 writes on every variable
//! with dimensions, string attributes and variables) lives in global heap collections:
//! blocks that start with `GCOL`, a version byte (1), three reserved bytes and the
//! collection's size, followed by objects, each an index (2 bytes), a reference count (2),
//! 4 reserved bytes, a size and the data padded to 8 bytes. Index 0 is the free space at
//! the end. libhdf5 1.10 trusts these sizes: an object that claims more than its
//! collection holds, or a free-space entry of size 0, makes it loop forever or read out
//! of bounds while opening the file. One flipped bit is enough.
//!
//! The check looks for collections in the first and last [`SCAN_BYTES`] of the file (where
//! HDF5 puts them: with the metadata written first, or at the end when the file is closed)
//! and walks the objects of each: every object must fit in what is left of its collection,
//! and the walk must end on the collection's end, on a free-space entry that fits, or on a
//! remainder too small for an object header. A collection must also fit in the file. A
//! block that merely starts with `GCOL` but not with version 1 is not taken for a
//! collection.

use std::fs::File;
use std::path::Path;

/// How much of the start and of the end of the file is searched for collections.
pub const SCAN_BYTES: u64 = 4 << 20;

/// What is wrong with a collection: where it starts, and why it cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeapDefect {
    /// The byte offset of the collection's `GCOL`.
    pub offset: u64,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for HeapDefect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "corrupt HDF5 global heap at byte {}: {}",
            self.offset, self.reason
        )
    }
}

/// The size of lengths (2, 4 or 8) the superblock of `src` declares; 8 when it cannot be
/// told.
fn size_of_lengths(src: &(impl Source + ?Sized)) -> usize {
    let read_at = |buf: &mut [u8], at: u64| src.read_exact_at(buf, at);
    let mut superblock = [0u8; 16];
    let field = match super::input_kind::hdf5_superblock_offset(src.len(), read_at) {
        Some(at) if src.read_exact_at(&mut superblock, at) => match superblock[8] {
            0 | 1 => superblock[14],
            _ => superblock[10],
        },
        _ => 8,
    };
    match field {
        2 | 4 | 8 => usize::from(field),
        _ => 8,
    }
}

/// Reads a little-endian unsigned integer of `bytes.len()` bytes (at most 8).
fn read_le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Bytes that can be read at an offset: the file, or a slice in the tests.
trait Source {
    /// The length in bytes.
    fn len(&self) -> u64;
    /// Fills `buf` from `offset`; false when that runs past the end or fails.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> bool;
}

impl Source for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> bool {
        let Ok(start) = usize::try_from(offset) else {
            return false;
        };
        match self.get(start..start.saturating_add(buf.len())) {
            Some(bytes) => {
                buf.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }
}

/// A file and its length.
struct FileSource {
    file: File,
    len: u64,
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> bool {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset).is_ok()
    }
}

/// Checks the collection whose `GCOL` is at `offset`. `None` when it is fine, or is not a
/// collection after all (a version other than 1), or cannot be read.
///
/// Object headers are read one by one rather than the collection at once: the check
/// allocates nothing large, so it leaves the allocator as libhdf5 would have found it.
fn check_collection(
    src: &(impl Source + ?Sized),
    offset: u64,
    lengths: usize,
) -> Option<HeapDefect> {
    // libhdf5's H5HG_SIZEOF_HDR: the header rounded up to 8 bytes (16 whatever the size
    // of lengths; before, 4-byte lengths were walked from byte 12).
    let header = (8 + lengths).next_multiple_of(8);
    let mut fixed = [0u8; 16];
    if !src.read_exact_at(&mut fixed[..header], offset) || fixed[4] != 1 {
        return None;
    }
    let size = read_le(&fixed[8..8 + lengths]);
    let in_file = src.len().saturating_sub(offset);
    let defect = |reason: String| Some(HeapDefect { offset, reason });
    if size < header as u64 || size > in_file {
        return defect(format!(
            "the collection says it is {size} bytes long, but {in_file} bytes remain in the file"
        ));
    }
    // H5HG_SIZEOF_OBJHDR, rounded up to 8 bytes as well.
    let object_header = (8 + lengths).next_multiple_of(8);
    let mut at = header as u64;
    let mut head = [0u8; 16];
    while size - at >= object_header as u64 {
        if !src.read_exact_at(&mut head[..object_header], offset + at) {
            return None;
        }
        let index = read_le(&head[..2]);
        let object_size = read_le(&head[8..8 + lengths]);
        let left = size - at;
        if index == 0 {
            if object_size < object_header as u64 || object_size > left {
                return defect(format!(
                    "its free space at byte {} claims {object_size} bytes where {left} remain",
                    offset + at
                ));
            }
            return None;
        }
        let need = (object_header as u64).saturating_add(object_size.saturating_add(7) & !7);
        if need > left {
            return defect(format!(
                "object {index} at byte {} claims {object_size} bytes, but only {} remain in \
                 its {size}-byte collection",
                offset + at,
                left - object_header as u64
            ));
        }
        at += need;
    }
    None
}

/// The size of the blocks the scan reads (below glibc's threshold for mapping an
/// allocation apart).
const BLOCK: usize = 64 << 10;

/// Checks every collection whose `GCOL` starts in `start..end` of `src`.
fn check_region(
    src: &(impl Source + ?Sized),
    start: u64,
    end: u64,
    lengths: usize,
) -> Option<HeapDefect> {
    let mut block = vec![0u8; BLOCK + 3];
    let mut from = start;
    while from < end {
        // Three bytes more than the step, so that a `GCOL` across two blocks is seen.
        let want = (end - from).min(BLOCK as u64) as usize;
        let len = want.saturating_add(3).min((src.len() - from) as usize);
        if !src.read_exact_at(&mut block[..len], from) {
            return None;
        }
        for pos in memchr::memmem::find_iter(&block[..len], b"GCOL") {
            if pos < want {
                if let Some(defect) = check_collection(src, from + pos as u64, lengths) {
                    return Some(defect);
                }
            }
        }
        from += want as u64;
    }
    None
}

/// Checks the start and the end of `src`.
fn check_source(src: &(impl Source + ?Sized)) -> Result<(), HeapDefect> {
    let len = src.len();
    let lengths = size_of_lengths(src);
    let head_end = SCAN_BYTES.min(len);
    if let Some(defect) = check_region(src, 0, head_end, lengths) {
        return Err(defect);
    }
    let tail_start = len.saturating_sub(SCAN_BYTES).max(head_end);
    match check_region(src, tail_start, len, lengths) {
        Some(defect) => Err(defect),
        None => Ok(()),
    }
}

/// Checks the global heap collections of the HDF5 file at `path`. I/O errors are not
/// defects: the file is then left to libhdf5, which reports them.
pub fn check(path: &Path) -> Result<(), HeapDefect> {
    let Ok(file) = kv::input_file::open_regular_file(path) else {
        return Ok(());
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return Ok(());
    };
    check_source(&FileSource { file, len })
}

#[cfg(test)]
mod tests;
