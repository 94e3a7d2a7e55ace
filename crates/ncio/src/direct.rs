//! Direct chunk writes: chunks already encoded (by `h5filters`) handed to HDF5's
//! `H5Dwrite_chunk`, bypassing its filter pipeline, so that nccopy can compress on several
//! threads. HDF5 opens the file being written a second time; it shares the open file and
//! dataset with libnetcdf's handles, so both see the same state.

use std::ffi::CString;
use std::marker::PhantomData;

use crate::create::NcWriter;
use crate::error::{NcError, NC_EHDFERR};
use crate::sys::{with_lib, ChunkTarget};

/// One dataset of the file being written, open for direct chunk writes. It borrows the
/// writer, so it is closed before the file is finished or abandoned.
pub struct DirectChunkWriter<'w> {
    target: ChunkTarget,
    context: String,
    writer: PhantomData<&'w NcWriter>,
}

impl std::fmt::Debug for DirectChunkWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectChunkWriter")
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
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
        let target = with_lib(|lib| ChunkTarget::open(lib, &file_name, &group, name))?;
        Some(DirectChunkWriter {
            target,
            context,
            writer: PhantomData,
        })
    }
}

impl DirectChunkWriter<'_> {
    /// Writes the encoded chunk whose first element is at `offset` (element indices, a
    /// multiple of the chunk shape); all of the dataset's filters were applied to it.
    pub fn write(&self, offset: &[usize], chunk: &[u8]) -> Result<(), NcError> {
        if offset.len() != self.target.rank() {
            return Err(NcError {
                code: NC_EHDFERR,
                message: format!(
                    "a chunk offset of {} dimensions for {}",
                    offset.len(),
                    self.target.rank()
                ),
                context: self.context.clone(),
            });
        }
        if !with_lib(|lib| self.target.write(lib, offset, chunk)) {
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
