//! Ctrl-C (DECISIONS D7): the first interrupt sets a flag that long copies check between
//! slabs, so that they stop, remove their temporary output and exit 130. A second one
//! removes the temporary output at once and ends the process by the signal itself: the
//! process dies as if it had no handler, so neither Rust's `exit` nor the C libraries'
//! exit handlers run while the main thread may be inside HDF5.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Temporary outputs to remove on a second interrupt.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the handler; harmless if called twice or if a handler cannot be installed.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            remove_temporaries();
            // Dies of SIGINT with its default action: no exit handlers run.
            let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGINT);
        }
    });
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Registers a temporary output that a second Ctrl-C removes before the process dies.
pub fn remove_on_second_interrupt(path: PathBuf) {
    if let Ok(mut list) = TEMPORARIES.lock() {
        list.push(path);
    }
}

fn remove_temporaries() {
    // A poisoned lock still holds the list.
    let list = TEMPORARIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for path in list.iter() {
        let _ = std::fs::remove_file(path);
    }
}

/// The error of an interrupted run.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; no output was written")]
pub struct Interrupted;
