//! Reading attributes of any type.

use std::ffi::c_int;

use ncmodel::Attribute;

use crate::error::NcError;
use crate::sys::{inquire, Grp, Lib, TypeTable};

/// Reads every attribute of `varid` (or the group's, with `NC_GLOBAL`), in order.
pub(crate) fn read_attributes(
    lib: &Lib,
    table: TypeTable<'_>,
    grp: Grp<'_>,
    varid: c_int,
    natts: usize,
    owner: &dyn Fn() -> String,
) -> Result<Vec<Attribute>, NcError> {
    (0..natts)
        .map(|i| {
            let name = inquire::att_name(lib, grp, varid, i, &|| {
                format!("{}: attribute {i}", owner())
            })?;
            read_attribute(lib, table, grp, varid, &name, owner)
        })
        .collect()
}

/// Reads one attribute by name.
pub(crate) fn read_attribute(
    lib: &Lib,
    table: TypeTable<'_>,
    grp: Grp<'_>,
    varid: c_int,
    name: &str,
    owner: &dyn Fn() -> String,
) -> Result<Attribute, NcError> {
    let context = || format!("{}: attribute {}", owner(), crate::names::shown(name));
    let c = crate::names::c_name(name, context)?;
    let (type_ref, values) = table.get_att(lib, grp, varid, &c, &context)?;
    Ok(Attribute {
        name: name.to_string(),
        type_ref,
        values,
    })
}

/// Whether the attribute exists.
pub(crate) fn has_attribute(lib: &Lib, grp: Grp<'_>, varid: c_int, name: &str) -> bool {
    let Ok(c) = crate::names::c_name(name, String::new) else {
        return false;
    };
    inquire::att_info(lib, grp, varid, &c, &String::new).is_ok()
}
