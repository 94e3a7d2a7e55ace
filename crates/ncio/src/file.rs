//! An open netCDF file: the entry point of reading.

use std::ffi::{c_int, c_void, CString};

use ncmodel::{Dataset, Values, Var};
use netcdf_sys::{nc_close, nc_get_vara, nc_open, NC_NOWRITE};

use crate::decode::TypeTable;
use crate::error::NcError;
use crate::ffi::{check, locked};

/// A netCDF file opened for reading. Closed when dropped.
#[derive(Debug)]
pub struct NcFile {
    ncid: c_int,
    path: String,
}

impl NcFile {
    /// Opens `path` (a file path or an NCZarr URL) read-only.
    pub fn open(path: &str) -> Result<Self, NcError> {
        Self::open_with(path, false)
    }

    /// Like [`NcFile::open`]; with `in_memory`, the whole file is read into memory first
    /// (nccopy's `-r`).
    pub fn open_with(path: &str, in_memory: bool) -> Result<Self, NcError> {
        let mode = NC_NOWRITE
            | if in_memory {
                netcdf_sys::NC_DISKLESS
            } else {
                0
            };
        let c_path = CString::new(path).map_err(|_| NcError {
            code: -1,
            message: "path contains a NUL byte".into(),
            context: path.to_string(),
        })?;
        let mut ncid: c_int = -1;
        // SAFETY: c_path is a valid C string and ncid a valid out-pointer.
        let status = locked(|| unsafe { nc_open(c_path.as_ptr(), mode, &mut ncid) });
        check(status, || path.to_string())?;
        Ok(Self {
            ncid,
            path: path.to_string(),
        })
    }

    /// The path or URL the file was opened with.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// libnetcdf's id of the root group.
    pub fn ncid(&self) -> c_int {
        self.ncid
    }

    /// Whether the filter `id` can be used here (built into HDF5, registered, or found as a
    /// plugin); see [`crate::filter_available`].
    pub fn filter_available(&self, id: u32) -> bool {
        crate::plugins::filter_available(id)
    }

    /// Reads the whole schema: groups, dimensions, types, variables, attributes, storage.
    pub fn schema(&self) -> Result<Dataset, NcError> {
        locked(|| crate::schema::read_dataset(self.ncid, &self.path))
    }

    /// Reads the hyperslab `start`/`count` of `var` (in group `group_ncid`) of `dataset`,
    /// in row-major order. A scalar variable takes empty `start` and `count`.
    pub fn read_slab(
        &self,
        dataset: &Dataset,
        group_ncid: c_int,
        var: &Var,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, NcError> {
        let n: usize = count.iter().product();
        let table = TypeTable {
            ncid: self.ncid,
            types: &dataset.types,
        };
        let context = || format!("{}: reading variable {}", self.path, var.name);
        locked(|| {
            table.read(
                var.type_ref,
                n,
                // SAFETY: start/count have one entry per dimension of the variable and the
                // buffer holds n values of its type.
                |buf: *mut c_void| unsafe {
                    nc_get_vara(group_ncid, var.id, start.as_ptr(), count.as_ptr(), buf)
                },
                context,
            )
        })
    }
}

impl Drop for NcFile {
    fn drop(&mut self) {
        // SAFETY: ncid came from nc_open and is closed once.
        let _ = locked(|| unsafe { nc_close(self.ncid) });
    }
}
