//! The zarr-foreign mode: our ncdump and nccopy on Zarr stores written by other programs
//! (zarr-python, numcodecs and xarray at run time; zarrs' and netCDF-C's test fixtures),
//! judged against what zarr-python reads from the same store.
//!
//! For each store, ours runs `ncdump STORE` and `nccopy STORE out.nc` (then the reference
//! ncdump of out.nc); zarr_foreign_check.py reads the store with zarr-python (the truth)
//! and judges each CDL (see its header). Each run is one of:
//!
//! - correct: exit 0 and the dump holds every array (group, name, type, shape, values,
//!   attributes) as zarr-python reads it;
//! - cannot hold: exit 1, one message, naming an array whose dtype netCDF has no type
//!   for (complex, structured, datetime64, float16, bool...);
//! - clear error: exit 1, one message, naming an array of the store (any other refusal);
//! - unclear error: exit 1 or 2, but several messages, or none naming an array, or exit 2;
//! - wrong data: exit 0 but something differs (or nccopy's file is missing or unreadable);
//! - crash: a signal, exit 101 or any status but 0, 1 and 2, our panic hook's text, or a
//!   time-out;
//! - unjudged: exit 0 where zarr-python could not read the store (no truth), or where the
//!   store's only differences are arrays of types netCDF cannot hold, printed somehow.
//!
//! A store whose top is an array is also checked as NAME@in-group: a copy with a root
//! group added around it (the array as `a`), so that its codecs, type and order are
//! checked apart from how a root array is read.
//!
//! The mode exits 0 only when no run is wrong data or a crash (and something was judged).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::ncdump::{crash_desc, status};
use super::text::excerpt;
use crate::report::Table;
use crate::runner::{self, Ended, Spec};

/// The generator of the stores made at run time.
const MAKE_PY: &str = include_str!("zarr_foreign_make.py");
/// The truth and the judge.
const CHECK_PY: &str = include_str!("zarr_foreign_check.py");
/// Our tools' time-out.
const TIMEOUT: Duration = Duration::from_secs(120);
/// The cap on a dump.
const OUTPUT_CAP: u64 = 16 << 20;

/// How one run of one of our tools on one store is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Exit 0, and the output holds the store's truth.
    Correct,
    /// A clear refusal of an array netCDF has no type for.
    CannotHold,
    /// A clear refusal otherwise.
    ClearError,
    /// A refusal that is not clear.
    UnclearError,
    /// Exit 0, but the output differs from the truth.
    Wrong,
    /// A signal, a panic, a time-out or an unexpected status.
    Crash,
    /// Nothing to judge against.
    Unjudged,
}

impl Class {
    /// Every class, in table order.
    pub const ALL: [Class; 7] = [
        Class::Correct,
        Class::CannotHold,
        Class::ClearError,
        Class::UnclearError,
        Class::Wrong,
        Class::Crash,
        Class::Unjudged,
    ];

    /// The column title.
    pub fn label(self) -> &'static str {
        match self {
            Class::Correct => "correct",
            Class::CannotHold => "cannot hold",
            Class::ClearError => "clear error",
            Class::UnclearError => "unclear error",
            Class::Wrong => "WRONG DATA",
            Class::Crash => "CRASH",
            Class::Unjudged => "unjudged",
        }
    }
}

/// What zarr-python says of a store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Truth {
    /// The arrays' paths ("" for a root array).
    pub arrays: Vec<String>,
    /// Arrays netCDF has no type for, and why.
    pub exotic: Vec<(String, String)>,
    /// zarr-python could not read the store.
    pub error: Option<String>,
    /// The verdict on each CDL: label -> (correct|wrong|unjudged, detail).
    pub verdicts: BTreeMap<String, (String, String)>,
}

/// Parses zarr_foreign_check.py's output.
pub fn parse_truth(text: &str) -> Truth {
    let mut t = Truth::default();
    for line in text.lines() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "array" => t.arrays.push(rest.to_string()),
            "exotic" => {
                let (p, why) = rest.split_once(' ').unwrap_or((rest, ""));
                t.exotic.push((p.to_string(), why.to_string()));
            }
            "truth-error" => t.error = Some(rest.to_string()),
            "verdict" => {
                let mut it = rest.splitn(3, ' ');
                let label = it.next().unwrap_or("").to_string();
                let verdict = it.next().unwrap_or("").to_string();
                let detail = it.next().unwrap_or("").to_string();
                t.verdicts.insert(label, (verdict, detail));
            }
            _ => {}
        }
    }
    t
}

/// Whether `msg` holds `name` as a whole word (not inside a longer name).
fn names_word(msg: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    msg.match_indices(name).any(|(i, _)| {
        let before = msg[..i].chars().next_back();
        let after = msg[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The names a message may use for the array at `path`: the path, its last part, and
/// for a root array the store's name.
fn array_names<'a>(path: &'a str, store: &'a str) -> Vec<&'a str> {
    if path.is_empty() {
        return vec![store];
    }
    let last = path.rsplit('/').next().unwrap_or(path);
    vec![path, last]
}

/// The exit status of a run stopped by the harness's output cap (SIGXFSZ).
const OVER_CAP: i32 = 153;

/// Classifies one run of ours: `rc` its status (None: timed out), `stderr` its standard
/// error, `verdict` the judge's verdict on its output (when it exited 0 and the output
/// could be judged), `missing` why there is no output to judge when it exited 0.
pub fn classify(
    rc: Option<i32>,
    stderr: &str,
    verdict: Option<&(String, String)>,
    missing: Option<&str>,
    truth: &Truth,
    store: &str,
) -> (Class, String) {
    let Some(rc) = rc else {
        return (
            Class::Crash,
            format!("timed out after {}s", TIMEOUT.as_secs()),
        );
    };
    if rc == OVER_CAP && crash_desc(rc, stderr, Some(rc)).is_empty() {
        // The harness's own output cap, not the tool's failure: the store is too large
        // to judge whole.
        return (
            Class::Unjudged,
            "the output is over the harness's output cap; too large to judge".to_string(),
        );
    }
    let crash = crash_desc(rc, stderr, None);
    if !crash.is_empty() {
        return (Class::Crash, crash);
    }
    let messages: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.contains(": warning: "))
        .collect();
    if rc == 0 {
        if let Some(why) = missing {
            if why.contains(&format!("exits {OVER_CAP}")) {
                return (
                    Class::Unjudged,
                    format!("{why} (the harness's output cap; too large to judge)"),
                );
            }
            return (Class::Wrong, why.to_string());
        }
        return match verdict {
            // Without a truth the judge only checks that every array is in the dump.
            Some((v, d)) if v == "wrong" => (Class::Wrong, d.clone()),
            _ if truth.error.is_some() => (
                Class::Unjudged,
                format!("no truth: {}", truth.error.as_deref().unwrap_or("")),
            ),
            Some((v, d)) if v == "correct" => (Class::Correct, d.clone()),
            Some((_, d)) => (Class::Unjudged, d.clone()),
            None => (Class::Unjudged, "no verdict from the judge".to_string()),
        };
    }
    let first = messages.first().copied().unwrap_or("").to_string();
    if rc != 1 {
        return (Class::UnclearError, format!("exit {rc}: {first}"));
    }
    if messages.len() != 1 {
        return (
            Class::UnclearError,
            format!("{} messages: {first}", messages.len()),
        );
    }
    let msg = messages[0];
    let exotic = truth
        .exotic
        .iter()
        .find(|(p, _)| array_names(p, store).iter().any(|n| names_word(msg, n)));
    if let Some((p, why)) = exotic {
        let p = if p.is_empty() { store } else { p };
        return (Class::CannotHold, format!("{p} ({why}): {first}"));
    }
    if truth
        .arrays
        .iter()
        .any(|p| array_names(p, store).iter().any(|n| names_word(msg, n)))
    {
        return (Class::ClearError, first);
    }
    if truth.error.is_some() && truth.arrays.is_empty() {
        // No truth, so no names to look for: a single message is the best we can check.
        return (
            Class::ClearError,
            format!("(no truth to check names) {first}"),
        );
    }
    (
        Class::UnclearError,
        format!("names no array of the store: {first}"),
    )
}

/// One store to check.
#[derive(Debug, Clone)]
struct Store {
    /// Where it comes from: generated, zarrs, netcdf-c...
    source: String,
    /// Its name (the directory's, without .zarr or .file).
    name: String,
    /// Its directory.
    path: PathBuf,
    /// Its producer's CDL of it (netCDF-C's ref_NAME.cdl), the truth when zarr-python
    /// cannot read the store.
    cdl: Option<PathBuf>,
}

impl Store {
    fn id(&self) -> String {
        format!("{}/{}", self.source, self.name)
    }
}

/// The result of one store.
#[derive(Debug, Clone)]
struct Res {
    store: String,
    source: String,
    /// (tool, class, detail), for ncdump and nccopy.
    runs: Vec<(&'static str, Class, String)>,
}

/// The runs of `results` in `class`, a line each (`  STORE TOOL: DETAIL`).
fn runs_of(results: &[Res], class: Class) -> Vec<String> {
    results
        .iter()
        .flat_map(|r| {
            r.runs
                .iter()
                .filter(move |(_, c, _)| *c == class)
                .map(move |(tool, _, d)| format!("  {} {tool}: {d}", r.store))
        })
        .collect()
}

/// The options of the mode.
#[derive(Debug)]
pub struct Opts {
    /// The repository root.
    pub root: PathBuf,
    /// Our tools.
    pub ours_bin: PathBuf,
    /// The reference tools (its ncdump reads our nccopy's copies).
    pub ref_bin: PathBuf,
    /// target/conformance (the mode writes in its zarr-foreign/).
    pub out: PathBuf,
    /// Only these stores (SOURCE/NAME or NAME).
    pub only: Vec<String>,
    /// Runs at a time.
    pub jobs: usize,
    /// List every result.
    pub verbose: bool,
    /// Only list the stores.
    pub list: bool,
    /// HDF5_PLUGIN_PATH for the reference ncdump (set by [`mode`]).
    pub plugin_path: Option<String>,
}

/// The Python with zarr-python.
fn python(root: &Path) -> PathBuf {
    std::env::var_os("NCTOOLS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".venv/bin/python3"))
}

/// The directories holding fixture stores: one subdirectory per source.
fn fixture_roots(root: &Path) -> Vec<PathBuf> {
    vec![
        root.join("../shared/corpus/zarr-foreign"),
        root.join("tests/data/zarr-foreign"),
    ]
}

fn store_name(file: &str) -> String {
    let mut n = file.to_string();
    for suffix in [".zip", ".zarr", ".file"] {
        if let Some(s) = n.strip_suffix(suffix) {
            n = s.to_string();
        }
    }
    n
}

/// The Zarr format of a store whose top is an array (2 or 3), None for a group.
fn root_array_format(dir: &Path) -> Option<u8> {
    if dir.join(".zarray").is_file() {
        return Some(2);
    }
    let text = fs::read_to_string(dir.join("zarr.json")).ok()?;
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    // A group's consolidated metadata holds its arrays' "node_type": "array" too.
    (squeezed.contains("\"node_type\":\"array\"") && !squeezed.contains("\"node_type\":\"group\""))
        .then_some(3)
}

/// For a store whose top is an array: a copy of it as the array `a` of a root group (the
/// group's metadata is the only thing added), in `scratch/in-group/SOURCE/NAME.zarr`, so
/// that its data type, codecs and order are checked even while root arrays are not read.
fn in_group(s: &Store, scratch: &Path) -> Result<Option<Store>> {
    let Some(format) = root_array_format(&s.path) else {
        return Ok(None);
    };
    let dir = scratch
        .join("in-group")
        .join(&s.source)
        .join(format!("{}.zarr", s.name));
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    fs::create_dir_all(&dir)?;
    if format == 2 {
        fs::write(dir.join(".zgroup"), "{\"zarr_format\": 2}\n")?;
    } else {
        fs::write(
            dir.join("zarr.json"),
            "{\"zarr_format\": 3, \"node_type\": \"group\", \"attributes\": {}}\n",
        )?;
    }
    let copied = Command::new("cp")
        .arg("-R")
        .arg(&s.path)
        .arg(dir.join("a"))
        .stdin(Stdio::null())
        .status()
        .context("cannot run cp")?;
    if !copied.success() {
        bail!("cp -R {} failed", s.path.display());
    }
    Ok(Some(Store {
        source: s.source.clone(),
        name: format!("{}@in-group", s.name),
        path: dir,
        cdl: None,
    }))
}

/// NAME.cdl (or, for NAME_orig, the CDL of NAME) in `dir`.
fn cdl_beside(dir: &Path, name: &str) -> Option<PathBuf> {
    [name, name.trim_end_matches("_orig")]
        .iter()
        .map(|n| dir.join(format!("{n}.cdl")))
        .find(|p| p.is_file())
}

/// Whether `dir` has Zarr metadata at its top.
fn has_metadata(dir: &Path) -> bool {
    [".zgroup", ".zarray", "zarr.json"]
        .iter()
        .any(|m| dir.join(m).is_file())
}

/// The stores in `dir`: itself when it has metadata at its top, else the shallowest
/// directories under it that do (some fixtures, e.g. zarrs' sharded_array_write_read,
/// have no root metadata: zarr-python opens neither), with their paths under `dir`.
fn store_roots(dir: &Path, depth: usize) -> Vec<(String, PathBuf)> {
    if has_metadata(dir) {
        return vec![(String::new(), dir.to_path_buf())];
    }
    if depth == 0 {
        return Vec::new();
    }
    let mut subs: Vec<PathBuf> = fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    subs.sort();
    let mut out = Vec::new();
    for sub in subs {
        let base = sub
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (rel, path) in store_roots(&sub, depth - 1) {
            let rel = if rel.is_empty() {
                base.clone()
            } else {
                format!("{base}/{rel}")
            };
            out.push((rel, path));
        }
    }
    out
}

/// The fixture stores (zips unzipped into `scratch`).
fn fixtures(root: &Path, scratch: &Path, notes: &mut Vec<String>) -> Result<Vec<Store>> {
    let mut out = Vec::new();
    for base in fixture_roots(root) {
        let Ok(sources) = fs::read_dir(&base) else {
            notes.push(format!("no fixtures at {}", base.display()));
            continue;
        };
        let mut sources: Vec<PathBuf> = sources.flatten().map(|e| e.path()).collect();
        sources.sort();
        for src in sources.iter().filter(|p| p.is_dir()) {
            let source = src
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut entries: Vec<PathBuf> =
                fs::read_dir(src)?.flatten().map(|e| e.path()).collect();
            entries.sort();
            for e in entries {
                let file = e
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let name = store_name(&file);
                if e.is_dir() && (file.ends_with(".zarr") || file.ends_with(".file")) {
                    for (sub, path) in store_roots(&e, 3) {
                        out.push(Store {
                            source: source.clone(),
                            name: if sub.is_empty() {
                                name.clone()
                            } else {
                                format!("{name}/{sub}")
                            },
                            path,
                            cdl: cdl_beside(src, &name),
                        });
                    }
                } else if file.ends_with(".zip") {
                    let dir = scratch.join(&source).join(&name);
                    fs::create_dir_all(&dir)?;
                    let run = Command::new("unzip")
                        .args(["-q", "-o"])
                        .arg(&e)
                        .arg("-d")
                        .arg(&dir)
                        .stdin(Stdio::null())
                        .output();
                    match run {
                        Ok(o) if o.status.success() => {}
                        Ok(o) => {
                            notes.push(format!(
                                "{source}/{file}: unzip failed: {}",
                                String::from_utf8_lossy(&o.stderr).trim()
                            ));
                            continue;
                        }
                        Err(err) => {
                            notes.push(format!("{source}/{file}: cannot run unzip: {err}"));
                            continue;
                        }
                    }
                    // The store is the zip's one top-level directory.
                    let tops: Vec<PathBuf> = fs::read_dir(&dir)?
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.is_dir())
                        .collect();
                    match tops.as_slice() {
                        [one] => out.push(Store {
                            source: source.clone(),
                            cdl: cdl_beside(src, &name),
                            name,
                            path: one.clone(),
                        }),
                        _ => notes.push(format!(
                            "{source}/{file}: not one top-level directory, skipped"
                        )),
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Runs one of our tools (or the reference ncdump) in `cwd`.
fn run_tool(
    program: &Path,
    args: &[&str],
    store: &Path,
    cwd: &Path,
    out_name: Option<&str>,
) -> Result<runner::Run> {
    let mut a: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    a.push(store.as_os_str().to_owned());
    if let Some(o) = out_name {
        a.push(o.into());
    }
    let spec = Spec::new(program, a)
        .cwd(cwd)
        .timeout(TIMEOUT)
        .stdout_cap(OUTPUT_CAP)
        .keep_stdout();
    runner::run(&spec)
}

/// The status of a run, None when it timed out.
fn rc_of(run: &runner::Run) -> Option<i32> {
    (run.ended != Ended::TimedOut).then(|| status(run))
}

/// HDF5_PLUGIN_PATH for the reference ncdump of our copies (which may use zstd, of which
/// Debian has no HDF5 plugin): the environment's, else Debian's directory and PyPI
/// hdf5plugin's (scripts/setup installs it in the venv). Our tools get the environment as
/// it is.
fn ref_plugin_path(py: &Path) -> Option<String> {
    if let Ok(p) = std::env::var("HDF5_PLUGIN_PATH") {
        return Some(p);
    }
    let mut dirs = vec!["/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins".to_string()];
    if let Ok(o) = Command::new(py)
        .args(["-c", "import hdf5plugin; print(hdf5plugin.PLUGIN_PATH)"])
        .stderr(Stdio::null())
        .output()
    {
        if o.status.success() {
            dirs.push(String::from_utf8_lossy(&o.stdout).trim().to_string());
        }
    }
    let dirs: Vec<String> = dirs.into_iter().filter(|d| Path::new(d).is_dir()).collect();
    (!dirs.is_empty()).then(|| dirs.join(":"))
}

/// A message of ours, shorter: the store's path as its id, cut at 300 characters.
fn shorten(text: &str, s: &Store) -> String {
    let t = text.replace(&s.path.display().to_string(), &format!("<{}>", s.id()));
    if t.chars().count() > 300 {
        format!("{}...", t.chars().take(300).collect::<String>())
    } else {
        t
    }
}

/// Checks one store: both tools, then the judge.
fn worker(o: &Opts, py: &Path, check_py: &Path, work: &Path, s: &Store) -> Result<Res> {
    let dir = work.join(&s.source).join(&s.name);
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    fs::create_dir_all(&dir)?;
    let mut log = format!("store {} ({})\n", s.id(), s.path.display());
    // ncdump.
    let dump = run_tool(&o.ours_bin.join("ncdump"), &[], &s.path, &dir, None)?;
    let dump_rc = rc_of(&dump);
    fs::write(dir.join("ncdump.cdl"), &dump.stdout)?;
    let _ = writeln!(log, "our ncdump: exit {dump_rc:?}\n{}", dump.stderr);
    // nccopy, then the reference ncdump of the copy.
    let copy_dir = dir.join("copy");
    fs::create_dir_all(&copy_dir)?;
    let copy = run_tool(
        &o.ours_bin.join("nccopy"),
        &[],
        &s.path,
        &copy_dir,
        Some("out.nc"),
    )?;
    let copy_rc = rc_of(&copy);
    let _ = writeln!(
        log,
        "our nccopy STORE out.nc: exit {copy_rc:?}\n{}",
        copy.stderr
    );
    let mut copy_missing = None;
    let mut copy_cdl = None;
    if copy_rc == Some(0) {
        let nc = copy_dir.join("out.nc");
        if nc.is_file() {
            let ref_dump = o.ref_bin.join("ncdump");
            let r = match &o.plugin_path {
                Some(p) => {
                    let env_arg = format!("HDF5_PLUGIN_PATH={p}");
                    let ref_s = ref_dump.display().to_string();
                    run_tool(
                        Path::new("/usr/bin/env"),
                        &[env_arg.as_str(), ref_s.as_str()],
                        Path::new("out.nc"),
                        &copy_dir,
                        None,
                    )?
                }
                None => run_tool(&ref_dump, &[], Path::new("out.nc"), &copy_dir, None)?,
            };
            let rrc = rc_of(&r);
            let _ = writeln!(log, "reference ncdump out.nc: exit {rrc:?}\n{}", r.stderr);
            if rrc == Some(0) {
                fs::write(dir.join("nccopy.cdl"), &r.stdout)?;
                copy_cdl = Some(dir.join("nccopy.cdl"));
            } else {
                copy_missing = Some(format!(
                    "exit 0, but the reference ncdump of the copy exits {}: {}",
                    rrc.map_or("timed out".to_string(), |c| c.to_string()),
                    excerpt(r.first_stderr_line())
                ));
            }
        } else {
            copy_missing = Some("exit 0, but no out.nc".to_string());
        }
    }
    // The judge.
    let mut cmd = Command::new(py);
    cmd.arg(check_py);
    if let Some(c) = &s.cdl {
        cmd.arg("--cdl").arg(c);
    }
    cmd.arg(&s.path);
    if dump_rc == Some(0) {
        cmd.arg(format!("ncdump={}", dir.join("ncdump.cdl").display()));
    }
    if let Some(c) = &copy_cdl {
        cmd.arg(format!("nccopy={}", c.display()));
    }
    let judged = cmd
        .stdin(Stdio::null())
        .output()
        .context("cannot run the judge (zarr_foreign_check.py)")?;
    let text = String::from_utf8_lossy(&judged.stdout).into_owned();
    let mut truth = parse_truth(&text);
    if !judged.status.success() {
        let err = String::from_utf8_lossy(&judged.stderr);
        let last = err.lines().last().unwrap_or("").to_string();
        truth
            .error
            .get_or_insert(format!("the judge failed: {last}"));
    }
    let _ = writeln!(
        log,
        "judge:\n{text}{}",
        String::from_utf8_lossy(&judged.stderr)
    );
    fs::write(dir.join("log.txt"), log)?;
    let dump_c = classify(
        dump_rc,
        &shorten(&dump.stderr, s),
        truth.verdicts.get("ncdump"),
        None,
        &truth,
        &s.name,
    );
    let copy_c = classify(
        copy_rc,
        &shorten(&copy.stderr, s),
        truth.verdicts.get("nccopy"),
        copy_missing.as_deref(),
        &truth,
        &s.name,
    );
    // Keep the outputs only where something is wrong.
    if dump_c.0 != Class::Wrong && copy_c.0 != Class::Wrong {
        let _ = fs::remove_dir_all(&copy_dir);
    }
    Ok(Res {
        store: s.id(),
        source: s.source.clone(),
        runs: vec![
            ("ncdump", dump_c.0, dump_c.1),
            ("nccopy", copy_c.0, copy_c.1),
        ],
    })
}

/// The mode; returns the exit status.
pub fn mode(o: &Opts) -> Result<i32> {
    let start = Instant::now();
    let py = python(&o.root);
    if !runner::is_executable(&py) {
        bail!(
            "no Python with zarr-python at {} (run scripts/setup, or set NCTOOLS_PYTHON)",
            py.display()
        );
    }
    // NAME@in-group is made from NAME.
    let only: Vec<String> = o
        .only
        .iter()
        .map(|w| w.trim_end_matches("@in-group").to_string())
        .collect();
    let o = &Opts {
        plugin_path: ref_plugin_path(&py),
        root: o.root.clone(),
        ours_bin: o.ours_bin.clone(),
        ref_bin: o.ref_bin.clone(),
        out: o.out.clone(),
        only,
        jobs: o.jobs,
        verbose: o.verbose,
        list: o.list,
    };
    let base = o.out.join("zarr-foreign");
    let stores_dir = base.join("stores");
    let work = base.join("work");
    for d in [&stores_dir, &work] {
        if d.exists() {
            fs::remove_dir_all(d).with_context(|| format!("cannot remove {}", d.display()))?;
        }
        fs::create_dir_all(d)?;
    }
    let make_py = base.join("zarr_foreign_make.py");
    let check_py = base.join("zarr_foreign_check.py");
    fs::write(&make_py, MAKE_PY)?;
    fs::write(&check_py, CHECK_PY)?;
    let wanted = |source: &str, name: &str| {
        o.only.is_empty()
            || o.only
                .iter()
                .any(|w| w == name || *w == format!("{source}/{name}"))
    };

    // The generated stores.
    let mut notes = Vec::new();
    let mut stores = Vec::new();
    let gen_dir = stores_dir.join("generated");
    let mut make = Command::new(&py);
    make.arg(&make_py).arg(&gen_dir);
    let gen_only: Vec<&String> = o
        .only
        .iter()
        .filter(|w| !w.contains('/') || w.starts_with("generated/"))
        .collect();
    let skip_gen = !o.only.is_empty() && gen_only.is_empty();
    for w in &gen_only {
        make.arg(w.trim_start_matches("generated/"));
    }
    if !skip_gen {
        let made = make
            .stdin(Stdio::null())
            .output()
            .context("cannot run zarr_foreign_make.py")?;
        if !made.status.success() {
            bail!(
                "zarr_foreign_make.py failed: {}",
                String::from_utf8_lossy(&made.stderr).trim()
            );
        }
        for line in String::from_utf8_lossy(&made.stdout).lines() {
            if let Some(name) = line.strip_prefix("made ") {
                stores.push(Store {
                    source: "generated".to_string(),
                    name: name.to_string(),
                    path: gen_dir.join(format!("{name}.zarr")),
                    cdl: None,
                });
            } else if let Some(rest) = line.strip_prefix("skipped ") {
                notes.push(format!("generated/{rest} (zarr-python could not write it)"));
            }
        }
    }
    for s in fixtures(&o.root, &stores_dir, &mut notes)? {
        if wanted(&s.source, &s.name) {
            stores.push(s);
        }
    }
    let mut wrapped = Vec::new();
    for s in &stores {
        if let Some(w) = in_group(s, &stores_dir)? {
            wrapped.push(w);
        }
    }
    stores.extend(wrapped);
    if o.list {
        for s in &stores {
            println!("{}", s.id());
        }
        return Ok(0);
    }
    println!(
        "conformance zarr-foreign: our {} and {} (its copy dumped by {}) on Zarr stores written by others,",
        o.ours_bin.join("ncdump").display(),
        o.ours_bin.join("nccopy").display(),
        o.ref_bin.join("ncdump").display()
    );
    println!(
        "judged against zarr-python ({}); {} stores; output: {}",
        py.display(),
        stores.len(),
        base.display()
    );
    if stores.is_empty() {
        eprintln!("conformance: no store to check");
        return Ok(1);
    }
    let judged = crate::parallel::map(
        &stores,
        o.jobs,
        |s| worker(o, &py, &check_py, &work, s),
        |_, _| {},
    );
    let mut results = Vec::new();
    for (s, r) in stores.iter().zip(judged) {
        match r {
            Ok(r) => results.push(r),
            Err(e) => notes.push(format!("{}: the harness failed: {e:#}", s.id())),
        }
    }

    // The table: one row per tool and source, one column per class.
    let mut sources: Vec<String> = results.iter().map(|r| r.source.clone()).collect();
    sources.sort();
    sources.dedup();
    let mut header = vec!["tool / source".to_string()];
    header.extend(Class::ALL.iter().map(|c| c.label().to_string()));
    let mut table = Table::new(header);
    let mut counts: BTreeMap<(&str, String, Class), usize> = BTreeMap::new();
    for r in &results {
        for (tool, class, _) in &r.runs {
            *counts.entry((tool, r.source.clone(), *class)).or_default() += 1;
            *counts.entry((tool, "all".to_string(), *class)).or_default() += 1;
        }
    }
    for tool in ["ncdump", "nccopy"] {
        for source in sources.iter().map(String::as_str).chain(["all"]) {
            let mut row = vec![format!("{tool} {source}")];
            for c in Class::ALL {
                row.push(
                    counts
                        .get(&(tool, source.to_string(), c))
                        .copied()
                        .unwrap_or(0)
                        .to_string(),
                );
            }
            table.row(row);
        }
    }
    let total = |c: Class| -> usize {
        ["ncdump", "nccopy"]
            .iter()
            .map(|t| {
                counts
                    .get(&(*t, "all".to_string(), c))
                    .copied()
                    .unwrap_or(0)
            })
            .sum()
    };
    let mut report = table.render();
    let mut listing = String::new();
    for r in &results {
        for (tool, class, detail) in &r.runs {
            let _ = writeln!(listing, "{}\t{tool}\t{}\t{detail}", r.store, class.label());
        }
    }
    report.push('\n');
    for class in Class::ALL {
        let these = runs_of(&results, class);
        if these.is_empty() {
            continue;
        }
        let _ = writeln!(report, "{} ({}):", class.label(), these.len());
        for l in these {
            report.push_str(&l);
            report.push('\n');
        }
    }
    if !notes.is_empty() {
        report.push_str("notes:\n");
        for n in &notes {
            let _ = writeln!(report, "  {n}");
        }
    }
    crate::report::write_file(&base.join("report.txt"), &report)?;
    crate::report::write_file(&base.join("results.tsv"), &listing)?;
    // Standard output: the table, then all but the correct ones (all with --verbose).
    print!("{}", table.render());
    for class in Class::ALL {
        if class == Class::Correct && !o.verbose {
            continue;
        }
        let these = runs_of(&results, class);
        if these.is_empty() {
            continue;
        }
        println!("{} ({}):", class.label(), these.len());
        for l in these {
            println!("{l}");
        }
    }
    for n in &notes {
        println!("note: {n}");
    }
    println!(
        "report: {}, per run: {}/work/SOURCE/NAME/ ({}s)",
        base.join("report.txt").display(),
        base.display(),
        start.elapsed().as_secs()
    );
    let judged_any = total(Class::Correct)
        + total(Class::Wrong)
        + total(Class::CannotHold)
        + total(Class::ClearError)
        + total(Class::UnclearError)
        + total(Class::Crash);
    Ok(i32::from(
        total(Class::Wrong) > 0
            || total(Class::Crash) > 0
            || judged_any == 0
            || results.len() != stores.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn truth() -> Truth {
        parse_truth(
            "array g/temp\narray g/cplx\narray top\nexotic g/cplx complex (complex128)\n\
             verdict ncdump correct 3 arrays match\n\
             verdict nccopy wrong g/temp[1]: ours 2, truth 3 (1 of 4 values differ)\n",
        )
    }

    #[test]
    fn parses_the_judge() {
        let t = truth();
        assert_eq!(t.arrays, ["g/temp", "g/cplx", "top"]);
        assert_eq!(
            t.exotic,
            [("g/cplx".to_string(), "complex (complex128)".to_string())]
        );
        assert_eq!(t.verdicts["ncdump"].0, "correct");
        assert_eq!(
            t.verdicts["nccopy"].1,
            "g/temp[1]: ours 2, truth 3 (1 of 4 values differ)"
        );
        assert_eq!(
            parse_truth("truth-error KeyError: x\n").error.as_deref(),
            Some("KeyError: x")
        );
    }

    #[test]
    fn classifies() {
        let t = truth();
        let c = |rc, err: &str, v: Option<&str>| {
            let v = v.map(|l| t.verdicts[l].clone());
            classify(rc, err, v.as_ref(), None, &t, "s").0
        };
        assert_eq!(c(Some(0), "", Some("ncdump")), Class::Correct);
        assert_eq!(c(Some(0), "", Some("nccopy")), Class::Wrong);
        assert_eq!(c(Some(139), "", None), Class::Crash);
        assert_eq!(
            c(
                Some(101),
                "ncdump: internal error (x); this is a bug in nctools",
                None
            ),
            Class::Crash
        );
        assert_eq!(
            c(Some(1), "ncdump: internal error: no token\n", None),
            Class::Crash
        );
        assert_eq!(c(None, "", None), Class::Crash);
        assert_eq!(
            c(
                Some(1),
                "ncdump: s: variable cplx: complex128 has no netCDF type\n",
                None
            ),
            Class::CannotHold
        );
        assert_eq!(
            c(
                Some(1),
                "ncdump: s: variable g/temp: codec pcodec is not supported\n",
                None
            ),
            Class::ClearError
        );
        // Two messages, or a message naming no array, or exit 2: not clear.
        assert_eq!(
            c(Some(1), "ncdump: temp: bad\nncdump: again\n", None),
            Class::UnclearError
        );
        assert_eq!(
            c(Some(1), "ncdump: cannot read the store\n", None),
            Class::UnclearError
        );
        assert_eq!(c(Some(2), "ncdump: temp: bad\n", None), Class::UnclearError);
        // "temperature" does not name "temp"; warnings are not messages.
        assert_eq!(
            c(Some(1), "ncdump: temperature: bad\n", None),
            Class::UnclearError
        );
        assert_eq!(
            c(Some(1), "nccopy: warning: odd\nnccopy: top: no\n", None),
            Class::ClearError
        );
        // Exit 0 without a file, or with no truth.
        let (class, _) = classify(Some(0), "", None, Some("exit 0, but no out.nc"), &t, "s");
        assert_eq!(class, Class::Wrong);
        let none = parse_truth("truth-error ValueError: codec\n");
        assert_eq!(
            classify(Some(0), "", None, None, &none, "s").0,
            Class::Unjudged
        );
        // A root array is named by the store's name.
        let root = parse_truth("array \nexotic  complex (complex64)\n");
        assert_eq!(
            classify(
                Some(1),
                "ncdump: s: complex64 has no netCDF type\n",
                None,
                None,
                &root,
                "s"
            )
            .0,
            Class::CannotHold
        );
    }

    #[test]
    fn whole_words() {
        assert!(names_word("variable temp: x", "temp"));
        assert!(!names_word("temperature", "temp"));
        assert!(names_word("g/temp", "temp"));
        assert!(!names_word("x", ""));
    }
}
