//! The reference ncgen on every kind x corpus CDL, into `OUT/KIND/NAME.nc` (or a marker:
//! `NAME.rejected`, `NAME.timedout`, `NAME.abnormal`), as scripts/conformance's
//! `worker_gen` does: the two share this cache.

use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};

use super::text::excerpt;
use super::{newer_than, Ctx};
use crate::runner::{self, Ended, Spec};

/// The reference ncgen's time-out.
const NCGEN_TIMEOUT: Duration = Duration::from_secs(30);

/// Builds KIND/NAME.nc unless a result newer than the CDL and ncgen is cached.
pub fn worker(ctx: &Ctx, kind: &str, name: &str) -> Result<()> {
    let cdl = ctx.corpus.join(format!("{name}.cdl"));
    let dir = ctx.out.join(kind);
    let nc = dir.join(format!("{name}.nc"));
    let rej = dir.join(format!("{name}.rejected"));
    let tmo = dir.join(format!("{name}.timedout"));
    let abn = dir.join(format!("{name}.abnormal"));
    let ncgen = ctx.ref_bin.join("ncgen");
    for f in [&nc, &rej] {
        if newer_than(f, &[&cdl, &ncgen]) {
            return Ok(());
        }
    }
    for f in [&nc, &rej, &tmo, &abn] {
        let _ = fs::remove_file(f);
    }
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = super::scratch(ctx, "gen.")?;
    let out_name = format!("{name}.nc");
    let mut spec = Spec::new(&ncgen, ["-k", kind, "-o", out_name.as_str()])
        .cwd(tmp.path())
        .timeout(NCGEN_TIMEOUT)
        .keep_stdout();
    spec.args.push(cdl.into_os_string());
    let run = runner::run(&spec)?;
    let made = tmp.path().join(&out_name);
    let write = |p: &Path, text: String| {
        let part = p.with_extension("part");
        fs::write(&part, text).with_context(|| format!("cannot write {}", part.display()))?;
        fs::rename(&part, p).with_context(|| format!("cannot write {}", p.display()))
    };
    let output = || format!("{}{}", run.stderr, String::from_utf8_lossy(&run.stdout));
    match run.ended {
        Ended::Exit(0) if made.is_file() => {
            fs::rename(&made, &nc).with_context(|| format!("cannot move to {}", nc.display()))
        }
        Ended::TimedOut => write(
            &tmo,
            format!(
                "ncgen timed out after {}s (exit 124)\n",
                NCGEN_TIMEOUT.as_secs()
            ),
        ),
        Ended::Exit(0) => write(
            &rej,
            format!("ncgen exited 0 but wrote no {out_name}\n{}", output()),
        ),
        Ended::Exit(code @ (1 | 2)) => write(&rej, format!("ncgen exit {code}\n{}", output())),
        Ended::Exit(code) => write(&abn, format!("ncgen exit {code}\n{}", output())),
        Ended::Signal(sig) => write(
            &abn,
            format!(
                "ncgen died of signal {sig} ({}) (exit {})\n{}",
                runner::signal_name(sig),
                128 + sig,
                output()
            ),
        ),
    }
}

/// What the reference ncgen made of every kind x name.
#[derive(Debug, Default)]
pub struct Generated {
    /// Accepted (KIND, NAME) pairs, in kind then name order.
    pub accepted: Vec<(String, String)>,
    /// Rejected pairs.
    pub rejected: Vec<(String, String)>,
    /// Lines to print: "ncgen accepts: nc4 N/M, ...", time-outs, abnormal failures,
    /// and (verbose) the rejections.
    pub lines: Vec<String>,
}

/// The start of a mode: prints `banner` and the corpus line, builds the inputs of
/// `kinds` ([`all`]) and prints what the reference ncgen made of them.
pub fn announce(ctx: &Ctx, banner: &str, kinds: &[&str], label: &str) -> Generated {
    println!("{banner}");
    println!(
        "corpus: {} ({} CDL files), output: {}",
        ctx.corpus.display(),
        ctx.names.len(),
        super::show_path(ctx, &ctx.out)
    );
    let generated = all(ctx, kinds, label);
    for line in &generated.lines {
        println!("{line}");
    }
    generated
}

/// Runs [`worker`] on every kind x name (`jobs` at a time; time-outs and abnormal
/// failures retried alone), and sums up.
pub fn all(ctx: &Ctx, kinds: &[&str], label: &str) -> Generated {
    let pairs: Vec<(String, String)> = kinds
        .iter()
        .flat_map(|k| ctx.names.iter().map(move |n| (k.to_string(), n.clone())))
        .collect();
    let results = crate::parallel::map(&pairs, ctx.jobs, |(k, n)| worker(ctx, k, n), |_, _| {});
    for ((k, n), r) in pairs.iter().zip(results) {
        if let Err(e) = r {
            eprintln!("conformance: ncgen worker {k} {n} failed: {e:#}");
        }
    }
    let marker = |k: &str, n: &str, ext: &str| ctx.out.join(k).join(format!("{n}.{ext}"));
    for (k, n) in &pairs {
        if marker(k, n, "timedout").is_file() || marker(k, n, "abnormal").is_file() {
            if let Err(e) = worker(ctx, k, n) {
                eprintln!("conformance: ncgen worker failed: {e:#}");
            }
        }
    }
    let mut g = Generated::default();
    let mut line = label.to_string();
    let (mut timedout, mut abnormal) = (Vec::new(), Vec::new());
    for (i, kind) in kinds.iter().enumerate() {
        let mut accepted = 0;
        for name in &ctx.names {
            if marker(kind, name, "nc").is_file() {
                accepted += 1;
                g.accepted.push((kind.to_string(), name.clone()));
            } else if marker(kind, name, "rejected").is_file() {
                g.rejected.push((kind.to_string(), name.clone()));
            } else if marker(kind, name, "timedout").is_file() {
                timedout.push(format!("{kind} {name}"));
            } else if marker(kind, name, "abnormal").is_file() {
                let first = fs::read_to_string(marker(kind, name, "abnormal")).unwrap_or_default();
                let first = first.lines().next().unwrap_or("").to_string();
                abnormal.push(format!("{kind} {name}: {}", excerpt(&first)));
            }
        }
        let sep = if i + 1 < kinds.len() { "," } else { "" };
        line.push_str(&format!(" {kind} {accepted}/{}{sep}", ctx.names.len()));
    }
    g.lines.push(line);
    if !timedout.is_empty() {
        g.lines.push(format!(
            "ncgen timed out ({}s; neither accepted nor rejected, retried next run): {}",
            NCGEN_TIMEOUT.as_secs(),
            timedout.join(" ")
        ));
    }
    if !abnormal.is_empty() {
        g.lines.push(
            "the reference ncgen failed abnormally (not exit 1 or 2; neither accepted nor \
             rejected, retried next run):"
                .to_string(),
        );
        g.lines.extend(abnormal.iter().map(|a| format!("  {a}")));
    }
    if ctx.verbose {
        for (kind, name) in &g.rejected {
            let text = fs::read_to_string(marker(kind, name, "rejected")).unwrap_or_default();
            let first = text
                .lines()
                .find(|l| !l.starts_with("ncgen exit"))
                .unwrap_or("");
            g.lines.push(format!(
                "  ncgen -k {kind} rejects {name}: {}",
                excerpt(first)
            ));
        }
    }
    g
}
