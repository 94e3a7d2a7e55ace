//! Direct chunk writes: chunks already encoded (by `h5filters`) handed to HDF5's
//! `H5Dwrite_chunk`, bypassing its filter pipeline, so that nccopy can compress on several
//! threads. HDF5 opens the file being written a second time; it shares the open file and
//! dataset with libnetcdf's handles, so both see the same state.

use std::ffi::{c_void, CString};
use std::marker::PhantomData;

use hdf5_metno_sys::h5::hsize_t;
use hdf5_metno_sys::h5d::{H5Dclose, H5Dget_space, H5Dopen2, H5Dwrite_chunk};
use hdf5_metno_sys::h5f::{H5Fclose, H5Fopen, H5F_ACC_RDWR};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5l::H5Lexists;
use hdf5_metno_sys::h5p::H5P_DEFAULT;
use hdf5_metno_sys::h5s::{H5Sclose, H5Sget_simple_extent_ndims};

use crate::create::NcWriter;
use crate::error::{NcError, NC_EHDFERR};
use crate::ffi::locked;

/// One dataset of the file being written, open for direct chunk writes. It borrows the
/// writer, so it is closed before the file is finished or abandoned.
#[derive(Debug)]
pub struct DirectChunkWriter<'w> {
    file: hid_t,
    dataset: hid_t,
    rank: usize,
    context: String,
    writer: PhantomData<&'w NcWriter>,
}

/// Opens `object` (a dataset path) of `file`, or the dataset libnetcdf stores a variable
/// under when a dimension has its name (`_nc4_non_coord_NAME`).
/// Must be called with the library lock held.
fn open_dataset(file: hid_t, group: &str, name: &str) -> Option<hid_t> {
    for candidate in [
        format!("{group}/_nc4_non_coord_{name}"),
        format!("{group}/{name}"),
    ] {
        let path = CString::new(candidate).ok()?;
        // SAFETY: file is open and path a valid C string.
        if unsafe { H5Lexists(file, path.as_ptr(), H5P_DEFAULT) } > 0 {
            // SAFETY: as above; the id is checked by the caller.
            let id = unsafe { H5Dopen2(file, path.as_ptr(), H5P_DEFAULT) };
            return (id >= 0).then_some(id);
        }
    }
    None
}

impl NcWriter {
    /// Opens the variable `name` of the group at `group_path` for direct chunk writes.
    /// `None` when the output does not allow it (not a netCDF-4 file on disk, or built in
    /// memory) or HDF5 cannot open the dataset: the caller then writes through libnetcdf.
    pub fn direct_chunks(
        &self,
        group_path: &[String],
        name: &str,
    ) -> Option<DirectChunkWriter<'_>> {
        let path = self.direct_path()?;
        let file_name = CString::new(path.to_string_lossy().as_bytes()).ok()?;
        let group: String = group_path.iter().map(|g| format!("/{g}")).collect();
        let context = format!("{}: writing the chunks of {group}/{name}", self.target());
        locked(|| {
            // SAFETY: a valid C string; the id is checked and closed by Drop or below.
            let file = unsafe { H5Fopen(file_name.as_ptr(), H5F_ACC_RDWR, H5P_DEFAULT) };
            if file < 0 {
                return None;
            }
            let Some(dataset) = open_dataset(file, &group, name) else {
                // SAFETY: file was opened above and is closed once.
                unsafe { H5Fclose(file) };
                return None;
            };
            // SAFETY: dataset is open; the space id is closed at once.
            let rank = unsafe {
                let space = H5Dget_space(dataset);
                let rank = H5Sget_simple_extent_ndims(space);
                H5Sclose(space);
                rank
            };
            Some(DirectChunkWriter {
                file,
                dataset,
                rank: usize::try_from(rank).unwrap_or(0),
                context,
                writer: PhantomData,
            })
        })
    }
}

impl DirectChunkWriter<'_> {
    /// Writes the encoded chunk whose first element is at `offset` (element indices, a
    /// multiple of the chunk shape); all of the dataset's filters were applied to it.
    pub fn write(&self, offset: &[usize], chunk: &[u8]) -> Result<(), NcError> {
        if offset.len() != self.rank {
            return Err(NcError {
                code: NC_EHDFERR,
                message: format!(
                    "a chunk offset of {} dimensions for {}",
                    offset.len(),
                    self.rank
                ),
                context: self.context.clone(),
            });
        }
        let offset: Vec<hsize_t> = offset.iter().map(|o| *o as hsize_t).collect();
        // SAFETY: the dataset is open, offset has one entry per dimension (checked above)
        // and the buffer holds chunk.len() bytes.
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
            return Err(NcError {
                code: NC_EHDFERR,
                message: "HDF5 refused a chunk (H5Dwrite_chunk); rerun with \
                          NCTOOLS_DIRECT_CHUNKS=0 to let HDF5 compress"
                    .into(),
                context: self.context.clone(),
            });
        }
        Ok(())
    }
}

impl Drop for DirectChunkWriter<'_> {
    fn drop(&mut self) {
        // SAFETY: both ids were opened by direct_chunks and are closed once.
        locked(|| unsafe {
            H5Dclose(self.dataset);
            H5Fclose(self.file);
        });
    }
}
