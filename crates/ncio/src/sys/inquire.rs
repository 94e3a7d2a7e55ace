//! Questions about an open file: its format, groups, dimensions, types, variables,
//! attributes and storage. Arrays libnetcdf fills are sized from what it reports first,
//! never from a fixed maximum.

use std::ffi::{c_int, c_uint, c_void, CStr};

use netcdf_sys::{
    nc_inq_att, nc_inq_attname, nc_inq_compound_field, nc_inq_compound_fieldndims, nc_inq_dim,
    nc_inq_dimids, nc_inq_enum_member, nc_inq_format, nc_inq_format_extended, nc_inq_grpname,
    nc_inq_grps, nc_inq_natts, nc_inq_typeids, nc_inq_unlimdims, nc_inq_user_type, nc_inq_var,
    nc_inq_var_chunking, nc_inq_var_endian, nc_inq_var_fill, nc_inq_var_filter_ids,
    nc_inq_var_filter_info, nc_inq_varids, nc_inq_varndims, nc_inq_vartype, nc_type,
};

use super::{check, Grp, Lib};
use crate::error::NcError;

/// What `nc_inq_var` tells of a variable.
#[derive(Debug, Clone)]
pub(crate) struct VarInfo {
    /// Its name.
    pub(crate) name: String,
    /// Its type id.
    pub(crate) xtype: nc_type,
    /// Its dimension ids, one per dimension.
    pub(crate) dim_ids: Vec<c_int>,
    /// How many attributes it has.
    pub(crate) natts: usize,
}

/// What `nc_inq_att` tells of an attribute.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttInfo {
    /// Its type id.
    pub(crate) xtype: nc_type,
    /// How many values it holds.
    pub(crate) len: usize,
}

/// One filter of a variable's pipeline.
#[derive(Debug, Clone)]
pub(crate) struct FilterInfo {
    /// The HDF5 filter id.
    pub(crate) id: u32,
    /// Its parameters.
    pub(crate) params: Vec<u32>,
}

/// A count libnetcdf reported, as a length (negative counts are none).
fn count(n: c_int) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Reads ids with the two-call pattern: the count first, then an array of that many.
fn read_ids(
    mut call: impl FnMut(&mut c_int, *mut c_int) -> c_int,
    context: &dyn Fn() -> String,
) -> Result<Vec<c_int>, NcError> {
    let mut n: c_int = 0;
    check(call(&mut n, std::ptr::null_mut()), context)?;
    let mut ids = vec![0; count(n)];
    if !ids.is_empty() {
        let mut again = n;
        check(call(&mut again, ids.as_mut_ptr()), context)?;
        ids.truncate(count(again));
    }
    Ok(ids)
}

/// The format (`nc_inq_format`), extended format and open mode
/// (`nc_inq_format_extended`).
pub(crate) fn format(
    _lib: &Lib,
    grp: Grp<'_>,
    context: &dyn Fn() -> String,
) -> Result<(c_int, c_int, c_int), NcError> {
    let (mut format, mut formatx, mut mode): (c_int, c_int, c_int) = (0, 0, 0);
    // SAFETY: the group's file is open (grp borrows it); the out-pointers are live locals;
    // the lock is held.
    let status = unsafe { nc_inq_format(grp.id(), &mut format) };
    check(status, context)?;
    // SAFETY: as above.
    let status = unsafe { nc_inq_format_extended(grp.id(), &mut formatx, &mut mode) };
    check(status, context)?;
    Ok((format, formatx, mode))
}

/// The group's name.
pub(crate) fn group_name(
    _lib: &Lib,
    grp: Grp<'_>,
    context: &dyn Fn() -> String,
) -> Result<String, NcError> {
    grp.read_name(
        // SAFETY: the buffer holds as many bytes as a name of this file can take.
        |name| unsafe { nc_inq_grpname(grp.id(), name) },
        context,
    )
}

/// The child groups, in order.
pub(crate) fn child_groups<'f>(
    _lib: &Lib,
    grp: Grp<'f>,
    context: &dyn Fn() -> String,
) -> Result<Vec<Grp<'f>>, NcError> {
    // SAFETY: read_ids passes a live count pointer and NULL or an array of that count.
    let ids = read_ids(|n, ids| unsafe { nc_inq_grps(grp.id(), n, ids) }, context)?;
    Ok(ids.into_iter().map(|id| grp.sibling(id)).collect())
}

/// The ids of the user types defined in the group.
pub(crate) fn type_ids(
    _lib: &Lib,
    grp: Grp<'_>,
    context: &dyn Fn() -> String,
) -> Result<Vec<c_int>, NcError> {
    // SAFETY: read_ids passes a live count pointer and NULL or an array of that count.
    read_ids(
        |n, ids| unsafe { nc_inq_typeids(grp.id(), n, ids) },
        context,
    )
}

/// The ids of the dimensions defined in the group (not its parents').
pub(crate) fn dim_ids(
    _lib: &Lib,
    grp: Grp<'_>,
    context: &dyn Fn() -> String,
) -> Result<Vec<c_int>, NcError> {
    // SAFETY: read_ids passes a live count pointer and NULL or an array of that count.
    read_ids(
        |n, ids| unsafe { nc_inq_dimids(grp.id(), n, ids, 0) },
        context,
    )
}

/// The ids of the group's unlimited dimensions.
pub(crate) fn unlimited_dim_ids(
    _lib: &Lib,
    grp: Grp<'_>,
    context: &dyn Fn() -> String,
) -> Result<Vec<c_int>, NcError> {
    // SAFETY: read_ids passes a live count pointer and NULL or an array of that count.
    read_ids(
        |n, ids| unsafe { nc_inq_unlimdims(grp.id(), n, ids) },
        context,
    )
}

/// The ids of the group's variables.
pub(crate) fn var_ids(
    _lib: &Lib,
    grp: Grp<'_>,
    context: &dyn Fn() -> String,
) -> Result<Vec<c_int>, NcError> {
    // SAFETY: read_ids passes a live count pointer and NULL or an array of that count.
    read_ids(|n, ids| unsafe { nc_inq_varids(grp.id(), n, ids) }, context)
}

/// A dimension's name and length.
pub(crate) fn dim(
    _lib: &Lib,
    grp: Grp<'_>,
    dimid: c_int,
    context: &dyn Fn() -> String,
) -> Result<(String, usize), NcError> {
    let mut len: usize = 0;
    let name = grp.read_name(
        // SAFETY: the buffer holds as many bytes as a name of this file can take; len is a
        // live out-pointer.
        |name| unsafe { nc_inq_dim(grp.id(), dimid, name, &mut len) },
        context,
    )?;
    Ok((name, len))
}

/// The number of dimensions and the type of a variable.
pub(crate) fn var_rank_and_type(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<(usize, nc_type), NcError> {
    let mut ndims: c_int = 0;
    let mut xtype: nc_type = 0;
    // SAFETY: live out-pointers; the group's file is open; the lock is held.
    let status = unsafe { nc_inq_varndims(grp.id(), varid, &mut ndims) };
    check(status, context)?;
    // SAFETY: as above.
    let status = unsafe { nc_inq_vartype(grp.id(), varid, &mut xtype) };
    check(status, context)?;
    Ok((count(ndims), xtype))
}

/// A variable's name, type, dimensions and number of attributes.
pub(crate) fn var(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<VarInfo, NcError> {
    let (ndims, _) = var_rank_and_type(lib, grp, varid, context)?;
    let mut xtype: nc_type = 0;
    let mut natts: c_int = 0;
    let mut dim_ids = vec![0 as c_int; ndims];
    let mut reported: c_int = 0;
    let name = grp.read_name(
        // SAFETY: the name buffer holds as many bytes as a name of this file can take;
        // dim_ids holds the number of dimensions libnetcdf reported just above; the other
        // out-pointers are live locals.
        |name| unsafe {
            nc_inq_var(
                grp.id(),
                varid,
                name,
                &mut xtype,
                &mut reported,
                dim_ids.as_mut_ptr(),
                &mut natts,
            )
        },
        context,
    )?;
    dim_ids.truncate(count(reported));
    Ok(VarInfo {
        name,
        xtype,
        dim_ids,
        natts: count(natts),
    })
}

/// The number of attributes of the group (global attributes).
pub(crate) fn group_natts(
    _lib: &Lib,
    grp: Grp<'_>,
    context: &dyn Fn() -> String,
) -> Result<usize, NcError> {
    let mut natts: c_int = 0;
    // SAFETY: a live out-pointer; the group's file is open; the lock is held.
    let status = unsafe { nc_inq_natts(grp.id(), &mut natts) };
    check(status, context)?;
    Ok(count(natts))
}

/// The name of attribute number `index` of `varid` (or the group's, with `NC_GLOBAL`).
pub(crate) fn att_name(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    index: usize,
    context: &dyn Fn() -> String,
) -> Result<String, NcError> {
    let index = c_int::try_from(index).map_err(|_| too_large(context))?;
    grp.read_name(
        // SAFETY: the buffer holds as many bytes as a name of this file can take.
        |name| unsafe { nc_inq_attname(grp.id(), varid, index, name) },
        context,
    )
}

/// The type and length of the attribute `name`.
pub(crate) fn att_info(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    name: &CStr,
    context: &dyn Fn() -> String,
) -> Result<AttInfo, NcError> {
    let mut xtype: nc_type = 0;
    let mut len: usize = 0;
    // SAFETY: name is NUL-terminated; the out-pointers are live locals; the lock is held.
    let status = unsafe { nc_inq_att(grp.id(), varid, name.as_ptr(), &mut xtype, &mut len) };
    check(status, context)?;
    Ok(AttInfo { xtype, len })
}

/// What `nc_inq_user_type` tells: name, size, base type, number of fields or members,
/// class.
pub(crate) fn user_type(
    _lib: &Lib,
    grp: Grp<'_>,
    xtype: nc_type,
    context: &dyn Fn() -> String,
) -> Result<(String, usize, nc_type, usize, c_int), NcError> {
    let (mut size, mut base, mut nfields, mut class): (usize, nc_type, usize, c_int) = (0, 0, 0, 0);
    let name = grp.read_name(
        // SAFETY: the name buffer holds as many bytes as a name of this file can take; the
        // other out-pointers are live locals.
        |name| unsafe {
            nc_inq_user_type(
                grp.id(),
                xtype,
                name,
                &mut size,
                &mut base,
                &mut nfields,
                &mut class,
            )
        },
        context,
    )?;
    Ok((name, size, base, nfields, class))
}

/// Field `index` of a compound type: name, offset, type and array dimensions.
pub(crate) fn compound_field(
    _lib: &Lib,
    grp: Grp<'_>,
    xtype: nc_type,
    index: usize,
    context: &dyn Fn() -> String,
) -> Result<(String, usize, nc_type, Vec<usize>), NcError> {
    let field = c_int::try_from(index).map_err(|_| too_large(context))?;
    let mut ndims: c_int = 0;
    // SAFETY: a live out-pointer; the lock is held.
    let status = unsafe { nc_inq_compound_fieldndims(grp.id(), xtype, field, &mut ndims) };
    check(status, context)?;
    let (mut offset, mut field_type, mut reported): (usize, nc_type, c_int) = (0, 0, 0);
    let mut dims = vec![0 as c_int; count(ndims)];
    let name = grp.read_name(
        // SAFETY: the name buffer holds as many bytes as a name of this file can take; dims
        // holds the number of dimensions libnetcdf reported just above (a NULL-free array
        // even when empty: Vec's dangling pointer is never written for zero dims).
        |name| unsafe {
            nc_inq_compound_field(
                grp.id(),
                xtype,
                field,
                name,
                &mut offset,
                &mut field_type,
                &mut reported,
                dims.as_mut_ptr(),
            )
        },
        context,
    )?;
    dims.truncate(count(reported));
    let dims = dims.into_iter().map(count).collect();
    Ok((name, offset, field_type, dims))
}

/// Member `index` of an enum type: its name and value in native bytes (up to 8).
pub(crate) fn enum_member(
    _lib: &Lib,
    grp: Grp<'_>,
    xtype: nc_type,
    index: usize,
    context: &dyn Fn() -> String,
) -> Result<(String, [u8; 8]), NcError> {
    let member = c_int::try_from(index).map_err(|_| too_large(context))?;
    let mut value = [0u8; 8];
    let name = grp.read_name(
        // SAFETY: the name buffer holds as many bytes as a name of this file can take;
        // value holds 8 bytes, the size of the largest enum base type.
        |name| unsafe {
            nc_inq_enum_member(
                grp.id(),
                xtype,
                member,
                name,
                value.as_mut_ptr().cast::<c_void>(),
            )
        },
        context,
    )?;
    Ok((name, value))
}

/// A variable's storage layout code and chunk sizes (one per dimension).
pub(crate) fn var_chunking(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<(c_int, Vec<usize>), NcError> {
    let (ndims, _) = var_rank_and_type(lib, grp, varid, context)?;
    let mut layout: c_int = 0;
    // One spare entry, so that a scalar still passes a real array.
    let mut chunks = vec![0usize; ndims + 1];
    // SAFETY: chunks holds one entry per dimension libnetcdf reported just above.
    let status = unsafe { nc_inq_var_chunking(grp.id(), varid, &mut layout, chunks.as_mut_ptr()) };
    check(status, context)?;
    chunks.truncate(ndims);
    Ok((layout, chunks))
}

/// A variable's byte order code (`NC_ENDIAN_*`).
pub(crate) fn var_endian(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<c_int, NcError> {
    let mut endian: c_int = 0;
    // SAFETY: a live out-pointer; the lock is held.
    let status = unsafe { nc_inq_var_endian(grp.id(), varid, &mut endian) };
    check(status, context)?;
    Ok(endian)
}

/// Whether fill is turned off for the variable.
pub(crate) fn var_no_fill(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<bool, NcError> {
    let mut no_fill: c_int = 0;
    // SAFETY: a NULL fill-value pointer asks for the mode only; no_fill is a live local.
    let status = unsafe { nc_inq_var_fill(grp.id(), varid, &mut no_fill, std::ptr::null_mut()) };
    check(status, context)?;
    Ok(no_fill != 0)
}

/// The value a variable of a fixed-size atomic type of `size` bytes reads as where nothing
/// was written (its fill value, libnetcdf's default when it has none), or `None` when
/// fill is off for it.
pub(crate) fn var_fill_value(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    size: usize,
    context: &dyn Fn() -> String,
) -> Result<Option<Vec<u8>>, NcError> {
    let mut no_fill: c_int = 0;
    // The largest atomic type is 8 bytes; the buffer is as large whatever `size` says.
    let mut value = [0u8; 8];
    if size == 0 || size > value.len() {
        return Ok(None);
    }
    // SAFETY: value has room for one value of any fixed-size atomic type (at most 8
    // bytes, the caller's type, checked above); no_fill is a live local.
    let status =
        unsafe { nc_inq_var_fill(grp.id(), varid, &mut no_fill, value.as_mut_ptr().cast()) };
    check(status, context)?;
    Ok((no_fill == 0).then(|| value[..size].to_vec()))
}

/// A variable's filters, in pipeline order, with their parameters.
pub(crate) fn var_filters(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    context: &dyn Fn() -> String,
) -> Result<Vec<FilterInfo>, NcError> {
    let mut n: usize = 0;
    // SAFETY: a NULL id array asks for the count only.
    let status = unsafe { nc_inq_var_filter_ids(grp.id(), varid, &mut n, std::ptr::null_mut()) };
    check(status, context)?;
    let mut ids = vec![0 as c_uint; n];
    if n > 0 {
        let mut again = n;
        // SAFETY: ids holds the n entries libnetcdf reported just above.
        let status =
            unsafe { nc_inq_var_filter_ids(grp.id(), varid, &mut again, ids.as_mut_ptr()) };
        check(status, context)?;
        ids.truncate(again);
    }
    ids.into_iter()
        .map(|id| {
            let mut nparams: usize = 0;
            // SAFETY: a NULL parameter array asks for the count only.
            let status = unsafe {
                nc_inq_var_filter_info(grp.id(), varid, id, &mut nparams, std::ptr::null_mut())
            };
            check(status, context)?;
            let mut params = vec![0 as c_uint; nparams];
            if nparams > 0 {
                let mut again = nparams;
                // SAFETY: params holds the nparams entries libnetcdf reported just above.
                let status = unsafe {
                    nc_inq_var_filter_info(grp.id(), varid, id, &mut again, params.as_mut_ptr())
                };
                check(status, context)?;
                params.truncate(again);
            }
            Ok(FilterInfo { id, params })
        })
        .collect()
}

fn too_large(context: &dyn Fn() -> String) -> NcError {
    NcError {
        kind: store::ErrorKind::InvalidRequest,
        message: "an index too large for libnetcdf".into(),
        context: context(),
    }
}
