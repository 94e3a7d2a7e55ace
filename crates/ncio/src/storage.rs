//! Storage properties of netCDF-4 variables: layout, chunks, filters, byte order, fill,
//! quantize, NCZarr codecs.

use std::ffi::c_int;

use filterspec::FilterSpec;
use ncmodel::{Attribute, Endianness, Layout, Quantize, QuantizeMode, Storage};

use crate::error::NcError;
use crate::sys::{inquire, Grp, Lib, TypeTable};

/// libnetcdf's layout code of chunked storage (`NC_CHUNKED`).
pub(crate) const NC_CHUNKED: c_int = 0;
const NC_CONTIGUOUS: c_int = 1;
const NC_COMPACT: c_int = 2;

/// Reads the storage properties of a variable.
pub(crate) fn read_storage(
    lib: &Lib,
    table: TypeTable<'_>,
    grp: Grp<'_>,
    varid: c_int,
    is_nczarr: bool,
    owner: &dyn Fn() -> String,
) -> Result<Storage, NcError> {
    let context = || format!("{}: storage", owner());
    let layout = read_layout(lib, grp, varid, &context)?;
    let endianness = read_endianness(lib, grp, varid, &context)?;
    let no_fill = inquire::var_no_fill(lib, grp, varid, &context)?;
    let filters = read_filters(lib, grp, varid, &context)?;
    Ok(Storage {
        layout,
        filters,
        endianness,
        no_fill,
        quantize: None,
        // Only NCZarr has `_Codecs`; probing HDF5 files for it makes HDF5 print errors.
        codecs: if is_nczarr {
            read_codecs(lib, table, grp, varid, owner)
        } else {
            None
        },
    })
}

/// A variable's filters, in pipeline order, with their parameters.
pub(crate) fn read_filters(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<Vec<FilterSpec>, NcError> {
    Ok(inquire::var_filters(lib, grp, varid, context)?
        .into_iter()
        .map(|f| FilterSpec::new(f.id, f.params))
        .collect())
}

/// A variable's stored byte order.
pub(crate) fn read_endianness(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<Endianness, NcError> {
    Ok(match inquire::var_endian(lib, grp, varid, context)? {
        1 => Endianness::Little,
        2 => Endianness::Big,
        _ => Endianness::Native,
    })
}

/// The layout of a variable (chunk sizes included).
pub(crate) fn read_layout(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<Layout, NcError> {
    let (code, chunks) = inquire::var_chunking(lib, grp, varid, context)?;
    Ok(match code {
        NC_CHUNKED => Layout::Chunked(chunks),
        NC_CONTIGUOUS => Layout::Contiguous,
        NC_COMPACT => Layout::Compact,
        _ => Layout::Other,
    })
}

fn read_codecs(
    lib: &Lib,
    table: TypeTable<'_>,
    grp: Grp<'_>,
    varid: c_int,
    owner: &dyn Fn() -> String,
) -> Option<String> {
    if !crate::attribute::has_attribute(lib, grp, varid, "_Codecs") {
        return None;
    }
    let att = crate::attribute::read_attribute(lib, table, grp, varid, "_Codecs", owner).ok()?;
    match att.values {
        ncmodel::Values::Char(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    }
}

/// The quantization recorded by the variable's quantize attributes (libnetcdf stores them
/// as ordinary attributes; asking `nc_inq_var_quantize` instead makes HDF5 print errors
/// for every variable without them).
pub(crate) fn quantize_from_attributes(atts: &[Attribute]) -> Option<Quantize> {
    atts.iter().find_map(|att| {
        let mode = QuantizeMode::from_attribute_name(&att.name)?;
        let nsd = att.values.integer_at(0)?;
        Some(Quantize {
            mode,
            nsd: i32::try_from(nsd).ok()?,
        })
    })
}
