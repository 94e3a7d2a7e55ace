//! The bench's cases: what each one runs on our side and on the other side.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::catalog::{self, Peer};
use super::inputs::{Inputs, COUNTING_PROXY_SCRIPT, KERCHUNK_PEER_SCRIPT, ZARR_PEERS_SCRIPT};
use super::measure::Invocation;
use super::s3::{RequestCounts, S3Server, BUCKET};

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
    /// A store on the local S3 server (`s3://BUCKET/PREFIX`) the run writes, removed
    /// first.
    pub s3_output: Option<String>,
}

/// What builds the cases' commands: the inputs and, for the filter cases, the external
/// plugins' path.
#[derive(Debug)]
pub struct CaseBuilder {
    /// The inputs.
    pub inputs: Inputs,
    /// HDF5_PLUGIN_PATH of the external plugins, found when a filter case first needs it.
    plugin_path: Option<String>,
    /// The local S3 server, started by the first S3 case.
    s3: Option<S3Server>,
    /// The stores uploaded to it (their URLs).
    uploaded: BTreeSet<String>,
}

impl CaseBuilder {
    /// A builder over `inputs`.
    pub fn new(inputs: Inputs) -> CaseBuilder {
        CaseBuilder {
            inputs,
            plugin_path: None,
            s3: None,
            uploaded: BTreeSet::new(),
        }
    }

    /// The local S3 server, started first if it is not running.
    fn s3(&mut self) -> Result<&S3Server> {
        if self.s3.is_none() {
            eprintln!("bench: starting moto's S3 server and the counting proxy on 127.0.0.1");
            let server = S3Server::start(
                &self.inputs.python,
                COUNTING_PROXY_SCRIPT,
                &self.inputs.data_dir,
            )?;
            self.s3 = Some(server);
        }
        match &self.s3 {
            Some(server) => Ok(server),
            None => bail!("the S3 server did not start"),
        }
    }

    /// The local store `local` uploaded once to the S3 server, as it is: its URL.
    fn uploaded(&mut self, local: &Path) -> Result<String> {
        let name = local.file_name().unwrap_or_default().to_string_lossy();
        let url = format!("s3://{BUCKET}/{name}");
        if !self.uploaded.contains(&url) {
            eprintln!("bench: uploading {} to {url}", local.display());
            self.s3()?
                .helper(ZARR_PEERS_SCRIPT, "upload", local, &url)?;
            self.uploaded.insert(url.clone());
        }
        Ok(url)
    }

    /// Removes what `run` writes, before it runs.
    pub fn remove_outputs(&self, run: &PreparedRun) -> Result<()> {
        if let Some(out) = &run.output {
            remove_output(out);
        }
        if let (Some(url), Some(server)) = (&run.s3_output, &self.s3) {
            server.helper(ZARR_PEERS_SCRIPT, "delete", Path::new("-"), url)?;
        }
        Ok(())
    }

    /// The requests the S3 server's proxy counted so far; `None` when it is not running.
    pub fn request_counts(&self) -> Result<Option<RequestCounts>> {
        self.s3.as_ref().map(S3Server::counts).transpose()
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
        let run = |invocation: Invocation, output: Option<PathBuf>| PreparedRun {
            invocation,
            output,
            s3_output: None,
        };
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
            c if c.starts_with("zarr-") => self.zarr_case(case, side)?,
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
            "kerchunk-one" | "kerchunk-multi" => {
                let inputs = if case == "kerchunk-one" {
                    vec![i.unlimited_filtered("deflate1", "1,1")?]
                } else {
                    i.unlimited_parts()?
                };
                let out = self.out(case, side, "json");
                let inv = match side {
                    Side::Ours => {
                        let inv = self.ours("nccopy").arg("--kerchunk").arg(&out);
                        if inputs.len() > 1 {
                            inv.args(["--concat", "time"])
                        } else {
                            inv
                        }
                    }
                    Side::Other => Invocation::new(&i.python)
                        .arg("-c")
                        .arg(KERCHUNK_PEER_SCRIPT)
                        .arg("refs")
                        .arg(&out),
                };
                run(inv.args(&inputs), Some(out))
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
            s3_output: None,
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
            s3_output: None,
        })
    }

    /// The zarr-* cases: our nccopy against a Zarr peer (its name's end, else
    /// zarr-python) writing (`-write`) or reading (`-read`) Zarr v2, or v3 shards
    /// (`-shards`), in a local directory or on the local S3 server (`zarr-s3-`).
    fn zarr_case(&mut self, case: &str, side: Side) -> Result<PreparedRun> {
        let peer = catalog::peer(case);
        let tool = match peer {
            Peer::Tensorstore => "tensorstore",
            Peer::ZarrsPython => "zarrs",
            _ => "zarr-python",
        };
        let on_s3 = catalog::on_s3(case);
        let shards = case.contains("-shards");
        let write = case.contains("-write");
        let mode = match (write, shards) {
            (true, false) => "write",
            (true, true) => "write-shards",
            (false, _) => "read",
        };
        // What is read, and where the output goes: locally, a file or a directory
        // removed before each run; on S3, a prefix emptied before each run.
        let stem = match (write, shards) {
            (true, false) => "zarr-out",
            (true, true) => "zarr-shards-out",
            (false, false) => "zarr-read-out",
            (false, true) => "zarr-read-shards-out",
        };
        let local_out = self.out(stem, side, if write { "zarr" } else { "nc" });
        let (input, target, output, s3_output) = if write {
            let input = self.inputs.unlimited()?.into_os_string();
            if on_s3 {
                let url = format!("s3://{BUCKET}/{stem}-{}.zarr", side.tag());
                (input, url.clone(), None, Some(url))
            } else {
                let path = local_out.to_string_lossy().into_owned();
                (input, path, Some(local_out), None)
            }
        } else {
            let store = if shards {
                self.inputs.zarr_sharded_store()?
            } else {
                self.inputs.zarr_store()?
            };
            let input = if on_s3 {
                self.uploaded(&store)?.into()
            } else {
                store.into_os_string()
            };
            let path = local_out.to_string_lossy().into_owned();
            (input, path, Some(local_out), None)
        };
        let inv = match side {
            Side::Ours => {
                let options: &[&str] = match mode {
                    "write" => &["-F", "*,zstd,3"],
                    "write-shards" => &["-F", "*,zstd,3", "--shards", "*:64M"],
                    // Every chunk decoded and written unfiltered, as the peers do
                    // (without -F none, nccopy copies the zstd chunks as they are).
                    _ => &["-F", "none"],
                };
                // Our side names a version 3 output by its URL.
                let target = match (mode, on_s3) {
                    ("write-shards", true) => format!("{target}#mode=zarr,v3"),
                    ("write-shards", false) => format!("file://{target}#mode=zarr,v3"),
                    _ => target,
                };
                self.ours("nccopy").args(options).arg(input).arg(target)
            }
            Side::Other => Invocation::new(&self.inputs.python)
                .arg("-c")
                .arg(ZARR_PEERS_SCRIPT)
                .args([tool, mode])
                .arg(input)
                .arg(target),
        };
        let inv = if on_s3 {
            let endpoint = self.s3()?.endpoint();
            S3Server::env(&endpoint)
                .into_iter()
                .fold(inv, |inv, (k, v)| inv.env(k, v))
        } else {
            inv
        };
        Ok(PreparedRun {
            invocation: inv,
            output,
            s3_output,
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
