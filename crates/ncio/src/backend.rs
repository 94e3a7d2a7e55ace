//! libnetcdf as a backend of the storage boundary: [`NcFile`] is a
//! [`store::StoreReader`], [`NcWriter`] a [`store::StoreWriter`], and a
//! [`DirectChunkWriter`] a [`store::ChunkSink`].

use std::path::Path;

use ncmodel::{Dataset, Layout, Values, Var};
use store::{
    ChunkSink, ChunkSource, ChunkWrite, DecodedChunkReader, RawBuffer, StoreError, StoreReader,
    StoreWriter, StoredChunk, VarPath,
};

use crate::raw::VarHandle;
use crate::{DirectChunkWriter, NcError, NcFile, NcWriter, StoredChunkReader};

/// The error for a variable `path` that the dataset being read or written does not have.
fn no_such_variable(path: &VarPath, context: &str) -> NcError {
    NcError {
        kind: store::ErrorKind::NotFound,
        message: format!("no variable {path}"),
        context: context.to_string(),
    }
}

/// The group id and the variable `path` names in `dataset`, the schema an [`NcFile`]
/// returned.
fn in_schema<'d>(
    file: &NcFile,
    dataset: &'d Dataset,
    path: &VarPath,
) -> Result<(i32, &'d Var), NcError> {
    dataset
        .var_at(path)
        .map(|(group, var)| (group.ncid, var))
        .ok_or_else(|| no_such_variable(path, file.path()))
}

impl NcWriter {
    /// The handle of the variable `path` names, once defined.
    fn handle_of(&self, path: &VarPath) -> Result<VarHandle, NcError> {
        self.handle(&path.groups, &path.name)
            .ok_or_else(|| no_such_variable(path, self.target()))
    }
}

/// Where HDF5 looks for filter plugins, and where that comes from, as the user should
/// read it.
pub fn plugin_search_path() -> String {
    let dirs = crate::plugin_search_paths().join(":");
    match std::env::var("HDF5_PLUGIN_PATH") {
        Ok(_) => format!("{dirs} (from HDF5_PLUGIN_PATH)"),
        Err(_) => format!("{dirs} (HDF5's default; set HDF5_PLUGIN_PATH to change it)"),
    }
}

/// Where HDF5 looks for filter plugins and how to provide one, as messages tell the user.
pub fn plugin_remedy() -> String {
    format!(
        "plugins were searched in {}. Install the plugin there or set HDF5_PLUGIN_PATH",
        plugin_search_path()
    )
}

/// The codecs a netCDF-4 file takes: the HDF5 filters registered in this process
/// (nctools' own) or found as plugins.
#[derive(Debug, Clone, Copy)]
pub struct Hdf5Filters;

impl store::CodecSupport for Hdf5Filters {
    fn codec(&self, id: u32) -> store::Availability {
        if crate::plugins::filter_available(id) {
            store::Availability::Available
        } else {
            store::Availability::Missing {
                remedy: format!("it is not available; {}", plugin_remedy()),
            }
        }
    }
}

/// The capabilities of a netCDF file written or read by libnetcdf: any format, any
/// layout, variable-length strings, HDF5 chunks (netCDF-4) that read as netCDF's fill
/// value where unwritten, and the filters of [`Hdf5Filters`].
pub fn capabilities() -> store::Capabilities {
    store::Capabilities::new("a netCDF file", std::sync::Arc::new(Hdf5Filters))
}

impl StoreReader for NcFile {
    fn path(&self) -> &str {
        NcFile::path(self)
    }

    fn capabilities(&self) -> store::Capabilities {
        let mut caps = capabilities();
        if !self.hands_out_stored_chunks() {
            caps.chunks = store::ChunkForm::None;
        }
        caps
    }

    fn schema(&self) -> Result<Dataset, StoreError> {
        NcFile::schema(self)
    }

    fn read_slab(
        &self,
        dataset: &Dataset,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, StoreError> {
        let (group, var) = in_schema(self, dataset, var)?;
        NcFile::read_slab(self, dataset, group, var, start, count)
    }

    fn read_raw(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        buffer: &mut RawBuffer,
    ) -> Result<(), StoreError> {
        let (group, var) = self.var_ids(var)?;
        NcFile::read_raw(self, group, var, start, count, buffer)
    }

    fn filter_available(&self, id: u32) -> bool {
        NcFile::filter_available(self, id)
    }

    fn filter_remedy(&self) -> String {
        plugin_remedy()
    }

    fn set_var_cache(&self, var: &VarPath, bytes: usize) -> Result<(), StoreError> {
        let (group, var) = self.var_ids(var)?;
        NcFile::set_var_cache(self, group, var, bytes)
    }

    fn is_netcdf4_attribute(&self) -> Option<i32> {
        NcFile::is_netcdf4_attribute(self)
    }

    fn extended_format(&self) -> Option<(i32, i32)> {
        NcFile::extended_format(self).ok()
    }

    fn stored_chunk_source(&self, var: &VarPath) -> Option<Box<dyn ChunkSource + '_>> {
        let source = self.stored_chunks(&var.groups, &var.name)?;
        Some(Box::new(source))
    }

    fn decoded_chunk_reader(
        &self,
        dataset: &Dataset,
        var: &VarPath,
    ) -> Option<Box<dyn DecodedChunkReader + '_>> {
        let (group, var) = in_schema(self, dataset, var).ok()?;
        let reader = self.chunk_reader(dataset, group, var)?;
        Some(Box::new(reader))
    }

    fn stored_sizes(&self, vars: &[VarPath]) -> Vec<Option<u64>> {
        let paths: Vec<String> = vars.iter().map(VarPath::to_string).collect();
        crate::stored_sizes(NcFile::path(self), &paths)
    }
}

impl StoreWriter for NcWriter {
    fn target(&self) -> &str {
        NcWriter::target(self)
    }

    fn temporary_path(&self) -> Option<&Path> {
        NcWriter::temporary_path(self)
    }

    fn set_no_fill(&mut self) -> Result<(), StoreError> {
        NcWriter::set_no_fill(self)
    }

    fn define(&mut self, dataset: &Dataset) -> Result<(), StoreError> {
        NcWriter::define(self, dataset)
    }

    fn write(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        values: &Values,
    ) -> Result<(), StoreError> {
        NcWriter::write(self, &var.groups, &var.name, start, count, values)
    }

    fn layout(&self, var: &VarPath) -> Result<Layout, StoreError> {
        NcWriter::layout(self, self.handle_of(var)?)
    }

    fn unwritten_value(&self, var: &VarPath, size: usize) -> Option<Vec<u8>> {
        // A new file: where nothing is written, libnetcdf and HDF5 give the fill value.
        let handle = self.handle_of(var).ok()?;
        NcWriter::unwritten_value(self, handle, size).ok().flatten()
    }

    fn write_raw(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        buffer: &RawBuffer,
    ) -> Result<(), StoreError> {
        NcWriter::write_raw(self, self.handle_of(var)?, start, count, buffer)
    }

    fn set_var_cache(&self, var: &VarPath, bytes: usize) -> Result<(), StoreError> {
        NcWriter::set_var_cache(self, self.handle_of(var)?, bytes)
    }

    fn write_chunks(&self, var: &VarPath, write: ChunkWrite<'_>) -> Result<(), StoreError> {
        NcWriter::write_chunks(self, self.handle_of(var)?, write)
    }

    fn stored_chunk_sink(&self, var: &VarPath) -> Option<Box<dyn ChunkSink + '_>> {
        let sink = self.direct_chunks(&var.groups, &var.name)?;
        Some(Box::new(sink))
    }

    fn finish(self: Box<Self>) -> Result<(), StoreError> {
        NcWriter::finish(*self)
    }
}

impl ChunkSink for DirectChunkWriter<'_> {
    fn write_stored(&self, offset: &[usize], chunk: &StoredChunk) -> Result<(), StoreError> {
        DirectChunkWriter::write_stored(self, offset, chunk)
    }

    fn set_shape(&self, shape: &[usize]) -> Result<(), StoreError> {
        DirectChunkWriter::set_shape(self, shape)
    }
}

impl ChunkSource for StoredChunkReader<'_> {
    fn written_chunks(&self) -> Result<u64, StoreError> {
        StoredChunkReader::written_chunks(self)
    }

    fn read(&self, offset: &[usize]) -> Result<Option<StoredChunk>, StoreError> {
        StoredChunkReader::read(self, offset)
    }

    fn written_offsets(&self, places: u64) -> Result<Option<Vec<Vec<usize>>>, StoreError> {
        // HDF5 1.10 lists its i-th chunk by walking its index from the start: listing
        // `written` chunks costs about written²/2 steps, visiting the places one each.
        let written = StoredChunkReader::written_chunks(self)?;
        if written.saturating_mul(written) / 2 >= places {
            return Ok(None);
        }
        match StoredChunkReader::layout(self, written)? {
            store::StoredLayout::Chunked(found) => Ok(Some(
                found
                    .into_iter()
                    .map(|place| place.index.iter().map(|i| *i as usize).collect())
                    .collect(),
            )),
            _ => Ok(None),
        }
    }
}
