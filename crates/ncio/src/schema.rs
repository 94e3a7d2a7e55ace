//! Reading a dataset's schema: format, groups, dimensions, user types, variables and
//! attributes.

use std::ffi::c_int;

use ncmodel::{
    AtomicType, CompoundField, Dataset, Dim, Format, GlobalSpecials, Group, TypeId, UserType,
    UserTypeKind, Values, Var,
};
use netcdf_sys::{nc_type, NC_FORMATX_NCZARR, NC_GLOBAL};

use crate::attribute::{read_attribute, read_attributes};
use crate::error::NcError;
use crate::storage::read_storage;
use crate::sys::values::type_ref_of;
use crate::sys::{inquire, Grp, Lib, OpenFile, TypeTable};

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

fn read_format(lib: &Lib, root: Grp<'_>, path: &str) -> Result<(Format, bool), NcError> {
    let (format, formatx, _) = inquire::format(lib, root, &|| format!("{path}: format"))?;
    let format = match format {
        1 => Format::Classic,
        2 => Format::Offset64,
        5 => Format::Cdf5,
        4 => Format::Netcdf4Classic,
        _ => Format::Netcdf4,
    };
    Ok((format, formatx == NC_FORMATX_NCZARR))
}

/// Reads every user type of the file, in definition order, group by group.
pub(crate) fn read_types(lib: &Lib, file: &OpenFile, path: &str) -> Result<Vec<UserType>, NcError> {
    let mut types = Vec::new();
    collect_types(lib, file.root(), &mut Vec::new(), &mut types, path)?;
    Ok(types)
}

/// Reads the whole dataset; `types` are the file's user types ([`read_types`]).
pub(crate) fn read_dataset(
    lib: &Lib,
    file: &OpenFile,
    types: Vec<UserType>,
    path: &str,
) -> Result<Dataset, NcError> {
    let root = file.root();
    let (format, is_nczarr) = read_format(lib, root, path)?;
    let context = || path.to_string();
    let table = TypeTable::new(&types, &context)?;
    let netcdf4 = !format.is_classic_family();
    let mode = ReadMode { netcdf4, is_nczarr };
    let root_group = read_group(lib, table, root, "/".to_string(), mode, path)?;
    let specials = if netcdf4 {
        read_specials(lib, table, root, path)
    } else {
        GlobalSpecials::default()
    };
    Ok(Dataset {
        format,
        is_nczarr,
        specials,
        types,
        root: root_group,
    })
}

fn collect_types(
    lib: &Lib,
    grp: Grp<'_>,
    group_path: &mut Vec<String>,
    types: &mut Vec<UserType>,
    path: &str,
) -> Result<(), NcError> {
    for id in inquire::type_ids(lib, grp, &|| format!("{path}: types"))? {
        types.push(read_user_type(lib, grp, id, group_path, path)?);
    }
    for child in inquire::child_groups(lib, grp, &|| format!("{path}: groups"))? {
        group_path.push(inquire::group_name(lib, child, &|| {
            format!("{path}: group name")
        })?);
        collect_types(lib, child, group_path, types, path)?;
        group_path.pop();
    }
    Ok(())
}

fn read_user_type(
    lib: &Lib,
    grp: Grp<'_>,
    xtype: nc_type,
    group_path: &[String],
    path: &str,
) -> Result<UserType, NcError> {
    let context = || format!("{path}: user type {xtype}");
    let (name, size, base, nfields, class) = inquire::user_type(lib, grp, xtype, &context)?;
    let kind = match class {
        NC_COMPOUND => UserTypeKind::Compound {
            fields: (0..nfields)
                .map(|f| {
                    let (name, offset, field_type, dims) =
                        inquire::compound_field(lib, grp, xtype, f, &context)?;
                    Ok(CompoundField {
                        name,
                        offset,
                        type_ref: type_ref_of(field_type),
                        dims,
                    })
                })
                .collect::<Result<_, NcError>>()?,
        },
        NC_VLEN => UserTypeKind::Vlen {
            base: type_ref_of(base),
        },
        NC_ENUM => {
            let base = AtomicType::from_nc_type(base).unwrap_or(AtomicType::Int);
            UserTypeKind::Enum {
                base,
                members: (0..nfields)
                    .map(|i| {
                        let (name, value) = inquire::enum_member(lib, grp, xtype, i, &context)?;
                        Ok((name, integer_from_native(base, &value)))
                    })
                    .collect::<Result<_, NcError>>()?,
            }
        }
        NC_OPAQUE => UserTypeKind::Opaque,
        _ => UserTypeKind::Opaque,
    };
    Ok(UserType {
        id: TypeId(xtype),
        name,
        group_path: group_path.to_vec(),
        size,
        kind,
    })
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
    lib: &Lib,
    table: TypeTable<'_>,
    grp: Grp<'_>,
    name: String,
    mode: ReadMode,
    path: &str,
) -> Result<Group, NcError> {
    let here = |what: &str| format!("{path}: group {name}: {what}");
    let dim_ids = inquire::dim_ids(lib, grp, &|| here("dimensions"))?;
    let unlimited = inquire::unlimited_dim_ids(lib, grp, &|| here("unlimited dimensions"))?;
    let dims = dim_ids
        .iter()
        .map(|&id| {
            let (dim_name, len) = inquire::dim(lib, grp, id, &|| here("dimension"))?;
            Ok(Dim {
                id,
                name: dim_name,
                len,
                unlimited: unlimited.contains(&id),
            })
        })
        .collect::<Result<_, NcError>>()?;
    let type_ids = inquire::type_ids(lib, grp, &|| here("types"))?;
    let var_ids = inquire::var_ids(lib, grp, &|| here("variables"))?;
    let vars = var_ids
        .iter()
        .map(|&varid| read_var(lib, table, grp, varid, mode, &|| here("variable")))
        .collect::<Result<_, _>>()?;
    let natts = inquire::group_natts(lib, grp, &|| here("attributes"))?;
    let owner = || format!("{path}: group {name}");
    let atts = read_attributes(lib, table, grp, NC_GLOBAL, natts, &owner)?;
    let mut groups = Vec::new();
    for child in inquire::child_groups(lib, grp, &|| here("groups"))? {
        let child_name = inquire::group_name(lib, child, &|| here("group name"))?;
        groups.push(read_group(lib, table, child, child_name, mode, path)?);
    }
    Ok(Group {
        ncid: grp.id(),
        name,
        dims,
        type_ids: type_ids.into_iter().map(TypeId).collect(),
        vars,
        atts,
        groups,
    })
}

fn read_var(
    lib: &Lib,
    table: TypeTable<'_>,
    grp: Grp<'_>,
    varid: c_int,
    mode: ReadMode,
    context: &dyn Fn() -> String,
) -> Result<Var, NcError> {
    let info = inquire::var(lib, grp, varid, context)?;
    let name = info.name;
    let owner = || format!("{}: variable {name}", context());
    let atts = read_attributes(lib, table, grp, varid, info.natts, &owner)?;
    let storage = if mode.netcdf4 {
        let mut storage = read_storage(lib, table, grp, varid, mode.is_nczarr, &owner)?;
        storage.quantize = crate::storage::quantize_from_attributes(&atts);
        Some(storage)
    } else {
        None
    };
    Ok(Var {
        id: varid,
        name,
        type_ref: type_ref_of(info.xtype),
        dim_ids: info.dim_ids,
        atts,
        storage,
    })
}

fn read_specials(lib: &Lib, table: TypeTable<'_>, root: Grp<'_>, path: &str) -> GlobalSpecials {
    let text = |name: &str| match read_global(lib, table, root, name, path) {
        Some(Values::Char(bytes)) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    };
    GlobalSpecials {
        nc_properties: text("_NCProperties"),
        superblock_version: read_global_int(lib, table, root, "_SuperblockVersion", path),
        // Costly: libnetcdf scans every attribute of the file to answer it. Read on demand
        // (NcFile::is_netcdf4_attribute).
        is_netcdf4: None,
    }
}

/// The values of the global attribute `name`, if it exists (asked once: for the virtual
/// attributes each query costs libnetcdf a scan).
fn read_global(
    lib: &Lib,
    table: TypeTable<'_>,
    root: Grp<'_>,
    name: &str,
    path: &str,
) -> Option<Values> {
    let owner = || path.to_string();
    read_attribute(lib, table, root, NC_GLOBAL, name, &owner)
        .ok()
        .map(|a| a.values)
}

/// The first value of the integer global attribute `name`, if it exists.
pub(crate) fn read_global_int(
    lib: &Lib,
    table: TypeTable<'_>,
    root: Grp<'_>,
    name: &str,
    path: &str,
) -> Option<i32> {
    let values = read_global(lib, table, root, name, path)?;
    values.integer_at(0).and_then(|v| i32::try_from(v).ok())
}
