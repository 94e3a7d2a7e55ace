//! The bench's cases: what each one runs on our side and on the other side.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::inputs::{Inputs, ZARR_PYTHON_SCRIPT};
use super::measure::Invocation;

/// One side of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Our tools.
    Ours,
    /// What they are compared with (the case's [`Peer`](super::catalog::Peer)).
    Other,
}

impl Side {
    /// "ours" or "ref", to name the sides' output files apart.
    fn tag(self) -> &'static str {
        match self {
            Side::Ours => "ours",
            Side::Other => "ref",
        }
    }
}

/// The filters of the filter cases: name and `-F` parameters.
const FILTER_SPECS: &[(&str, &str)] = &[
    ("bzip2", "307,9"),
    ("zstd", "32015,3"),
    ("lz4", "32004"),
    ("blosc", "32001,0,0,0,0,5,1,1"),
];
/// The variables the filter cases compress (not the small coordinates: Debian's blosc
/// plugin fails on a chunk it cannot make smaller, where the built-in stores a raw frame).
const FILTER_VARS: &str = "orog&temp&precip&wind";
/// The size of the filter cases' input unless `--size` is given.
const FILTERS_INPUT_MB: &str = "200";

/// One run to time: the program, and an output to remove before it (untimed).
#[derive(Debug, Clone)]
pub struct PreparedRun {
    /// What to run.
    pub invocation: Invocation,
    /// A file or directory the run writes, removed first.
    pub output: Option<PathBuf>,
}

/// What builds the cases' commands: the inputs and, for the filter cases, the external
/// plugins' path.
#[derive(Debug)]
pub struct CaseBuilder {
    /// The inputs.
    pub inputs: Inputs,
    /// HDF5_PLUGIN_PATH of the external plugins, found when a filter case first needs it.
    plugin_path: Option<String>,
}

impl CaseBuilder {
    /// A builder over `inputs`.
    pub fn new(inputs: Inputs) -> CaseBuilder {
        CaseBuilder {
            inputs,
            plugin_path: None,
        }
    }

    fn plugins(&mut self) -> Result<String> {
        if let Some(p) = &self.plugin_path {
            return Ok(p.clone());
        }
        let p = self.inputs.external_plugins()?;
        self.plugin_path = Some(p.clone());
        Ok(p)
    }

    /// `tool` from our directory, marked as ours.
    fn ours(&self, tool: &str) -> Invocation {
        Invocation::new(self.inputs.ours_dir.join(tool)).ours()
    }

    /// `tool` on `side`: ours, or the reference's.
    fn tool(&self, side: Side, tool: &str) -> Invocation {
        match side {
            Side::Ours => self.ours(tool),
            Side::Other => Invocation::new(self.inputs.ref_dir.join(tool)),
        }
    }

    /// `data_dir/STEM-SIDE.EXT`.
    fn out(&self, stem: &str, side: Side, ext: &str) -> PathBuf {
        self.inputs
            .data_dir
            .join(format!("{stem}-{}.{ext}", side.tag()))
    }

    /// The run of `case` on `side`, making its inputs first if needed.
    pub fn prepare(&mut self, case: &str, side: Side) -> Result<PreparedRun> {
        let run =
            |invocation: Invocation, output: Option<PathBuf>| PreparedRun { invocation, output };
        let i = &self.inputs;
        Ok(match case {
            "ncdump" => run(self.tool(side, "ncdump").arg(i.floats()?), None),
            "ncdump-h" => run(self.tool(side, "ncdump").arg("-h").arg(i.floats()?), None),
            "ncgen" => {
                let out = i.data_dir.join("ncgen-out.nc");
                let inv = self.tool(side, "ncgen").args(["-k", "nc4", "-o"]);
                run(inv.arg(&out).arg(i.floats_cdl()?), Some(out))
            }
            "nccopy-plain" | "nccopy-d1s" | "nccopy-bzip2" => {
                let options: &[&str] = match case {
                    "nccopy-d1s" => &["-d", "1", "-s"],
                    "nccopy-bzip2" => &["-F", "*,307,9"],
                    _ => &[],
                };
                let out = self.out("nccopy-out", side, "nc");
                let input = i.nccopy_input("1000")?;
                run(
                    self.tool(side, "nccopy").args(options).arg(input).arg(&out),
                    Some(out),
                )
            }
            c if c.starts_with("filter-") => self.filter_case(c, side)?,
            "zarr-write" | "zarr-read" | "zarr-write-shards" | "zarr-read-shards" => {
                self.zarr_case(case, side)?
            }
            "unlim-d1s" | "unlim-bzip2" => {
                let options: &[&str] = if case == "unlim-d1s" {
                    &["-d", "1", "-s"]
                } else {
                    &["-F", "*,307,9"]
                };
                let out = self.out("unlim-out", side, "nc");
                run(
                    self.tool(side, "nccopy")
                        .args(options)
                        .arg(i.unlimited()?)
                        .arg(&out),
                    Some(out),
                )
            }
            "unlim-d1s-ncks" => self.peer_case(
                side,
                &["-d", "1", "-s"],
                &["ncks", "-O", "-4", "-L", "1"],
                i.unlimited()?,
            ),
            "unlim-d1s-h5repack" => self.peer_case(
                side,
                &["-d", "1", "-s"],
                &["h5repack", "-f", "SHUF", "-f", "GZIP=1"],
                i.unlimited()?,
            ),
            "unlim-d1s-cdo" => self.peer_case(
                side,
                &["-d", "1", "-s"],
                &["cdo", "-s", "-f", "nc4", "-z", "zip_1", "copy"],
                i.unlimited()?,
            ),
            "unlim-bzip2-h5repack" => self.peer_case(
                side,
                &["-F", "*,307,9"],
                &["h5repack", "-f", "UD=307,0,1,9"],
                i.unlimited()?,
            ),
            "unlim-ncdump" => run(self.tool(side, "ncdump").arg(i.unlimited()?), None),
            "unlim-ncdump-bzip2" => run(
                self.tool(side, "ncdump")
                    .arg(i.unlimited_filtered("bzip2", "307,9")?),
                None,
            ),
            "unlim-ncgen" => {
                let out = self.out("unlim-ncgen-out", side, "nc");
                let inv = self.tool(side, "ncgen").args(["-k", "nc4", "-o"]);
                run(inv.arg(&out).arg(i.unlimited_cdl()?), Some(out))
            }
            "rechunkless-zstd" | "rechunkless-bzip2" => {
                let input = i.unlimited_filtered("deflate1", "1,1")?;
                let out = self.out("rechunkless-out", side, "nc");
                let inv = if case == "rechunkless-zstd" {
                    let plugins = self.plugins()?;
                    let inv = self.tool(side, "nccopy").env("HDF5_PLUGIN_PATH", plugins);
                    inv.args(["-F", "*,32015,3"])
                } else {
                    self.tool(side, "nccopy").args(["-F", "*,307,9"])
                };
                run(inv.arg(input).arg(&out), Some(out))
            }
            "stored-bzip2" => {
                let out = self.out("stored-out", side, "nc");
                run(
                    self.tool(side, "nccopy")
                        .arg(i.unlimited_filtered("bzip2", "307,9")?)
                        .arg(&out),
                    Some(out),
                )
            }
            "stored-bzip2-h5repack" => {
                let out = self.out("stored-out", side, "nc");
                let inv = match side {
                    Side::Ours => self.ours("nccopy"),
                    Side::Other => Invocation::new("h5repack"),
                };
                run(
                    inv.arg(i.unlimited_filtered("bzip2", "307,9")?).arg(&out),
                    Some(out),
                )
            }
            "stored-zstd-v" => {
                let out = self.out("stored-out", side, "nc");
                let input = i.unlimited_filtered("zstd", "32015,3")?;
                let plugins = self.plugins()?;
                let inv = self.tool(side, "nccopy").env("HDF5_PLUGIN_PATH", plugins);
                run(inv.args(["-v", "tas"]).arg(input).arg(&out), Some(out))
            }
            "classic-ncdump" | "classic-nccopy" => {
                let input = i.unlimited_classic()?;
                let (inv, out) = if case == "classic-ncdump" {
                    (self.ours("ncdump").arg(input), None)
                } else {
                    let out = self.out("unlim-out", side, "nc");
                    (
                        self.ours("nccopy").args(["-k", "nc4"]).arg(input).arg(&out),
                        Some(out),
                    )
                };
                let inv = match side {
                    Side::Ours => inv,
                    Side::Other => inv.env("NCTOOLS_CLASSIC_READER", "libnetcdf"),
                };
                run(inv, out)
            }
            "classic-ncdump-ref" => {
                run(self.tool(side, "ncdump").arg(i.unlimited_classic()?), None)
            }
            _ => bail!("unknown case {case}"),
        })
    }

    /// Our nccopy with `ours_options`, or the peer's command `peer`, from `input` to this
    /// side's output.
    fn peer_case(
        &self,
        side: Side,
        ours_options: &[&str],
        peer: &[&str],
        input: PathBuf,
    ) -> PreparedRun {
        let out = self.out("unlim-out", side, "nc");
        let inv = match (side, peer.split_first()) {
            (Side::Other, Some((program, args))) => {
                Invocation::new(program).args(args.iter().copied())
            }
            _ => self.ours("nccopy").args(ours_options.iter().copied()),
        };
        PreparedRun {
            invocation: inv.arg(input).arg(&out),
            output: Some(out),
        }
    }

    /// filter-NAME-c (compress with NAME) or filter-NAME-d (decompress a file so
    /// compressed), through our nccopy both times: the built-in on our side; on the other,
    /// the external plugin (NCTOOLS_BUILTIN_FILTERS=0, HDF5_PLUGIN_PATH). Both sides run
    /// with NCTOOLS_DIRECT_CHUNKS=0, so that HDF5 calls the filter one chunk at a time on
    /// one core and the comparison is of filters, not of threads.
    fn filter_case(&mut self, case: &str, side: Side) -> Result<PreparedRun> {
        let rest = case.trim_start_matches("filter-");
        let (name, way) = rest.rsplit_once('-').unwrap_or((rest, ""));
        let Some((_, spec)) = FILTER_SPECS.iter().find(|(n, _)| *n == name) else {
            bail!("unknown filter case {case}");
        };
        let input = self.inputs.nccopy_input(FILTERS_INPUT_MB)?;
        let full_spec = format!("{FILTER_VARS},{spec}");
        let mut inv = self.ours("nccopy").env("NCTOOLS_DIRECT_CHUNKS", "0");
        if side == Side::Other {
            let plugins = self.plugins()?;
            inv = inv
                .env("NCTOOLS_BUILTIN_FILTERS", "0")
                .env("HDF5_PLUGIN_PATH", plugins);
        }
        let out = self.out("filters-out", side, "nc");
        let inv = match way {
            "c" => inv.arg("-F").arg(full_spec).arg(input),
            "d" => {
                let compressed = self.inputs.filter_compressed(&input, name, &full_spec)?;
                inv.args(["-F", "none"]).arg(compressed)
            }
            _ => bail!("unknown filter case {case}"),
        };
        Ok(PreparedRun {
            invocation: inv.arg(&out),
            output: Some(out),
        })
    }

    /// zarr-write, zarr-read and their -shards forms: our nccopy against zarr-python.
    fn zarr_case(&self, case: &str, side: Side) -> Result<PreparedRun> {
        let i = &self.inputs;
        let shards = case.ends_with("-shards");
        let (input, out, mode) = match (case.starts_with("zarr-write"), shards) {
            (true, false) => (i.unlimited()?, self.out("zarr-out", side, "zarr"), "write"),
            (true, true) => (
                i.unlimited()?,
                self.out("zarr-shards-out", side, "zarr"),
                "write-shards",
            ),
            (false, false) => (
                i.zarr_store()?,
                self.out("zarr-read-out", side, "nc"),
                "read",
            ),
            (false, true) => (
                i.zarr_sharded_store()?,
                self.out("zarr-read-shards-out", side, "nc"),
                "read",
            ),
        };
        // Our side names a version 3 output by its URL.
        let target = if mode == "write-shards" && side == Side::Ours {
            std::ffi::OsString::from(format!("file://{}#mode=zarr,v3", out.display()))
        } else {
            out.clone().into_os_string()
        };
        let inv = match side {
            Side::Ours if mode == "write" => self.ours("nccopy").args(["-F", "*,zstd,3"]),
            Side::Ours if mode == "write-shards" => self
                .ours("nccopy")
                .args(["-F", "*,zstd,3", "--shards", "*:64M"]),
            Side::Ours => self.ours("nccopy"),
            Side::Other => Invocation::new(&i.python)
                .arg("-c")
                .arg(ZARR_PYTHON_SCRIPT)
                .arg(mode),
        };
        Ok(PreparedRun {
            invocation: inv.arg(input).arg(target),
            output: Some(out),
        })
    }
}

/// Removes a file or a directory tree, if there.
pub fn remove_output(path: &Path) {
    if path.is_dir() {
        let _ = std::fs::remove_dir_all(path);
    } else {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder(dir: &Path) -> CaseBuilder {
        CaseBuilder::new(Inputs {
            data_dir: dir.to_path_buf(),
            ours_dir: "/ours".into(),
            ref_dir: "/ref".into(),
            python: "python3".into(),
            size: None,
        })
    }

    #[test]
    fn the_classic_cases_compare_our_tool_with_itself_reading_through_libnetcdf() -> Result<()> {
        let dir = tempfile::tempdir()?;
        // An input that exists is not made again.
        std::fs::write(dir.path().join("zarr-in-500mb.nc"), b"x")?;
        std::fs::write(dir.path().join("zarr-in-500mb-classic.nc"), b"x")?;
        let mut b = builder(dir.path());
        let ours = b.prepare("classic-nccopy", Side::Ours)?;
        let other = b.prepare("classic-nccopy", Side::Other)?;
        assert_eq!(ours.invocation.program, Path::new("/ours/nccopy"));
        assert_eq!(other.invocation.program, Path::new("/ours/nccopy"));
        assert!(ours.invocation.env.is_empty());
        assert_eq!(
            other.invocation.env,
            [("NCTOOLS_CLASSIC_READER".into(), "libnetcdf".into())]
        );
        assert_ne!(ours.output, other.output);
        let peer = b.prepare("classic-ncdump-ref", Side::Other)?;
        assert_eq!(peer.invocation.program, Path::new("/ref/ncdump"));
        Ok(())
    }
}
