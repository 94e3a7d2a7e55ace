//! The one path by which a [`DirectoryStore`](super::DirectoryStore) writes: every file
//! and directory a key names is reached from the store's root, one segment at a time,
//! with `openat`/`mkdirat` and `O_NOFOLLOW`, so that no symbolic link is ever followed
//! below the root (a link is refused, naming it), whoever planted it and whenever. The
//! root itself is the path the user named and is opened as it is, unless it leads through
//! a link the system would not follow for the user (`cleanup::protected_link_in_chain`).
//!
//! A value written in place must be a regular file with no other name (a hard link would
//! carry the write outside the store); a value replaced whole is written under an
//! exclusive, unpredictable temporary name ([`cleanup`]) in its directory and
//! renamed onto the key, so that a reader sees the old value or the new one.

use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;

/// Why a write could not reach or make its file.
#[derive(Debug)]
pub(super) enum WriteError {
    /// `path` is a symbolic link (`how` says which kind of link it is).
    Linked {
        /// The link, as a path under the root.
        path: PathBuf,
        /// What kind of link it is.
        how: &'static str,
    },
    /// The value is something other than a regular file.
    NotRegular,
    /// The system refused.
    Io(std::io::Error),
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

impl From<Errno> for WriteError {
    fn from(e: Errno) -> Self {
        Self::Io(e.into())
    }
}

/// What a symbolic link is called in messages.
const SYMBOLIC: &str = "a symbolic link";
/// What a link the system would not follow for the user is called in messages.
const PROTECTED: &str = "a symbolic link in a sticky, world-writable directory, owned by \
                         another user, which the system does not follow for you \
                         (fs.protected_symlinks)";
/// What a file with other names is called in messages.
const HARD: &str = "a hard link (a file that has other names)";

/// The directory `root`/`segments...`, open, reached without following a link below
/// `root`; with `create`, missing directories are made on the way (and `root` too).
pub(super) fn open_dir<'a>(
    root: &Path,
    segments: impl IntoIterator<Item = &'a str>,
    create: bool,
) -> Result<OwnedFd, WriteError> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    // The root is opened as named, links followed, except a link the kernel's
    // `fs.protected_symlinks` rule forbids this process to follow, anywhere in its chain:
    // nctools refuses it whatever the system's setting.
    if let Some(link) = cleanup::protected_link_in_chain(root) {
        return Err(WriteError::Linked {
            path: link,
            how: PROTECTED,
        });
    }
    let mut dir = match rustix::fs::openat(CWD, root, flags, Mode::empty()) {
        Ok(dir) => dir,
        Err(Errno::NOENT) if create => {
            cleanup::gate(|| std::fs::create_dir_all(root))?;
            rustix::fs::openat(CWD, root, flags, Mode::empty())?
        }
        Err(e) => return Err(e.into()),
    };
    let mut path = root.to_path_buf();
    for segment in segments {
        path.push(segment);
        let opened = rustix::fs::openat(&dir, segment, flags | OFlags::NOFOLLOW, Mode::empty());
        let opened = match opened {
            Err(Errno::NOENT) if create => {
                match cleanup::gate(|| {
                    rustix::fs::mkdirat(&dir, segment, Mode::from_raw_mode(0o777))
                }) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
                rustix::fs::openat(&dir, segment, flags | OFlags::NOFOLLOW, Mode::empty())
            }
            other => other,
        };
        dir = match opened {
            Ok(next) => next,
            Err(e) => return Err(refusal(&dir, segment, &path, e)),
        };
    }
    Ok(dir)
}

/// The error for `name` in `dir` (the path `path`) that could not be opened with `e`:
/// a link, named, when it is one.
fn refusal(dir: &OwnedFd, name: &str, path: &Path, e: Errno) -> WriteError {
    match kind_of(dir, name) {
        Some(FileType::Symlink) => WriteError::Linked {
            path: path.to_path_buf(),
            how: SYMBOLIC,
        },
        _ => WriteError::Io(e.into()),
    }
}

/// The type of `name` in `dir`, the link itself for a link; `None` when there is nothing.
fn kind_of(dir: &OwnedFd, name: &str) -> Option<FileType> {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        .map(|stat| FileType::from_raw_mode(stat.st_mode))
}

/// Refuses `name` in `dir` when it is a symbolic link or something other than a regular
/// file (a directory, a FIFO, a device); nothing there is fine.
fn check_replaceable(dir: &OwnedFd, name: &str, path: &Path) -> Result<(), WriteError> {
    match kind_of(dir, name) {
        None | Some(FileType::RegularFile) => Ok(()),
        Some(FileType::Symlink) => Err(WriteError::Linked {
            path: path.to_path_buf(),
            how: SYMBOLIC,
        }),
        Some(_) => Err(WriteError::NotRegular),
    }
}

/// Writes `parts` one after another into the file `name` of `dir` (the path `path`), made
/// if missing, emptied first if not: never through a link, never into a file with other
/// names, never into anything but a regular file.
pub(super) fn write_in_place(
    dir: &OwnedFd,
    name: &str,
    path: &Path,
    parts: &[&[u8]],
) -> Result<(), WriteError> {
    // O_NONBLOCK: a FIFO planted there does not block the open; it is refused below.
    let flags = OFlags::WRONLY
        | OFlags::CREATE
        | OFlags::NOFOLLOW
        | OFlags::NONBLOCK
        | OFlags::NOCTTY
        | OFlags::CLOEXEC;
    let fd = cleanup::gate(|| rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o666)))
        .map_err(|e| refusal(dir, name, path, e))?;
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(WriteError::NotRegular);
    }
    if stat.st_nlink > 1 {
        return Err(WriteError::Linked {
            path: path.to_path_buf(),
            how: HARD,
        });
    }
    rustix::fs::ftruncate(&fd, 0)?;
    let mut file = File::from(fd);
    for part in parts {
        file.write_all(part)?;
    }
    Ok(())
}

/// Replaces the file `name` of `dir` (the path `path`) with `value` whole: written under
/// an exclusive, unpredictable, registered temporary name beside it, then renamed onto
/// it. A link or anything but a regular file at `name` is refused, not replaced.
pub(super) fn write_atomic(
    dir: &OwnedFd,
    name: &str,
    path: &Path,
    value: &[u8],
) -> Result<(), WriteError> {
    check_replaceable(dir, name, path)?;
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let (temp, fd, _registration) = cleanup::create_temporary(path, |temp| {
        let temp_name = temp.file_name().unwrap_or_default();
        rustix::fs::openat(dir, temp_name, flags, Mode::from_raw_mode(0o666))
            .map_err(std::io::Error::from)
    })?;
    let temp_name = temp.file_name().unwrap_or_default().to_os_string();
    let written = File::from(fd).write_all(value).map_err(WriteError::from);
    let renamed = written.and_then(|()| Ok(rustix::fs::renameat(dir, &temp_name, dir, name)?));
    if renamed.is_err() {
        let _ = rustix::fs::unlinkat(dir, &temp_name, AtFlags::empty());
    }
    renamed
}

/// Creates the file `name` of `dir` holding `value` only if nothing is there (`O_EXCL`,
/// no link followed): `false` when something is.
pub(super) fn create_new(dir: &OwnedFd, name: &str, value: &[u8]) -> Result<bool, WriteError> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o666)) {
        Ok(fd) => fd,
        Err(Errno::EXIST) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    File::from(fd).write_all(value)?;
    Ok(true)
}

/// Removes the file `name` of `dir` (a link itself, never what it leads to); nothing
/// there is fine.
pub(super) fn remove(dir: &OwnedFd, name: &str) -> Result<(), WriteError> {
    match rustix::fs::unlinkat(dir, name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(e.into()),
    }
}
