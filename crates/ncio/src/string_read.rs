//! netCDF-4 `string` variables of local files, read with HDF5 rather than libnetcdf
//! ([`HdfStrings`]):
//!
//! - fixed-length strings (files written by h5py, HDF5 programs, or netCDF-C's own
//!   `tst_fixedstring`): libnetcdf 4.9.0 hands out such a slab as one string holding every
//!   byte, then null pointers or bytes from elsewhere in memory (fixed in 4.9.1);
//! - variable-length strings, within a budget: the strings of one read may take at most
//!   the file's size and [`STRING_SLACK`]. A stored string is in the file at least once,
//!   so only repeated references or a long fill value can exceed that (before: 62 KB of
//!   file materialised 2.4 GB through libnetcdf, and would have asked for 60 GB).

use std::ffi::{c_int, CString};

use ncmodel::{AtomicType, Values};

use crate::error::NcError;
use crate::file::NcFile;
use crate::sys::{inquire, with_lib, HdfStrings, StringReadError};
use crate::var_cache::{VarCache, NC_FORMATX_NC_HDF5};

/// What the variable-length strings of one read may take beyond the file's own size:
/// 64 MiB, room for the fill values of unwritten elements.
pub(crate) const STRING_SLACK: usize = 64 << 20;

/// What the variable-length values of one read of the local file `path` may take: the
/// bytes the file really stores and [`STRING_SLACK`]. A sparse file's holes store nothing
/// (before, a 552 KB file made 3 GB long with `truncate` took 3.2 GB).
pub(crate) fn variable_length_budget(path: &str) -> usize {
    use std::os::unix::fs::MetadataExt;
    let stored = std::fs::metadata(path).map_or(0, |m| m.len().min(m.blocks().saturating_mul(512)));
    usize::try_from(stored)
        .unwrap_or(usize::MAX)
        .saturating_add(STRING_SLACK)
}

/// The string variables of one file read with HDF5, as found on first read.
pub(crate) type HdfStringVars = VarCache<HdfStrings>;

impl NcFile {
    /// The hyperslab `start`/`count` of the string variable `varid` of the group
    /// `group_ncid`, read with HDF5 when the file is a local HDF5 file; `None` when
    /// libnetcdf is to read it.
    pub(crate) fn read_hdf5_strings(
        &self,
        group_ncid: c_int,
        varid: c_int,
        start: &[usize],
        count: &[usize],
        context: &dyn Fn() -> String,
    ) -> Option<Result<Values, NcError>> {
        let var = self
            .hdf5_var(group_ncid, varid)
            .filter(|var| !var.is_measured())?;
        let read = with_lib(|lib| var.read(lib, start, count));
        Some(
            read.map(Values::String)
                .map_err(|error| nc_error(error, context)),
        )
    }

    /// Measures the hyperslab `start`/`count` of the user-type variable `varid` of the
    /// group `group_ncid` before libnetcdf reads it, when its values are of variable
    /// length: `Err` when they would take more than the file could hold.
    pub(crate) fn measure_hdf5_values(
        &self,
        group_ncid: c_int,
        varid: c_int,
        start: &[usize],
        count: &[usize],
        context: &dyn Fn() -> String,
    ) -> Result<(), NcError> {
        let Some(var) = self
            .hdf5_var(group_ncid, varid)
            .filter(|var| var.is_measured())
        else {
            return Ok(());
        };
        with_lib(|lib| var.measure(lib, start, count)).map_err(|error| nc_error(error, context))
    }

    /// The variable `varid` of the group `group_ncid` as read with HDF5, opened on its
    /// first request; `None` for the variables libnetcdf reads alone.
    fn hdf5_var(&self, group_ncid: c_int, varid: c_int) -> Option<std::sync::Arc<HdfStrings>> {
        self.hdf5_string_vars()
            .get_or_open((group_ncid, varid), || {
                self.open_hdf5_strings(group_ncid, varid)
            })
    }

    fn open_hdf5_strings(&self, group_ncid: c_int, varid: c_int) -> Option<HdfStrings> {
        if store::is_url(self.path()) {
            return None;
        }
        let file_name = CString::new(self.path().as_bytes()).ok()?;
        let budget = variable_length_budget(self.path());
        with_lib(|lib| {
            let context = || self.path().to_string();
            let file = self.open_file();
            let grp = file.group(group_ncid)?;
            let (_, formatx, _) = inquire::format(lib, grp, &context).ok()?;
            if formatx != NC_FORMATX_NC_HDF5 {
                return None;
            }
            let info = inquire::var(lib, grp, varid, &context).ok()?;
            match AtomicType::from_nc_type(info.xtype) {
                Some(AtomicType::String) | None => {}
                Some(_) => return None,
            }
            let group = crate::chunk_read::group_path(lib, file, group_ncid)?;
            HdfStrings::open(lib, &file_name, &group, &info.name, budget)
        })
    }
}

/// The error of a failed read of HDF5 strings or values.
fn nc_error(error: StringReadError, context: &dyn Fn() -> String) -> NcError {
    let (kind, message) = match error {
        StringReadError::TooLarge(message) => (store::ErrorKind::Corrupt, message),
        StringReadError::Failed(message) => (store::ErrorKind::LibraryFailed, message),
    };
    NcError {
        kind,
        message,
        context: context(),
    }
}
