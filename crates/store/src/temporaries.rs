//! The temporary outputs of this process, in a table that a signal or crash handler can
//! read without allocating or taking a lock.
//!
//! Writers register their temporary name ([`register`]) *before* they create anything
//! there, and keep the [`Registration`] until the output is renamed into place or
//! removed. The table holds each name as a NUL-terminated C string at a fixed address
//! (leaked on purpose: a handler may be reading it at any time), in a fixed number of
//! slots ([`slots`]).
//!
//! Everything that creates a file or directory under a temporary name does it through
//! [`gate`]. A handler that is about to remove the temporaries and end the process first
//! closes the gate ([`close_gate`]): from then on nothing new appears under a temporary
//! name, so what it removes stays removed.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// The temporary name beside `target`: `.NAME.nctools-PID.tmp`, hidden, with the
/// process id, so that one left by a process that was killed (SIGKILL) is easy to spot
/// and to tell from another's.
pub fn temporary_name(target: &Path) -> std::path::PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parent.join(format!(".{name}.nctools-{}.tmp", std::process::id()))
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

/// How many temporary outputs (not scratch files) are registered now.
pub fn outputs_registered() -> usize {
    OUTPUT
        .iter()
        .filter(|output| output.load(Ordering::SeqCst))
        .count()
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
}
