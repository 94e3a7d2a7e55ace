//! Direct chunk reads and writes, bypassing HDF5's filter pipeline: chunks already
//! encoded (by `codecs`) handed to HDF5's `H5Dwrite_chunk`, so that nccopy can
//! compress on several threads, and stored chunks read with `H5Dread_chunk`, so that it
//! can copy them without decoding. HDF5 opens the file a second time; it shares the open
//! file and dataset with libnetcdf's handles, so both see the same state.

use std::ffi::CString;
use std::marker::PhantomData;

use store::StoredChunk;

use crate::create::NcWriter;
use crate::error::NcError;
use crate::file::NcFile;
use crate::sys::{with_lib, ChunkOrigin, ChunkTarget};

/// Whether chunks may be encoded and decoded outside HDF5's pipeline (unless
/// `NCTOOLS_DIRECT_CHUNKS=0`).
pub fn direct_chunks_enabled() -> bool {
    settings::direct_chunks()
}

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
        self.write_masked(offset, 0, chunk)
    }

    /// Writes a chunk as another netCDF-4 file stores it: its filters applied except those
    /// whose bit is set in its filter mask.
    pub fn write_stored(&self, offset: &[usize], chunk: &StoredChunk) -> Result<(), NcError> {
        self.write_masked(offset, chunk.filter_mask, &chunk.bytes)
    }

    /// The parameter words HDF5 stores for the variable's filter `id`, as its set-local
    /// callback completed them when the variable was created (szip's four words: the
    /// option mask, pixels per block, bits per pixel and pixels per scanline); `None`
    /// when the variable has no such filter.
    pub fn stored_filter_params(&self, id: u32) -> Option<Vec<u32>> {
        with_lib(|lib| self.target.filter_params(lib, id))
    }

    /// What is being done, for messages: the file and the variable written.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// Sets the variable's current shape, before chunks beyond it are written.
    pub fn set_shape(&self, shape: &[usize]) -> Result<(), NcError> {
        if with_lib(|lib| self.target.set_extent(lib, shape)) {
            return Ok(());
        }
        Err(NcError {
            kind: store::ErrorKind::LibraryFailed,
            message: format!("HDF5 could not extend the variable to {shape:?} (H5Dset_extent)"),
            context: self.context.clone(),
        })
    }

    fn write_masked(
        &self,
        offset: &[usize],
        filter_mask: u32,
        chunk: &[u8],
    ) -> Result<(), NcError> {
        if offset.len() != self.target.rank() {
            return Err(NcError {
                kind: store::ErrorKind::LibraryFailed,
                message: format!(
                    "a chunk offset of {} dimensions for {}",
                    offset.len(),
                    self.target.rank()
                ),
                context: self.context.clone(),
            });
        }
        if !with_lib(|lib| self.target.write(lib, offset, filter_mask, chunk)) {
            return Err(NcError {
                kind: store::ErrorKind::LibraryFailed,
                message: "HDF5 refused a chunk (H5Dwrite_chunk); rerun with \
                          NCTOOLS_DIRECT_CHUNKS=0 to let HDF5 compress"
                    .into(),
                context: self.context.clone(),
            });
        }
        Ok(())
    }
}

/// One variable of a netCDF-4 file being read, open for reading its chunks as they are
/// stored.
pub struct StoredChunkReader<'f> {
    origin: ChunkOrigin,
    context: String,
    file: PhantomData<&'f NcFile>,
}

impl std::fmt::Debug for StoredChunkReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredChunkReader")
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

impl NcFile {
    /// Opens the variable `name` of the group at `group_path` for reading its stored
    /// chunks. `None` when the file is not a netCDF-4 file on disk or HDF5 cannot open
    /// the dataset.
    pub fn stored_chunks(
        &self,
        group_path: &[String],
        name: &str,
    ) -> Option<StoredChunkReader<'_>> {
        if !self.hands_out_stored_chunks() {
            return None;
        }
        let file_name = CString::new(self.path().as_bytes()).ok()?;
        let group: String = group_path.iter().map(|g| format!("/{g}")).collect();
        let context = format!(
            "{}: reading the stored chunks of {group}/{name}",
            self.path()
        );
        let origin = with_lib(|lib| ChunkOrigin::open(lib, &file_name, &group, name))?;
        Some(StoredChunkReader {
            origin,
            context,
            file: PhantomData,
        })
    }
}

impl StoredChunkReader<'_> {
    /// How many of its chunks were ever written.
    pub fn written_chunks(&self) -> Result<u64, NcError> {
        with_lib(|lib| self.origin.written(lib)).ok_or_else(|| NcError {
            kind: store::ErrorKind::LibraryFailed,
            message: "HDF5 could not count the stored chunks (H5Dget_num_chunks)".into(),
            context: self.context.clone(),
        })
    }

    /// Where the variable's data lies in the file: its layout and stored blocks (byte
    /// offsets and lengths from HDF5's chunk index). An error when HDF5 fails or more
    /// than `max_chunks` chunks are stored.
    pub fn layout(&self, max_chunks: u64) -> Result<store::StoredLayout, NcError> {
        with_lib(|lib| self.origin.layout(lib, max_chunks)).ok_or_else(|| NcError {
            kind: store::ErrorKind::LibraryFailed,
            message: format!(
                "HDF5 could not list the stored chunks (H5Dget_chunk_info), or there are \
                 more than {max_chunks}"
            ),
            context: self.context.clone(),
        })
    }

    /// The chunk whose first element is at `offset` as stored; `None` when it was never
    /// written.
    pub fn read(&self, offset: &[usize]) -> Result<Option<StoredChunk>, NcError> {
        match with_lib(|lib| self.origin.read(lib, offset)) {
            Ok(chunk) => Ok(chunk),
            Err(()) => Err(NcError {
                kind: store::ErrorKind::LibraryFailed,
                message: format!("HDF5 could not read the stored chunk at {offset:?}"),
                context: self.context.clone(),
            }),
        }
    }
}
