//! `cargo xtask conformance MODE`: the Rust port of scripts/conformance (see its header
//! comment for the exact semantics). Every mode is ported: ncdump, ncgen, nccopy,
//! zarr and self-test.

mod gen;
mod known;
mod nccopy;
mod ncdump;
mod ncgen;
mod netcdf_c;
mod newest_reader;
mod self_test;
mod text;
mod zarr;
mod zarr_foreign;

use std::fs::{self, File};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use crate::{build, corpus, runner};

/// The modes of scripts/conformance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Our ncdump against the reference on every file the reference ncgen makes.
    Ncdump,
    /// Our ncgen against the reference: both files dumped by the reference ncdump.
    Ncgen,
    /// Our nccopy against the reference: both copies dumped by the reference ncdump.
    Nccopy,
    /// Our nccopy to NCZarr and our ncdump of the store, against the reference's data.
    Zarr,
    /// Our ncdump and nccopy on Zarr stores written by other programs, against zarr-python.
    ZarrForeign,
    /// The modes run with broken stand-ins in place of ours, which must make them fail.
    SelfTest,
    /// netCDF-C 4.10.0's own test scripts, with its tools and then with ours.
    NetcdfC,
}

/// The options of `cargo xtask conformance`.
#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// The mode.
    #[arg(value_enum)]
    mode: Mode,
    /// Only these corpus files (base names, with or without .cdl).
    #[arg(long, num_args = 1.., value_name = "NAME")]
    only: Vec<String>,
    /// Do not run `cargo build --release` first.
    #[arg(long)]
    no_build: bool,
    /// List every failure and the CDLs each kind's ncgen rejects.
    #[arg(long, short)]
    verbose: bool,
    /// Runs at a time (default: the number of CPUs).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Accepted for compatibility; every check always runs.
    #[arg(long)]
    keep_going: bool,
    /// zarr-foreign: list the stores (after making the generated ones) and stop.
    #[arg(long)]
    list: bool,
}

/// What every mode needs (the bash script's CONF_* variables).
#[derive(Debug)]
pub struct Ctx {
    /// The repository root.
    pub root: PathBuf,
    /// The CDL corpus.
    pub corpus: PathBuf,
    /// Caches and reports (target/conformance, or $NCTOOLS_CONFORMANCE_OUT).
    pub out: PathBuf,
    /// The reference tools' directory.
    pub ref_bin: PathBuf,
    /// Our tools' directory.
    pub ours_bin: PathBuf,
    /// The corpus names to check.
    pub names: Vec<String>,
    /// Runs at a time.
    pub jobs: usize,
    /// --verbose.
    pub verbose: bool,
    /// This program (cached results older than it are redone).
    pub exe: PathBuf,
}

/// Runs a mode; returns the process exit status.
pub fn main(args: ConformanceArgs) -> Result<i32> {
    let tool = match args.mode {
        Mode::Ncdump => "ncdump",
        Mode::Ncgen => "ncgen",
        Mode::Nccopy => "nccopy",
        Mode::Zarr => "nccopy",
        Mode::ZarrForeign => "ncdump",
        Mode::SelfTest | Mode::NetcdfC => "",
    };
    let _ = args.keep_going;
    let root = corpus::repo_root();
    if args.mode == Mode::ZarrForeign {
        return zarr_foreign_main(&root, &args);
    }
    if args.mode == Mode::NetcdfC {
        let ours_bin = match std::env::var_os("NCTOOLS_BIN_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => build::release_tools(&root, !args.no_build)?,
        };
        let ours_bin = std::path::absolute(&ours_bin).unwrap_or(ours_bin);
        let jobs = args.jobs.unwrap_or(1).max(1);
        return netcdf_c::mode(&root, &ours_bin, &args.only, jobs);
    }
    if args.list {
        bail!("--list is for the zarr-foreign mode");
    }
    let corpus_dir = normalize(&corpus::corpus_dir(&root)?);
    if args.mode == Mode::SelfTest && (!args.only.is_empty() || args.jobs.is_some()) {
        bail!("self-test takes no argument");
    }
    let names = corpus::names(&corpus_dir, &args.only)?;
    if names.is_empty() {
        bail!("no .cdl file in {}", corpus_dir.display());
    }
    let ref_bin = std::env::var_os("NCTOOLS_REF_BIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin"));
    for t in ["ncdump", "ncgen", "nccopy"] {
        if !runner::is_executable(&ref_bin.join(t)) {
            bail!(
                "reference {t} not found in {} (run scripts/setup)",
                ref_bin.display()
            );
        }
    }
    if args.mode == Mode::SelfTest {
        return self_test::run(&root, &corpus_dir, &ref_bin);
    }
    let ours_bin = match std::env::var_os("NCTOOLS_BIN_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => build::release_tools(&root, !args.no_build)?,
    };
    if !runner::is_executable(&ours_bin.join(tool)) {
        bail!(
            "our {tool} not found in {} (build it, or set NCTOOLS_BIN_DIR)",
            ours_bin.display()
        );
    }
    let out = std::env::var_os("NCTOOLS_CONFORMANCE_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/conformance"));
    fs::create_dir_all(&out).with_context(|| format!("cannot make {}", out.display()))?;
    let out = normalize(&std::path::absolute(&out).unwrap_or(out));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from))
        .max(1);
    let exe = std::env::current_exe().context("cannot find this program")?;
    // No core files from crashing tools.
    if let Ok((_, hard)) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_CORE)
    {
        let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, hard);
    }
    let ctx = Ctx {
        root,
        corpus: corpus_dir,
        out,
        ref_bin,
        ours_bin,
        names,
        jobs,
        verbose: args.verbose,
        exe,
    };
    let _lock = lock_output(&ctx.out)?;
    check_cache_keys(&ctx)?;
    match args.mode {
        Mode::Ncdump => ncdump::mode(&ctx),
        Mode::Ncgen => ncgen::mode(&ctx),
        Mode::Nccopy => nccopy::mode(&ctx),
        Mode::Zarr => zarr::mode(&ctx),
        Mode::ZarrForeign | Mode::SelfTest | Mode::NetcdfC => Ok(2),
    }
}

/// The zarr-foreign mode, which needs no CDL corpus: our tools, the output directory
/// and its lock, then [`zarr_foreign::mode`].
fn zarr_foreign_main(root: &Path, args: &ConformanceArgs) -> Result<i32> {
    let ref_bin = std::env::var_os("NCTOOLS_REF_BIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin"));
    if !runner::is_executable(&ref_bin.join("ncdump")) {
        bail!(
            "reference ncdump not found in {} (run scripts/setup)",
            ref_bin.display()
        );
    }
    let ours_bin = match std::env::var_os("NCTOOLS_BIN_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => build::release_tools(root, !args.no_build && !args.list)?,
    };
    for t in ["ncdump", "nccopy"] {
        if !args.list && !runner::is_executable(&ours_bin.join(t)) {
            bail!(
                "our {t} not found in {} (build it, or set NCTOOLS_BIN_DIR)",
                ours_bin.display()
            );
        }
    }
    let out = std::env::var_os("NCTOOLS_CONFORMANCE_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/conformance"));
    fs::create_dir_all(&out).with_context(|| format!("cannot make {}", out.display()))?;
    let out = normalize(&std::path::absolute(&out).unwrap_or(out));
    if let Ok((_, hard)) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_CORE)
    {
        let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, hard);
    }
    let _lock = lock_output(&out)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from))
        .max(1);
    zarr_foreign::mode(&zarr_foreign::Opts {
        root: normalize(root),
        ours_bin,
        ref_bin,
        out,
        only: args.only.clone(),
        jobs,
        verbose: args.verbose,
        list: args.list,
        plugin_path: None,
    })
}

/// `path` with `.` and `dir/..` taken out, without resolving symbolic links (as `cd
/// DIR && pwd` prints it).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// One run at a time on the output directory (the same lock as the bash script's:
/// `OUT/.lock`), waiting for another run to finish.
fn lock_output(out: &Path) -> Result<nix::fcntl::Flock<File>> {
    use nix::fcntl::{Flock, FlockArg};
    let path = out.join(".lock");
    let file = File::create(&path).with_context(|| format!("cannot open {}", path.display()))?;
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => Ok(lock),
        Err((file, _)) => {
            eprintln!(
                "conformance: another run is using {}, waiting for it to finish",
                out.display()
            );
            Flock::lock(file, FlockArg::LockExclusive)
                .map_err(|(_, e)| anyhow::anyhow!("cannot lock {}: {e}", path.display()))
        }
    }
}

/// The generated files depend on the reference tools and on HDF5_PLUGIN_PATH; start
/// afresh when either changes. The reference outputs (OUT/ref) depend on the limits too.
fn check_cache_keys(ctx: &Ctx) -> Result<()> {
    let plugin = std::env::var("HDF5_PLUGIN_PATH").unwrap_or_else(|_| "<unset>".to_string());
    let key = format!("ref={} HDF5_PLUGIN_PATH={plugin}", ctx.ref_bin.display());
    let remove = |d: &Path| -> Result<()> {
        if d.exists() {
            fs::remove_dir_all(d).with_context(|| format!("cannot remove {}", d.display()))?;
        }
        Ok(())
    };
    let gen_key = ctx.out.join("gen.key");
    if fs::read_to_string(&gen_key).ok().as_deref() != Some(&format!("{key}\n")) {
        remove(&ctx.out.join("ref"))?;
        for k in ["nc4", "nc3", "nc6", "nc5", "nc7"] {
            remove(&ctx.out.join(k))?;
        }
        fs::write(&gen_key, format!("{key}\n"))
            .with_context(|| format!("cannot write {}", gen_key.display()))?;
    }
    let dump_key_text = format!(
        "{key} timeout={} cap={} runs=2\n",
        ncdump::TIMEOUT.as_secs(),
        ncdump::OUTPUT_CAP >> 10
    );
    let dump_key = ctx.out.join("dump.key");
    if fs::read_to_string(&dump_key).ok().as_deref() != Some(&dump_key_text) {
        remove(&ctx.out.join("ref"))?;
        fs::write(&dump_key, dump_key_text)
            .with_context(|| format!("cannot write {}", dump_key.display()))?;
    }
    Ok(())
}

/// Whether `a` exists and is newer than every one of `others`.
pub fn newer_than(a: &Path, others: &[&Path]) -> bool {
    let time = |p: &Path| -> Option<SystemTime> { p.metadata().ok()?.modified().ok() };
    let Some(t) = time(a) else { return false };
    others.iter().all(|o| time(o).is_some_and(|to| t > to))
}

/// A fresh temporary directory under the output's `tmp/`, named `PREFIX.XXXX` (removed
/// when dropped).
pub fn scratch(ctx: &Ctx, prefix: &str) -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(ctx.out.join("tmp"))
        .context("cannot make a temporary directory")
}

/// `path` relative to the repository root when it is inside it.
pub fn show_path(ctx: &Ctx, path: &Path) -> String {
    path.strip_prefix(&ctx.root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}
