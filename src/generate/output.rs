//! What ncgen writes: the output format and file name, decided from the options, the
//! CDL's `_Format` and its special attributes, with the checks of DECISIONS D4.

use anyhow::bail;
use ncmodel::{Dataset, Format, Group, Values};

use super::args::GenerateArgs;
use super::specials::SpecialsOutcome;
use crate::formats::fits;

/// The format given on the command line, if any (`-k`, `-v` or `-3`..`-7`).
pub fn requested_format(args: &GenerateArgs) -> anyhow::Result<Option<Format>> {
    args.format.requested(args.kind_alias.as_ref())
}

/// Whether the schema uses anything only netCDF-4 (not its classic model) can hold.
pub fn needs_enhanced_model(dataset: &Dataset) -> bool {
    !fits(dataset, Format::Classic)
}

/// Removes the `string` attributes, which the classic model cannot hold, as the reference
/// does; returns their paths (`var:att`, or `:att` for global ones) for warnings.
pub fn drop_string_attributes(group: &mut Group) -> Vec<String> {
    let is_string = |a: &ncmodel::Attribute| matches!(a.values, Values::String(_));
    let mut dropped: Vec<String> = group
        .atts
        .iter()
        .filter(|a| is_string(a))
        .map(|a| format!(":{}", a.name))
        .collect();
    group.atts.retain(|a| !is_string(a));
    for var in &mut group.vars {
        dropped.extend(
            var.atts
                .iter()
                .filter(|a| is_string(a))
                .map(|a| format!("{}:{}", var.name, a.name)),
        );
        var.atts.retain(|a| !is_string(a));
    }
    dropped
}

/// The output format: the command line wins, then `_Format`, then the format the target
/// implies (a Zarr store holds the netCDF-4 model), then netCDF-4 when special attributes
/// or enhanced features ask for it, else classic.
pub fn output_format(
    requested: Option<Format>,
    implied: Option<Format>,
    dataset: &Dataset,
    specials: &SpecialsOutcome,
) -> anyhow::Result<Format> {
    let format = match (requested, specials.format.or(implied)) {
        (Some(f), _) | (None, Some(f)) => f,
        (None, None) if specials.needs_netcdf4 || needs_enhanced_model(dataset) => Format::Netcdf4,
        (None, None) => Format::Classic,
    };
    if !fits(dataset, format) {
        bail!(
            "the CDL uses netCDF-4 features (groups, user-defined or string types, several \
             unlimited dimensions, or unsigned/64-bit types outside CDF5), which the {} format \
             cannot hold; use -k nc4",
            format.name()
        );
    }
    if format.is_classic_family() {
        if let Some(var) = netcdf4_storage_var(&dataset.root) {
            bail!(
                "variable {var}: its filters or storage attributes (_Filter, _DeflateLevel, \
                 _Shuffle, _Fletcher32, _Storage, _ChunkSizes, _Endianness, quantize) need \
                 netCDF-4 output, but the {} format was asked for; use -k nc4 or drop them",
                format.name()
            );
        }
    }
    Ok(format)
}

/// The first variable whose storage properties only netCDF-4 can hold (filters, a
/// chosen layout, a byte order, quantization; `_NoFill` works everywhere).
fn netcdf4_storage_var(group: &Group) -> Option<String> {
    let needs = |s: &ncmodel::Storage| {
        !s.filters.is_empty()
            || s.layout != ncmodel::Layout::Other
            || s.endianness != ncmodel::Endianness::Native
            || s.quantize.is_some()
    };
    group
        .vars
        .iter()
        .find(|v| v.storage.as_ref().is_some_and(needs))
        .map(|v| v.name.clone())
        .or_else(|| group.groups.iter().find_map(netcdf4_storage_var))
}

/// The output file: `-o`, or the default name ([`default_output_name`]); `None` when
/// ncgen only checks the syntax (no -o, -k, -b, -l or format flag).
pub fn output_path(
    args: &GenerateArgs,
    dataset_name: &str,
    format_given: bool,
) -> anyhow::Result<Option<String>> {
    if let Some(path) = &args.output {
        return Ok(Some(path.clone()));
    }
    let asked = args.binary || args.cdf_extension || args.language.is_some() || format_given;
    if !asked {
        return Ok(None);
    }
    default_output_name(args, dataset_name).map(Some)
}

/// The file ncgen writes (or the generated program creates) when `-o` is not given, by
/// the reference's rule: the CDL file's name without its directories and its extension,
/// in the working directory, with `.nc` (`.cdf` with `-n`). From standard input (`-` or
/// no file) the dataset name (`-N`, else the CDL's `netcdf NAME {`) takes its place, and
/// must then be a plain file name: the CDL's dataset name is input, and never a path.
pub fn default_output_name(args: &GenerateArgs, dataset_name: &str) -> anyhow::Result<String> {
    let extension = if args.cdf_extension { "cdf" } else { "nc" };
    let stem = match args.input.as_deref() {
        None | Some("-") => {
            if !is_plain_file_name(dataset_name) {
                bail!(
                    "the dataset name {dataset_name:?} cannot name the output: from standard \
                     input ncgen names it after the dataset, and only a plain file name in \
                     the working directory (no `/`, not `.` or `..`) is taken; give the \
                     output with -o"
                );
            }
            dataset_name.to_owned()
        }
        Some(input) => cdl_file_stem(input).ok_or_else(|| {
            anyhow::anyhow!(
                "{input}: no file name to name the output after; give the output with -o"
            )
        })?,
    };
    Ok(format!("{stem}.{extension}"))
}

/// The CDL file's name without its directories and its last extension (`dir/foo.cdl`
/// gives `foo`; `foo.txt` gives `foo`; `noext` stays `noext`).
fn cdl_file_stem(input: &str) -> Option<String> {
    let stem = std::path::Path::new(input).file_stem()?.to_str()?;
    is_plain_file_name(stem).then(|| stem.to_owned())
}

/// Whether `name` is one file name in the working directory: not empty, no `/` or NUL,
/// not `.` or `..`.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

/// A failure of the library while creating the file, explained: an unavailable filter
/// names the filter and where plugins were looked for (DECISIONS D6).
pub fn explain_write_error(error: store::StoreError) -> anyhow::Error {
    crate::plugins::explain_write_error(error, "remove the filter from the CDL")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(list: &[&str]) -> GenerateArgs {
        let argv = std::iter::once("ncgen").chain(list.iter().copied());
        GenerateArgs::try_parse_from(argv).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn format_from_the_command_line() {
        assert_eq!(
            requested_format(&args(&["-k", "nc4", "x.cdl"])).ok(),
            Some(Some(Format::Netcdf4))
        );
        assert_eq!(
            requested_format(&args(&["-3", "x.cdl"])).ok(),
            Some(Some(Format::Classic))
        );
        assert_eq!(
            requested_format(&args(&["-k", "64-bit offset", "x.cdl"])).ok(),
            Some(Some(Format::Offset64))
        );
        assert_eq!(
            requested_format(&args(&["-k", "5", "x.cdl"])).ok(),
            Some(Some(Format::Cdf5))
        );
        assert!(requested_format(&args(&["-k", "nc9", "x.cdl"])).is_err());
        // Every -k the reference ncgen 4.9 accepts, and the format `ncdump -k` then shows.
        for (kind, format) in [
            ("1", Format::Classic),
            ("classic", Format::Classic),
            ("nc3", Format::Classic),
            ("2", Format::Offset64),
            ("64-bit offset", Format::Offset64),
            ("64-bit-offset", Format::Offset64),
            ("nc6", Format::Offset64),
            ("5", Format::Cdf5),
            ("cdf5", Format::Cdf5),
            ("cdf-5", Format::Cdf5),
            ("64-bit data", Format::Cdf5),
            ("64-bit-data", Format::Cdf5),
            ("nc5", Format::Cdf5),
            ("3", Format::Netcdf4),
            ("netCDF-4", Format::Netcdf4),
            ("netcdf4", Format::Netcdf4),
            ("hdf5", Format::Netcdf4),
            ("enhanced", Format::Netcdf4),
            ("nc4", Format::Netcdf4),
            ("4", Format::Netcdf4Classic),
            ("netCDF-4 classic model", Format::Netcdf4Classic),
            ("netCDF-4-classic", Format::Netcdf4Classic),
            ("enhanced-nc3", Format::Netcdf4Classic),
            ("nc7", Format::Netcdf4Classic),
        ] {
            assert_eq!(
                requested_format(&args(&["-k", kind, "x.cdl"])).ok(),
                Some(Some(format)),
                "-k {kind}"
            );
        }
        assert_eq!(requested_format(&args(&["x.cdl"])).ok(), Some(None));
    }

    #[test]
    fn output_names() {
        let path = |list: &[&str], name: &str, given: bool| {
            output_path(&args(list), name, given).unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(
            path(&["-o", "a.nc", "x.cdl"], "d", false),
            Some("a.nc".into())
        );
        assert_eq!(path(&["-b", "x.cdl"], "d", false), Some("x.nc".into()));
        assert_eq!(path(&["-n", "x.cdl"], "d", false), Some("x.cdf".into()));
        assert_eq!(path(&["x.cdl"], "d", true), Some("x.nc".into()));
        assert_eq!(path(&["x.cdl"], "d", false), None);
        // Named after the CDL file, in the working directory, whatever the dataset says.
        assert_eq!(
            path(&["-b", "dir/sub/foo.cdl"], "../../X", false),
            Some("foo.nc".into())
        );
        assert_eq!(
            path(&["-b", "/abs/bar.txt"], "/etc/passwd", false),
            Some("bar.nc".into())
        );
        assert_eq!(path(&["-b", "noext"], "d", false), Some("noext.nc".into()));
        assert_eq!(path(&["-b", "-"], "d", false), Some("d.nc".into()));
        assert_eq!(path(&["-b"], "d", false), Some("d.nc".into()));
        for hostile in ["../../X", "/tmp/X", "a/b", "..", ".", ""] {
            assert!(
                output_path(&args(&["-b", "-"]), hostile, false).is_err(),
                "{hostile:?}"
            );
        }
    }
}
