//! Opening an input file without blocking: every input path the tools read themselves
//! (a netCDF file, a zip archive, a store's value, a sniffed header) is opened here.
//!
//! A FIFO named as an input would block `open(2)` until some writer appears, and a
//! terminal would become the controlling one: the file is opened with `O_NONBLOCK` and
//! `O_NOCTTY`, and what was opened is checked before anything is read from it.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// What an input that is not a regular file is told, after its path: one sentence for
/// every tool and every kind of input.
pub const NOT_REGULAR_FILE: &str =
    "is not a regular file (a pipe, a device or a socket); inputs are read from files";

/// Opens `path` for reading without blocking on a FIFO and without making a terminal the
/// controlling one; the caller checks what it opened (a directory opens too).
pub fn open_without_blocking(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

/// Opens the regular file at `path` for reading; a FIFO, a device, a socket or a
/// directory is an error ([`NOT_REGULAR_FILE`], kind `InvalidInput`), found without
/// blocking and before anything is read.
pub fn open_regular_file(path: &Path) -> io::Result<File> {
    let file = open_without_blocking(path)?;
    if file.metadata()?.is_file() {
        // O_NONBLOCK means nothing to a regular file's reads.
        Ok(file)
    } else if file.metadata()?.is_dir() {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        ))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            NOT_REGULAR_FILE,
        ))
    }
}

/// Whether `error` is [`open_regular_file`]'s refusal of a path that is not a regular file.
pub fn is_not_regular(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::InvalidInput && error.to_string() == NOT_REGULAR_FILE
}

/// The most bytes of holes an input file may have: a hole costs nothing to make, and
/// the formats' readers trust sizes as far as the file's length (an HDF5 heap, a zip
/// archive's central directory). Files written by the libraries have none.
pub const MAX_HOLE_BYTES: u64 = 64 << 20;

/// The bytes of holes in `file` (`SEEK_DATA`/`SEEK_HOLE`, which count what a file system
/// does not store, not what it compresses); `None` when the file system cannot tell. At
/// most 100,000 stretches are looked at. The file's offset is moved.
pub fn hole_bytes(file: &File) -> Option<u64> {
    use rustix::fs::{seek, SeekFrom};
    let length = file.metadata().ok()?.len();
    let mut holes = 0u64;
    let mut at = 0u64;
    for _ in 0..100_000 {
        if at >= length {
            break;
        }
        let data = match seek(file, SeekFrom::Data(at)) {
            Ok(data) => data,
            // ENXIO: no data after `at`, the rest is a hole.
            Err(rustix::io::Errno::NXIO) => return Some(holes + (length - at)),
            Err(_) => return None,
        };
        holes += data.saturating_sub(at);
        at = seek(file, SeekFrom::Hole(data)).ok()?;
    }
    Some(holes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_or_a_directory_is_refused_a_file_is_opened() {
        // A device stands for every file that is not regular (the CLI tests make FIFOs).
        let refused = open_regular_file(Path::new("/dev/null")).map(|_| ());
        assert!(refused.as_ref().is_err_and(is_not_regular), "{refused:?}");
        let dir = std::env::temp_dir().join(format!("store-input-file-{}", std::process::id()));
        assert!(std::fs::create_dir_all(&dir).is_ok());
        let file = dir.join("file");
        assert!(std::fs::write(&file, b"x").is_ok());
        assert!(open_regular_file(&file).is_ok());
        assert!(open_regular_file(&dir).is_err_and(|e| !is_not_regular(&e)));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
