//! The ncgen mode: our ncgen and the reference's on every corpus CDL, both files dumped by
//! the reference ncdump (no option and -hs), whose output and status must be identical;
//! and every CDL the reference rejects must be rejected by ours (exit 1 or 2, no crash).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::ncdump::{crash_desc, label, opt_display, rc_desc, reference, run_ncdump, status};
use super::text::{excerpt, first_difference};
use super::text::{listing, unified_diff, Listed};
use super::{gen, newer_than, show_path, Ctx};
use crate::runner::{self, Ended, Spec};

/// Kinds, in the bash script's order.
const KINDS: [&str; 5] = ["nc4", "nc3", "nc6", "nc5", "nc7"];
/// Option sets of the reference ncdump on both files.
const OPT_SETS: [&str; 2] = ["", "-hs"];
/// Our ncgen's time-out.
const OURS_TIMEOUT: Duration = Duration::from_secs(120);
/// Cap on the file our ncgen writes (8 GiB).
pub const OURS_FILE_CAP: u64 = 8 << 30;

/// Where our ncgen's files go.
fn ours_dir(ctx: &Ctx, kind: &str) -> PathBuf {
    ctx.out.join("ncgen").join(kind)
}

/// Builds OUT/ncgen/KIND/NAME.nc with our ncgen (kept only when it exits 0), its
/// status in NAME.rc and its standard error (then output) in NAME.stderr; cached until
/// the CDL, our ncgen or this program changes. A time-out leaves NAME.timedout.
fn ours_gen(ctx: &Ctx, kind: &str, name: &str) -> Result<()> {
    let cdl = ctx.corpus.join(format!("{name}.cdl"));
    let dir = ours_dir(ctx, kind);
    let nc = dir.join(format!("{name}.nc"));
    let rcf = dir.join(format!("{name}.rc"));
    let tmo = dir.join(format!("{name}.timedout"));
    let errf = dir.join(format!("{name}.stderr"));
    let ncgen = ctx.ours_bin.join("ncgen");
    if newer_than(&rcf, &[&cdl, &ncgen, &ctx.exe]) {
        return Ok(());
    }
    for f in [&nc, &rcf, &tmo, &errf] {
        let _ = fs::remove_file(f);
    }
    fs::create_dir_all(&dir)?;
    let tmp = super::scratch(ctx, "ours.")?;
    let out_name = format!("{name}.nc");
    let mut spec = Spec::new(&ncgen, ["-k", kind, "-o", out_name.as_str()])
        .cwd(tmp.path())
        .timeout(OURS_TIMEOUT)
        .keep_stdout();
    spec.args.push(cdl.into_os_string());
    let run = runner::run(&spec)?;
    if run.ended == Ended::TimedOut {
        fs::write(
            &tmo,
            format!(
                "ours timed out after {}s (exit 124)\n",
                OURS_TIMEOUT.as_secs()
            ),
        )?;
        return Ok(());
    }
    let rc = status(&run);
    let made = tmp.path().join(&out_name);
    if rc == 0 && made.is_file() {
        fs::rename(&made, &nc).with_context(|| format!("cannot move to {}", nc.display()))?;
    }
    let mut text = run.stderr.into_bytes();
    text.extend_from_slice(&run.stdout);
    fs::write(&errf, text)?;
    let part = rcf.with_extension("rc.part");
    fs::write(&part, format!("{rc}\n"))?;
    fs::rename(&part, &rcf)?;
    Ok(())
}

/// The first non-empty line of a file, as an excerpt ("" when there is none).
fn first_line(path: &Path) -> String {
    let text = fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    excerpt(text.lines().find(|l| !l.trim().is_empty()).unwrap_or(""))
}

/// The head of a file, each line prefixed.
fn head(path: &Path, n: usize, prefix: &str) -> String {
    let text = fs::read(path).unwrap_or_default();
    String::from_utf8_lossy(&text)
        .lines()
        .take(n)
        .map(|l| format!("{prefix}{l}\n"))
        .collect()
}

/// One result: `opts` is None for the verdict on a CDL the reference rejects.
#[derive(Debug, Clone)]
struct Res {
    kind: String,
    name: String,
    opts: Option<&'static str>,
    status: &'static str,
    detail: String,
}

/// Compares the reference ncdump's output on both files of KIND/NAME for each option set,
/// or, for a CDL the reference rejects, whether ours rejects it too.
fn compare(ctx: &Ctx, kind: &str, name: &str) -> Result<Vec<Res>> {
    let refdir = ctx.out.join(kind);
    let oursdir = ours_dir(ctx, kind);
    let errf = oursdir.join(format!("{name}.stderr"));
    let oursgen = ctx.ours_bin.join("ncgen");
    let refbin = ctx.ref_bin.join("ncdump");
    let rc: Option<i32> = fs::read_to_string(oursdir.join(format!("{name}.rc")))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    let err_text = String::from_utf8_lossy(&fs::read(&errf).unwrap_or_default()).into_owned();
    let mut crash = match rc {
        None => "timed out".to_string(),
        Some(rc) => crash_desc(rc, &err_text, None),
    };
    let rc_text = rc.map_or("timedout".to_string(), |r| r.to_string());
    let ours_cmd = format!(
        "# ours: {} -k {kind} -o {name}.nc {} -> {rc_text}\n",
        oursgen.display(),
        ctx.corpus.join(format!("{name}.cdl")).display()
    );
    let report = ctx.out.join("report/ncgen").join(kind);
    let ours_nc = oursdir.join(format!("{name}.nc"));
    let res = |opts, status, detail: String| Res {
        kind: kind.to_string(),
        name: name.to_string(),
        opts,
        status,
        detail,
    };

    let rejected = refdir.join(format!("{name}.rejected"));
    if rejected.is_file() {
        let text = String::from_utf8_lossy(&fs::read(&rejected)?).into_owned();
        let marker = |l: &str| {
            l.strip_prefix("ncgen exit ")
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
                || l.starts_with("ncgen exited 0 but wrote no ")
        };
        let mut refwhy = excerpt(
            text.lines()
                .filter(|l| !marker(l))
                .find(|l| !l.trim().is_empty())
                .unwrap_or(""),
        );
        if text
            .lines()
            .any(|l| l.starts_with("ncgen exited 0 but wrote no "))
        {
            refwhy.push_str(" (exit 0, no file)");
        }
        if !crash.is_empty() {
            if rc.is_none() {
                crash = format!("timed out after {}s", OURS_TIMEOUT.as_secs());
            }
            let text = format!(
                "# {kind}/{name}.cdl: the reference rejects it ({refwhy}); ours crashed: {crash}\n{ours_cmd}{}",
                head(&errf, 10, "# ours stderr: ")
            );
            crate::report::write_file(&report.join(format!("{name}.reject.diff")), &text)?;
            return Ok(vec![res(
                None,
                "crashed",
                format!("ours crashed: {crash}; reference: {refwhy}"),
            )]);
        }
        if rc != Some(0) {
            return Ok(vec![res(None, "rejected", first_line(&errf))]);
        }
        if !ours_nc.is_file() && refwhy.ends_with("(exit 0, no file)") {
            return Ok(vec![res(
                None,
                "rejected",
                format!("exit 0, no file, like the reference: {}", first_line(&errf)),
            )]);
        }
        let why = if ours_nc.is_file() {
            format!("ours exits 0 and writes {name}.nc")
        } else {
            format!("ours exits 0 (writes no {name}.nc)")
        };
        return Ok(vec![res(
            None,
            "accepted",
            format!("{why}; reference: {refwhy}"),
        )]);
    }

    // Accepted by the reference: ours must build a file too.
    let why = match rc {
        None => format!("ours timed out after {}s", OURS_TIMEOUT.as_secs()),
        Some(153) => format!("ours wrote over {} GiB (exit 153)", OURS_FILE_CAP >> 30),
        Some(_) if !crash.is_empty() => format!("ours crashed: {crash}"),
        Some(rc) if rc != 0 => {
            let l = first_line(&errf);
            if l.is_empty() {
                format!("ours rejected: exit {rc}, no message")
            } else {
                format!("ours rejected: {l}")
            }
        }
        Some(_) if !ours_nc.is_file() => format!("ours exited 0 but wrote no {name}.nc"),
        Some(_) => String::new(),
    };
    let mut results = Vec::new();
    for opts in OPT_SETS {
        let l = label(opts);
        let diff = report.join(format!("{name}.{l}.diff"));
        if !why.is_empty() {
            let text = format!(
                "# {kind}/{name}.cdl: {why}\n{ours_cmd}{}",
                head(&errf, 10, "# ours stderr: ")
            );
            crate::report::write_file(&diff, &text)?;
            results.push(res(Some(opts), "differ", why.clone()));
            continue;
        }
        let raw = kind == "nc5" && opts.contains('s');
        let expected = reference(ctx, kind, name, opts, raw)?;
        if let Some(v) = &expected.varies {
            results.push(res(
                Some(opts),
                "varies",
                v.lines().next().unwrap_or("").to_string(),
            ));
            continue;
        }
        let refrc = expected.rc;
        if refrc > 128 && refrc != 153 && refrc != 137 {
            results.push(res(
                Some(opts),
                "varies",
                format!(
                    "the reference ncdump crashes on the reference's file (exit {})",
                    rc_desc(refrc)
                ),
            ));
            continue;
        }
        let dump = run_ncdump(&refbin, opts, &oursdir, name)?;
        if refrc == dump.rc && expected.out == dump.out {
            results.push(res(Some(opts), "same", String::new()));
            continue;
        }
        let (refdesc, oursdesc) = (rc_desc(refrc), rc_desc(dump.rc));
        let mut detail = if expected.out == dump.out {
            format!("same output, exit status ref={refdesc} ours={oursdesc}")
        } else {
            let d = first_difference(&expected.out, &dump.out, "ref", "ours");
            if refrc != dump.rc {
                format!("{d}; exit ref={refdesc} ours={oursdesc}")
            } else {
                d
            }
        };
        // A second dump of ours: when it differs, our file holds something the reference
        // ncdump shows as uninitialised memory.
        let again = run_ncdump(&refbin, opts, &oursdir, name)?;
        if again.out != dump.out {
            detail.push_str("; the dump of ours varies between runs");
        }
        let mut text = format!(
            "# {kind}/{name}.nc built by each ncgen -k {kind}, dumped by the reference ncdump {}\n\
             # ref:  {}, then {} -> exit {refdesc}\n# ours: {}, then {} -> exit {oursdesc}\n",
            opt_display(opts),
            ctx.ref_bin.join("ncgen").display(),
            refbin.display(),
            oursgen.display(),
            refbin.display()
        );
        text.push_str(&head(&errf, 3, "# ours ncgen stderr: "));
        for line in dump.err.lines().take(3) {
            text.push_str(&format!("# ncdump stderr on ours: {line}\n"));
        }
        text.push_str(&unified_diff(
            &expected.out_path,
            &dump.out,
            &format!("ref/{kind}/{name}.{l}"),
            &format!("ncgen/{kind}/{name}.{l}"),
            Duration::from_secs(60),
        ));
        crate::report::write_file(&diff, &text)?;
        results.push(res(Some(opts), "differ", detail));
    }
    Ok(results)
}

/// The ncgen mode; returns the exit status.
pub fn mode(ctx: &Ctx) -> Result<i32> {
    let start = Instant::now();
    // Our ncgen's files depend on which binaries they come from, and on HDF5_PLUGIN_PATH.
    let plugin = std::env::var("HDF5_PLUGIN_PATH").unwrap_or_else(|_| "<unset>".to_string());
    let key = format!(
        "ours={} HDF5_PLUGIN_PATH={plugin}\n",
        ctx.ours_bin.display()
    );
    let top = ctx.out.join("ncgen");
    let key_file = top.join("ours.key");
    if fs::read_to_string(&key_file).ok().as_deref() != Some(key.as_str()) {
        if top.exists() {
            fs::remove_dir_all(&top)?;
        }
        fs::create_dir_all(&top)?;
        fs::write(&key_file, &key)?;
    }
    let report = ctx.out.join("report/ncgen");
    if report.exists() {
        fs::remove_dir_all(&report)?;
    }
    for kind in KINDS {
        fs::create_dir_all(ctx.out.join(kind))?;
        fs::create_dir_all(ours_dir(ctx, kind))?;
        fs::create_dir_all(report.join(kind))?;
    }
    let tmp = ctx.out.join("tmp");
    fs::create_dir_all(&tmp)?;
    let banner = format!(
        "conformance ncgen: ours {} vs reference {}, both dumped by {}",
        ctx.ours_bin.join("ncgen").display(),
        ctx.ref_bin.join("ncgen").display(),
        ctx.ref_bin.join("ncdump").display()
    );
    let generated = gen::announce(ctx, &banner, &KINDS, "reference ncgen accepts:");
    let mut pairs = generated.accepted.clone();
    pairs.extend(generated.rejected.iter().cloned());

    // Our ncgen on the same pairs (time-outs retried alone), under the file cap.
    let _ = crate::limits::set_file_cap(OURS_FILE_CAP);
    let built = crate::parallel::map(&pairs, ctx.jobs, |(k, n)| ours_gen(ctx, k, n), |_, _| {});
    for ((k, n), r) in pairs.iter().zip(built) {
        if let Err(e) = r {
            eprintln!("conformance: ncgen worker (ours) {k} {n} failed: {e:#}");
        }
    }
    for (k, n) in &pairs {
        if ours_dir(ctx, k).join(format!("{n}.timedout")).is_file() {
            if let Err(e) = ours_gen(ctx, k, n) {
                eprintln!("conformance: ncgen worker (ours) failed: {e:#}");
            }
        }
    }

    let per_pair = crate::parallel::map(&pairs, ctx.jobs, |(k, n)| compare(ctx, k, n), |_, _| {});
    let mut results = Vec::new();
    for ((k, n), r) in pairs.iter().zip(per_pair) {
        match r {
            Ok(r) => results.extend(r),
            Err(e) => eprintln!("conformance: comparison worker {k} {n} failed: {e:#}"),
        }
    }

    // Differences made on purpose (documented in docs/ncgen.md).
    for r in &mut results {
        if r.status != "differ" {
            continue;
        }
        let Some(opts) = r.opts else { continue };
        if let Some(k) = super::known::known_ncgen(&r.kind, &r.name, opt_display(opts), &r.detail) {
            r.status = "expected";
            r.detail = format!("expected difference: {}; {}", k.reason, r.detail);
        }
    }
    let all_expected = results.iter().filter(|r| r.status == "expected").count();

    // Summary.
    let mut counts: BTreeMap<(&str, Option<&str>), (usize, usize, usize)> = BTreeMap::new();
    for r in &results {
        let c = counts.entry((r.kind.as_str(), r.opts)).or_default();
        c.1 += 1;
        match r.status {
            "same" | "rejected" | "expected" => c.0 += 1,
            "varies" => c.2 += 1,
            _ => {}
        }
    }
    let (mut all_same, mut all_total, mut all_varies, mut all_rej, mut all_both) = (0, 0, 0, 0, 0);
    for kind in KINDS {
        for opts in OPT_SETS {
            let (same, total, varies) =
                counts.get(&(kind, Some(opts))).copied().unwrap_or_default();
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
        let (both, rej, _) = counts.get(&(kind, None)).copied().unwrap_or_default();
        println!("{kind} rejected by the reference: {rej}, by ours too: {both}/{rej}");
        all_rej += rej;
        all_both += both;
    }
    let expected = OPT_SETS.len() * generated.accepted.len();
    let expected_rej = generated.rejected.len();
    let mut line = format!("total: {all_same}/{all_total} identical");
    if all_varies > 0 {
        line.push_str(&format!(
            " ({all_varies} not comparable: the reference output varies)"
        ));
    }
    if all_expected > 0 {
        line.push_str(&format!(
            " ({all_expected} of them expected differences, documented in docs/ncgen.md)"
        ));
    }
    println!("{line}; rejected by the reference: {all_rej}, by ours too: {all_both}/{all_rej}");
    if all_total != expected || all_rej != expected_rej {
        eprintln!(
            "conformance: expected {expected} results and {expected_rej} rejections, got \
             {all_total} and {all_rej} (a worker failed?)"
        );
    }
    let failures = all_total - all_same - all_varies;
    let reportdir = show_path(ctx, &report);
    let compared = all_total - all_varies + all_rej;
    if compared == 0 {
        eprintln!(
            "conformance: nothing was compared (no CDL the reference ncgen accepts or rejects, \
             or every output varies)"
        );
    }
    if failures > 0 {
        if ctx.verbose || failures <= 20 {
            println!("failures ({failures}; diffs in {reportdir}/KIND/NAME.OPTS.diff):");
            print_results(&results, "differ", failures);
        } else {
            println!(
                "failures (first 20 of {failures}, --verbose for all; diffs in \
                 {reportdir}/KIND/NAME.OPTS.diff):"
            );
            print_results(&results, "differ", 20);
        }
    }
    if all_expected > 0 {
        println!("expected differences ({all_expected}):");
        print_results(&results, "expected", all_expected);
    }
    let lax = all_rej - all_both;
    for st in ["accepted", "crashed"] {
        let mut these: Vec<&Res> = results
            .iter()
            .filter(|r| r.opts.is_none() && r.status == st)
            .collect();
        if these.is_empty() {
            continue;
        }
        if st == "accepted" {
            println!("ours accepts what the reference rejects ({}):", these.len());
        } else {
            println!(
                "ours crashes where the reference rejects ({}; reports in \
                 {reportdir}/KIND/NAME.reject.diff):",
                these.len()
            );
        }
        these.sort_by_key(|r| (KINDS.iter().position(|k| *k == r.kind), r.name.clone()));
        for r in these {
            println!("  {} {}  {}", r.kind, r.name, r.detail);
        }
    }
    if all_varies > 0 {
        println!(
            "not comparable (two runs of the reference ncdump on the reference's file differ, \
             e.g. it prints uninitialised memory):"
        );
        if ctx.verbose || all_varies <= 20 {
            print_results(&results, "varies", all_varies);
        } else {
            print_results(&results, "varies", 20);
            println!("  ... ({} more, --verbose for all)", all_varies - 20);
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    println!("({}s)", start.elapsed().as_secs());
    let bad = failures > 0
        || lax > 0
        || all_total != expected
        || all_rej != expected_rej
        || compared == 0;
    Ok(i32::from(bad))
}

/// The first `limit` results of `status`, in kind, option set, name order.
fn print_results(results: &[Res], status: &str, limit: usize) {
    let runs = results
        .iter()
        .filter(|r| r.status == status)
        .filter_map(|r| {
            let opts = r.opts?;
            Some(Listed {
                kind: &r.kind,
                opts,
                name: &r.name,
                detail: &r.detail,
            })
        })
        .collect();
    for line in listing(runs, &KINDS, &OPT_SETS, limit) {
        println!("{line}");
    }
}
