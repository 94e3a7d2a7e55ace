//! Runs of our binaries that are watched while they run: how much CPU time they take and
//! how much memory they reach (the kernel's high-water mark of the process's resident set,
//! `VmHWM` in `/proc/PID/status`, read every few milliseconds, its helper processes'
//! added). A run past a hard limit
//! is killed, so that a regression fails its test instead of taking the machine down.
//! Time is counted in CPU seconds, not on the wall clock: on a busy CI machine a run that
//! takes 5 s here took over a minute of wall time and was killed (the machine is noisy, the
//! work a run does is not).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{ours_path, Run};

/// A run and what it cost.
pub struct Bounded {
    /// The run (exit status and output).
    pub run: Run,
    /// CPU time (user and system) of the process and its helper processes, as last seen.
    pub cpu: Duration,
    /// The largest resident set seen, in MiB.
    pub peak_mib: u64,
    /// Why it was killed, when it was.
    pub killed: Option<String>,
}

/// The CPU time after which a run is killed.
const KILL_AFTER_CPU: Duration = Duration::from_secs(60);

/// The wall-clock time after which a run is killed whatever its CPU time (a run blocked
/// on something that never comes).
const KILL_AFTER_WALL: Duration = Duration::from_secs(600);

/// The resident set past which a run is killed, in MiB.
const KILL_ABOVE_MIB: u64 = 2048;

/// The high-water mark of the resident set of the process `pid`, in MiB (0 once gone).
/// Between `fork` and `exec` the child is still a copy of this test process, whose
/// high-water mark (every test running in it) is not the tool's: 0 until it runs
/// another program.
fn peak_mib(pid: u32) -> u64 {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    if exe.is_none() || exe == std::env::current_exe().ok() {
        return 0;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib / 1024)
}

/// The high-water marks of the process `pid` and of every process under it, added up, in
/// MiB: a tool's helper processes (the worker that decodes with plugin filters) count as
/// the tool's memory (a forked helper's mark includes the pages it shares with the tool,
/// so this errs on the high side).
fn tree_peak_mib(pid: u32) -> u64 {
    peak_mib(pid) + children(pid).into_iter().map(tree_peak_mib).sum::<u64>()
}

/// The processes `pid` started (of each of its threads).
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// The CPU time (user and system) of the process `pid` and of every process under it,
/// from `/proc/PID/stat` (fields 14 and 15, in the kernel's fixed 100 ticks a second).
fn tree_cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let ticks: u64 = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .skip(11)
                .take(2)
                .filter_map(|t| t.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    Duration::from_millis(ticks * 10) + children(pid).into_iter().map(tree_cpu).sum::<Duration>()
}

/// Runs our `tool` with `args`, watching it.
pub fn run_ours<I, S>(tool: &str, args: I) -> Bounded
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    run_ours_with_env(tool, args, &[])
}

/// Runs our `tool` with `args` and the environment variables `envs` added, watching it.
pub fn run_ours_with_env<I, S>(tool: &str, args: I, envs: &[(&str, &str)]) -> Bounded
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut command = Command::new(ours_path(tool));
    command.args(args).envs(envs.iter().copied());
    run_watched(tool, command)
}

/// Runs `command` (any program: a reference tool, with its environment set), watching
/// it like [`run_ours`]; `tool` names it in messages.
pub fn run_watched(tool: &str, mut command: Command) -> Bounded {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                // Keep the first 16 MiB; read the rest away so the child never blocks.
                let _ = pipe.by_ref().take(16 << 20).read_to_end(&mut bytes);
                let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let mut peak = 0;
    let mut cpu = Duration::ZERO;
    let mut killed = None;
    let status = loop {
        peak = peak.max(tree_peak_mib(child.id()));
        cpu = cpu.max(tree_cpu(child.id()));
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => panic!("waiting for {tool}: {e}"),
        }
        let over_time = cpu > KILL_AFTER_CPU || started.elapsed() > KILL_AFTER_WALL;
        if killed.is_none() && (over_time || peak > KILL_ABOVE_MIB) {
            killed = Some(format!(
                "killed after {:?} ({cpu:?} of CPU) at {peak} MiB",
                started.elapsed()
            ));
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let output = std::process::Output {
        status,
        stdout: out.join().unwrap_or_default().into_bytes(),
        stderr: err.join().unwrap_or_default().into_bytes(),
    };
    Bounded {
        run: output.into(),
        cpu,
        peak_mib: peak,
        killed,
    }
}

impl Bounded {
    /// Fails the test unless the run stayed under `mib` MiB and `secs` seconds of CPU and
    /// did not crash.
    #[track_caller]
    pub fn assert_within(&self, mib: u64, secs: u64) -> &Run {
        assert!(
            self.killed.is_none(),
            "{}; stderr: {}",
            self.killed.as_deref().unwrap_or_default(),
            self.run.stderr
        );
        crate::support::assert_no_crash(&self.run);
        assert!(
            self.peak_mib < mib,
            "reached {} MiB (limit {mib}); stderr: {}",
            self.peak_mib,
            self.run.stderr
        );
        assert!(
            self.cpu < Duration::from_secs(secs),
            "took {:?} of CPU (limit {secs} s); stderr: {}",
            self.cpu,
            self.run.stderr
        );
        &self.run
    }
}
