//! Wall time and peak resident memory of one program run.
//!
//! Peak memory comes from `getrusage(RUSAGE_CHILDREN)`, which reports the largest child a
//! process has waited for. To measure each run alone, the run goes through a fresh copy
//! of this program (`xtask measure-child -- PROGRAM ARGS...`) whose only child is the
//! program: no GNU time is needed. The program's standard output goes to /dev/null; its
//! standard error is collected, and its first line shown when the run fails.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use nix::sys::resource::{getrusage, UsageWho};

/// A program to time: path, arguments and extra environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables added to its environment.
    pub env: Vec<(OsString, OsString)>,
    /// Whether it is one of our tools, which take `-j N` first.
    pub takes_jobs: bool,
}

impl Invocation {
    /// `program` with no arguments.
    pub fn new(program: impl Into<PathBuf>) -> Invocation {
        Invocation {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            takes_jobs: false,
        }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Invocation {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Invocation
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Adds a variable to the environment.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Invocation {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Marks it as one of our tools (it takes `-j N`).
    pub fn ours(mut self) -> Invocation {
        self.takes_jobs = true;
        self
    }

    /// With `-j jobs` before the other arguments.
    pub fn with_jobs(mut self, jobs: usize) -> Invocation {
        self.args
            .splice(0..0, [OsString::from("-j"), jobs.to_string().into()]);
        self
    }
}

/// How one timed run went.
#[derive(Debug, Clone, PartialEq)]
pub enum Measured {
    /// It exited 0 after `seconds`, with a peak resident size of `peak_kib` KiB.
    Ran {
        /// Wall time in seconds.
        seconds: f64,
        /// Peak resident memory in KiB.
        peak_kib: u64,
    },
    /// It failed: how it ended ("exit 3", "signal 9") and its first line of standard error.
    Failed {
        /// "exit N" or "signal N".
        status: String,
        /// The first line of its standard error.
        first_line: String,
    },
}

/// Runs `inv` through a fresh copy of this program and measures it.
pub fn measure(inv: &Invocation) -> Result<Measured> {
    let exe = std::env::current_exe().context("cannot find this program")?;
    let output = Command::new(exe)
        .arg("measure-child")
        .arg("--")
        .arg(&inv.program)
        .args(&inv.args)
        .envs(inv.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {}", inv.program.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    parse_report(&stdout, &stderr)
}

/// Reads the line `measure-child` prints: "ok SECONDS PEAK_KIB", or "exit N" / "signal N".
fn parse_report(stdout: &str, stderr: &str) -> Result<Measured> {
    let words: Vec<&str> = stdout.split_whitespace().collect();
    match words.as_slice() {
        ["ok", seconds, peak] => Ok(Measured::Ran {
            seconds: seconds.parse().context("bad time from measure-child")?,
            peak_kib: peak.parse().context("bad peak from measure-child")?,
        }),
        [how @ ("exit" | "signal"), n] => Ok(Measured::Failed {
            status: format!("{how} {n}"),
            first_line: stderr.lines().next().unwrap_or("").to_string(),
        }),
        _ => bail!("measure-child said {stdout:?} ({})", stderr.trim()),
    }
}

/// The body of `xtask measure-child -- PROGRAM ARGS...`: runs the program once, standard
/// output to /dev/null, and prints "ok SECONDS PEAK_KIB" or how it failed.
pub fn child_main(command: &[OsString]) -> Result<i32> {
    let Some((program, args)) = command.split_first() else {
        bail!("measure-child: no program given");
    };
    let start = Instant::now();
    let spawned = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status();
    let status = match spawned {
        Ok(status) => status,
        Err(e) => {
            // As a shell would: a program that cannot be started is exit 127, and the
            // bench goes on with its other cases.
            eprintln!("cannot run {}: {e}", program.to_string_lossy());
            println!("exit 127");
            return Ok(0);
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    if let Some(code) = status.code().filter(|&c| c != 0) {
        println!("exit {code}");
    } else if let Some(sig) = std::os::unix::process::ExitStatusExt::signal(&status) {
        println!("signal {sig}");
    } else {
        let usage = getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage")?;
        // Linux gives ru_maxrss in KiB.
        println!("ok {seconds:.4} {}", usage.max_rss());
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_read_back() -> Result<()> {
        assert_eq!(
            parse_report("ok 1.2500 2048\n", "")?,
            Measured::Ran {
                seconds: 1.25,
                peak_kib: 2048
            }
        );
        assert_eq!(
            parse_report("exit 3\n", "ncdump: no such file\nmore\n")?,
            Measured::Failed {
                status: "exit 3".into(),
                first_line: "ncdump: no such file".into()
            }
        );
        assert!(parse_report("", "boom").is_err());
        Ok(())
    }

    #[test]
    fn jobs_go_first() {
        let inv = Invocation::new("/x/nccopy")
            .ours()
            .args(["-d", "1", "in", "out"])
            .with_jobs(3);
        assert_eq!(inv.args, ["-j", "3", "-d", "1", "in", "out"]);
    }
}
