//! Reading a dataset's schema: format, groups, dimensions, user types, variables and
//! attributes. Every function here must be called with the library lock held.

use std::ffi::{c_int, c_void};

use ncmodel::{
    AtomicType, CompoundField, Dataset, Dim, Format, GlobalSpecials, Group, TypeId, TypeRef,
    UserType, UserTypeKind, Values, Var,
};
use netcdf_sys::{
    nc_inq_compound_field, nc_inq_dim, nc_inq_dimids, nc_inq_enum_member, nc_inq_format,
    nc_inq_format_extended, nc_inq_grpname, nc_inq_grps, nc_inq_natts, nc_inq_typeids,
    nc_inq_unlimdims, nc_inq_user_type, nc_inq_var, nc_inq_varids, nc_type, NC_FORMATX_NCZARR,
    NC_GLOBAL, NC_MAX_VAR_DIMS,
};

use crate::attribute::{has_attribute, read_attribute, read_attributes};
use crate::decode::TypeTable;
use crate::error::NcError;
use crate::ffi::{check, NameBuf};
use crate::storage::read_storage;

const NC_VLEN: c_int = 13;
const NC_OPAQUE: c_int = 14;
const NC_ENUM: c_int = 15;
const NC_COMPOUND: c_int = 16;

/// What kind of dataset is being read.
#[derive(Debug, Clone, Copy)]
struct ReadMode {
    /// netCDF-4 (storage properties exist).
    netcdf4: bool,
    /// Stored by NCZarr (`_Codecs` exist).
    is_nczarr: bool,
}

/// The model's reference to a netCDF type id.
pub(crate) fn type_ref(xtype: nc_type) -> TypeRef {
    AtomicType::from_nc_type(xtype).map_or(TypeRef::User(TypeId(xtype)), TypeRef::Atomic)
}

/// Reads ids with the usual two-call pattern: `call(count, NULL)` then `call(count, ids)`.
fn read_ids(
    mut call: impl FnMut(*mut c_int, *mut c_int) -> c_int,
    context: &dyn Fn() -> String,
) -> Result<Vec<c_int>, NcError> {
    let mut n: c_int = 0;
    check(call(&mut n, std::ptr::null_mut()), context)?;
    let mut ids = vec![0; usize::try_from(n).unwrap_or(0)];
    if !ids.is_empty() {
        check(call(&mut n, ids.as_mut_ptr()), context)?;
    }
    Ok(ids)
}

fn read_format(ncid: c_int, path: &str) -> Result<(Format, bool), NcError> {
    let context = || format!("{path}: format");
    let (mut format, mut formatx, mut mode): (c_int, c_int, c_int) = (0, 0, 0);
    // SAFETY: valid out-pointers.
    check(unsafe { nc_inq_format(ncid, &mut format) }, context)?;
    // SAFETY: valid out-pointers.
    check(
        unsafe { nc_inq_format_extended(ncid, &mut formatx, &mut mode) },
        context,
    )?;
    let format = match format {
        1 => Format::Classic,
        2 => Format::Offset64,
        5 => Format::Cdf5,
        4 => Format::Netcdf4Classic,
        _ => Format::Netcdf4,
    };
    Ok((format, formatx == NC_FORMATX_NCZARR))
}

/// Reads the whole dataset open as `ncid`.
pub(crate) fn read_dataset(ncid: c_int, path: &str) -> Result<Dataset, NcError> {
    let (format, is_nczarr) = read_format(ncid, path)?;
    let mut types = Vec::new();
    collect_types(ncid, &mut Vec::new(), &mut types, path)?;
    let table = TypeTable {
        ncid,
        types: &types,
    };
    let netcdf4 = !format.is_classic_family();
    let mode = ReadMode { netcdf4, is_nczarr };
    let root = read_group(table, ncid, "/".to_string(), mode, path)?;
    let specials = if netcdf4 {
        read_specials(table, ncid, path)
    } else {
        GlobalSpecials::default()
    };
    Ok(Dataset {
        format,
        is_nczarr,
        specials,
        types,
        root,
    })
}

fn group_name(ncid: c_int, path: &str) -> Result<String, NcError> {
    let mut name = NameBuf::new();
    // SAFETY: name holds NC_MAX_NAME + 1 bytes.
    check(unsafe { nc_inq_grpname(ncid, name.as_mut_ptr()) }, || {
        format!("{path}: group name")
    })?;
    Ok(name.to_text())
}

fn child_groups(ncid: c_int, path: &str) -> Result<Vec<c_int>, NcError> {
    // SAFETY: read_ids passes a count pointer and a NULL or large-enough id array.
    read_ids(|n, ids| unsafe { nc_inq_grps(ncid, n, ids) }, &|| {
        format!("{path}: groups")
    })
}

fn collect_types(
    ncid: c_int,
    group_path: &mut Vec<String>,
    types: &mut Vec<UserType>,
    path: &str,
) -> Result<(), NcError> {
    // SAFETY: read_ids passes a count pointer and a NULL or large-enough id array.
    let ids = read_ids(|n, ids| unsafe { nc_inq_typeids(ncid, n, ids) }, &|| {
        format!("{path}: types")
    })?;
    for id in ids {
        types.push(read_user_type(ncid, id, group_path, path)?);
    }
    for child in child_groups(ncid, path)? {
        group_path.push(group_name(child, path)?);
        collect_types(child, group_path, types, path)?;
        group_path.pop();
    }
    Ok(())
}

fn read_user_type(
    ncid: c_int,
    xtype: nc_type,
    group_path: &[String],
    path: &str,
) -> Result<UserType, NcError> {
    let context = || format!("{path}: user type {xtype}");
    let mut name = NameBuf::new();
    let (mut size, mut base, mut nfields, mut class): (usize, nc_type, usize, c_int) = (0, 0, 0, 0);
    // SAFETY: name holds NC_MAX_NAME + 1 bytes; the others are valid out-pointers.
    let status = unsafe {
        nc_inq_user_type(
            ncid,
            xtype,
            name.as_mut_ptr(),
            &mut size,
            &mut base,
            &mut nfields,
            &mut class,
        )
    };
    check(status, context)?;
    let kind = match class {
        NC_COMPOUND => UserTypeKind::Compound {
            fields: (0..nfields)
                .map(|f| read_field(ncid, xtype, f, &context))
                .collect::<Result<_, _>>()?,
        },
        NC_VLEN => UserTypeKind::Vlen {
            base: type_ref(base),
        },
        NC_ENUM => {
            let base = AtomicType::from_nc_type(base).unwrap_or(AtomicType::Int);
            UserTypeKind::Enum {
                base,
                members: (0..nfields)
                    .map(|i| read_enum_member(ncid, xtype, i, base, &context))
                    .collect::<Result<_, _>>()?,
            }
        }
        NC_OPAQUE => UserTypeKind::Opaque,
        _ => UserTypeKind::Opaque,
    };
    Ok(UserType {
        id: TypeId(xtype),
        name: name.to_text(),
        group_path: group_path.to_vec(),
        size,
        kind,
    })
}

fn read_field(
    ncid: c_int,
    xtype: nc_type,
    field: usize,
    context: &dyn Fn() -> String,
) -> Result<CompoundField, NcError> {
    let mut name = NameBuf::new();
    let (mut offset, mut field_type, mut ndims): (usize, nc_type, c_int) = (0, 0, 0);
    let mut dims = vec![0 as c_int; NC_MAX_VAR_DIMS as usize];
    // SAFETY: name holds NC_MAX_NAME + 1 bytes, dims NC_MAX_VAR_DIMS entries.
    let status = unsafe {
        nc_inq_compound_field(
            ncid,
            xtype,
            field as c_int,
            name.as_mut_ptr(),
            &mut offset,
            &mut field_type,
            &mut ndims,
            dims.as_mut_ptr(),
        )
    };
    check(status, context)?;
    dims.truncate(usize::try_from(ndims).unwrap_or(0));
    Ok(CompoundField {
        name: name.to_text(),
        offset,
        type_ref: type_ref(field_type),
        dims: dims
            .into_iter()
            .map(|d| usize::try_from(d).unwrap_or(0))
            .collect(),
    })
}

fn read_enum_member(
    ncid: c_int,
    xtype: nc_type,
    index: usize,
    base: AtomicType,
    context: &dyn Fn() -> String,
) -> Result<(String, i128), NcError> {
    let mut name = NameBuf::new();
    let mut value = [0u8; 8];
    // SAFETY: name holds NC_MAX_NAME + 1 bytes; value 8 bytes, the largest base type.
    let status = unsafe {
        nc_inq_enum_member(
            ncid,
            xtype,
            index as c_int,
            name.as_mut_ptr(),
            value.as_mut_ptr().cast::<c_void>(),
        )
    };
    check(status, context)?;
    Ok((name.to_text(), integer_from_native(base, &value)))
}

/// The integer an enum member's value bytes hold, by base type.
fn integer_from_native(base: AtomicType, b: &[u8; 8]) -> i128 {
    let two = [b[0], b[1]];
    let four = [b[0], b[1], b[2], b[3]];
    match base {
        AtomicType::Byte => i128::from(b[0] as i8),
        AtomicType::UByte | AtomicType::Char => i128::from(b[0]),
        AtomicType::Short => i128::from(i16::from_ne_bytes(two)),
        AtomicType::UShort => i128::from(u16::from_ne_bytes(two)),
        AtomicType::Int => i128::from(i32::from_ne_bytes(four)),
        AtomicType::UInt => i128::from(u32::from_ne_bytes(four)),
        AtomicType::Int64 => i128::from(i64::from_ne_bytes(*b)),
        _ => i128::from(u64::from_ne_bytes(*b)),
    }
}

fn read_group(
    table: TypeTable<'_>,
    ncid: c_int,
    name: String,
    mode: ReadMode,
    path: &str,
) -> Result<Group, NcError> {
    let here = |what: &str| format!("{path}: group {name}: {what}");
    // SAFETY: read_ids passes a count pointer and a NULL or large-enough id array.
    let dim_ids = read_ids(|n, ids| unsafe { nc_inq_dimids(ncid, n, ids, 0) }, &|| {
        here("dimensions")
    })?;
    // SAFETY: as above.
    let unlimited = read_ids(|n, ids| unsafe { nc_inq_unlimdims(ncid, n, ids) }, &|| {
        here("unlimited dimensions")
    })?;
    let dims = dim_ids
        .iter()
        .map(|&id| read_dim(ncid, id, unlimited.contains(&id), &|| here("dimension")))
        .collect::<Result<_, _>>()?;
    // SAFETY: as above.
    let type_ids = read_ids(|n, ids| unsafe { nc_inq_typeids(ncid, n, ids) }, &|| {
        here("types")
    })?;
    // SAFETY: as above.
    let var_ids = read_ids(|n, ids| unsafe { nc_inq_varids(ncid, n, ids) }, &|| {
        here("variables")
    })?;
    let vars = var_ids
        .iter()
        .map(|&varid| read_var(table, ncid, varid, mode, &|| here("variable")))
        .collect::<Result<_, _>>()?;
    let mut natts: c_int = 0;
    // SAFETY: valid out-pointer.
    check(unsafe { nc_inq_natts(ncid, &mut natts) }, || {
        here("attributes")
    })?;
    let owner = || format!("{path}: group {name}");
    let atts = read_attributes(table, ncid, NC_GLOBAL, natts as usize, &owner)?;
    let mut groups = Vec::new();
    for child in child_groups(ncid, path)? {
        let child_name = group_name(child, path)?;
        groups.push(read_group(table, child, child_name, mode, path)?);
    }
    Ok(Group {
        ncid,
        name,
        dims,
        type_ids: type_ids.into_iter().map(TypeId).collect(),
        vars,
        atts,
        groups,
    })
}

fn read_dim(
    ncid: c_int,
    id: c_int,
    unlimited: bool,
    context: &dyn Fn() -> String,
) -> Result<Dim, NcError> {
    let mut name = NameBuf::new();
    let mut len: usize = 0;
    // SAFETY: name holds NC_MAX_NAME + 1 bytes; len is a valid out-pointer.
    check(
        unsafe { nc_inq_dim(ncid, id, name.as_mut_ptr(), &mut len) },
        context,
    )?;
    Ok(Dim {
        id,
        name: name.to_text(),
        len,
        unlimited,
    })
}

fn read_var(
    table: TypeTable<'_>,
    ncid: c_int,
    varid: c_int,
    mode: ReadMode,
    context: &dyn Fn() -> String,
) -> Result<Var, NcError> {
    let mut name = NameBuf::new();
    let (mut xtype, mut ndims, mut natts): (nc_type, c_int, c_int) = (0, 0, 0);
    let mut dim_ids = vec![0 as c_int; NC_MAX_VAR_DIMS as usize];
    // SAFETY: name holds NC_MAX_NAME + 1 bytes, dim_ids NC_MAX_VAR_DIMS entries.
    let status = unsafe {
        nc_inq_var(
            ncid,
            varid,
            name.as_mut_ptr(),
            &mut xtype,
            &mut ndims,
            dim_ids.as_mut_ptr(),
            &mut natts,
        )
    };
    check(status, context)?;
    dim_ids.truncate(usize::try_from(ndims).unwrap_or(0));
    let name = name.to_text();
    let owner = || format!("{}: variable {name}", context());
    let atts = read_attributes(table, ncid, varid, natts as usize, &owner)?;
    let storage = if mode.netcdf4 {
        let ndims = dim_ids.len();
        let mut storage = read_storage(table, ncid, varid, ndims, mode.is_nczarr, &owner)?;
        storage.quantize = crate::storage::quantize_from_attributes(&atts);
        Some(storage)
    } else {
        None
    };
    Ok(Var {
        id: varid,
        name,
        type_ref: type_ref(xtype),
        dim_ids,
        atts,
        storage,
    })
}

fn read_specials(table: TypeTable<'_>, ncid: c_int, path: &str) -> GlobalSpecials {
    let owner = || path.to_string();
    let get = |name: &str| {
        has_attribute(ncid, NC_GLOBAL, name)
            .then(|| read_attribute(table, ncid, NC_GLOBAL, name, &owner).ok())
            .flatten()
    };
    let text = |name: &str| match get(name).map(|a| a.values) {
        Some(Values::Char(bytes)) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    };
    let int = |name: &str| {
        get(name)
            .and_then(|a| a.values.integer_at(0))
            .map(|v| v as i32)
    };
    GlobalSpecials {
        nc_properties: text("_NCProperties"),
        superblock_version: int("_SuperblockVersion"),
        is_netcdf4: int("_IsNetcdf4"),
    }
}
