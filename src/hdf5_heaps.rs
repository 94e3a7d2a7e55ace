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
use std::io::{Read, Seek, SeekFrom};
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

/// The HDF5 signature; the superblock starts with it at 0, 512, 1024, 2048, ...
const SIGNATURE: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

/// The size of lengths the superblock at the start of `head` declares (2, 4 or 8); 8 when
/// it cannot be told.
fn size_of_lengths(head: &[u8]) -> usize {
    let mut at = 0usize;
    while at + 16 <= head.len() {
        if &head[at..at + 8] == SIGNATURE {
            let field = match head[at + 8] {
                0 | 1 => head[at + 14],
                _ => head[at + 10],
            };
            return match field {
                2 | 4 | 8 => usize::from(field),
                _ => 8,
            };
        }
        at = if at == 0 { 512 } else { at * 2 };
    }
    8
}

/// Reads a little-endian unsigned integer of `bytes.len()` bytes (at most 8).
fn read_le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Checks the collection whose `GCOL` is at `start` of `buf` (`buf` begins at file offset
/// `base`), in a file of `file_len` bytes. `None` when it is fine, or is not a collection
/// after all (a version other than 1), or runs past `buf` (then it cannot be judged here).
fn check_collection(
    buf: &[u8],
    start: usize,
    base: u64,
    file_len: u64,
    lengths: usize,
) -> Option<HeapDefect> {
    let offset = base + start as u64;
    let header = 8 + lengths;
    let fixed = buf.get(start..start + header)?;
    if fixed[4] != 1 {
        return None;
    }
    let size = read_le(&fixed[8..header]);
    let defect = |reason: String| Some(HeapDefect { offset, reason });
    if size < header as u64 || size > file_len.saturating_sub(offset) {
        return defect(format!(
            "the collection says it is {size} bytes long, but {} bytes remain in the file",
            file_len.saturating_sub(offset)
        ));
    }
    let body = buf.get(start..start + usize::try_from(size).ok()?)?;
    let object_header = 8 + lengths;
    let mut at = header;
    while body.len() - at >= object_header {
        let index = read_le(&body[at..at + 2]);
        let object_size = read_le(&body[at + 8..at + object_header]);
        let left = (body.len() - at) as u64;
        if index == 0 {
            if object_size < object_header as u64 || object_size > left {
                return defect(format!(
                    "its free space at byte {} claims {object_size} bytes where {left} remain",
                    offset + at as u64
                ));
            }
            return None;
        }
        let need = (object_header as u64).saturating_add(object_size.saturating_add(7) & !7);
        if need > left {
            return defect(format!(
                "object {index} at byte {} claims {object_size} bytes, but only {} remain in \
                 its {size}-byte collection",
                offset + at as u64,
                left - object_header as u64
            ));
        }
        at += need as usize;
    }
    None
}

/// Checks every collection found in `buf` (file offset `base`).
fn check_region(buf: &[u8], base: u64, file_len: u64, lengths: usize) -> Option<HeapDefect> {
    memchr::memmem::find_iter(buf, b"GCOL")
        .find_map(|start| check_collection(buf, start, base, file_len, lengths))
}

/// Reads `len` bytes of `file` at `offset`.
fn read_at(file: &mut File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::new();
    file.take(len).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Checks the global heap collections of the HDF5 file at `path`. I/O errors are not
/// defects: the file is then left to libhdf5, which reports them.
pub fn check(path: &Path) -> Result<(), HeapDefect> {
    let Ok(mut file) = File::open(path) else {
        return Ok(());
    };
    let Ok(file_len) = file.metadata().map(|m| m.len()) else {
        return Ok(());
    };
    let Ok(head) = read_at(&mut file, 0, SCAN_BYTES.min(file_len)) else {
        return Ok(());
    };
    let lengths = size_of_lengths(&head);
    if let Some(defect) = check_region(&head, 0, file_len, lengths) {
        return Err(defect);
    }
    if file_len > SCAN_BYTES {
        let base = (file_len - SCAN_BYTES).max(SCAN_BYTES);
        if let Ok(tail) = read_at(&mut file, base, file_len - base) {
            if let Some(defect) = check_region(&tail, base, file_len, lengths) {
                return Err(defect);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
