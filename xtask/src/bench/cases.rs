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
    /// What they are compared with (the case's [`Peer`]).
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

/// What a case compares ours with; its label heads the table's other columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// The reference netCDF-C tools, or (the filter cases) our nccopy with the external
    /// HDF5 plugins.
    Reference,
    /// Our tool with libnetcdf reading classic files.
    Libnetcdf,
    /// zarr-python (with h5py).
    ZarrPython,
    /// HDF5's h5repack.
    H5repack,
    /// NCO's ncks.
    Ncks,
    /// CDO.
    Cdo,
}

impl Peer {
    /// The column label.
    pub fn label(self) -> &'static str {
        match self {
            Peer::Reference => "ref",
            Peer::Libnetcdf => "libnetcdf",
            Peer::ZarrPython => "zarr-python",
            Peer::H5repack => "h5repack",
            Peer::Ncks => "ncks",
            Peer::Cdo => "cdo",
        }
    }
}

/// A case that can be timed: its name and a line about it.
pub type CaseLine = (&'static str, &'static str);

/// Every case, with a line of description.
pub const CASES: &[CaseLine] = &[
    ("ncdump", "ncdump of a netCDF-4 file of float and double variables, to /dev/null"),
    ("ncdump-h", "ncdump -h (header only) of the same file"),
    ("ncgen", "ncgen -k nc4 of the CDL (reference ncdump output) of the same file"),
    ("nccopy-plain", "nccopy (no option) of a netCDF-4 file of chunked float variables (1 GB by default)"),
    ("nccopy-d1s", "nccopy -d 1 -s of the same file"),
    ("nccopy-bzip2", "nccopy -F '*,307,9' (bzip2, level 9) of the same file"),
    ("filter-bzip2-c", "our nccopy -F 'orog&temp&precip&wind,307,9' of the nccopy input (200 MB by default): built-in vs plugin"),
    ("filter-bzip2-d", "our nccopy -F none of that file compressed with bzip2: built-in vs plugin"),
    ("filter-zstd-c", "the same with zstd (32015,3)"),
    ("filter-zstd-d", "the same, decompressing"),
    ("filter-lz4-c", "the same with lz4 (32004)"),
    ("filter-lz4-d", "the same, decompressing"),
    ("filter-blosc-c", "the same with blosc (32001,0,0,0,0,5,1,1)"),
    ("filter-blosc-d", "the same, decompressing"),
    ("zarr-write", "our nccopy -F '*,zstd,3' in.nc out.zarr vs zarr-python writing the same arrays (Zstd 3, same chunks)"),
    ("zarr-read", "our nccopy store.zarr out.nc vs zarr-python reading every chunk of the same store, h5py writing it"),
    ("unlim-d1s", "nccopy -d 1 -s of the unlimited-time file (the zarr cases' input)"),
    ("unlim-d1s-ncks", "the same job: our nccopy -d 1 -s vs ncks -4 -L 1 (deflate 1, shuffle)"),
    ("unlim-d1s-h5repack", "the same job: our nccopy -d 1 -s vs h5repack -f SHUF -f GZIP=1"),
    ("unlim-d1s-cdo", "the same job: our nccopy -d 1 -s vs cdo -f nc4 -z zip_1 copy (no shuffle)"),
    ("unlim-bzip2", "nccopy -F '*,307,9' (bzip2, level 9) of the unlimited-time file"),
    ("unlim-bzip2-h5repack", "the same job: our nccopy vs h5repack -f UD=307,0,1,9"),
    ("unlim-ncdump", "ncdump of the unlimited-time file, to /dev/null"),
    ("unlim-ncdump-bzip2", "ncdump of the unlimited-time file compressed with bzip2, to /dev/null"),
    ("unlim-ncgen", "ncgen -k nc4 of the CDL (reference ncdump output) of the unlimited-time file"),
    ("stored-bzip2", "nccopy (no option) of the unlimited-time file compressed with bzip2 (307,9)"),
    ("stored-bzip2-h5repack", "the same copy: our nccopy vs h5repack (not the reference tools)"),
    ("stored-zstd-v", "nccopy -v tas (one of two variables) of the unlimited-time file compressed with zstd (32015,3)"),
    ("classic-ncdump", "our ncdump of the unlimited-time file as a 64-bit offset classic file: our reader vs libnetcdf's"),
    ("classic-nccopy", "our nccopy -k nc4 of the same classic file: our reader vs libnetcdf's"),
    ("classic-ncdump-ref", "ncdump of the same classic file: ours vs the reference"),
];

/// Names that stand for several cases, in order: name, description, members.
pub const GROUPS: &[(&str, &str, &[&str])] = &[
    (
        "nccopy",
        "the three nccopy-* cases, each a row",
        &["nccopy-plain", "nccopy-d1s", "nccopy-bzip2"],
    ),
    (
        "filters",
        "the built-in filters vs the external plugins, the filter-* cases, each a row",
        &[
            "filter-bzip2-c",
            "filter-bzip2-d",
            "filter-zstd-c",
            "filter-zstd-d",
            "filter-lz4-c",
            "filter-lz4-d",
            "filter-blosc-c",
            "filter-blosc-d",
        ],
    ),
    (
        "zarr",
        "the zarr-* cases, each a row: ours against zarr-python (not the reference tools)",
        &["zarr-write", "zarr-read"],
    ),
    (
        "stored",
        "the stored-chunk cases, each a row",
        &["stored-bzip2", "stored-bzip2-h5repack", "stored-zstd-v"],
    ),
    (
        "unlim",
        "the unlim-* cases, each a row: the jobs users run most, on the unlimited-time file",
        &[
            "unlim-d1s",
            "unlim-d1s-ncks",
            "unlim-d1s-h5repack",
            "unlim-d1s-cdo",
            "unlim-bzip2",
            "unlim-bzip2-h5repack",
            "unlim-ncdump",
            "unlim-ncdump-bzip2",
            "unlim-ncgen",
        ],
    ),
    (
        "classic",
        "the classic-* cases, each a row: nctools' own classic reader against libnetcdf's",
        &["classic-ncdump", "classic-nccopy", "classic-ncdump-ref"],
    ),
];

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

/// The named cases, groups expanded, in order.
pub fn expand(names: &[String]) -> Result<Vec<&'static str>> {
    let mut out = Vec::new();
    for name in names {
        if let Some((_, _, members)) = GROUPS.iter().find(|(g, _, _)| g == name) {
            out.extend_from_slice(members);
        } else if let Some((case, _)) = CASES.iter().find(|(c, _)| c == name) {
            out.push(*case);
        } else {
            bail!("unknown case {name} (see --list)");
        }
    }
    Ok(out)
}

/// Who a case compares ours with.
pub fn peer(case: &str) -> Peer {
    if case.starts_with("zarr-") {
        Peer::ZarrPython
    } else if case.ends_with("-h5repack") {
        Peer::H5repack
    } else if case.ends_with("-ncks") {
        Peer::Ncks
    } else if case.ends_with("-cdo") {
        Peer::Cdo
    } else if case == "classic-ncdump" || case == "classic-nccopy" {
        Peer::Libnetcdf
    } else {
        Peer::Reference
    }
}

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
            "zarr-write" | "zarr-read" => self.zarr_case(case, side)?,
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

    /// zarr-write and zarr-read: our nccopy against zarr-python.
    fn zarr_case(&self, case: &str, side: Side) -> Result<PreparedRun> {
        let i = &self.inputs;
        let (input, out, mode) = if case == "zarr-write" {
            (i.unlimited()?, self.out("zarr-out", side, "zarr"), "write")
        } else {
            (
                i.zarr_store()?,
                self.out("zarr-read-out", side, "nc"),
                "read",
            )
        };
        let inv = match side {
            Side::Ours if mode == "write" => self.ours("nccopy").args(["-F", "*,zstd,3"]),
            Side::Ours => self.ours("nccopy"),
            Side::Other => Invocation::new(&i.python)
                .arg("-c")
                .arg(ZARR_PYTHON_SCRIPT)
                .arg(mode),
        };
        Ok(PreparedRun {
            invocation: inv.arg(input).arg(&out),
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

    #[test]
    fn groups_expand_in_order_and_every_member_is_a_case() -> Result<()> {
        let names = expand(&["classic".into(), "ncdump".into()])?;
        assert_eq!(
            names,
            [
                "classic-ncdump",
                "classic-nccopy",
                "classic-ncdump-ref",
                "ncdump"
            ]
        );
        for (_, _, members) in GROUPS {
            for m in *members {
                assert!(CASES.iter().any(|(c, _)| c == m), "{m}");
            }
        }
        assert!(expand(&["nope".into()]).is_err());
        Ok(())
    }

    #[test]
    fn every_case_is_in_a_group_or_stands_alone_and_has_a_peer() {
        assert_eq!(peer("zarr-read"), Peer::ZarrPython);
        assert_eq!(peer("classic-nccopy"), Peer::Libnetcdf);
        assert_eq!(peer("classic-ncdump-ref"), Peer::Reference);
        assert_eq!(peer("unlim-d1s-cdo"), Peer::Cdo);
        assert_eq!(peer("stored-bzip2-h5repack").label(), "h5repack");
    }

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
