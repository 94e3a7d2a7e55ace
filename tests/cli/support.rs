//! Helpers shared by the integration tests: running our binaries, finding the reference
//! tools, scratch directories, and telling a crash from an error.
//!
//! A crash is never a pass: every run of our binaries through [`Test::run`] is checked
//! with [`assert_no_crash`] (no signal, not Rust's panic status 101, no text of our panic
//! hook, no "internal error"), whatever the test then checks of its exit code.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A finished command: exit code or signal, and output as text.
pub struct Run {
    /// The exit code; `None` when a signal ended the process.
    pub code: Option<i32>,
    /// The signal that ended the process, if one did.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Self {
            code: out.status.code(),
            signal: out.status.signal(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// The standard output of `run`, which must have exited 0; otherwise the test fails
/// naming `label`, with what the run printed.
#[track_caller]
pub fn ok(label: &str, run: impl AsRun) -> String {
    let run = run.as_run();
    assert_eq!(run.code, Some(0), "{label}: {}{}", run.stdout, run.stderr);
    run.stdout.clone()
}

/// A [`Run`], owned or borrowed (once or twice), for [`ok`].
pub trait AsRun {
    /// The run.
    fn as_run(&self) -> &Run;
}

impl AsRun for Run {
    fn as_run(&self) -> &Run {
        self
    }
}

impl<T: AsRun + ?Sized> AsRun for &T {
    fn as_run(&self) -> &Run {
        (**self).as_run()
    }
}

/// The exit status Rust gives a process whose main thread panicked.
pub const PANIC_EXIT: i32 = 101;

/// What our panic hook (src/exit.rs, `install_panic_hook`) prints: `TOOL: internal error
/// (WHAT); this is a bug in nctools: ...`. Rust's own hook, which runs before ours is
/// installed, prints `panicked at`. Our crash handler (the crash-guard crate) turns a
/// SIGSEGV and the like into `TOOL: FILE: crashed inside the netCDF/HDF5 library while
/// ...` and exit 1: still a crash, which only the tests of that handler expect.
pub const PANIC_TEXTS: [&str; 4] = [
    "internal error",
    "this is a bug in nctools",
    "panicked at",
    ": crashed ",
];

impl Run {
    /// Why this run is a crash rather than a result (a success or an error the tool
    /// reports): killed by a signal, Rust's panic status, the text of a panic hook, or "internal
    /// error". `None` for a run that exited normally.
    pub fn crash(&self) -> Option<String> {
        if let Some(signal) = self.signal {
            return Some(format!("killed by signal {signal}{}", signal_name(signal)));
        }
        match self.code {
            None => return Some("no exit code and no signal".to_string()),
            Some(PANIC_EXIT) => return Some(format!("exit {PANIC_EXIT}, Rust's panic status")),
            Some(_) => {}
        }
        PANIC_TEXTS
            .iter()
            .find(|text| self.stderr.contains(*text))
            .map(|text| format!("standard error says {text:?}"))
    }

    /// Whether this run is a rejection as the tools make one: exit 1 (runtime error) or
    /// 2 (usage error), and no crash.
    pub fn is_rejection(&self) -> bool {
        matches!(self.code, Some(1 | 2)) && self.crash().is_none()
    }
}

/// ` (SIGSEGV)` and the like, for messages.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        2 => " (SIGINT)",
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        25 => " (SIGXFSZ)",
        _ => "",
    }
}

/// Fails the test when `run` crashed (see [`Run::crash`]), with what it printed.
#[track_caller]
pub fn assert_no_crash(run: &Run) {
    if let Some(why) = run.crash() {
        panic!(
            "crashed: {why}\n--- stderr ---\n{}\n--- stdout (first 2000 bytes) ---\n{}",
            run.stderr,
            head(&run.stdout, 2000)
        );
    }
}

/// Fails the test unless `run` is a rejection (exit 1 or 2, no crash); `what` says what
/// ran, for the message.
#[track_caller]
pub fn assert_rejected(run: &Run, what: &str) {
    assert_no_crash(run);
    assert!(
        run.is_rejection(),
        "{what}: expected a rejection (exit 1 or 2), got exit {:?}: {}",
        run.code,
        run.stderr
    );
}

/// The first `n` bytes of `text` at most (cut on a character boundary).
fn head(text: &str, n: usize) -> &str {
    let mut end = n.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Runs a command to completion, panicking only if it cannot be started.
pub fn run(command: &mut Command) -> Run {
    match command.output() {
        Ok(out) => out.into(),
        Err(e) => panic!("cannot run {command:?}: {e}"),
    }
}

/// A builder for one run of one of our binaries: `Test::ours("nccopy").args(..).run()`.
pub struct Test {
    command: Command,
}

impl Test {
    /// Our tool `tool` (nccopy, ncgen, ncdump) as installed ([`ours_path`]).
    pub fn ours(tool: &str) -> Self {
        Self::program(ours_path(tool))
    }

    /// Any program in place of one of ours (the self-tests run broken stand-ins this way).
    pub fn program(path: impl AsRef<std::ffi::OsStr>) -> Self {
        Self {
            command: Command::new(path),
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    /// Sets environment variables.
    pub fn envs(mut self, vars: &[(&str, &str)]) -> Self {
        self.command.envs(vars.iter().copied());
        self
    }

    /// Runs it in the directory `dir`.
    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// Runs it; a crash fails the test ([`assert_no_crash`]).
    #[track_caller]
    pub fn run(mut self) -> Run {
        let done = run(&mut self.command);
        if let Some(why) = done.crash() {
            panic!(
                "{:?} crashed: {why}\n--- stderr ---\n{}\n--- stdout (first 2000 bytes) ---\n{}",
                self.command,
                done.stderr,
                head(&done.stdout, 2000)
            );
        }
        done
    }
}

/// The path of our tool `tool` (nccopy, ncgen, ncdump) as `scripts/install` installs
/// it: a link named after the tool to the `nctools` program cargo built for this run
/// ([`tool_links`]).
pub fn ours_path(tool: &str) -> &'static Path {
    match tool_links().get(tool) {
        Some(path) => path,
        None => panic!("no such tool {tool}"),
    }
}

/// The `nctools` program cargo built for this run.
pub const NCTOOLS: &str = env!("CARGO_BIN_EXE_nctools");

/// `ncdump`, `ncgen` and `nccopy` as links to [`NCTOOLS`], made once per test run in a
/// directory of target/tmp of their own for each build of `nctools` (a debug and a
/// release test run may run at once). A link is replaced by renaming a new one over it,
/// so that a run never sees a missing or half-made link.
pub fn tool_links() -> &'static std::collections::BTreeMap<&'static str, PathBuf> {
    static LINKS: std::sync::OnceLock<std::collections::BTreeMap<&'static str, PathBuf>> =
        std::sync::OnceLock::new();
    LINKS.get_or_init(|| {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        NCTOOLS.hash(&mut hasher);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("tool-links-{:016x}", hasher.finish()));
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        ["ncdump", "ncgen", "nccopy"]
            .into_iter()
            .map(|tool| {
                let link = dir.join(tool);
                if std::fs::read_link(&link).is_ok_and(|to| to == Path::new(NCTOOLS)) {
                    return (tool, link);
                }
                let fresh = dir.join(format!(".{tool}.{}", std::process::id()));
                let _ = std::fs::remove_file(&fresh);
                std::os::unix::fs::symlink(NCTOOLS, &fresh)
                    .and_then(|()| std::fs::rename(&fresh, &link))
                    .unwrap_or_else(|e| panic!("cannot link {} to {NCTOOLS}: {e}", link.display()));
                (tool, link)
            })
            .collect()
    })
}

/// The program `cargo build` makes under a tool's own name (`target/debug/ncdump`), which
/// runs that tool whatever its name. The tests run the tools through [`ours_path`].
pub fn cargo_tool_bin(tool: &str) -> &'static str {
    match tool {
        "nccopy" => env!("CARGO_BIN_EXE_nccopy"),
        "ncgen" => env!("CARGO_BIN_EXE_ncgen"),
        "ncdump" => env!("CARGO_BIN_EXE_ncdump"),
        other => panic!("no such tool {other}"),
    }
}

/// Whether this run is in CI, where reference-tool tests must fail rather than skip.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Where skips are recorded (cargo hides a passing test's standard error): the file named
/// by NCTOOLS_TEST_SKIP_LOG, else target/tmp/skipped-tests.log. scripts/test empties it
/// first and prints what it holds at the end.
pub fn skip_log() -> PathBuf {
    match std::env::var_os("NCTOOLS_TEST_SKIP_LOG") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped-tests.log"),
    }
}

/// A test that cannot run here because `what` is missing: in CI (CI=true) that fails the
/// test; elsewhere it prints `SKIPPED: ...` and appends the same line, with the test's
/// name, to [`skip_log`]. The caller then returns.
#[track_caller]
pub fn skip(what: &str) {
    assert!(!in_ci(), "{what} is missing and CI=true: run scripts/setup");
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let line = format!("SKIPPED: {test}: {what} is missing (run scripts/setup)");
    eprintln!("{line}");
    let log = skip_log();
    if let Some(parent) = log.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(e) = written {
        eprintln!("(cannot record the skip in {}: {e})", log.display());
    }
}

/// The reference tool `name` (ncgen, ncdump, nccopy, h5dump) from the system, or `None`
/// after a [`skip`] when it is missing outside CI. In CI a missing tool fails the test.
pub fn reference(name: &str) -> Option<PathBuf> {
    let found = ["/usr/bin", "/usr/local/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        skip(&format!("the reference {name}"));
    }
    found
}

/// The netCDF-C test-suite CDL corpus (../shared/corpus/netcdf-c beside the repository),
/// or `None` after a [`skip`] when it is not there (a failure in CI).
pub fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/netcdf-c");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip(&format!("the corpus {}", dir.display()));
        None
    }
}

/// A fresh scratch directory, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("cannot make a scratch directory: {e}"),
    }
}

/// Where two outputs first differ, as a line number with both lines, for messages.
pub fn first_difference(theirs: &str, ours: &str) -> String {
    let pair = theirs
        .lines()
        .zip(ours.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b);
    match pair {
        Some((i, (a, b))) => format!("line {}:\n  reference: {a}\n  ours:      {b}", i + 1),
        None => format!(
            "the end (reference {} lines, ours {})",
            theirs.lines().count(),
            ours.lines().count()
        ),
    }
}

/// A file under tests/data (e.g. `nccopy/shapes.cdl`).
pub fn test_data(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(relative)
}

/// Runs the reference tool `name` (which must be installed: check with [`reference`]
/// first) with `args`.
pub fn run_reference<I, S>(name: &str, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let Some(tool) = reference(name) else {
        panic!("the reference {name} vanished");
    };
    run(Command::new(tool).args(args))
}

/// The text of `text` from its first line equal to `marker` on (empty if none).
pub fn from_line<'a>(text: &'a str, marker: &str) -> &'a str {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == marker {
            return &text[offset..];
        }
        offset += line.len();
    }
    ""
}

/// Sends SIGINT to the process `pid`, as Ctrl-C in its terminal would, through the libc
/// (no `kill` program needed); false once the process is gone.
pub fn interrupt(pid: u32) -> bool {
    send_signal(pid, nix::sys::signal::SIGINT)
}

/// Sends `signal` to the process `pid` with kill(2), through nix's safe wrapper of the
/// libc's `kill` (no `kill` program needed); false once the process is gone.
pub fn send_signal(pid: u32, signal: nix::sys::signal::Signal) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal).is_ok()
}

/// The project virtualenv's python when the program `check` runs in it, or `None` after a
/// skip naming `what` it needs (a failure in CI).
pub fn venv_python_where(check: &str, what: &str) -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    if python.is_file() && run(Command::new(&python).args(["-c", check])).code == Some(0) {
        Some(python)
    } else {
        skip(&format!("the project virtualenv .venv with {what}"));
        None
    }
}

/// The project virtualenv's python with zarr (3.x), numcodecs and numpy, or `None` after
/// a skip (a failure in CI).
pub fn zarr_python() -> Option<PathBuf> {
    venv_python_where(
        "import zarr, numcodecs, numpy; assert int(zarr.__version__.split('.')[0]) >= 3",
        "zarr (3.x), numcodecs and numpy",
    )
}

/// The project virtualenv's python with netCDF4-python and numpy, or `None` after a skip
/// (a failure in CI).
pub fn netcdf4_python() -> Option<PathBuf> {
    venv_python_where("import netCDF4, numpy", "netCDF4 and numpy")
}

/// The temporary output of the process `pid` writing `out`, `.NAME.nctools-PID-RANDOM.tmp`
/// beside it, if it is there.
pub fn temporary_of(out: &Path, pid: u32) -> Option<PathBuf> {
    let name = out.file_name()?.to_string_lossy().into_owned();
    let prefix = format!(".{name}.nctools-{pid}-");
    let dir = out.parent()?;
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with(&prefix) && n.ends_with(".tmp"))
        .map(|n| dir.join(n))
}

/// Builds the C program `source` (one of the test makers) against the system's libhdf5
/// (the Debian packages `scripts/setup` installs) into `out`, asserting that gcc succeeds.
pub fn build_hdf5_program(source: &Path, out: &Path) {
    let built = run(Command::new("gcc").arg(source).arg("-o").arg(out).args([
        "-I/usr/include/hdf5/serial",
        "-L/usr/lib/x86_64-linux-gnu/hdf5/serial",
        "-lhdf5",
    ]));
    assert_eq!(
        built.code,
        Some(0),
        "gcc {}: {}",
        source.display(),
        built.stderr
    );
}
