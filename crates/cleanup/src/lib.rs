//! The temporary outputs of this process, in a table that a signal or crash handler can
//! read without allocating or taking a lock.
//!
//! Writers register their temporary name ([`register`]) *before* they create anything
//! there, and keep the [`Registration`] until the output is renamed into place or
//! removed. The table holds each name as a NUL-terminated C string at a fixed address
//! (leaked on purpose: a handler may be reading it at any time), in a fixed number of
//! slots ([`slots`]).
//!
//! Temporary names are unpredictable ([`temporary_name`]) and created exclusively: a
//! directory with `mkdir` ([`create_temporary_dir`]), a netCDF file by libnetcdf with
//! `NC_NOCLOBBER` (`O_EXCL`), so that a link planted at the name is never followed.
//!
//! Everything that creates a file or directory under a temporary name does it through
//! [`gate`]. A handler that is about to remove the temporaries and end the process first
//! closes the gate ([`close_gate`]): from then on nothing new appears under a temporary
//! name, so what it removes stays removed.

use std::ffi::{c_char, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// The environment variable that fixes the variable part (`PID-RANDOM`) of the *first*
/// temporary name a process picks (the next ones are random again), so that a test can
/// plant something there. Honoured only in debug builds (the tests'); a release build
/// ignores it.
pub const TEST_SUFFIX_VAR: &str = settings::TEST_TEMPORARY_SUFFIX;

/// A fresh temporary name beside `target`: `.NAME.nctools-PID-RANDOM.tmp`, hidden, with
/// the process id and 16 random hexadecimal digits. The random part makes the name
/// unpredictable, so that nobody can plant a link there in advance; the prefix and the
/// `.tmp` suffix make one left by a process that was killed (SIGKILL) easy to spot. Each
/// call gives another name; the caller must still create it exclusively (`O_EXCL`, or
/// `mkdir`) and try another name if it exists.
pub fn temporary_name(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let unique =
        test_suffix().unwrap_or_else(|| format!("{}-{:016x}", std::process::id(), random_u64()));
    parent.join(format!(".{name}.nctools-{unique}.tmp"))
}

/// The test's fixed random part ([`TEST_SUFFIX_VAR`]), once per process, in debug builds.
fn test_suffix() -> Option<String> {
    static TAKEN: AtomicBool = AtomicBool::new(false);
    let suffix = settings::test_temporary_suffix()?;
    (!TAKEN.swap(true, Ordering::SeqCst)).then_some(suffix)
}

/// 64 unpredictable bits: the system's random source as std's hash maps are keyed with it
/// (each [`RandomState`](std::collections::hash_map::RandomState) draws its keys from
/// `getrandom`, once per thread, then steps them), mixed with the time and a counter.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    hasher.finish()
}

/// How many names a writer tries before it gives up, when each one it picks exists.
pub const NAME_ATTEMPTS: usize = 8;

/// The file or directory that writing `target` must replace: `target` itself, or, when
/// it is a symbolic link (or a chain of them, absolute or relative), the path it finally
/// leads to, so that the output is written through the link and the link stays a link.
/// The last path may not exist (a dangling link: the output is created there). At most
/// 40 links are followed, as the kernel does; past that, or when a link cannot be read,
/// `target` is returned as it is (the writer's own errors then say why).
///
/// A link inside `/proc` (`/dev/stdout` leads to `/proc/self/fd/1`) names an open file,
/// not always a path: the caller should check that the path returned is the same file
/// (device and inode) as `target` followed by the system.
///
/// A link the kernel would not follow for this process (`fs.protected_symlinks`: a link
/// in a sticky, world-writable directory such as `/tmp`, owned neither by this process's
/// user nor by the directory's owner) is not followed: `target` is returned, so that the
/// writer replaces the link itself and never what it points at (red team s35 RA11: the
/// tools read links themselves, so the kernel's protection never applied, and root's
/// nccopy replaced the file another user's link in `/tmp` named). [`is_protected_link`]
/// tells the front end to refuse such an output.
pub fn resolve_links(target: &Path) -> PathBuf {
    let mut path = target.to_path_buf();
    for _ in 0..40 {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return path;
        };
        if !meta.file_type().is_symlink() {
            return path;
        }
        if is_protected_link(&path) {
            return target.to_path_buf();
        }
        let Ok(link) = std::fs::read_link(&path) else {
            return target.to_path_buf();
        };
        // A relative link is relative to the directory holding it; the kernel resolves
        // `dir/../x` itself, through `dir` if it is a link too, so no lexical clean-up.
        path = match path.parent() {
            Some(parent) if link.is_relative() => parent.join(link),
            _ => link,
        };
    }
    target.to_path_buf()
}

/// The first link of the chain of symbolic links from `target` that the kernel's
/// `fs.protected_symlinks` rule forbids this process to follow ([`is_protected_link`]),
/// if one is (red team s35 RC5: one further down a chain made the writer replace the
/// user's own first link, without a word).
pub fn protected_link_in_chain(target: &Path) -> Option<PathBuf> {
    let mut path = target.to_path_buf();
    for _ in 0..40 {
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.file_type().is_symlink() {
            return None;
        }
        if is_protected_link(&path) {
            return Some(path);
        }
        let link = std::fs::read_link(&path).ok()?;
        path = match path.parent() {
            Some(parent) if link.is_relative() => parent.join(link),
            _ => link,
        };
    }
    None
}

/// Whether `path` is a symbolic link the kernel's `fs.protected_symlinks` rule forbids
/// this process to follow: the directory holding it is sticky and world-writable, and
/// the link is owned neither by this process's effective user nor by the directory's
/// owner. Applied whatever the system's setting (Debian's and most distributions'
/// default is on), as the tools resolve output links themselves.
pub fn is_protected_link(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(link) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !link.file_type().is_symlink() {
        return false;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(dir) = std::fs::metadata(parent) else {
        return false;
    };
    let sticky_and_open = dir.mode() & 0o1000 != 0 && dir.mode() & 0o002 != 0;
    let user = rustix::process::geteuid().as_raw();
    sticky_and_open && link.uid() != user && link.uid() != dir.uid()
}

/// Creates a directory under a fresh temporary name beside `target` ([`temporary_name`])
/// with `mkdir`, which fails if anything (a file, a directory, a planted link) is there
/// already: then another name is tried, [`NAME_ATTEMPTS`] times at most. The name is
/// registered as a temporary output before the directory is created, and the directory
/// is created through the [`gate`]. Returns the directory and its registration.
pub fn create_temporary_dir(target: &Path) -> std::io::Result<(PathBuf, Registration)> {
    let (temp, (), registration) = create_temporary(target, |temp| std::fs::create_dir(temp))?;
    Ok((temp, registration))
}

/// Creates a file under a fresh temporary name beside `target`, as
/// [`create_temporary_dir`] creates a directory: exclusively (`O_EXCL`), registered
/// first, through the [`gate`]. The file is open for reading and writing.
pub fn create_temporary_file(
    target: &Path,
) -> std::io::Result<(PathBuf, std::fs::File, Registration)> {
    create_temporary(target, |temp| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(temp)
    })
}

/// Gives `temp`, the output about to be renamed onto `target`, the permission bits of
/// what `target` is now (a file for a file, a directory for a directory), and its owner
/// and group where the process may give them (root): a file rewritten in place keeps
/// them, and so does an output nctools replaces, so that a user's private file (0600) or
/// store (0700) stays private (red team s36 RE8: both became readable by everyone).
/// Nothing is done when `target` does not exist or is of another kind.
pub fn keep_permissions_of(target: &Path, temp: &Path) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (Ok(old), Ok(new)) = (std::fs::metadata(target), std::fs::symlink_metadata(temp)) else {
        return;
    };
    if old.is_dir() != new.is_dir() || old.is_file() != new.is_file() {
        return;
    }
    if rustix::process::geteuid().is_root() {
        let _ = std::os::unix::fs::chown(temp, Some(old.uid()), Some(old.gid()));
    }
    let _ = std::fs::set_permissions(temp, std::fs::Permissions::from_mode(old.mode() & 0o777));
}

/// Replaces the file `target` with `bytes` as every output is written: into an exclusive,
/// unpredictable, registered temporary file beside it ([`create_temporary_file`]), then
/// renamed onto it, so that nothing is written into whatever is at `target` (a link there
/// is written through as the outputs are: the file it leads to is replaced, the link
/// stays), and a reader sees the old file or the new one. The temporary is removed when
/// anything fails.
pub fn replace_file(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let target = resolve_links(target);
    let (temp, mut file, _registration) = create_temporary_file(&target)?;
    let done = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map(|()| keep_permissions_of(&target, &temp))
        .and_then(|()| std::fs::rename(&temp, &target));
    if done.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    done
}

/// Makes something with `create` under a fresh registered temporary name beside `target`;
/// `create` must fail with [`std::io::ErrorKind::AlreadyExists`] when the name is taken.
pub fn create_temporary<T>(
    target: &Path,
    create: impl Fn(&Path) -> std::io::Result<T>,
) -> std::io::Result<(PathBuf, T, Registration)> {
    let mut last = None;
    for _ in 0..NAME_ATTEMPTS {
        let temp = temporary_name(target);
        let registration = register(&temp);
        match gate(|| create(&temp)) {
            Ok(made) => return Ok((temp, made, registration)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::from(std::io::ErrorKind::AlreadyExists)))
}

/// How many temporary outputs one process can have registered at once.
pub const SLOTS: usize = 16;

static TABLE: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// Which slots hold outputs rather than scratch files.
static OUTPUT: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];

/// Held shared while something is created under a temporary name; held exclusively,
/// for good, once the process is about to remove its temporaries and die.
static GATE: RwLock<()> = RwLock::new(());

/// A registered temporary output; dropping it takes the name out of the table (the
/// file itself is the writer's to remove or rename).
#[derive(Debug)]
pub struct Registration {
    slot: Option<usize>,
}

/// Registers `path` as a temporary output to remove if the process is stopped by a
/// signal or crashes. Call it before anything is created at `path`. A path that cannot
/// be a C string (a NUL inside), or a full table, is not registered.
pub fn register(path: &Path) -> Registration {
    register_as(path, true)
}

/// Registers `path` as a scratch file (not an output: [`outputs_registered`] does not
/// count it) to remove if the process is stopped by a signal or crashes.
pub fn register_scratch(path: &Path) -> Registration {
    register_as(path, false)
}

fn register_as(path: &Path, output: bool) -> Registration {
    use std::os::unix::ffi::OsStrExt;
    let Ok(text) = CString::new(path.as_os_str().as_bytes()) else {
        return Registration { slot: None };
    };
    // Leaked on purpose: a handler may read it at any time, even after unregistering.
    let leaked: &'static std::ffi::CStr = Box::leak(text.into_boxed_c_str());
    let raw = leaked.as_ptr().cast_mut();
    for (i, slot) in TABLE.iter().enumerate() {
        let taken = slot.compare_exchange(
            std::ptr::null_mut(),
            raw,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        if taken.is_ok() {
            OUTPUT[i].store(output, Ordering::SeqCst);
            return Registration { slot: Some(i) };
        }
    }
    Registration { slot: None }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            // The string stays allocated: a handler may be reading it right now.
            OUTPUT[i].store(false, Ordering::SeqCst);
            TABLE[i].store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
}

/// The table: each slot null or a NUL-terminated path that stays valid for the life of
/// the process.
pub fn slots() -> &'static [AtomicPtr<c_char>; SLOTS] {
    &TABLE
}

/// How many outputs are being written now: temporary outputs registered (not scratch
/// files), and outputs written in place ([`InPlaceOutput`]).
pub fn outputs_registered() -> usize {
    OUTPUT
        .iter()
        .filter(|output| output.load(Ordering::SeqCst))
        .count()
        + IN_PLACE.load(Ordering::SeqCst)
}

/// The outputs being written in place now (stores in object stores).
static IN_PLACE: AtomicUsize = AtomicUsize::new(0);

/// An output written in place, with no temporary name to remove (a Zarr store in an
/// object store): while one is held, a first signal lets the writer stop at its next
/// check point and remove what it wrote, instead of ending the process at once.
#[derive(Debug)]
pub struct InPlaceOutput(());

impl InPlaceOutput {
    /// Counts an output written in place until the value is dropped.
    pub fn register() -> Self {
        IN_PLACE.fetch_add(1, Ordering::SeqCst);
        Self(())
    }
}

impl Drop for InPlaceOutput {
    fn drop(&mut self) {
        IN_PLACE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `f`, which creates something under a temporary name, with the gate open; waits
/// forever if the gate is closed (the process is about to end).
pub fn gate<T>(f: impl FnOnce() -> T) -> T {
    let _open = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f()
}

/// Closes the gate for good: waits (at most `limit`) for what is being created to be
/// done, then keeps anything new from being created under a temporary name.
pub fn close_gate(limit: Duration) {
    let start = Instant::now();
    loop {
        match GATE.try_write() {
            Ok(guard) => {
                std::mem::forget(guard);
                return;
            }
            Err(std::sync::TryLockError::Poisoned(e)) => {
                std::mem::forget(e.into_inner());
                return;
            }
            Err(std::sync::TryLockError::WouldBlock) if start.elapsed() < limit => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(std::sync::TryLockError::WouldBlock) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_holds_a_slot_until_dropped() {
        let path = Path::new("/tmp/.x.nc.nctools-1.tmp");
        let before = outputs_registered();
        let held = register(path);
        let scratch = register_scratch(path);
        assert_eq!(outputs_registered(), before + 1);
        drop((held, scratch));
        assert_eq!(outputs_registered(), before);
    }

    #[test]
    fn temporary_names_are_hidden_recognisable_and_never_the_same_twice() {
        let target = Path::new("/data/out.nc");
        let first = temporary_name(target);
        let second = temporary_name(target);
        assert_ne!(first, second);
        for name in [&first, &second] {
            assert_eq!(name.parent(), Some(Path::new("/data")));
            let text = name.file_name().map(|n| n.to_string_lossy().into_owned());
            let text = text.unwrap_or_default();
            let prefix = format!(".out.nc.nctools-{}-", std::process::id());
            assert!(
                text.starts_with(&prefix) && text.ends_with(".tmp"),
                "{text}"
            );
            let random = &text[prefix.len()..text.len() - 4];
            assert_eq!(random.len(), 16, "{text}");
            assert!(random.chars().all(|c| c.is_ascii_hexdigit()), "{text}");
        }
        assert_eq!(
            temporary_name(Path::new("out.nc")).parent(),
            Some(Path::new("."))
        );
    }

    #[test]
    fn links_are_followed_to_the_path_they_finally_lead_to() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let real = root.join("data/real.nc");
        std::fs::create_dir_all(root.join("data")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(root.join("links")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&real, "x").unwrap_or_else(|e| panic!("{e}"));
        let symlink = |to: &str, at: &str| {
            std::os::unix::fs::symlink(to, root.join(at)).unwrap_or_else(|e| panic!("{e}"));
        };
        // A relative link to a relative link to the file; a dangling one; a loop.
        symlink("../data/real.nc", "links/one.nc");
        symlink("links/one.nc", "two.nc");
        symlink("data/new.nc", "dangling.nc");
        symlink("loop.nc", "loop.nc");
        let same =
            |a: &Path, b: &Path| std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok();
        let resolved = resolve_links(&root.join("two.nc"));
        assert!(same(&resolved, &real), "{resolved:?}");
        assert_eq!(resolve_links(&real), real);
        assert_eq!(
            resolve_links(&root.join("dangling.nc")),
            root.join("data/new.nc")
        );
        assert_eq!(resolve_links(&root.join("loop.nc")), root.join("loop.nc"));
        assert_eq!(resolve_links(&root.join("none.nc")), root.join("none.nc"));
    }

    #[test]
    fn a_temporary_directory_is_made_exclusively_and_registered() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let made = create_temporary_dir(&dir.path().join("s.zarr"));
        let (temp, registration) = made.unwrap_or_else(|e| panic!("{e}"));
        assert!(temp.is_dir());
        assert!(registration.slot.is_some());
        drop(registration);
        // mkdir of an existing name fails, which is what makes it exclusive.
        assert!(std::fs::create_dir(&temp).is_err());
    }
}
