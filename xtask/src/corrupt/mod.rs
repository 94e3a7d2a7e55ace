//! `cargo xtask corrupt`: runs ncdump and nccopy on truncated and bit-flipped copies of
//! every corpus file, and counts how they end.

pub mod mutate;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use crate::corpus::{self, Built};
use crate::report::{self, Table};
use crate::runner::{self, Ended, Outcome, Spec};
use crate::{build, limits, parallel};
use mutate::{Corruption, Rng};

/// Which tools are under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Tool {
    /// Our ncdump and nccopy (target/release/tools, or $NCTOOLS_BIN_DIR).
    Ours,
    /// The reference netCDF-C tools (/usr/bin, or $NCTOOLS_REF_BIN_DIR).
    Reference,
    /// Both on the same copies, ours under test: one table, and the cases where the two
    /// differ.
    Both,
}

/// The options of `cargo xtask corrupt`.
#[derive(Debug, Args)]
pub struct CorruptArgs {
    /// Corrupted copies of each file (even-numbered copies truncated, odd ones bit-flipped).
    #[arg(long, default_value_t = 5)]
    copies: usize,
    /// Seed of the corruptions: the same seed makes the same copies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Runs at a time.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Seconds before a run is killed and counted as a hang.
    #[arg(long, default_value_t = 20.0)]
    timeout: f64,
    /// The tools under test.
    #[arg(long, value_enum, default_value_t = Tool::Ours)]
    tool: Tool,
    /// Only these corpus files (base names, with or without .cdl).
    #[arg(long, num_args = 1.., value_name = "NAME")]
    only: Vec<String>,
    /// Only these kinds of `ncgen -k` (default: nc3 nc6 nc5 nc4).
    #[arg(long, num_args = 1.., value_name = "KIND")]
    kind: Vec<String>,
    /// Do not run `cargo build --release` first.
    #[arg(long)]
    no_build: bool,
    /// Skip base files larger than this many MiB.
    #[arg(long, default_value_t = 64)]
    max_size_mib: u64,
    /// Largest file any program may write, in MiB (past it: SIGXFSZ, counted as capped).
    #[arg(long, default_value_t = 512)]
    file_cap_mib: u64,
    /// ncdump's standard output past this many MiB is cut (counted as capped).
    #[arg(long, default_value_t = 64)]
    output_cap_mib: u64,
    /// Address space of each program, in MiB (a failed allocation is a crash).
    #[arg(long, default_value_t = 4096)]
    memory_cap_mib: u64,
}

/// The two programs of one tool set.
#[derive(Debug, Clone)]
struct Programs {
    label: &'static str,
    ncdump: PathBuf,
    nccopy: PathBuf,
}

/// One corrupted copy to make and run.
#[derive(Debug, Clone)]
struct Job {
    kind: String,
    name: String,
    base: PathBuf,
    copy: usize,
}

impl Job {
    fn id(&self) -> String {
        format!("{}/{} #{}", self.kind, self.name, self.copy)
    }
}

/// What one program did on one copy.
#[derive(Debug, Clone)]
struct ToolRun {
    /// ours or reference.
    side: &'static str,
    program: &'static str,
    outcome: Outcome,
    how: String,
    stderr_line: String,
    /// For nccopy: what was left in its directory that should not be there.
    leftover: Option<String>,
    elapsed: Duration,
}

impl ToolRun {
    fn is_clean(&self) -> bool {
        !self.outcome.is_failure() && self.leftover.is_none()
    }
}

/// One copy and what both programs did on it.
#[derive(Debug, Clone)]
struct CaseResult {
    job: Job,
    corruption: String,
    runs: Vec<ToolRun>,
    kept: Option<PathBuf>,
}

/// Runs the campaign; returns the process exit status (0 when every run was clean).
pub fn main(args: CorruptArgs) -> Result<i32> {
    let root = corpus::repo_root();
    let corpus_dir = corpus::corpus_dir(&root)?;
    let out_dir = root.join("target/corrupt");
    let sets = programs(&root, &args)?;
    let ncgen = ref_bin_dir().join("ncgen");
    for p in sets
        .iter()
        .flat_map(|s| [&s.ncdump, &s.nccopy])
        .chain([&ncgen])
    {
        if !runner::is_executable(p) {
            bail!("{}: not found (or not executable)", p.display());
        }
    }
    let tool_label = tool_label(args.tool);
    let kinds: Vec<String> = if args.kind.is_empty() {
        corpus::KINDS.iter().map(|k| k.to_string()).collect()
    } else {
        args.kind.clone()
    };
    let names = corpus::names(&corpus_dir, &args.only)?;
    if args.copies == 0 || args.jobs == 0 {
        bail!("--copies and --jobs must be at least 1");
    }
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .context("--timeout must be a positive number of seconds")?;

    // Everything from here on (ncgen, the tools) runs under the caps.
    limits::apply(args.file_cap_mib << 20, args.memory_cap_mib << 20)?;
    let started = Instant::now();

    // The base files, built by the reference ncgen (or found in a cache).
    let base_dir = out_dir.join("base");
    fs::create_dir_all(&base_dir)
        .with_context(|| format!("cannot create {}", base_dir.display()))?;
    let pairs: Vec<(String, String)> = kinds
        .iter()
        .flat_map(|k| names.iter().map(move |n| (k.clone(), n.clone())))
        .collect();
    eprintln!(
        "corrupt: building {} base files with {} (cached under {})",
        pairs.len(),
        ncgen.display(),
        base_dir.display()
    );
    let built = parallel::map(
        &pairs,
        args.jobs,
        |(kind, name)| corpus::build(&root, &corpus_dir, &base_dir, &ncgen, kind, name),
        |_, _| {},
    );
    let max_size = args.max_size_mib << 20;
    let mut base_table = Table::new(["kind", "files", "rejected", "too large", "failed"]);
    let mut jobs = Vec::new();
    let mut base_notes = Vec::new();
    for kind in &kinds {
        let (mut files, mut rejected, mut large, mut failed) = (0, 0, 0, 0);
        for ((k, name), b) in pairs.iter().zip(&built) {
            if k != kind {
                continue;
            }
            match b {
                Ok(Built::File(path)) => {
                    let size = path.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
                    if size > max_size {
                        large += 1;
                        continue;
                    }
                    files += 1;
                    jobs.extend((0..args.copies).map(|copy| Job {
                        kind: kind.clone(),
                        name: name.clone(),
                        base: path.clone(),
                        copy,
                    }));
                }
                Ok(Built::Rejected) => rejected += 1,
                Ok(Built::TooLarge) => large += 1,
                Ok(Built::Failed(why)) => {
                    failed += 1;
                    base_notes.push(format!("{kind}/{name}: reference ncgen failed: {why}"));
                }
                Err(e) => {
                    failed += 1;
                    base_notes.push(format!("{kind}/{name}: {e:#}"));
                }
            }
        }
        base_table.row([
            kind.clone(),
            files.to_string(),
            rejected.to_string(),
            large.to_string(),
            failed.to_string(),
        ]);
    }
    eprint!("{}", base_table.render());
    for note in &base_notes {
        eprintln!("  {note}");
    }
    if jobs.is_empty() {
        bail!("no base file to corrupt");
    }

    // The campaign.
    let work = out_dir.join("work");
    let keep = out_dir.join("cases").join(tool_label);
    for dir in [&work, &keep] {
        if dir.exists() {
            fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
        }
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let names: Vec<String> = sets
        .iter()
        .map(|p| {
            format!(
                "{} and {} ({})",
                p.ncdump.display(),
                p.nccopy.display(),
                p.label
            )
        })
        .collect();
    eprintln!(
        "corrupt: {} copies ({} per file, seed {}), {}, {} at a time, time-out {} s",
        jobs.len(),
        args.copies,
        args.seed,
        names.join("; "),
        args.jobs,
        timeout.as_secs_f64()
    );
    let step = (jobs.len() / 20).max(1);
    let settings = Settings {
        sets: &sets,
        seed: args.seed,
        timeout,
        output_cap: args.output_cap_mib << 20,
        work: &work,
        keep: &keep,
    };
    let results = parallel::map(
        &jobs,
        args.jobs,
        |job| run_case(&settings, job),
        |done, total| {
            if done % step == 0 || done == total {
                eprintln!(
                    "corrupt: {done}/{total} copies ({:.0} s)",
                    started.elapsed().as_secs_f64()
                );
            }
        },
    );
    let _ = fs::remove_dir_all(&work);
    let mut cases = Vec::new();
    for r in results {
        cases.push(r?);
    }

    // The report.
    let text = render(
        &args,
        &sets,
        &base_table,
        &base_notes,
        &cases,
        started.elapsed(),
    );
    let name = match args.tool {
        Tool::Ours => "report.txt",
        Tool::Reference => "report-reference.txt",
        Tool::Both => "report-both.txt",
    };
    let report_path = out_dir.join(name);
    report::write_file(&report_path, &text.full)?;
    print!("{}", text.summary);
    println!("details: {}", report_path.display());
    Ok(if text.clean { 0 } else { 1 })
}

/// "ours", "reference" or "both".
fn tool_label(tool: Tool) -> &'static str {
    match tool {
        Tool::Ours => "ours",
        Tool::Reference => "reference",
        Tool::Both => "both",
    }
}

/// The tool sets under test (ours first with `--tool both`; ours built unless told not).
fn programs(root: &Path, args: &CorruptArgs) -> Result<Vec<Programs>> {
    let set = |label, dir: PathBuf| Programs {
        label,
        ncdump: dir.join("ncdump"),
        nccopy: dir.join("nccopy"),
    };
    let reference = set("reference", ref_bin_dir());
    if args.tool == Tool::Reference {
        return Ok(vec![reference]);
    }
    let ours_dir = match std::env::var_os("NCTOOLS_BIN_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => build::release_tools(root, !args.no_build)?,
    };
    let ours = set("ours", ours_dir);
    Ok(match args.tool {
        Tool::Both => vec![ours, reference],
        _ => vec![ours],
    })
}

/// Where the reference tools are: $NCTOOLS_REF_BIN_DIR, or /usr/bin.
fn ref_bin_dir() -> PathBuf {
    std::env::var_os("NCTOOLS_REF_BIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin"))
}

/// What every case needs.
struct Settings<'a> {
    sets: &'a [Programs],
    seed: u64,
    timeout: Duration,
    output_cap: u64,
    work: &'a Path,
    keep: &'a Path,
}

/// Makes one corrupted copy, runs ncdump and nccopy on it, and keeps the copy when a run
/// was not clean.
fn run_case(s: &Settings<'_>, job: &Job) -> Result<CaseResult> {
    let data =
        fs::read(&job.base).with_context(|| format!("cannot read {}", job.base.display()))?;
    let copy = job.copy.to_string();
    let mut rng = Rng::for_key(s.seed, &[&job.kind, &job.name, &copy]);
    let corruption = Corruption::choose(&mut rng, job.copy, data.len());
    let dir = tempfile::Builder::new()
        .prefix("case.")
        .tempdir_in(s.work)
        .context("cannot make a temporary directory")?;
    // The programs are given relative paths, so that their messages name the file alone.
    let file_name = format!("{}.nc", job.name);
    let file = dir.path().join(&file_name);
    fs::write(&file, corruption.apply(&data))
        .with_context(|| format!("cannot write {}", file.display()))?;

    let mut runs = Vec::new();
    for set in s.sets {
        runs.extend(run_set(s, set, dir.path(), &file_name)?);
    }

    let mut kept = None;
    if runs.iter().any(|r| !r.is_clean()) {
        let to = s
            .keep
            .join(&job.kind)
            .join(format!("{}.c{}.nc", job.name, job.copy));
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        fs::copy(&file, &to).with_context(|| format!("cannot keep {}", to.display()))?;
        kept = Some(to);
    }
    Ok(CaseResult {
        job: job.clone(),
        corruption: corruption.to_string(),
        runs,
        kept,
    })
}

/// Runs one tool set's ncdump and nccopy on FILE_NAME in `dir` (nccopy in a fresh
/// directory of its own), and checks what nccopy leaves behind.
fn run_set(s: &Settings<'_>, set: &Programs, dir: &Path, file_name: &str) -> Result<Vec<ToolRun>> {
    let dump = Spec::new(&set.ncdump, [file_name])
        .cwd(dir)
        .timeout(s.timeout)
        .stdout_cap(s.output_cap);
    let run = runner::run(&dump)?;
    let mut runs = vec![tool_run(set.label, "ncdump", &run, s.timeout, None)];

    let out_dir = dir.join(format!("out-{}", set.label));
    fs::create_dir(&out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    let out_name = "copy.nc";
    let input = format!("../{file_name}");
    let copy_spec = Spec::new(&set.nccopy, [input.as_str(), out_name])
        .cwd(&out_dir)
        .timeout(s.timeout)
        .stdout_cap(s.output_cap);
    let run = runner::run(&copy_spec)?;
    let mut left: Vec<String> = fs::read_dir(&out_dir)
        .with_context(|| format!("cannot list {}", out_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    left.sort();
    let mut outcome_override = None;
    let leftover = match run.ended {
        // A success leaves its output and nothing else.
        Ended::Exit(0) => {
            if !left.iter().any(|n| n == out_name) {
                outcome_override = Some("exit 0 but no output file".to_string());
            }
            let stray: Vec<&String> = left.iter().filter(|n| *n != out_name).collect();
            (!stray.is_empty()).then(|| format!("exit 0 left also {stray:?}"))
        }
        // A failure of its own leaves nothing; a killed program cannot clean up.
        Ended::Exit(_) => (!left.is_empty()).then(|| format!("left {left:?}")),
        Ended::Signal(_) | Ended::TimedOut => None,
    };
    let mut copy_run = tool_run(set.label, "nccopy", &run, s.timeout, leftover);
    if let Some(why) = outcome_override {
        copy_run.outcome = Outcome::Other;
        copy_run.how = why;
    }
    runs.push(copy_run);
    Ok(runs)
}

fn tool_run(
    side: &'static str,
    program: &'static str,
    run: &runner::Run,
    timeout: Duration,
    leftover: Option<String>,
) -> ToolRun {
    let outcome = runner::classify(run);
    let line = match outcome {
        Outcome::Panic => run.panic_line().unwrap_or_default(),
        _ => run.first_stderr_line(),
    };
    ToolRun {
        side,
        program,
        outcome,
        how: runner::describe(run, timeout),
        stderr_line: report::excerpt(line.trim(), 160),
        leftover,
        elapsed: run.elapsed,
    }
}

/// The printed summary, the report file's text, and whether every run was clean.
struct Rendered {
    summary: String,
    full: String,
    clean: bool,
}

fn render(
    args: &CorruptArgs,
    sets: &[Programs],
    base_table: &Table,
    base_notes: &[String],
    cases: &[CaseResult],
    elapsed: Duration,
) -> Rendered {
    let mut columns = vec!["tool".to_string(), "runs".to_string()];
    columns.extend(Outcome::ALL.iter().map(|o| o.label().to_string()));
    columns.push("leftovers".to_string());
    columns.push("time (s)".to_string());
    let mut table = Table::new(columns);
    let mut clean = true;
    // The first set is the one under test (ours, with --tool both).
    let tested = sets.first().map_or("ours", |p| p.label);
    let rows = sets
        .iter()
        .flat_map(|set| ["ncdump", "nccopy"].map(|program| (set.label, program)));
    for (side, program) in rows {
        let runs: Vec<&ToolRun> = cases
            .iter()
            .flat_map(|c| &c.runs)
            .filter(|r| r.side == side && r.program == program)
            .collect();
        let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
        for r in &runs {
            *counts.entry(r.outcome).or_default() += 1;
        }
        let leftovers = runs.iter().filter(|r| r.leftover.is_some()).count();
        let seconds: f64 = runs.iter().map(|r| r.elapsed.as_secs_f64()).sum();
        if side == tested && runs.iter().any(|r| !r.is_clean()) {
            clean = false;
        }
        let mut row = vec![format!("{program} ({side})"), runs.len().to_string()];
        row.extend(
            Outcome::ALL
                .iter()
                .map(|o| counts.get(o).copied().unwrap_or(0).to_string()),
        );
        row.push(leftovers.to_string());
        row.push(format!("{seconds:.0}"));
        table.row(row);
    }

    let mut bad = String::new();
    let mut capped = String::new();
    let mut all = String::new();
    for c in cases {
        for r in &c.runs {
            let who = if sets.len() > 1 {
                format!("{} ({})", r.program, r.side)
            } else {
                r.program.to_string()
            };
            let line = format!(
                "{} [{}] {who}: {}: {}{}{}",
                c.job.id(),
                c.corruption,
                r.outcome.label(),
                r.how,
                r.leftover
                    .as_ref()
                    .map(|l| format!("; leftover: {l}"))
                    .unwrap_or_default(),
                if r.stderr_line.is_empty() {
                    String::new()
                } else {
                    format!(" -- {}", r.stderr_line)
                }
            );
            if !r.is_clean() {
                let _ = writeln!(bad, "  {line}");
            } else if r.outcome == Outcome::Capped {
                let _ = writeln!(capped, "  {line}");
            }
            let _ = writeln!(all, "  {line} ({:.2} s)", r.elapsed.as_secs_f64());
        }
    }

    let mut summary = String::new();
    let _ = writeln!(
        summary,
        "\ncorrupt: {} copies of {} base files, seed {}, time-out {} s, {} jobs, {:.0} s",
        cases.len(),
        cases.len() / args.copies.max(1),
        args.seed,
        args.timeout,
        args.jobs,
        elapsed.as_secs_f64()
    );
    summary.push_str(&table.render());
    if bad.is_empty() {
        summary.push_str("no panic, crash, hang, other exit status or leftover output\n");
    } else {
        let _ = write!(summary, "not clean:\n{bad}");
    }
    if !capped.is_empty() {
        let _ = write!(
            summary,
            "stopped by a cap (not counted against the tool):\n{capped}"
        );
    }
    if sets.len() > 1 {
        summary.push_str(&differences(cases, tested));
    }

    let mut full = String::new();
    let _ = writeln!(
        full,
        "cargo xtask corrupt --copies {} --seed {} --timeout {} --tool {}",
        args.copies,
        args.seed,
        args.timeout,
        tool_label(args.tool)
    );
    for set in sets {
        let _ = writeln!(
            full,
            "ncdump ({0}): {1}\nnccopy ({0}): {2}",
            set.label,
            set.ncdump.display(),
            set.nccopy.display()
        );
    }
    let _ = writeln!(full, "\nbase files (reference ncgen -k KIND):");
    full.push_str(&base_table.render());
    for note in base_notes {
        let _ = writeln!(full, "  {note}");
    }
    full.push_str(&summary);
    let kept: Vec<String> = cases
        .iter()
        .filter_map(|c| c.kept.as_ref().map(|p| format!("  {}", p.display())))
        .collect();
    if !kept.is_empty() {
        let _ = writeln!(full, "\ncopies kept (not clean):\n{}", kept.join("\n"));
    }
    let _ = write!(full, "\nevery run:\n{all}");
    Rendered {
        summary,
        full,
        clean,
    }
}

/// With two tool sets: the runs where one is clean and the other is not, per program.
fn differences(cases: &[CaseResult], tested: &str) -> String {
    let (mut worse, mut better) = (Vec::new(), Vec::new());
    for c in cases {
        for program in ["ncdump", "nccopy"] {
            let of = |mine: bool| {
                c.runs
                    .iter()
                    .find(|r| r.program == program && (r.side == tested) == mine)
            };
            let (Some(a), Some(b)) = (of(true), of(false)) else {
                continue;
            };
            let line = |r: &ToolRun| {
                let left = r
                    .leftover
                    .as_deref()
                    .map(|l| format!(", leftover {l}"))
                    .unwrap_or_default();
                format!("{} {}{left}", r.outcome.label(), r.how)
            };
            let text = format!(
                "  {} [{}] {program}: {} {}; {} {}",
                c.job.id(),
                c.corruption,
                a.side,
                line(a),
                b.side,
                line(b)
            );
            match (a.is_clean(), b.is_clean()) {
                (false, true) => worse.push(text),
                (true, false) => better.push(text),
                _ => {}
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{tested} not clean where the other is ({}):",
        worse.len()
    );
    for l in &worse {
        let _ = writeln!(out, "{l}");
    }
    let _ = writeln!(
        out,
        "{tested} clean where the other is not ({}):",
        better.len()
    );
    for l in &better {
        let _ = writeln!(out, "{l}");
    }
    out
}
