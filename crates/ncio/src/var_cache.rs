//! What was found about a file's variables on their first read, by (group id, variable
//! id): the way each is read (decoded here, read with HDF5), or `None` for libnetcdf.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::{Arc, Mutex, PoisonError};

/// libnetcdf's extended format of netCDF-4/HDF5 files (`NC_FORMATX_NC_HDF5`).
pub(crate) const NC_FORMATX_NC_HDF5: c_int = 2;

/// A variable by group and variable id.
pub(crate) type VarKey = (c_int, c_int);

/// Each variable's `T`, opened on its first read; `None` for the variables libnetcdf
/// reads.
pub(crate) struct VarCache<T> {
    vars: Mutex<HashMap<VarKey, Option<Arc<T>>>>,
}

impl<T> Default for VarCache<T> {
    fn default() -> Self {
        Self {
            vars: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> std::fmt::Debug for VarCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VarCache").finish_non_exhaustive()
    }
}

impl<T> VarCache<T> {
    /// The `T` of the variable `key`, opened with `open` on its first request (a `None`
    /// is kept too, so that it is not opened again).
    pub(crate) fn get_or_open(
        &self,
        key: VarKey,
        open: impl FnOnce() -> Option<T>,
    ) -> Option<Arc<T>> {
        self.vars
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_insert_with(|| open().map(Arc::new))
            .clone()
    }

    /// Every `T` opened so far.
    pub(crate) fn opened(&self) -> Vec<Arc<T>> {
        self.vars
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .flatten()
            .cloned()
            .collect()
    }
}
