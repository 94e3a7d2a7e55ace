//! The output formats: their names on the command line (`-k`) and what each can hold.

use anyhow::anyhow;
use ncmodel::{Dataset, Format, Group, Values};

/// The output-format options nccopy and ncgen share: `-k kind` and `-3` to `-7`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FormatArgs {
    /// Output format: classic (nc3, 1), 64-bit offset (nc6, 2), cdf5 (nc5, 64-bit data, 5),
    /// netCDF-4 (nc4, 3), netCDF-4 classic model (nc7, 4)
    #[arg(short = 'k', value_name = "kind", value_parser = crate::completion_values::KINDS, hide_possible_values = true)]
    pub kind: Option<String>,
    /// Classic format (same as -k classic)
    #[arg(short = '3')]
    pub classic: bool,
    /// netCDF-4 format (same as -k netCDF-4)
    #[arg(short = '4')]
    pub netcdf4: bool,
    /// CDF5 format (same as -k cdf5)
    #[arg(short = '5')]
    pub cdf5: bool,
    /// 64-bit offset format (same as -k "64-bit offset")
    #[arg(short = '6')]
    pub offset64: bool,
    /// netCDF-4 classic model (same as -k "netCDF-4 classic model")
    #[arg(short = '7')]
    pub netcdf4_classic: bool,
}

impl FormatArgs {
    /// The format asked for, if any: `-k` (or `alias`, ncgen's old `-v`) wins over the
    /// flags; of the flags, the last in `-3 -4 -5 -6 -7` order. An unknown kind is an error
    /// that lists the names.
    pub fn requested(&self, alias: Option<&String>) -> anyhow::Result<Option<Format>> {
        let flags = [
            (self.classic, Format::Classic),
            (self.netcdf4, Format::Netcdf4),
            (self.cdf5, Format::Cdf5),
            (self.offset64, Format::Offset64),
            (self.netcdf4_classic, Format::Netcdf4Classic),
        ];
        let mut format = flags.iter().rev().find(|(set, _)| *set).map(|(_, f)| *f);
        if let Some(kind) = self.kind.as_ref().or(alias) {
            format = Some(format_by_name(kind).ok_or_else(|| {
                anyhow!(
                    "-k {kind}: unknown format; use classic (nc3), \"64-bit offset\" (nc6), \
                     cdf5 (nc5), netCDF-4 (nc4) or \"netCDF-4 classic model\" (nc7)"
                )
            })?);
        }
        Ok(format)
    }
}

/// The format named by a `_Format` value (as ncdump -k and ncgen -k spell them).
pub fn format_by_name(name: &str) -> Option<Format> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "classic" | "nc3" | "1" => Format::Classic,
        "64-bit offset" | "64-bit-offset" | "nc6" | "2" => Format::Offset64,
        "cdf5" | "cdf-5" | "64-bit data" | "64-bit-data" | "nc5" | "5" => Format::Cdf5,
        "netcdf-4" | "netcdf4" | "hdf5" | "enhanced" | "nc4" | "3" => Format::Netcdf4,
        "netcdf-4 classic model"
        | "netcdf-4-classic"
        | "netcdf-4_classic"
        | "netcdf4_classic"
        | "hdf5-nc3"
        | "enhanced-nc3"
        | "nc7"
        | "4" => Format::Netcdf4Classic,
        _ => return None,
    })
}

/// Whether `format` can hold the schema: no groups, user types or second unlimited
/// dimension outside netCDF-4, and only the types the format has (CDF5 adds the unsigned
/// and 64-bit integers). A single `string` attribute fits: ncgen leaves it out with a
/// warning, as the reference does.
pub fn fits(dataset: &Dataset, format: Format) -> bool {
    misfit(dataset, format, false).is_none()
}

/// The first part of the schema that `format` cannot hold, described for a message
/// (`group /g`, `variable /v of type string`, ...), or `None` when it all fits. With
/// `strict_strings`, every `string` attribute is a misfit.
pub fn misfit(dataset: &Dataset, format: Format, strict_strings: bool) -> Option<String> {
    if format == Format::Netcdf4 {
        return None;
    }
    if let Some(child) = dataset.root.groups.first() {
        return Some(format!("group /{}", child.name));
    }
    if let Some(user) = dataset.types.first() {
        return Some(format!("user-defined type {}", user.name));
    }
    group_misfit(&dataset.root, "", format, strict_strings)
}

fn group_misfit(group: &Group, prefix: &str, format: Format, strict: bool) -> Option<String> {
    let att_fits = |a: &ncmodel::Attribute| {
        holds_type(format, a.type_ref)
            || (!strict && matches!(&a.values, Values::String(v) if v.len() == 1))
    };
    let type_name = |t: ncmodel::TypeRef| match t {
        ncmodel::TypeRef::Atomic(a) => a.cdl_name().to_string(),
        ncmodel::TypeRef::User(_) => "a user-defined type".to_string(),
    };
    if let Some(child) = group.groups.first() {
        return Some(format!("group {prefix}/{}", child.name));
    }
    if let Some(dim) = group.dims.iter().filter(|d| d.unlimited).nth(1) {
        return Some(format!(
            "a second unlimited dimension, {prefix}/{}",
            dim.name
        ));
    }
    if let Some(var) = group.vars.iter().find(|v| !holds_type(format, v.type_ref)) {
        return Some(format!(
            "variable {prefix}/{} of type {}",
            var.name,
            type_name(var.type_ref)
        ));
    }
    if let Some(att) = group.atts.iter().find(|a| !att_fits(a)) {
        return Some(format!(
            "global attribute {} of type {}",
            att.name,
            type_name(att.type_ref)
        ));
    }
    group.vars.iter().find_map(|v| {
        v.atts.iter().find(|a| !att_fits(a)).map(|a| {
            format!(
                "attribute {prefix}/{}:{} of type {}",
                v.name,
                a.name,
                type_name(a.type_ref)
            )
        })
    })
}

/// Whether `format` has the type `t`.
pub fn holds_type(format: Format, t: ncmodel::TypeRef) -> bool {
    use ncmodel::AtomicType::{
        Byte, Char, Double, Float, Int, Int64, Short, UByte, UInt, UInt64, UShort,
    };
    matches!(
        (format, t),
        (Format::Netcdf4, _)
            | (
                _,
                ncmodel::TypeRef::Atomic(Byte | Char | Short | Int | Float | Double)
            )
            | (
                Format::Cdf5,
                ncmodel::TypeRef::Atomic(UByte | UShort | UInt | Int64 | UInt64)
            )
    )
}
