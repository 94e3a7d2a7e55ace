//! Zarr stores in zip archives: [`ZipStore`] reads one (zarr-python's `ZipStore`, with
//! the store at the archive's top, or netCDF-C's `#mode=nczarr,zip`, with the store
//! under a directory named after the file), [`ZipWriter`] writes one.
//!
//! Entries are written stored (uncompressed), as both of those write them; stored and
//! deflated entries are read. Archives beyond 4 GiB or 65,535 entries use zip64.

mod read;
mod records;
pub(crate) mod write;

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub use read::ZipStore;
pub use write::ZipWriter;

/// The largest central directory read (512 MiB, about five million entries).
pub const MAX_DIRECTORY: u64 = 512 << 20;

/// An archive that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The file system failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The archive.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The archive's records are wrong or out of bounds.
    #[error("{}: not a zip archive nctools can read: {problem}", path.display())]
    Damaged {
        /// The archive.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

/// The directory netCDF-C puts a dataset under in its zip archive: the file's name up to
/// its last `.` (`x` for `/data/x.zip`, `x.zarr` for `x.zarr.zip`).
pub fn dataset_directory(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => name,
    }
}

/// Whether the file at `path` starts as a zip archive does (a local file header, or the
/// end record of an empty archive).
pub fn starts_like_zip(path: &Path) -> bool {
    let Ok(mut file) = crate::input_file::open_regular_file(path) else {
        return false;
    };
    let mut magic = [0u8; 4];
    if file.read_exact(&mut magic).is_err() {
        return false;
    }
    let magic = u32::from_le_bytes(magic);
    magic == records::LOCAL_SIGNATURE || magic == records::END_SIGNATURE
}

/// A file (owned, or borrowed as `&File`) read from an offset on, without moving a
/// shared position.
struct FileReader<F> {
    file: F,
    at: u64,
}

impl<F: std::borrow::Borrow<File>> FileReader<F> {
    fn new(file: F, at: u64) -> Self {
        Self { file, at }
    }
}

impl<F: std::borrow::Borrow<File>> Read for FileReader<F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.borrow().read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
