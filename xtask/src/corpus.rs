//! The CDL corpus (netCDF-C's test-suite CDL files, kept outside the repository), and the
//! netCDF files the reference `ncgen` builds from it, cached under `target/`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{bail, Context, Result};

use crate::runner::{self, Ended, Spec};

/// The repository's root directory (this crate's parent).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The corpus directory: `../shared/corpus/netcdf-c` relative to the repository root.
pub fn corpus_dir(root: &Path) -> Result<PathBuf> {
    let dir = root.join("../shared/corpus/netcdf-c");
    if !dir.is_dir() {
        bail!("no CDL corpus at {}", dir.display());
    }
    Ok(dir)
}

/// The corpus's CDL base names (no `.cdl`), sorted; only those of `only` when it is not
/// empty (names given with or without `.cdl`; a name that is not in the corpus is an error).
pub fn names(corpus: &Path, only: &[String]) -> Result<Vec<String>> {
    let mut all = Vec::new();
    for entry in
        fs::read_dir(corpus).with_context(|| format!("cannot list {}", corpus.display()))?
    {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "cdl") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                all.push(stem.to_string());
            }
        }
    }
    all.sort();
    if only.is_empty() {
        return Ok(all);
    }
    let mut picked = Vec::new();
    for name in only {
        let name = name.strip_suffix(".cdl").unwrap_or(name);
        if !all.iter().any(|n| n == name) {
            bail!("{name}: not in the corpus");
        }
        picked.push(name.to_string());
    }
    Ok(picked)
}

/// The output formats of `ncgen -k` used here.
pub const KINDS: [&str; 4] = ["nc3", "nc6", "nc5", "nc4"];

/// What the reference ncgen made of one CDL for one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Built {
    /// A netCDF file at this path.
    File(PathBuf),
    /// The reference ncgen refuses the CDL for this kind.
    Rejected,
    /// The file would be larger than the file-size limit.
    TooLarge,
    /// ncgen failed otherwise (timed out, crashed): not cached, retried next time.
    Failed(String),
}

/// Whether `a` is newer than every one of `others` (false when any cannot be read).
fn newer_than(a: &Path, others: &[&Path]) -> bool {
    let time = |p: &Path| -> Option<SystemTime> { p.metadata().ok()?.modified().ok() };
    let Some(t) = time(a) else { return false };
    others.iter().all(|o| time(o).is_some_and(|to| t > to))
}

/// Builds (or finds in a cache) the file `ncgen -k KIND` makes of corpus CDL `name`.
///
/// The scripts/conformance cache (`target/conformance/KIND/NAME.nc` or `.rejected`) is
/// used when it is newer than the CDL and ncgen; otherwise the file is built into
/// `base/KIND/NAME.nc`, or a marker `NAME.rejected` / `NAME.toolarge` is left there. A
/// file too large for the file-size limit set on this process (ncgen gets SIGXFSZ) is
/// `TooLarge`.
pub fn build(
    root: &Path,
    corpus: &Path,
    base: &Path,
    ncgen: &Path,
    kind: &str,
    name: &str,
) -> Result<Built> {
    let cdl = corpus.join(format!("{name}.cdl"));
    let conf = root.join("target/conformance").join(kind);
    let fresh = |p: &Path| newer_than(p, &[&cdl, ncgen]);
    let conf_nc = conf.join(format!("{name}.nc"));
    if fresh(&conf_nc) {
        return Ok(Built::File(conf_nc));
    }
    if fresh(&conf.join(format!("{name}.rejected"))) {
        return Ok(Built::Rejected);
    }
    let dir = base.join(kind);
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let nc = dir.join(format!("{name}.nc"));
    let rejected = dir.join(format!("{name}.rejected"));
    let too_large = dir.join(format!("{name}.toolarge"));
    if fresh(&nc) {
        return Ok(Built::File(nc));
    }
    if fresh(&rejected) {
        return Ok(Built::Rejected);
    }
    if fresh(&too_large) {
        return Ok(Built::TooLarge);
    }
    let tmp = tempfile::Builder::new()
        .prefix("gen.")
        .tempdir_in(base)
        .context("cannot make a temporary directory")?;
    let out = format!("{name}.nc");
    let spec = Spec::new(ncgen, ["-k", kind, "-o", out.as_str()])
        .cwd(tmp.path())
        .timeout(Duration::from_secs(120));
    let mut spec = spec;
    spec.args.push(cdl.clone().into_os_string());
    let run = runner::run(&spec)?;
    let made = tmp.path().join(&out);
    let mark = |p: &Path, text: &str| {
        fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))
    };
    match run.ended {
        Ended::Exit(0) if made.is_file() => {
            fs::rename(&made, &nc).with_context(|| format!("cannot move to {}", nc.display()))?;
            Ok(Built::File(nc))
        }
        Ended::Exit(0..=2) => {
            mark(&rejected, &run.stderr)?;
            Ok(Built::Rejected)
        }
        Ended::Signal(sig) if sig == nix::sys::signal::Signal::SIGXFSZ as i32 => {
            mark(&too_large, "")?;
            Ok(Built::TooLarge)
        }
        _ => Ok(Built::Failed(format!(
            "{}: {}",
            runner::describe(&run, spec.timeout),
            run.first_stderr_line()
        ))),
    }
}
