//! The output formats: their names on the command line (`-k`) and what each can hold.

use ncmodel::{Dataset, Format, Group, Values};

/// The format named by a `_Format` value (as ncdump -k and ncgen -k spell them).
pub fn format_by_name(name: &str) -> Option<Format> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "classic" | "nc3" | "1" => Format::Classic,
        "64-bit offset" | "64-bit-offset" | "nc6" | "2" => Format::Offset64,
        "cdf5" | "cdf-5" | "64-bit data" | "64-bit-data" | "nc5" | "5" => Format::Cdf5,
        "netcdf-4" | "netcdf4" | "hdf5" | "enhanced" | "nc4" | "3" => Format::Netcdf4,
        "netcdf-4 classic model"
        | "netcdf-4-classic"
        | "netcdf4_classic"
        | "enhanced-nc3"
        | "nc7"
        | "4" => Format::Netcdf4Classic,
        _ => return None,
    })
}

/// Whether `format` can hold the schema: no groups, user types or second unlimited
/// dimension outside netCDF-4, and only the types the format has (CDF5 adds the unsigned
/// and 64-bit integers).
pub fn fits(dataset: &Dataset, format: Format) -> bool {
    fn group_fits(group: &Group, format: Format) -> bool {
        let att_fits = |a: &ncmodel::Attribute| {
            // One string is left out with a warning, as the reference leaves it out.
            holds_type(format, a.type_ref) || matches!(&a.values, Values::String(v) if v.len() == 1)
        };
        group.groups.is_empty()
            && group.dims.iter().filter(|d| d.unlimited).count() <= 1
            && group.vars.iter().all(|v| holds_type(format, v.type_ref))
            && group.atts.iter().all(att_fits)
            && group.vars.iter().flat_map(|v| &v.atts).all(att_fits)
    }
    format == Format::Netcdf4 || (dataset.types.is_empty() && group_fits(&dataset.root, format))
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
