//! Reading attributes of any type.

use std::ffi::{c_int, c_void};

use ncmodel::{Attribute, TypeRef};
use netcdf_sys::{nc_get_att, nc_inq_att, nc_inq_attname, nc_type};

use crate::decode::TypeTable;
use crate::error::NcError;
use crate::ffi::{c_name, check, NameBuf};
use crate::schema::type_ref;

/// Reads every attribute of `varid` (or the group's, with `NC_GLOBAL`), in order.
/// Must be called with the library lock held.
pub(crate) fn read_attributes(
    table: TypeTable<'_>,
    ncid: c_int,
    varid: c_int,
    natts: usize,
    owner: &dyn Fn() -> String,
) -> Result<Vec<Attribute>, NcError> {
    (0..natts)
        .map(|i| {
            let mut name = NameBuf::new();
            // SAFETY: name holds NC_MAX_NAME + 1 bytes.
            let status = unsafe { nc_inq_attname(ncid, varid, i as c_int, name.as_mut_ptr()) };
            check(status, || format!("{}: attribute {i}", owner()))?;
            read_attribute(table, ncid, varid, &name.to_text(), owner)
        })
        .collect()
}

/// Reads one attribute by name. Must be called with the library lock held.
pub(crate) fn read_attribute(
    table: TypeTable<'_>,
    ncid: c_int,
    varid: c_int,
    name: &str,
    owner: &dyn Fn() -> String,
) -> Result<Attribute, NcError> {
    let context = || format!("{}: attribute {name}", owner());
    let c = c_name(name, context)?;
    let mut xtype: nc_type = 0;
    let mut len: usize = 0;
    // SAFETY: c is a valid C string; xtype and len are valid out-pointers.
    check(
        unsafe { nc_inq_att(ncid, varid, c.as_ptr(), &mut xtype, &mut len) },
        context,
    )?;
    let type_ref: TypeRef = type_ref(xtype);
    let values = table.read(
        type_ref,
        len,
        // SAFETY: the buffer holds len values of the attribute's type.
        |buf: *mut c_void| unsafe { nc_get_att(ncid, varid, c.as_ptr(), buf) },
        context,
    )?;
    Ok(Attribute {
        name: name.to_string(),
        type_ref,
        values,
    })
}

/// Whether the attribute exists. Must be called with the library lock held.
pub(crate) fn has_attribute(ncid: c_int, varid: c_int, name: &str) -> bool {
    let Ok(c) = c_name(name, String::new) else {
        return false;
    };
    let (mut xtype, mut len): (nc_type, usize) = (0, 0);
    // SAFETY: c is a valid C string; xtype and len are valid out-pointers.
    unsafe { nc_inq_att(ncid, varid, c.as_ptr(), &mut xtype, &mut len) == 0 }
}
