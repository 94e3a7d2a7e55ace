//! Defining a file's contents: groups, dimensions, types, variables and their storage.
//! Arrays passed to libnetcdf are checked against the variable they describe.

use std::ffi::{c_int, c_uint, CStr};

use netcdf_sys::{
    nc_def_compound, nc_def_dim, nc_def_enum, nc_def_grp, nc_def_opaque, nc_def_var,
    nc_def_var_chunking, nc_def_var_endian, nc_def_var_fill, nc_def_var_filter, nc_def_vlen,
    nc_insert_array_compound, nc_insert_compound, nc_insert_enum, nc_set_chunk_cache,
    nc_set_var_chunk_cache, nc_type,
};

use super::inquire::var_rank_and_type;
use super::{check, Grp, Lib};
use crate::error::NcError;

extern "C" {
    /// `nc_def_var_quantize` (netCDF-C 4.9), not bound by netcdf-sys 0.9.
    fn nc_def_var_quantize(ncid: c_int, varid: c_int, mode: c_int, nsd: c_int) -> c_int;
}

/// How a variable is to be stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChunkingRequest<'a> {
    /// One contiguous block.
    Contiguous,
    /// In the object header.
    Compact,
    /// In chunks of these sizes, one per dimension; empty for the library's default.
    Chunked(&'a [usize]),
}

/// The array dimensions of a compound field (empty for a scalar field).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldShape<'a>(pub(crate) &'a [usize]);

fn invalid(message: String, context: &dyn Fn() -> String) -> NcError {
    NcError {
        kind: store::ErrorKind::InvalidRequest,
        message,
        context: context(),
    }
}

fn as_c_int(n: usize, what: &str, context: &dyn Fn() -> String) -> Result<c_int, NcError> {
    c_int::try_from(n).map_err(|_| invalid(format!("{what} {n} is too large"), context))
}

/// Defines a child group; returns it.
pub(crate) fn def_grp<'f>(
    _lib: &Lib,
    parent: Grp<'f>,
    name: &CStr,
    context: &dyn Fn() -> String,
) -> Result<Grp<'f>, NcError> {
    let mut child: c_int = -1;
    // SAFETY: name is NUL-terminated; child is a live out-pointer; the lock is held.
    let status = unsafe { nc_def_grp(parent.id(), name.as_ptr(), &mut child) };
    check(status, context)?;
    Ok(parent.sibling(child))
}

/// Defines a dimension (`len` 0 for unlimited); returns its id.
pub(crate) fn def_dim(
    _lib: &Lib,
    grp: Grp<'_>,
    name: &CStr,
    len: usize,
    context: &dyn Fn() -> String,
) -> Result<c_int, NcError> {
    let mut dimid: c_int = -1;
    // SAFETY: name is NUL-terminated; dimid is a live out-pointer.
    let status = unsafe { nc_def_dim(grp.id(), name.as_ptr(), len, &mut dimid) };
    check(status, context)?;
    Ok(dimid)
}

/// Defines a variable over the dimensions `dim_ids`; returns its id.
pub(crate) fn def_var(
    _lib: &Lib,
    grp: Grp<'_>,
    name: &CStr,
    xtype: nc_type,
    dim_ids: &[c_int],
    context: &dyn Fn() -> String,
) -> Result<c_int, NcError> {
    let ndims = as_c_int(dim_ids.len(), "a rank of", context)?;
    let mut varid: c_int = -1;
    // SAFETY: name is NUL-terminated; dim_ids holds ndims entries; varid is a live
    // out-pointer.
    let status = unsafe {
        nc_def_var(
            grp.id(),
            name.as_ptr(),
            xtype,
            ndims,
            dim_ids.as_ptr(),
            &mut varid,
        )
    };
    check(status, context)?;
    Ok(varid)
}

/// The kinds of user type [`def_type`] defines.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TypeDefinition {
    /// A compound of `size` bytes (fields inserted afterwards).
    Compound(usize),
    /// A vlen of `base`.
    Vlen(nc_type),
    /// An opaque of `size` bytes.
    Opaque(usize),
    /// An enum of the atomic `base` (members inserted afterwards).
    Enum(nc_type),
}

/// Defines a user type; returns its id.
pub(crate) fn def_type(
    _lib: &Lib,
    grp: Grp<'_>,
    name: &CStr,
    definition: TypeDefinition,
    context: &dyn Fn() -> String,
) -> Result<nc_type, NcError> {
    // One value at most the value limit, as when reading: libnetcdf and HDF5 hold a
    // value several times over while a variable of its type is written (s33b HH4: a
    // 150-byte CDL declaring an 800 MB compound took 1.6 GB in ncgen).
    if let TypeDefinition::Compound(size) | TypeDefinition::Opaque(size) = definition {
        let limit = codecs::partial::value_cap();
        if size > limit {
            return Err(invalid(
                format!(
                    "values of {size} bytes each, {}",
                    super::filtered_heaps::value_limit_words(limit as u64)
                ),
                context,
            ));
        }
    }
    let mut xtype: nc_type = 0;
    let n = name.as_ptr();
    let g = grp.id();
    // SAFETY (each arm): name is NUL-terminated and xtype a live out-pointer; sizes and
    // base types are plain values libnetcdf checks.
    let status = match definition {
        // SAFETY: as above.
        TypeDefinition::Compound(size) => unsafe { nc_def_compound(g, size, n, &mut xtype) },
        // SAFETY: as above.
        TypeDefinition::Vlen(base) => unsafe { nc_def_vlen(g, n, base, &mut xtype) },
        // SAFETY: as above.
        TypeDefinition::Opaque(size) => unsafe { nc_def_opaque(g, size, n, &mut xtype) },
        // SAFETY: as above.
        TypeDefinition::Enum(base) => unsafe { nc_def_enum(g, base, n, &mut xtype) },
    };
    check(status, context)?;
    Ok(xtype)
}

/// Inserts a field into a compound type being defined.
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_field(
    _lib: &Lib,
    grp: Grp<'_>,
    xtype: nc_type,
    name: &CStr,
    offset: usize,
    field_type: nc_type,
    shape: FieldShape<'_>,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let status = if shape.0.is_empty() {
        // SAFETY: name is NUL-terminated; the rest are plain values.
        unsafe { nc_insert_compound(grp.id(), xtype, name.as_ptr(), offset, field_type) }
    } else {
        let dims = shape
            .0
            .iter()
            .map(|d| as_c_int(*d, "a field dimension of", context))
            .collect::<Result<Vec<c_int>, _>>()?;
        let ndims = as_c_int(dims.len(), "a field rank of", context)?;
        // SAFETY: name is NUL-terminated; dims holds ndims entries.
        unsafe {
            nc_insert_array_compound(
                grp.id(),
                xtype,
                name.as_ptr(),
                offset,
                field_type,
                ndims,
                dims.as_ptr(),
            )
        }
    };
    check(status, context)
}

/// Inserts a member into an enum type being defined; `value` holds its value in the base
/// type's native bytes, followed by zeros.
pub(crate) fn insert_enum_member(
    _lib: &Lib,
    grp: Grp<'_>,
    xtype: nc_type,
    name: &CStr,
    value: &[u8; 8],
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY: name is NUL-terminated; value holds 8 bytes, as much as any base type.
    let status = unsafe { nc_insert_enum(grp.id(), xtype, name.as_ptr(), value.as_ptr().cast()) };
    check(status, context)
}

/// Sets a variable's storage layout; chunk sizes must be one per dimension.
pub(crate) fn def_chunking(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    request: &ChunkingRequest<'_>,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let (storage, sizes) = match request {
        ChunkingRequest::Contiguous => (1, None),
        ChunkingRequest::Compact => (2, None),
        ChunkingRequest::Chunked([]) => (0, None),
        ChunkingRequest::Chunked(sizes) => {
            let (rank, _) = var_rank_and_type(lib, grp, varid, context)?;
            if sizes.len() != rank {
                return Err(invalid(
                    format!(
                        "{} chunk sizes for a variable of {rank} dimensions",
                        sizes.len()
                    ),
                    context,
                ));
            }
            (0, Some(*sizes))
        }
    };
    let pointer = sizes.map_or(std::ptr::null(), <[usize]>::as_ptr);
    // SAFETY: the sizes are NULL (no sizes) or one per dimension of the variable (checked
    // above against what libnetcdf reports).
    check(
        unsafe { nc_def_var_chunking(grp.id(), varid, storage, pointer) },
        context,
    )
}

/// Adds a filter to a variable's pipeline.
pub(crate) fn def_filter(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    id: u32,
    params: &[u32],
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY: params holds params.len() values; the id is a plain value.
    let status =
        unsafe { nc_def_var_filter(grp.id(), varid, id as c_uint, params.len(), params.as_ptr()) };
    check(status, context)
}

/// Sets a variable's byte order (`NC_ENDIAN_LITTLE` 1, `NC_ENDIAN_BIG` 2).
pub(crate) fn def_endian(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    endian: c_int,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY: plain values on an open file in define mode.
    check(
        unsafe { nc_def_var_endian(grp.id(), varid, endian) },
        context,
    )
}

/// Turns fill off for a variable.
pub(crate) fn def_no_fill(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY: a NULL fill value is allowed when turning fill off.
    check(
        unsafe { nc_def_var_fill(grp.id(), varid, 1, std::ptr::null()) },
        context,
    )
}

/// Sets a variable's quantization (`mode` 1-3, `nsd` significant digits or bits).
pub(crate) fn def_quantize(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    mode: c_int,
    nsd: c_int,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY: plain values on an open file in define mode.
    check(
        unsafe { nc_def_var_quantize(grp.id(), varid, mode, nsd) },
        context,
    )
}

/// Sets the default chunk cache for files opened or created afterwards.
pub(crate) fn set_default_chunk_cache(
    _lib: &Lib,
    size: usize,
    nelems: usize,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY: plain values setting a library default.
    check(unsafe { nc_set_chunk_cache(size, nelems, 0.75) }, context)
}

/// Sets one variable's chunk cache to `bytes` (0 turns caching off).
pub(crate) fn set_var_chunk_cache(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    bytes: usize,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let slots = if bytes == 0 { 1 } else { 1009 };
    // SAFETY: plain values on an open variable.
    check(
        unsafe { nc_set_var_chunk_cache(grp.id(), varid, bytes, slots, 0.75) },
        context,
    )
}
