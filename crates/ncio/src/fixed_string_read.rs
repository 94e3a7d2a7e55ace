//! String variables stored as HDF5 fixed-length strings (files written by h5py, HDF5
//! programs, or netCDF-C's own `tst_fixedstring`), read with HDF5 rather than libnetcdf:
//! libnetcdf 4.9.0 hands out such a slab as one string holding every byte, then null
//! pointers or bytes from elsewhere in memory (fixed in 4.9.1). Read here, the values are
//! right whatever the library's version.

use std::ffi::{c_int, CString};

use ncmodel::{AtomicType, Values};

use crate::error::NcError;
use crate::file::NcFile;
use crate::sys::{inquire, with_lib, FixedStrings};
use crate::var_cache::{VarCache, NC_FORMATX_NC_HDF5};

/// The string variables of one file read with HDF5, as found on first read.
pub(crate) type FixedStringVars = VarCache<FixedStrings>;

impl NcFile {
    /// The hyperslab `start`/`count` of the string variable `varid` of the group
    /// `group_ncid`, read with HDF5 when its dataset holds fixed-length strings; `None`
    /// when libnetcdf is to read it.
    pub(crate) fn read_fixed_strings(
        &self,
        group_ncid: c_int,
        varid: c_int,
        start: &[usize],
        count: &[usize],
        context: &dyn Fn() -> String,
    ) -> Option<Result<Values, NcError>> {
        let var = self
            .fixed_string_vars()
            .get_or_open((group_ncid, varid), || {
                self.open_fixed_strings(group_ncid, varid)
            })?;
        let read = with_lib(|lib| var.read(lib, start, count));
        Some(read.map(Values::String).map_err(|message| NcError {
            kind: store::ErrorKind::LibraryFailed,
            message,
            context: context(),
        }))
    }

    fn open_fixed_strings(&self, group_ncid: c_int, varid: c_int) -> Option<FixedStrings> {
        if store::is_url(self.path()) {
            return None;
        }
        let file_name = CString::new(self.path().as_bytes()).ok()?;
        with_lib(|lib| {
            let context = || self.path().to_string();
            let file = self.open_file();
            let grp = file.group(group_ncid)?;
            let (_, formatx, _) = inquire::format(lib, grp, &context).ok()?;
            if formatx != NC_FORMATX_NC_HDF5 {
                return None;
            }
            let info = inquire::var(lib, grp, varid, &context).ok()?;
            if AtomicType::from_nc_type(info.xtype)? != AtomicType::String {
                return None;
            }
            let group = crate::chunk_read::group_path(lib, file, group_ncid)?;
            FixedStrings::open(lib, &file_name, &group, &info.name)
        })
    }
}
