//! Helpers shared by the integration tests: running our binaries, finding the reference
//! tools, scratch directories.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A finished command: exit code and output as text.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Self {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
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
    /// Our binary `tool` (nccopy, ncgen, ncdump) as built by cargo for this test run.
    pub fn ours(tool: &str) -> Self {
        let path = match tool {
            "nccopy" => env!("CARGO_BIN_EXE_nccopy"),
            "ncgen" => env!("CARGO_BIN_EXE_ncgen"),
            "ncdump" => env!("CARGO_BIN_EXE_ncdump"),
            other => panic!("no such tool {other}"),
        };
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

    /// Runs it.
    pub fn run(mut self) -> Run {
        run(&mut self.command)
    }
}

/// Whether this run is in CI, where reference-tool tests must fail rather than skip.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The reference tool `name` (ncgen, ncdump, nccopy, h5dump) from the system, or `None`
/// with a visible message when it is missing outside CI. In CI a missing tool fails the test.
pub fn reference(name: &str) -> Option<PathBuf> {
    let found = ["/usr/bin", "/usr/local/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            !in_ci(),
            "the reference {name} is missing and CI=true: run scripts/setup"
        );
        eprintln!("SKIPPED: the reference {name} is not installed (run scripts/setup)");
    }
    found
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
