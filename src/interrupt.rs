//! SIGINT (Ctrl-C) and SIGTERM, handled alike by nccopy and ncgen (DECISIONS D7).
//!
//! A dedicated thread receives the signals (signal-hook's self-pipe: the real handler
//! only writes a byte). While an output is being written (a temporary output is
//! registered in [`store::temporaries`]), the first signal only sets a flag: the copy
//! stops between slabs, removes its temporary output and exits 130 (SIGINT) or 143
//! (SIGTERM). Any later signal, or the first one when no output is being written, ends
//! the process at once: the gate of [`store::temporaries`] is closed, so that nothing is
//! created under a temporary name any more, the temporary outputs are removed, and the
//! process dies by the signal itself, as if it had no handler, so that neither Rust's
//! `exit` nor the C libraries' exit handlers run while the main thread may be inside HDF5.

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};

/// The first signal received (0 for none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: i32 = 128 + SIGINT;

/// How long the last signal waits for a file being created before it removes the
/// temporaries anyway.
const CREATION_WAIT: Duration = Duration::from_secs(2);

/// Installs the handling of SIGINT and SIGTERM; harmless if called twice. If the signals
/// cannot be handled, they keep their default action.
pub fn install() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        // A thread that cannot be started leaves the signals queued and unanswered;
        // that only happens when the system is out of threads.
        let _ = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    on_signal(signal);
                }
            });
    });
}

/// What a signal does, on the signals thread.
fn on_signal(signal: i32) {
    let first = SIGNAL
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    if first && store::temporaries::outputs_registered() > 0 {
        // An output is being written: the main thread stops between slabs and cleans up.
        return;
    }
    // Nothing is created under a temporary name from now on; what is there goes.
    // An output registered since is created only past the gate: removing it now leaves
    // nothing either.
    store::temporaries::close_gate(CREATION_WAIT);
    ncio::crash_guard::remove_temporaries();
    // Dies of the signal with its default action: no exit handlers run.
    let _ = signal_hook::low_level::emulate_default_handler(signal);
}

/// Whether SIGINT or SIGTERM was received.
pub fn interrupted() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
}

/// The error of an interrupted run, [`Interrupted::now`] if a signal was received.
#[derive(Debug, Clone, Copy)]
pub struct Interrupted {
    /// The signal: SIGINT or SIGTERM.
    pub signal: i32,
}

impl Interrupted {
    /// The interruption, if a signal was received.
    pub fn now() -> Option<Self> {
        match SIGNAL.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(Self { signal }),
        }
    }

    /// Fails with the interruption if a signal was received.
    pub fn check() -> Result<(), Self> {
        match Self::now() {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }

    /// The exit code: 128 + the signal (130 for SIGINT, 143 for SIGTERM).
    pub fn exit_code(&self) -> i32 {
        128 + self.signal
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.signal {
            SIGTERM => write!(f, "terminated (SIGTERM); no output was written"),
            _ => write!(f, "interrupted; no output was written"),
        }
    }
}

impl std::error::Error for Interrupted {}

/// Reports a failure as `tool: message` and returns its exit code; an interrupted run
/// says only that (not what it was doing) and exits 128 + the signal.
pub fn report(failure: &crate::exit::Failure, tool: &str) -> i32 {
    let stop = failure
        .error
        .chain()
        .find_map(|e| e.downcast_ref::<Interrupted>());
    match stop {
        Some(stop) => {
            eprintln!("{tool}: {stop}");
            stop.exit_code()
        }
        None => failure.report(tool),
    }
}
