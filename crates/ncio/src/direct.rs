//! Direct chunk writes: chunks already encoded (by `h5filters`) handed to HDF5's
//! `H5Dwrite_chunk`, bypassing its filter pipeline, so that nccopy can compress on several
//! threads. HDF5 opens the file being written a second time; it shares the open file and
//! dataset with libnetcdf's handles, so both see the same state.

use std::ffi::{c_void, CString};

use hdf5_metno_sys::h5::hsize_t;
use hdf5_metno_sys::h5d::{H5Dclose, H5Dopen2, H5Dwrite_chunk};
use hdf5_metno_sys::h5f::{H5Fclose, H5Fopen, H5F_ACC_RDWR};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5p::H5P_DEFAULT;

use crate::create::NcWriter;
use crate::error::NcError;
use crate::ffi::locked;

/// One dataset of the file being written, open for direct chunk writes.
#[derive(Debug)]
pub struct DirectChunkWriter {
    file: hid_t,
    dataset: hid_t,
    context: String,
}

fn failure(context: &str, what: &str) -> NcError {
    NcError {
        code: -101,
        message: format!("HDF5 error: {what}"),
        context: context.to_string(),
    }
}

impl NcWriter {
    /// Opens the variable `name` of the group at `group_path` for direct chunk writes, if
    /// the output allows it (a netCDF-4 file on disk, not built in memory). The variable's
    /// HDF5 dataset must carry its netCDF name: not for a variable named like a dimension
    /// it does not start with (the caller checks).
    pub fn direct_chunks(
        &self,
        group_path: &[String],
        name: &str,
    ) -> Result<Option<DirectChunkWriter>, NcError> {
        let Some(path) = self.direct_path() else {
            return Ok(None);
        };
        let context = format!("{}: direct chunk writes to {name}", self.target());
        let bad_name = || failure(&context, "a name holds a NUL byte");
        let file_name = CString::new(path.to_string_lossy().as_bytes()).map_err(|_| bad_name())?;
        let object: String = group_path.iter().map(|g| format!("/{g}")).collect();
        let object = CString::new(format!("{object}/{name}")).map_err(|_| bad_name())?;
        locked(|| {
            // SAFETY: valid C strings; the ids are checked and closed by the writer's Drop.
            let file = unsafe { H5Fopen(file_name.as_ptr(), H5F_ACC_RDWR, H5P_DEFAULT) };
            if file < 0 {
                return Err(failure(&context, "cannot open the file a second time"));
            }
            // SAFETY: file is a valid id, object a valid path string.
            let dataset = unsafe { H5Dopen2(file, object.as_ptr(), H5P_DEFAULT) };
            if dataset < 0 {
                // SAFETY: file was opened above.
                unsafe { H5Fclose(file) };
                return Err(failure(&context, "cannot open the dataset"));
            }
            Ok(Some(DirectChunkWriter {
                file,
                dataset,
                context,
            }))
        })
    }
}

impl DirectChunkWriter {
    /// Writes the encoded chunk whose first element is at `offset` (element indices, a
    /// multiple of the chunk shape); all of the dataset's filters were applied to it.
    pub fn write(&self, offset: &[usize], chunk: &[u8]) -> Result<(), NcError> {
        let offset: Vec<hsize_t> = offset.iter().map(|o| *o as hsize_t).collect();
        // SAFETY: the dataset is open, offset has one entry per dimension and the buffer
        // holds chunk.len() bytes.
        let status = locked(|| unsafe {
            H5Dwrite_chunk(
                self.dataset,
                H5P_DEFAULT,
                0,
                offset.as_ptr(),
                chunk.len(),
                chunk.as_ptr().cast::<c_void>(),
            )
        });
        if status < 0 {
            return Err(failure(&self.context, "H5Dwrite_chunk failed"));
        }
        Ok(())
    }
}

impl Drop for DirectChunkWriter {
    fn drop(&mut self) {
        // SAFETY: both ids were opened by direct_chunks and are closed once.
        locked(|| unsafe {
            H5Dclose(self.dataset);
            H5Fclose(self.file);
        });
    }
}
