//! Sizes a CDL may declare, held to what the output format and memory allow, checked
//! once the format is known and before the output is created (docs/ncgen.md, "Sizes").
//! The sizes of the types themselves are held at their declarations by the CDL parser.

use std::collections::HashMap;

use anyhow::bail;
use ncmodel::{Dataset, Format, Group, TypeId, TypeRef, UserTypeKind};

/// The largest value of a netCDF-4 variable's type that can have a fill value: HDF5
/// keeps the fill value in the variable's object header, in a message of at most 64 KiB;
/// 65,529 bytes is the largest the reference ncgen (netCDF-C 4.9, HDF5 1.10) writes, one
/// byte more is "NetCDF: HDF error".
pub const MAX_FILL_VALUE_SIZE: u128 = 65_529;

/// The largest length of a dimension in `format`: libnetcdf's bounds for the classic
/// formats (`NC3_def_dim`: CDF-1 `X_INT_MAX - 3`, CDF-2 `X_UINT_MAX - 3`), `X_UINT_MAX`
/// for the netCDF-4 classic model, and a signed 64-bit count elsewhere (HDF5 sizes and
/// Zarr shapes).
pub fn max_dim_len(format: Format) -> u128 {
    match format {
        Format::Classic => i32::MAX as u128 - 3,
        Format::Offset64 => u32::MAX as u128 - 3,
        Format::Netcdf4Classic => u32::MAX as u128,
        Format::Cdf5 | Format::Netcdf4 => i64::MAX as u128,
    }
}

/// The largest size in bytes of one variable's data outside the classic formats (where
/// libnetcdf applies its own rules): HDF5 addresses, like file offsets, are signed 64-bit.
pub const MAX_VAR_BYTES: u128 = i64::MAX as u128;

/// Refuses a dimension longer than `format` allows, a variable larger than a file can
/// address, and a netCDF-4 variable whose fill value HDF5 cannot store (ncgen's `-x` does
/// not help there: libnetcdf still stores the fill value, as with the reference; only the
/// variable's `_NoFill` does).
pub fn check(dataset: &Dataset, format: Format) -> anyhow::Result<()> {
    let sizes = type_sizes(dataset);
    check_group(dataset, &sizes, &dataset.root, "", format)
}

fn check_group(
    dataset: &Dataset,
    sizes: &HashMap<TypeId, Option<u128>>,
    group: &Group,
    prefix: &str,
    format: Format,
) -> anyhow::Result<()> {
    let max = max_dim_len(format);
    for dim in &group.dims {
        if dim.len as u128 > max {
            bail!(
                "dimension {prefix}{}: a length of {} is over the limit of {max} of the {} \
                 format",
                dim.name,
                dim.len,
                format.name()
            );
        }
    }
    for var in &group.vars {
        let value = value_size(sizes, var.type_ref).unwrap_or(u128::MAX);
        let elements = var
            .dim_ids
            .iter()
            .filter_map(|id| dataset.dim(*id))
            .try_fold(1u128, |n, d| n.checked_mul(d.len.max(1) as u128));
        let bytes = elements.and_then(|n| n.checked_mul(value));
        let classic = matches!(format, Format::Classic | Format::Offset64 | Format::Cdf5);
        if !classic && bytes.is_none_or(|b| b > MAX_VAR_BYTES) {
            bail!(
                "variable {prefix}{}: its data would take more than {MAX_VAR_BYTES} bytes, \
                 the most a file can address",
                var.name
            );
        }
        let has_fill = !var.storage.as_ref().is_some_and(|s| s.no_fill);
        if matches!(format, Format::Netcdf4 | Format::Netcdf4Classic)
            && has_fill
            && value > MAX_FILL_VALUE_SIZE
        {
            bail!(
                "variable {prefix}{}: one value of its type takes {value} bytes, and HDF5 \
                 holds a fill value of at most {MAX_FILL_VALUE_SIZE} bytes (set \
                 {}:_NoFill = \"true\" to write it without one)",
                var.name,
                var.name
            );
        }
        // ncgen holds a user-type variable's values whole, as decoded values (s33c NH4:
        // 64 values of 16 MB each, a 130-byte CDL, took 2 GB); at most the chunk limit.
        let limit = codecs::partial::decoded_chunk_cap() as u128;
        let decoded =
            elements.and_then(|n| n.checked_mul(dataset.decoded_bytes(var.type_ref) as u128));
        if matches!(var.type_ref, TypeRef::User(_)) && decoded.is_none_or(|b| b > limit) {
            bail!(
                "variable {prefix}{}: ncgen holds a user-type variable's values whole, and \
                 these would take more than the chunk limit ({limit} bytes, {})",
                var.name,
                codecs::partial::CHUNK_LIMIT_VARIABLE
            );
        }
    }
    for child in &group.groups {
        check_group(
            dataset,
            sizes,
            child,
            &format!("{prefix}{}/", child.name),
            format,
        )?;
    }
    Ok(())
}

/// The bytes of one value of `t` in memory, fields without their padding (strings and
/// vlens as their pointer and `nc_vlen_t`); `None` past `u128`.
fn value_size(sizes: &HashMap<TypeId, Option<u128>>, t: TypeRef) -> Option<u128> {
    match t {
        TypeRef::Atomic(a) => Some(a.size() as u128),
        TypeRef::User(id) => sizes.get(&id).copied().flatten(),
    }
}

/// The size of one value of every user type, each worked out once, in declaration
/// order (a compound's fields are of types declared before it), so that a type nested
/// in many others is not walked again for each.
fn type_sizes(dataset: &Dataset) -> HashMap<TypeId, Option<u128>> {
    let mut sizes = HashMap::new();
    for user in &dataset.types {
        let size = match &user.kind {
            UserTypeKind::Compound { fields } => fields.iter().try_fold(0u128, |sum, f| {
                let one = value_size(&sizes, f.type_ref)?;
                let n = f
                    .dims
                    .iter()
                    .try_fold(one, |n, d| n.checked_mul(*d as u128))?;
                sum.checked_add(n)
            }),
            UserTypeKind::Vlen { .. } => Some(2 * size_of::<usize>() as u128),
            UserTypeKind::Opaque | UserTypeKind::Enum { .. } => Some(user.size as u128),
        };
        sizes.insert(user.id, size);
    }
    sizes
}
