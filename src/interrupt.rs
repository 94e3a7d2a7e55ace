//! SIGINT (Ctrl-C) and SIGTERM, handled alike by nccopy and ncgen (DECISIONS D7).
//!
//! A dedicated thread receives the signals (signal-hook's self-pipe: the real handler
//! only writes a byte). While an output is being written (a temporary output is
//! registered in [`cleanup`]), the first signal sets a flag, and the main
//! thread is given [`CHECK_POINT_WAIT`] (a second) to notice it at one of its check
//! points (between slabs, between definitions): it then stops, removes its temporary
//! output and exits 130 (SIGINT) or 143 (SIGTERM). When it does not notice it in time
//! (it is inside a long library call: libhdf5 defining thousands of types, say), or at
//! any later signal, or at the first one when no output is being written, the process
//! ends at once: the gate of [`cleanup`] is closed, so that nothing is created
//! under a temporary name any more, the temporary outputs are removed, and the process
//! dies by the signal itself, as if it had no handler, so that neither Rust's `exit` nor
//! the C libraries' exit handlers run while the main thread may be inside HDF5.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGINT, SIGTERM};

/// The first signal received (0 for none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Set when a check point has seen the signal: the main thread is stopping by itself.
static NOTICED: AtomicBool = AtomicBool::new(false);

/// Set by the first thread that ends the process; any other then only waits.
static ENDING: AtomicBool = AtomicBool::new(false);

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: i32 = 128 + SIGINT;

/// How long the last signal waits for a file being created before it removes the
/// temporaries anyway.
const CREATION_WAIT: Duration = Duration::from_secs(2);

/// How long the first signal waits for a check point to notice it before it ends the
/// process itself.
pub const CHECK_POINT_WAIT: Duration = Duration::from_secs(1);

/// How long a run that noticed the signal has to clean up and exit before the process is
/// ended anyway (its cleaning up stuck in a library call).
const CLEAN_UP_WAIT: Duration = Duration::from_secs(10);

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
    if first && cleanup::outputs_registered() > 0 {
        // An output is being written: the main thread stops at its next check point and
        // cleans up. A watcher ends the process if it does not get there in time; this
        // thread stays free for a second signal, which ends it at once.
        let watcher = std::thread::Builder::new()
            .name("signal watcher".into())
            .spawn(move || watch(signal));
        if watcher.is_ok() {
            return;
        }
    }
    end_now(signal);
}

/// The watcher of the first signal: gives the main thread [`CHECK_POINT_WAIT`] to notice
/// it, then [`CLEAN_UP_WAIT`] to clean up and exit; ends the process if it does not.
fn watch(signal: i32) {
    let start = Instant::now();
    while !NOTICED.load(Ordering::SeqCst) && start.elapsed() < CHECK_POINT_WAIT {
        std::thread::sleep(Duration::from_millis(10));
    }
    if NOTICED.load(Ordering::SeqCst) {
        // The process exits by itself, which ends this thread with it.
        std::thread::sleep(CLEAN_UP_WAIT);
    }
    end_now(signal);
}

/// Ends the process by `signal`, leaving no temporary output; only the first caller
/// does it, any other waits for the end.
fn end_now(signal: i32) {
    if ENDING.swap(true, Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    // Nothing is created under a temporary name from now on; what is there goes.
    // An output registered since is created only past the gate: removing it now leaves
    // nothing either.
    cleanup::close_gate(CREATION_WAIT);
    crash_guard::remove_temporaries();
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
    /// The interruption, if a signal was received. This is the check point: a run that
    /// sees the interruption here stops by itself, and the watcher of the signal leaves
    /// it the time to clean up.
    pub fn now() -> Option<Self> {
        match SIGNAL.load(Ordering::SeqCst) {
            0 => None,
            signal => {
                NOTICED.store(true, Ordering::SeqCst);
                Some(Self { signal })
            }
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
