//! The bench's input files, each made once into the data directory (target/bench-data/
//! unless `NCTOOLS_BENCH_DATA_DIR` says otherwise) and reused by later runs. A file being
//! made is written under a `.part` name and renamed when complete, so an interrupted run
//! never leaves a file that looks finished.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::classic_gen;

/// The peers' side of the zarr cases (`TOOL write IN.nc OUT`, `TOOL read STORE OUT.nc`,
/// ...; see its header).
pub const ZARR_PEERS_SCRIPT: &str = include_str!("zarr_peers.py");

/// The kerchunk cases' helper (`split IN N K OUT`, `refs OUT.json IN...`; see its header).
pub const KERCHUNK_PEER_SCRIPT: &str = include_str!("kerchunk_peer.py");

/// How many files the kerchunk cases split the unlimited-time file into.
pub const KERCHUNK_PARTS: usize = 4;

/// The object-store tests' proxy, whose counting mode counts the S3 cases' requests.
pub const COUNTING_PROXY_SCRIPT: &str = include_str!("../../../tests/data/objstore/fault_proxy.py");

/// Where the inputs live, and what makes them.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The data directory.
    pub data_dir: PathBuf,
    /// Our binaries.
    pub ours_dir: PathBuf,
    /// The reference tools (they convert the generated classic files).
    pub ref_dir: PathBuf,
    /// The Python of the zarr-python side and of hdf5plugin.
    pub python: PathBuf,
    /// `--size MB` as given, if it was.
    pub size: Option<String>,
}

/// Runs `cmd` to completion, standard output to `stdout` (or /dev/null), failing on a
/// nonzero exit.
fn run(cmd: &mut Command, stdout: Option<&Path>) -> Result<()> {
    let out = match stdout {
        Some(path) => Stdio::from(
            fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        ),
        None => Stdio::null(),
    };
    let status = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .status()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed ({status})");
    }
    Ok(())
}

/// `path` with `.part` appended to its name.
fn part_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// Returns `path`, first making it with `make` (which writes the path it is given) unless
/// it exists and is not empty.
fn made_once(path: PathBuf, make: impl FnOnce(&Path) -> Result<()>) -> Result<PathBuf> {
    if fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
        return Ok(path);
    }
    eprintln!("bench: generating {}", path.display());
    let part = part_of(&path);
    let _ = fs::remove_file(&part);
    make(&part)?;
    fs::rename(&part, &path).with_context(|| format!("cannot rename to {}", path.display()))?;
    Ok(path)
}

impl Inputs {
    /// The size in MB (as text, for file names): `--size`, or `default`.
    fn mb(&self, default: &str) -> String {
        self.size.clone().unwrap_or_else(|| default.to_string())
    }

    /// A classic file written by `write`, converted to netCDF-4 by the reference nccopy
    /// with `nccopy_options`, as `NAME-{mb}mb.nc`.
    fn converted(
        &self,
        name: &str,
        mb: &str,
        nccopy_options: &[&str],
        write: fn(&Path, f64) -> Result<()>,
    ) -> Result<PathBuf> {
        let size: f64 = mb.parse().context("--size: not a number")?;
        let nc4 = self.data_dir.join(format!("{name}-{mb}mb.nc"));
        made_once(nc4, |part| {
            let nc3 = self.data_dir.join(format!("{name}-{mb}mb.nc3"));
            write(&nc3, size)?;
            let result = run(
                Command::new(self.ref_dir.join("nccopy"))
                    .args(nccopy_options)
                    .arg(&nc3)
                    .arg(part),
                None,
            );
            let _ = fs::remove_file(&nc3);
            result
        })
    }

    /// The ncdump and ncgen cases' netCDF-4 file (`--size`, default 200 MB).
    pub fn floats(&self) -> Result<PathBuf> {
        let mb = self.mb("200");
        self.converted("floats", &mb, &["-k", "nc4"], classic_gen::write_floats)
    }

    /// The CDL of `nc` (the reference ncdump's output), as `CDL_NAME` beside it.
    fn cdl_of(&self, nc: &Path) -> Result<PathBuf> {
        made_once(nc.with_extension("cdl"), |part| {
            run(
                Command::new(self.ref_dir.join("ncdump")).arg(nc),
                Some(part),
            )
        })
    }

    /// The CDL of [`Inputs::floats`].
    pub fn floats_cdl(&self) -> Result<PathBuf> {
        self.cdl_of(&self.floats()?)
    }

    /// The nccopy cases' netCDF-4 file of chunked float variables (`--size`, else
    /// `default_mb`).
    pub fn nccopy_input(&self, default_mb: &str) -> Result<PathBuf> {
        let mb = self.mb(default_mb);
        self.converted(
            "nccopy-in",
            &mb,
            &["-k", "nc4", "-c", "time/1,lat/180,lon/360"],
            classic_gen::write_nccopy_input,
        )
    }

    /// The filter cases' input compressed with `spec` on `vars` by our nccopy (its
    /// built-in filter), as `...-NAME.nc`.
    pub fn filter_compressed(&self, input: &Path, name: &str, spec: &str) -> Result<PathBuf> {
        let out = input.with_file_name(format!(
            "{}-{name}.nc",
            input.file_stem().unwrap_or_default().to_string_lossy()
        ));
        made_once(out, |part| {
            run(
                Command::new(self.ours_dir.join("nccopy"))
                    .arg("-F")
                    .arg(spec)
                    .arg(input)
                    .arg(part),
                None,
            )
        })
    }

    /// The netCDF-4 file with an unlimited time dimension (`--size`, default 500 MB),
    /// chunks of 1 x 360 x 720.
    pub fn unlimited(&self) -> Result<PathBuf> {
        let mb = self.mb("500");
        self.converted(
            "zarr-in",
            &mb,
            &["-k", "nc4", "-c", "time/1,lat/360,lon/720"],
            classic_gen::write_unlimited,
        )
    }

    /// [`Inputs::unlimited`] compressed by our nccopy with `-F '*,SPEC'`, as `...-NAME.nc`.
    pub fn unlimited_filtered(&self, name: &str, spec: &str) -> Result<PathBuf> {
        let nc = self.unlimited()?;
        self.filter_compressed(&nc, name, &format!("*,{spec}"))
    }

    /// The CDL of [`Inputs::unlimited`].
    pub fn unlimited_cdl(&self) -> Result<PathBuf> {
        self.cdl_of(&self.unlimited()?)
    }

    /// [`Inputs::unlimited`] as a 64-bit offset classic file (reference `nccopy -k nc6`).
    pub fn unlimited_classic(&self) -> Result<PathBuf> {
        let nc = self.unlimited()?;
        let out = self.data_dir.join(format!(
            "{}-classic.nc",
            nc.file_stem().unwrap_or_default().to_string_lossy()
        ));
        made_once(out, |part| {
            run(
                Command::new(self.ref_dir.join("nccopy"))
                    .args(["-k", "nc6"])
                    .arg(&nc)
                    .arg(part),
                None,
            )
        })
    }

    /// The unlimited-time file deflated (level 1), split by time into
    /// [`KERCHUNK_PARTS`] files by netCDF4-python, each made once: the kerchunk cases'
    /// inputs.
    pub fn unlimited_parts(&self) -> Result<Vec<PathBuf>> {
        let nc = self.unlimited_filtered("deflate1", "1,1")?;
        let stem = nc
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        (0..KERCHUNK_PARTS)
            .map(|k| {
                let out = self.data_dir.join(format!("{stem}-part{k}.nc"));
                made_once(out, |part| {
                    run(
                        Command::new(&self.python)
                            .arg("-c")
                            .arg(KERCHUNK_PEER_SCRIPT)
                            .arg("split")
                            .arg(&nc)
                            .arg(KERCHUNK_PARTS.to_string())
                            .arg(k.to_string())
                            .arg(part),
                        None,
                    )
                })
            })
            .collect()
    }

    /// The Zarr store both sides of zarr-read read, made once by zarr-python.
    pub fn zarr_store(&self) -> Result<PathBuf> {
        self.zarr_python_store("zarr-python", ".zgroup", "write")
    }

    /// The sharded Zarr version 3 store both sides of zarr-read-shards read, made once by
    /// zarr-python (shards of about 64 MB of the unlimited-time file's chunks).
    pub fn zarr_sharded_store(&self) -> Result<PathBuf> {
        self.zarr_python_store("zarr-python-shards", "zarr.json", "write-shards")
    }

    /// The store `STEM-SUFFIX.zarr` that zarr-python's script, run with `mode`, makes of
    /// the unlimited-time file, once: kept while it has its root document `marker`.
    fn zarr_python_store(&self, suffix: &str, marker: &str, mode: &str) -> Result<PathBuf> {
        let nc = self.unlimited()?;
        let store = self.data_dir.join(format!(
            "{}-{suffix}.zarr",
            nc.file_stem().unwrap_or_default().to_string_lossy()
        ));
        if store.join(marker).is_file() {
            return Ok(store);
        }
        eprintln!("bench: generating {}", store.display());
        let part = part_of(&store);
        let _ = fs::remove_dir_all(&store);
        let _ = fs::remove_dir_all(&part);
        run(
            Command::new(&self.python)
                .arg("-c")
                .arg(ZARR_PEERS_SCRIPT)
                .args(["zarr-python", mode])
                .arg(&nc)
                .arg(&part),
            None,
        )?;
        fs::rename(&part, &store)
            .with_context(|| format!("cannot rename to {}", store.display()))?;
        Ok(store)
    }

    /// Fails unless the Python has zarr, numcodecs and h5py, and `more` (a list of
    /// modules, for `import`).
    pub fn check_zarr_python(&self, more: &str) -> Result<()> {
        let modules = format!("zarr, numcodecs, h5py{more}");
        let ok = Command::new(&self.python)
            .arg("-c")
            .arg(format!("import {modules}"))
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            bail!(
                "one of {modules} is missing from {} (run scripts/setup)",
                self.python.display()
            );
        }
        Ok(())
    }

    /// HDF5_PLUGIN_PATH of the external plugins: Debian's directory, then PyPI
    /// hdf5plugin's (zstd: Debian has none).
    pub fn external_plugins(&self) -> Result<String> {
        let debian = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins";
        let out = Command::new(&self.python)
            .args(["-c", "import hdf5plugin; print(hdf5plugin.PLUGIN_PATH)"])
            .stderr(Stdio::null())
            .output();
        let pypi = match out {
            Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
            _ => bail!(
                "hdf5plugin is missing from {} (run scripts/setup)",
                self.python.display()
            ),
        };
        if !Path::new(debian).is_dir() {
            bail!("{debian} is missing (run scripts/setup)");
        }
        Ok(format!("{debian}:{pypi}"))
    }
}
