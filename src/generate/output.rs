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

/// The output file: `-o`, or the dataset name with `.nc` (`.cdf` with `-n`); `None` when
/// ncgen only checks the syntax (no -o, -k, -b, -l or format flag).
pub fn output_path(args: &GenerateArgs, dataset_name: &str, format_given: bool) -> Option<String> {
    if let Some(path) = &args.output {
        return Some(path.clone());
    }
    let asked = args.binary || args.cdf_extension || args.language.is_some() || format_given;
    let extension = if args.cdf_extension { "cdf" } else { "nc" };
    asked.then(|| format!("{dataset_name}.{extension}"))
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
        assert_eq!(
            output_path(&args(&["-o", "a.nc", "x.cdl"]), "d", false),
            Some("a.nc".into())
        );
        assert_eq!(
            output_path(&args(&["-b", "x.cdl"]), "d", false),
            Some("d.nc".into())
        );
        assert_eq!(
            output_path(&args(&["-n", "x.cdl"]), "d", false),
            Some("d.cdf".into())
        );
        assert_eq!(
            output_path(&args(&["x.cdl"]), "d", true),
            Some("d.nc".into())
        );
        assert_eq!(output_path(&args(&["x.cdl"]), "d", false), None);
    }
}
