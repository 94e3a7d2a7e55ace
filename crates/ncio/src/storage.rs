//! Storage properties of netCDF-4 variables: layout, chunks, filters, byte order, fill,
//! quantize, NCZarr codecs.

use std::ffi::c_int;

use filterspec::FilterSpec;
use ncmodel::{Attribute, Endianness, Layout, Quantize, QuantizeMode, Storage};
use netcdf_sys::{
    nc_inq_var_chunking, nc_inq_var_endian, nc_inq_var_fill, nc_inq_var_filter_ids,
    nc_inq_var_filter_info,
};

use crate::decode::TypeTable;
use crate::error::NcError;
use crate::ffi::check;

const NC_CHUNKED: c_int = 0;
const NC_CONTIGUOUS: c_int = 1;
const NC_COMPACT: c_int = 2;

/// Reads the storage properties of a variable with `ndims` dimensions.
/// Must be called with the library lock held.
pub(crate) fn read_storage(
    table: TypeTable<'_>,
    ncid: c_int,
    varid: c_int,
    ndims: usize,
    is_nczarr: bool,
    owner: &dyn Fn() -> String,
) -> Result<Storage, NcError> {
    let context = || format!("{}: storage", owner());
    let layout = read_layout(ncid, varid, ndims, &context)?;
    let mut endian: c_int = 0;
    // SAFETY: endian is a valid out-pointer.
    check(
        unsafe { nc_inq_var_endian(ncid, varid, &mut endian) },
        context,
    )?;
    let mut no_fill: c_int = 0;
    // SAFETY: a NULL fill-value pointer asks for the mode only.
    let status = unsafe { nc_inq_var_fill(ncid, varid, &mut no_fill, std::ptr::null_mut()) };
    check(status, context)?;
    Ok(Storage {
        layout,
        filters: read_filters(ncid, varid, &context)?,
        endianness: match endian {
            1 => Endianness::Little,
            2 => Endianness::Big,
            _ => Endianness::Native,
        },
        no_fill: no_fill != 0,
        quantize: None,
        // Only NCZarr has `_Codecs`; probing HDF5 files for it makes HDF5 print errors.
        codecs: if is_nczarr {
            read_codecs(table, ncid, varid, owner)
        } else {
            None
        },
    })
}

/// The layout of a variable with `ndims` dimensions (chunk sizes included).
/// Must be called with the library lock held.
pub(crate) fn read_layout(
    ncid: c_int,
    varid: c_int,
    ndims: usize,
    context: &dyn Fn() -> String,
) -> Result<Layout, NcError> {
    let mut layout_code: c_int = 0;
    let mut chunks = vec![0usize; ndims.max(1)];
    // SAFETY: chunks holds one entry per dimension.
    let status = unsafe { nc_inq_var_chunking(ncid, varid, &mut layout_code, chunks.as_mut_ptr()) };
    check(status, context)?;
    chunks.truncate(ndims);
    Ok(match layout_code {
        NC_CHUNKED => Layout::Chunked(chunks),
        NC_CONTIGUOUS => Layout::Contiguous,
        NC_COMPACT => Layout::Compact,
        _ => Layout::Other,
    })
}

fn read_filters(
    ncid: c_int,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<Vec<FilterSpec>, NcError> {
    let mut n: usize = 0;
    // SAFETY: a NULL id array asks for the count only.
    let status = unsafe { nc_inq_var_filter_ids(ncid, varid, &mut n, std::ptr::null_mut()) };
    check(status, context)?;
    let mut ids = vec![0u32; n];
    if n > 0 {
        // SAFETY: ids holds n entries.
        let status = unsafe { nc_inq_var_filter_ids(ncid, varid, &mut n, ids.as_mut_ptr()) };
        check(status, context)?;
    }
    ids.into_iter()
        .map(|id| {
            let mut nparams: usize = 0;
            // SAFETY: a NULL params array asks for the count only.
            let status = unsafe {
                nc_inq_var_filter_info(ncid, varid, id, &mut nparams, std::ptr::null_mut())
            };
            check(status, context)?;
            let mut params = vec![0u32; nparams];
            if nparams > 0 {
                // SAFETY: params holds nparams entries.
                let status = unsafe {
                    nc_inq_var_filter_info(ncid, varid, id, &mut nparams, params.as_mut_ptr())
                };
                check(status, context)?;
            }
            Ok(FilterSpec::new(id, params))
        })
        .collect()
}

fn read_codecs(
    table: TypeTable<'_>,
    ncid: c_int,
    varid: c_int,
    owner: &dyn Fn() -> String,
) -> Option<String> {
    if !crate::attribute::has_attribute(ncid, varid, "_Codecs") {
        return None;
    }
    let att = crate::attribute::read_attribute(table, ncid, varid, "_Codecs", owner).ok()?;
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
