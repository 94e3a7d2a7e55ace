//! Runs one program with a time-out, captures its output (capped), and classifies how it
//! ended.
//!
//! The child is killed with `Child::kill` (SIGKILL) when its time runs out: no external
//! `kill` or `timeout` program is involved. Its standard output is read by a thread that
//! keeps a count and, once past the cap, closes the pipe (the child then gets SIGPIPE or
//! EPIPE, and the run is classified as [`Outcome::Capped`]). Standard error is kept up to
//! a smaller cap and drained after it.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// The texts our panic hook prints (src/exit.rs), Rust's own panic message, and our crash
/// handler's (ncio::crash_guard: "TOOL: FILE: crashed inside the netCDF/HDF5 library
/// while ..."): in conformance runs, each is a failure of ours.
pub const PANIC_TEXTS: [&str; 4] = [
    "internal error",
    "this is a bug in nctools",
    "panicked at",
    ": crashed ",
];

/// What our crash handler prints when a fault inside libnetcdf or libhdf5 is caught: the
/// tool then exits 1 with that one paragraph and leaves no output.
pub const CONTAINED_CRASH_TEXT: &str = ": crashed inside the netCDF/HDF5 library while ";

/// What Rust's runtime prints when an allocation fails (then it aborts).
const ALLOC_FAILURE_TEXT: &str = "memory allocation of";

/// How much of standard error is kept.
const STDERR_CAP: usize = 64 * 1024;

/// One program to run: its path, arguments, working directory and limits.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The working directory (the caller's when `None`).
    pub cwd: Option<PathBuf>,
    /// Killed after this long.
    pub timeout: Duration,
    /// Standard output past this many bytes closes the pipe.
    pub stdout_cap: u64,
    /// Whether to keep standard output (up to the cap) in [`Run::stdout`].
    pub keep_stdout: bool,
}

impl Spec {
    /// A run of `program` with `args`, a 20 s time-out and a 64 MiB output cap.
    pub fn new<I, S>(program: impl Into<PathBuf>, args: I) -> Spec
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Spec {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: None,
            timeout: Duration::from_secs(20),
            stdout_cap: 64 << 20,
            keep_stdout: false,
        }
    }

    /// The same run in directory `dir`.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Spec {
        self.cwd = Some(dir.into());
        self
    }

    /// The same run with time-out `timeout`.
    pub fn timeout(mut self, timeout: Duration) -> Spec {
        self.timeout = timeout;
        self
    }

    /// The same run with an output cap of `bytes`.
    pub fn stdout_cap(mut self, bytes: u64) -> Spec {
        self.stdout_cap = bytes;
        self
    }

    /// The same run, keeping its standard output (its first `stdout_cap` bytes).
    pub fn keep_stdout(mut self) -> Spec {
        self.keep_stdout = true;
        self
    }
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this status.
    Exit(i32),
    /// It was killed by this signal (not by us).
    Signal(i32),
    /// We killed it when its time ran out.
    TimedOut,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Run {
    /// How it ended.
    pub ended: Ended,
    /// Bytes written to standard output (up to the cap and a little past it).
    pub stdout_bytes: u64,
    /// Whether the output cap was reached (and the pipe closed).
    pub stdout_capped: bool,
    /// Standard output, its first `stdout_cap` bytes (empty unless [`Spec::keep_stdout`]).
    pub stdout: Vec<u8>,
    /// The first [`STDERR_CAP`] bytes of standard error, lossily decoded.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

impl Run {
    /// The first non-empty line of standard error, or "" when there is none.
    pub fn first_stderr_line(&self) -> &str {
        self.stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
    }

    /// Whether standard error shows a panic (our hook's text or Rust's).
    pub fn shows_panic(&self) -> bool {
        PANIC_TEXTS.iter().any(|t| self.stderr.contains(t))
    }

    /// The line of standard error that shows a panic, if any.
    pub fn panic_line(&self) -> Option<&str> {
        self.stderr
            .lines()
            .find(|l| PANIC_TEXTS.iter().any(|t| l.contains(t)))
    }
}

/// How a run is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// Exit 0.
    Ok,
    /// Exit 1 or 2, with no sign of a panic.
    CleanError,
    /// Exit 101 (Rust's panic status) or a panic message on standard error.
    Panic,
    /// Killed by a signal (not by us): SIGSEGV, SIGABRT, SIGBUS...
    Crash,
    /// A fault inside libnetcdf or libhdf5 caught by our crash handler: exit 1 and its
    /// one-paragraph message ("the file is probably corrupt"), no output left.
    Contained,
    /// Killed by us when its time ran out.
    Hang,
    /// Stopped by one of our caps (the output pipe closed, or SIGXFSZ from the file-size
    /// limit): not the tool's fault, and not a result either.
    Capped,
    /// Any other exit status.
    Other,
}

impl Outcome {
    /// Every outcome, in table order.
    pub const ALL: [Outcome; 8] = [
        Outcome::Ok,
        Outcome::CleanError,
        Outcome::Panic,
        Outcome::Crash,
        Outcome::Contained,
        Outcome::Hang,
        Outcome::Capped,
        Outcome::Other,
    ];

    /// The table's column name.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::CleanError => "clean errors",
            Outcome::Panic => "panics",
            Outcome::Crash => "crashes",
            Outcome::Contained => "contained",
            Outcome::Hang => "hangs",
            Outcome::Capped => "capped",
            Outcome::Other => "other",
        }
    }

    /// Whether this is a failure of the tool under test (panic, crash, hang, other).
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Outcome::Panic | Outcome::Crash | Outcome::Hang | Outcome::Other
        )
    }
}

/// SIGPIPE's number.
#[cfg(test)]
const SIGPIPE: i32 = nix::sys::signal::Signal::SIGPIPE as i32;
/// SIGXFSZ's number.
const SIGXFSZ: i32 = nix::sys::signal::Signal::SIGXFSZ as i32;

/// Classifies a run: a crash contained by our handler first, then a panic (whatever the
/// status), then a time-out, our caps, a
/// signal, and the exit status.
pub fn classify(run: &Run) -> Outcome {
    if run.ended == Ended::Exit(1) && run.stderr.contains(CONTAINED_CRASH_TEXT) {
        return Outcome::Contained;
    }
    if run.shows_panic() || run.ended == Ended::Exit(101) {
        return Outcome::Panic;
    }
    match run.ended {
        Ended::TimedOut => Outcome::Hang,
        Ended::Signal(SIGXFSZ) => Outcome::Capped,
        _ if run.stdout_capped => Outcome::Capped,
        Ended::Signal(_) => Outcome::Crash,
        Ended::Exit(0) => Outcome::Ok,
        Ended::Exit(1 | 2) => Outcome::CleanError,
        Ended::Exit(_) => Outcome::Other,
    }
}

/// A short description of how a run ended: "exit 1", "killed by signal 11 (SIGSEGV)",
/// "timed out after 20 s", with "(output cap)" or "(allocation failure)" where it applies.
pub fn describe(run: &Run, timeout: Duration) -> String {
    let mut s = match run.ended {
        Ended::Exit(code) => format!("exit {code}"),
        Ended::Signal(sig) => format!("killed by signal {sig} ({})", signal_name(sig)),
        Ended::TimedOut => format!("timed out after {} s", timeout.as_secs_f64()),
    };
    if run.stdout_capped {
        let _ = write!(s, " (output cap reached at {} bytes)", run.stdout_bytes);
    }
    if run.stderr.contains(ALLOC_FAILURE_TEXT) {
        s.push_str(" (allocation failure)");
    }
    s
}

/// "SIGSEGV" for 11, and so on.
pub fn signal_name(sig: i32) -> String {
    nix::sys::signal::Signal::try_from(sig)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {sig}"))
}

/// Runs `spec` to its end, or kills it when its time runs out.
pub fn run(spec: &Spec) -> Result<Run> {
    let mut cmd = Command::new(&spec.program);
    // Messages and number formats of the C locale, whatever the caller's.
    cmd.args(&spec.args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = &spec.cwd {
        cmd.current_dir(dir);
    }
    // A process group of its own, so that a time-out kills whatever it started too (and
    // nothing keeps the pipes open after it).
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot run {}", spec.program.display()))?;
    let stdout = child.stdout.take().context("no stdout pipe")?;
    let stderr = child.stderr.take().context("no stderr pipe")?;
    let (cap, keep) = (spec.stdout_cap, spec.keep_stdout);
    let out_reader = thread::spawn(move || drain_capped(stdout, cap, keep));
    let err_reader = thread::spawn(move || keep_head(stderr, STDERR_CAP));
    let status = wait_with_timeout(&mut child, spec.timeout);
    let (stdout_bytes, stdout_capped, stdout_kept) =
        out_reader.join().unwrap_or((0, false, Vec::new()));
    let stderr_bytes = err_reader.join().unwrap_or_default();
    let elapsed = start.elapsed();
    let ended = match status? {
        None => Ended::TimedOut,
        Some(status) => ended(status),
    };
    Ok(Run {
        ended,
        stdout_bytes,
        stdout_capped,
        stdout: stdout_kept,
        stderr: String::from_utf8_lossy(&stderr_bytes).into_owned(),
        elapsed,
    })
}

/// The exit status as an [`Ended`].
fn ended(status: ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ended::Exit(code),
        (None, Some(sig)) => Ended::Signal(sig),
        (None, None) => Ended::Exit(-1),
    }
}

/// Waits for `child`, polling; kills it after `timeout` and returns `None` then.
fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Result<Option<ExitStatus>> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait().context("cannot wait for a child")? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            // It may have ended in between: the kills fail then, and wait reaps it anyway.
            if let Ok(pid) = i32::try_from(child.id()) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let _ = child.kill();
            child.wait().context("cannot wait for a killed child")?;
            return Ok(None);
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Reads `r` to its end, counting bytes (and keeping the first `cap` of them when `keep`);
/// stops (dropping `r`, which closes the pipe) once more than `cap` bytes came. Returns
/// the count, whether the cap was passed, and the bytes kept.
fn drain_capped(mut r: impl Read, cap: u64, keep: bool) -> (u64, bool, Vec<u8>) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    let mut kept = Vec::new();
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => return (total, false, kept),
            Ok(n) => {
                if keep {
                    let room = usize::try_from(cap.saturating_sub(total)).unwrap_or(usize::MAX);
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
                total += n as u64;
                if total > cap {
                    return (total, true, kept);
                }
            }
        }
    }
}

/// Reads `r` to its end, keeping its first `cap` bytes.
fn keep_head(mut r: impl Read, cap: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = cap.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}

/// Whether `path` names an executable file.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn run_of(ended: Ended, stderr: &str) -> Run {
        Run {
            ended,
            stdout_bytes: 0,
            stdout_capped: false,
            stdout: Vec::new(),
            stderr: stderr.to_string(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn classifies_exit_statuses() {
        assert_eq!(classify(&run_of(Ended::Exit(0), "")), Outcome::Ok);
        assert_eq!(
            classify(&run_of(
                Ended::Exit(1),
                "ncdump: x.nc: NetCDF: Not a valid ID"
            )),
            Outcome::CleanError
        );
        assert_eq!(classify(&run_of(Ended::Exit(2), "")), Outcome::CleanError);
        assert_eq!(classify(&run_of(Ended::Exit(3), "")), Outcome::Other);
        assert_eq!(classify(&run_of(Ended::Exit(101), "")), Outcome::Panic);
        let contained = "ncdump: x.nc: crashed inside the netCDF/HDF5 library while reading \
                         variable /v (signal 11, SIGSEGV); the file is probably corrupt";
        assert_eq!(
            classify(&run_of(Ended::Exit(1), contained)),
            Outcome::Contained
        );
        assert_eq!(classify(&run_of(Ended::Exit(0), contained)), Outcome::Panic);
    }

    #[test]
    fn panic_text_wins_over_the_status() {
        let hook = "ncdump: internal error (index out of bounds); this is a bug in nctools";
        assert_eq!(classify(&run_of(Ended::Exit(1), hook)), Outcome::Panic);
        assert_eq!(classify(&run_of(Ended::Exit(0), hook)), Outcome::Panic);
        let rust = "thread 'main' panicked at src/x.rs:1:1:\nboom";
        assert_eq!(classify(&run_of(Ended::Signal(6), rust)), Outcome::Panic);
    }

    #[test]
    fn signals_time_outs_and_caps() {
        assert_eq!(classify(&run_of(Ended::Signal(11), "")), Outcome::Crash);
        assert_eq!(classify(&run_of(Ended::Signal(6), "")), Outcome::Crash);
        assert_eq!(classify(&run_of(Ended::TimedOut, "")), Outcome::Hang);
        assert_eq!(
            classify(&run_of(Ended::Signal(SIGXFSZ), "")),
            Outcome::Capped
        );
        let mut capped = run_of(Ended::Signal(SIGPIPE), "");
        capped.stdout_capped = true;
        assert_eq!(classify(&capped), Outcome::Capped);
        capped.ended = Ended::Exit(1);
        assert_eq!(classify(&capped), Outcome::Capped);
        // SIGPIPE with no cap reached is a crash like any other.
        assert_eq!(
            classify(&run_of(Ended::Signal(SIGPIPE), "")),
            Outcome::Crash
        );
    }

    #[test]
    fn runs_and_times_out_real_programs() {
        let sh = PathBuf::from("/bin/sh");
        let ok = run(&Spec::new(&sh, ["-c", "echo hi; echo oops >&2; exit 2"])).unwrap();
        assert_eq!(ok.ended, Ended::Exit(2));
        assert_eq!(ok.stdout_bytes, 3);
        assert_eq!(ok.first_stderr_line(), "oops");
        let slow = Spec::new(&sh, ["-c", "sleep 10"]).timeout(Duration::from_millis(200));
        let r = run(&slow).unwrap();
        assert_eq!(r.ended, Ended::TimedOut);
        assert!(r.elapsed < Duration::from_secs(5));
        let segv = run(&Spec::new(&sh, ["-c", "kill -SEGV $$"])).unwrap();
        assert_eq!(segv.ended, Ended::Signal(11));
        let big = Spec::new(&sh, ["-c", "yes"]).stdout_cap(1 << 20);
        let r = run(&big.clone().keep_stdout()).unwrap();
        assert!(r.stdout_capped);
        assert_eq!(r.stdout.len(), 1 << 20);
        assert!(r.stdout.starts_with(b"y\ny\n"));
        let r = run(&big).unwrap();
        assert!(r.stdout_capped && r.stdout.is_empty());
        assert_eq!(classify(&r), Outcome::Capped);
    }
}
