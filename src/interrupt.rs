//! Ctrl-C (DECISIONS D7): the first interrupt sets a flag that long copies check between
//! slabs, so that they stop, remove their temporary output and exit; a second one exits
//! at once (the temporary file may then be left behind, under its `.nctools-PID.tmp`
//! name, never under the target's name).

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the handler; harmless if called twice or if a handler cannot be installed.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_INTERRUPTED);
        }
    });
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The error of an interrupted run.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; no output was written")]
pub struct Interrupted;
