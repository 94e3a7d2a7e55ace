//! libnetcdf's ids of the variables a [`store::VarPath`] names, found by walking the
//! file's groups by name and kept per path (the storage boundary names variables only by
//! their paths).

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::Mutex;

use store::VarPath;

use crate::error::NcError;
use crate::file::NcFile;
use crate::sys::{inquire, with_lib, Grp, Lib};

/// The ids found so far: the group's `ncid` and the variable's `varid`, per path.
#[derive(Debug, Default)]
pub(crate) struct VarIds(Mutex<HashMap<VarPath, (c_int, c_int)>>);

impl NcFile {
    /// The group id and variable id of the variable `path` names.
    pub(crate) fn var_ids(&self, path: &VarPath) -> Result<(c_int, c_int), NcError> {
        let known = self.var_id_cache();
        if let Some(ids) = known.0.lock().ok().and_then(|m| m.get(path).copied()) {
            return Ok(ids);
        }
        let context = || format!("{}: finding variable {path}", self.path());
        let found = with_lib(|lib| find(lib, self.open_file().root(), path, &context))?;
        let Some(ids) = found else {
            return Err(NcError {
                kind: store::ErrorKind::NotFound,
                message: format!("no variable {path}"),
                context: self.path().to_string(),
            });
        };
        if let Ok(mut map) = known.0.lock() {
            map.insert(path.clone(), ids);
        }
        Ok(ids)
    }
}

/// Walks from the root group `root` down the groups of `path` and finds its variable.
fn find(
    lib: &Lib,
    root: Grp<'_>,
    path: &VarPath,
    context: &dyn Fn() -> String,
) -> Result<Option<(c_int, c_int)>, NcError> {
    let mut group = root;
    for name in &path.groups {
        let mut next = None;
        for child in inquire::child_groups(lib, group, context)? {
            if &inquire::group_name(lib, child, context)? == name {
                next = Some(child);
                break;
            }
        }
        let Some(child) = next else {
            return Ok(None);
        };
        group = child;
    }
    for varid in inquire::var_ids(lib, group, context)? {
        if inquire::var(lib, group, varid, context)?.name == path.name {
            return Ok(Some((group.id(), varid)));
        }
    }
    Ok(None)
}
