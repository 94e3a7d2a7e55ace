//! The ncdump mode: our ncdump and the reference's on every file the reference ncgen
//! makes, with no option, -h, -hs and -hsF; standard output and exit status must be
//! identical.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::text::{cdf5_specials, excerpt, first_difference};
use super::text::{listing, Listed};
use super::{gen, newer_than, show_path, Ctx};
use crate::runner::{self, Ended, Run, Spec, PANIC_TEXTS};

/// Kinds, in the bash script's order.
const KINDS: [&str; 4] = ["nc4", "nc3", "nc6", "nc5"];
/// Option sets.
const OPT_SETS: [&str; 4] = ["", "-h", "-hs", "-hsF"];
/// Each ncdump's time-out.
pub const TIMEOUT: Duration = Duration::from_secs(60);
/// Cap on each ncdump's standard output (64 MiB): past it, both are compared on the
/// first 64 MiB, and the status is 153 (as SIGXFSZ under the bash script's `ulimit -f`).
pub const OUTPUT_CAP: u64 = 64 << 20;

/// The status of a run as the bash script sees it: the exit status, 128 + the signal,
/// 124 for a time-out, 153 for output past the cap.
pub fn status(run: &Run) -> i32 {
    if run.stdout_capped {
        return 153;
    }
    match run.ended {
        Ended::Exit(c) => c,
        Ended::Signal(s) => 128 + s,
        Ended::TimedOut => 124,
    }
}

/// "(none)" for no option.
pub fn opt_display(opts: &str) -> &str {
    if opts.is_empty() {
        "(none)"
    } else {
        opts
    }
}

/// File-name label of an option set: none, h, hs, hsF.
pub fn label(opts: &str) -> &str {
    if opts.is_empty() {
        "none"
    } else {
        opts.trim_start_matches('-')
    }
}

/// " (SIGSEGV)" for an exit status over 128.
fn signal_desc(rc: i32) -> String {
    nix::sys::signal::Signal::try_from(rc - 128)
        .map(|s| format!(" ({})", s.as_str()))
        .unwrap_or_default()
}

/// Why a run of ours with status `rc` and standard error `err` is a crash rather than a
/// result ("" when it is not); a cap or time-out that stopped the reference alike
/// (`refrc`) is let through.
pub fn crash_desc(rc: i32, err: &str, refrc: Option<i32>) -> String {
    let mut d = match rc {
        0..=2 => String::new(),
        124 | 137 | 153 if Some(rc) == refrc => String::new(),
        153 => "exit 153, killed by SIGXFSZ (the output or file cap)".to_string(),
        124 | 137 => format!("exit {rc} (timed out)"),
        101 => "exit 101 (Rust's panic status)".to_string(),
        rc if rc > 128 => format!(
            "killed by signal {}{} (exit {rc})",
            rc - 128,
            signal_desc(rc)
        ),
        rc => format!("exit {rc} (our tools exit 0, 1 or 2)"),
    };
    if let Some(line) = err
        .lines()
        .find(|l| PANIC_TEXTS.iter().any(|t| l.contains(t)))
    {
        if !d.is_empty() {
            d.push_str("; ");
        }
        d.push_str(&excerpt(line));
    }
    d
}

/// The exit status, explained when it is not the tool's own.
pub fn rc_desc(rc: i32) -> String {
    match rc {
        124 | 137 => format!("{rc} (timed out after {}s)", TIMEOUT.as_secs()),
        153 => format!("{rc} (output over the {} MiB cap)", OUTPUT_CAP >> 20),
        rc if rc > 128 => format!("{rc} (signal {})", rc - 128),
        rc => rc.to_string(),
    }
}

/// One ncdump run: its output (capped), status and standard error.
pub struct Dump {
    /// Standard output (its first [`OUTPUT_CAP`] bytes).
    pub out: Vec<u8>,
    /// Status, as [`status`].
    pub rc: i32,
    /// Standard error.
    pub err: String,
}

/// Runs ncdump `bin` with options `opts` on NAME.nc in `dir`.
pub fn run_ncdump(bin: &Path, opts: &str, dir: &Path, name: &str) -> Result<Dump> {
    let mut args: Vec<String> = Vec::new();
    if !opts.is_empty() {
        args.push(opts.to_string());
    }
    args.push(format!("{name}.nc"));
    let spec = Spec::new(bin, args)
        .cwd(dir)
        .timeout(TIMEOUT)
        .stdout_cap(OUTPUT_CAP)
        .keep_stdout();
    let run = runner::run(&spec)?;
    Ok(Dump {
        rc: status(&run),
        out: run.stdout,
        err: run.stderr,
    })
}

/// One result line.
#[derive(Debug, Clone)]
pub struct Outcome {
    kind: String,
    name: String,
    opts: &'static str,
    status: Status,
    detail: String,
}

/// Same, differ, or not comparable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Same,
    Differ,
    Varies,
}

/// The reference's expected output for one option set: cached in OUT/ref.
pub struct Expected {
    /// Standard output.
    pub out: Vec<u8>,
    /// Status, as [`status`].
    pub rc: i32,
    /// Where two runs differ, when they do.
    pub varies: Option<String>,
    /// Where the output is cached.
    pub out_path: PathBuf,
}

/// The reference ncdump's output (options `opts`) on the reference ncgen's KIND/NAME.nc,
/// cached. With `raw`, on CDF5 with -s too the reference's own output (NAME.LABEL.raw),
/// instead of the classic specials ours prints.
pub fn reference(ctx: &Ctx, kind: &str, name: &str, opts: &str, raw: bool) -> Result<Expected> {
    let dir = ctx.out.join("ref").join(kind);
    let raw_ext = if raw { ".raw" } else { "" };
    let base = dir.join(format!("{name}.{}{raw_ext}", label(opts)));
    let specials = kind == "nc5" && opts.contains('s') && !raw;
    cached_dump(ctx, &ctx.out.join(kind), name, opts, &base, specials)
}

/// The reference ncdump's output (options `opts`) on NAME.nc in `dir`, run twice (where
/// the two differ is kept as `varies`), cached as BASE.{out,rc,varies} until older than
/// the file, the reference ncdump or this program; a crash of the reference is not
/// cached. With `specials`, the expected `-s` output of a CDF5 file made from `-h`.
pub fn cached_dump(
    ctx: &Ctx,
    dir: &Path,
    name: &str,
    opts: &str,
    base: &Path,
    specials: bool,
) -> Result<Expected> {
    if let Some(parent) = base.parent() {
        fs::create_dir_all(parent).with_context(|| format!("cannot make {}", parent.display()))?;
    }
    let with = |ext: &str| PathBuf::from(format!("{}.{ext}", base.display()));
    let (out_path, rc_path, varies_path) = (with("out"), with("rc"), with("varies"));
    let nc = dir.join(format!("{name}.nc"));
    let refbin = ctx.ref_bin.join("ncdump");
    if newer_than(&rc_path, &[&nc, &refbin, &ctx.exe]) {
        let rc = fs::read_to_string(&rc_path)?.trim().parse().unwrap_or(-1);
        return Ok(Expected {
            out: fs::read(&out_path)?,
            rc,
            varies: fs::read_to_string(&varies_path).ok(),
            out_path,
        });
    }
    let _ = fs::remove_file(&rc_path);
    let _ = fs::remove_file(&varies_path);
    let (out, rc, varies) = if specials {
        // The reference 4.9 prints `_Storage` and fails; ours prints the classic specials:
        // the reference's -h output with the global `_Format = "cdf5"` line.
        let h = run_ncdump(&refbin, "-h", dir, name)?;
        (cdf5_specials(&h.out), h.rc, None)
    } else {
        let one = run_ncdump(&refbin, opts, dir, name)?;
        let two = run_ncdump(&refbin, opts, dir, name)?;
        let varies = if one.out != two.out {
            Some(first_difference(&one.out, &two.out, "run 1", "run 2"))
        } else if one.rc != two.rc {
            Some(format!("exit status run 1 {} run 2 {}", one.rc, two.rc))
        } else {
            None
        };
        (one.out, one.rc, varies)
    };
    fs::write(&out_path, &out).with_context(|| format!("cannot write {}", out_path.display()))?;
    if let Some(v) = &varies {
        fs::write(&varies_path, v)?;
    }
    if !ref_dump_crashed(rc) {
        fs::write(&rc_path, format!("{rc}\n"))?;
    }
    Ok(Expected {
        out,
        rc,
        varies,
        out_path,
    })
}

/// Whether a reference ncdump's status is a crash (a signal other than the caps').
pub fn ref_dump_crashed(rc: i32) -> bool {
    rc > 128 && rc != 153 && rc != 137
}

/// Compares ours with the reference on KIND/NAME.nc for every option set.
fn worker(ctx: &Ctx, kind: &str, name: &str) -> Result<Vec<Outcome>> {
    let mut results = Vec::new();
    let cwd = ctx.out.join(kind);
    let oursbin = ctx.ours_bin.join("ncdump");
    for opts in OPT_SETS {
        let result = |status, detail: String| Outcome {
            kind: kind.to_string(),
            name: name.to_string(),
            opts,
            status,
            detail,
        };
        let expected = reference(ctx, kind, name, opts, false)?;
        if let Some(v) = &expected.varies {
            results.push(result(
                Status::Varies,
                v.lines().next().unwrap_or("").to_string(),
            ));
            continue;
        }
        let ours = run_ncdump(&oursbin, opts, &cwd, name)?;
        let crash = crash_desc(ours.rc, &ours.err, Some(expected.rc));
        if crash.is_empty() && expected.rc == ours.rc && expected.out == ours.out {
            results.push(result(Status::Same, String::new()));
            continue;
        }
        let (refdesc, oursdesc) = (rc_desc(expected.rc), rc_desc(ours.rc));
        let detail = if !crash.is_empty() {
            format!("ours crashed: {crash}")
        } else if expected.out == ours.out {
            format!("same output, exit status ref={refdesc} ours={oursdesc}")
        } else {
            let d = first_difference(&expected.out, &ours.out, "ref", "ours");
            if expected.rc != ours.rc {
                format!("{d}; exit ref={refdesc} ours={oursdesc}")
            } else {
                d
            }
        };
        write_diff(
            ctx, kind, name, opts, &expected, &ours, &crash, &refdesc, &oursdesc,
        )?;
        results.push(result(Status::Differ, detail));
    }
    Ok(results)
}

/// Leaves OUT/report/KIND/NAME.OPTS.diff: what each ncdump did, the head of our
/// standard error, and the first 50 lines of `diff -u`.
#[allow(clippy::too_many_arguments)]
fn write_diff(
    ctx: &Ctx,
    kind: &str,
    name: &str,
    opts: &str,
    expected: &Expected,
    ours: &Dump,
    crash: &str,
    refdesc: &str,
    oursdesc: &str,
) -> Result<()> {
    let l = label(opts);
    let ours_dir = ctx.out.join("ours").join(kind);
    fs::create_dir_all(&ours_dir)?;
    let ours_out = ours_dir.join(format!("{name}.{l}.out"));
    fs::write(&ours_out, &ours.out)?;
    let mut text = format!(
        "# {kind}/{name}.nc, ncdump {}\n# ref:  {} -> exit {refdesc}\n# ours: {} -> exit {oursdesc}\n",
        opt_display(opts),
        ctx.ref_bin.join("ncdump").display(),
        ctx.ours_bin.join("ncdump").display()
    );
    if !crash.is_empty() {
        text.push_str(&format!("# ours crashed: {crash}\n"));
    }
    for line in ours.err.lines().take(3) {
        text.push_str(&format!("# ours stderr: {line}\n"));
    }
    let diff = Spec::new(
        "diff",
        [
            "-u".to_string(),
            "--label".to_string(),
            format!("ref/{kind}/{name}.{l}"),
            "--label".to_string(),
            format!("ours/{kind}/{name}.{l}"),
            expected.out_path.display().to_string(),
            ours_out.display().to_string(),
        ],
    )
    .timeout(TIMEOUT)
    .keep_stdout();
    if let Ok(run) = runner::run(&diff) {
        let shown: Vec<&[u8]> = run
            .stdout
            .split_inclusive(|&b| b == b'\n')
            .take(50)
            .collect();
        text.push_str(&String::from_utf8_lossy(&shown.concat()));
    }
    let _ = fs::remove_file(&ours_out);
    let path = ctx
        .out
        .join("report")
        .join(kind)
        .join(format!("{name}.{l}.diff"));
    crate::report::write_file(&path, &text)
}

/// The ncdump mode; returns the exit status.
pub fn mode(ctx: &Ctx) -> Result<i32> {
    let start = Instant::now();
    let report = ctx.out.join("report");
    for kind in KINDS {
        let d = report.join(kind);
        if d.exists() {
            fs::remove_dir_all(&d)?;
        }
        fs::create_dir_all(ctx.out.join(kind))?;
    }
    let tmp = ctx.out.join("tmp");
    fs::create_dir_all(&tmp)?;
    let banner = format!(
        "conformance ncdump: ours {} vs reference {}",
        ctx.ours_bin.join("ncdump").display(),
        ctx.ref_bin.join("ncdump").display()
    );
    let generated = gen::announce(ctx, &banner, &KINDS, "ncgen accepts:");
    let list = &generated.accepted;
    let per_pair = crate::parallel::map(list, ctx.jobs, |(k, n)| worker(ctx, k, n), |_, _| {});
    let mut results = Vec::new();
    for ((k, n), r) in list.iter().zip(per_pair) {
        match r {
            Ok(r) => results.extend(r),
            Err(e) => eprintln!("conformance: ncdump worker {k} {n} failed: {e:#}"),
        }
    }

    // Summary.
    let mut counts: BTreeMap<(&str, &str), (usize, usize, usize)> = BTreeMap::new();
    for r in &results {
        let c = counts.entry((r.kind.as_str(), r.opts)).or_default();
        c.1 += 1;
        match r.status {
            Status::Same => c.0 += 1,
            Status::Varies => c.2 += 1,
            Status::Differ => {}
        }
    }
    let (mut all_same, mut all_total, mut all_varies) = (0, 0, 0);
    for kind in KINDS {
        for opts in OPT_SETS {
            let (same, total, varies) = counts.get(&(kind, opts)).copied().unwrap_or_default();
            let mut line = format!("{kind} {}: {same}/{total} identical", opt_display(opts));
            if varies > 0 {
                line.push_str(&format!(
                    " ({varies} not comparable: the reference output varies)"
                ));
            }
            println!("{line}");
            all_same += same;
            all_total += total;
            all_varies += varies;
        }
    }
    let expected = OPT_SETS.len() * list.len();
    let mut line = format!("total: {all_same}/{all_total} identical");
    if all_varies > 0 {
        line.push_str(&format!(
            " ({all_varies} not comparable: the reference output varies)"
        ));
    }
    println!("{line}");
    if all_total != expected {
        eprintln!("conformance: expected {expected} results, got {all_total} (a worker failed?)");
    }
    let failures = all_total - all_same - all_varies;
    let compared = all_total - all_varies;
    if compared == 0 {
        eprintln!(
            "conformance: nothing was compared (no file the reference ncgen accepts, or every \
             output varies)"
        );
    }
    let diffs = format!("{}/KIND/NAME.OPTS.diff", show_path(ctx, &report));
    if failures > 0 {
        if ctx.verbose || failures <= 20 {
            println!("failures ({failures}; diffs in {diffs}):");
            print_results(&results, Status::Differ, failures);
        } else {
            println!("failures (first 20 of {failures}, --verbose for all; diffs in {diffs}):");
            print_results(&results, Status::Differ, 20);
        }
    }
    if all_varies > 0 {
        println!(
            "not comparable (two runs of the reference ncdump differ, e.g. it prints \
             uninitialised memory):"
        );
        if ctx.verbose || all_varies <= 20 {
            print_results(&results, Status::Varies, all_varies);
        } else {
            print_results(&results, Status::Varies, 20);
            println!("  ... ({} more, --verbose for all)", all_varies - 20);
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    println!("({}s)", start.elapsed().as_secs());
    Ok(if failures > 0 || all_total != expected || compared == 0 {
        1
    } else {
        0
    })
}

/// The first `limit` results of `status`, in kind, option set, name order.
fn print_results(results: &[Outcome], status: Status, limit: usize) {
    let runs = results
        .iter()
        .filter(|r| r.status == status)
        .map(|r| Listed {
            kind: &r.kind,
            opts: r.opts,
            name: &r.name,
            detail: &r.detail,
        })
        .collect();
    for line in listing(runs, &KINDS, &OPT_SETS, limit) {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_descriptions() {
        assert_eq!(crash_desc(0, "", None), "");
        assert_eq!(crash_desc(2, "x: NetCDF: HDF error", None), "");
        assert_eq!(crash_desc(153, "", Some(153)), "");
        assert_eq!(
            crash_desc(153, "", Some(0)),
            "exit 153, killed by SIGXFSZ (the output or file cap)"
        );
        assert_eq!(crash_desc(101, "", None), "exit 101 (Rust's panic status)");
        assert_eq!(
            crash_desc(139, "", None),
            "killed by signal 11 (SIGSEGV) (exit 139)"
        );
        assert_eq!(
            crash_desc(
                1,
                "ncdump: internal error (x); this is a bug in nctools",
                None
            ),
            "ncdump: internal error (x); this is a bug in nctools"
        );
        assert_eq!(crash_desc(3, "", None), "exit 3 (our tools exit 0, 1 or 2)");
    }
}
