//! Moving the data: variable by variable, in hyperslabs of whole output chunks
//! ([`SlabPlan`]) bounded by the copy buffer (`-m`). Atomic types move as raw bytes;
//! strings and user-defined types through decoded values.

use anyhow::anyhow;
use ncmodel::{Dataset, Layout};
use store::{is_raw_type, ChunkSink, RawBuffer, StoreReader, StoreWriter, VarHandle};

use codecs::ChunkEncoder;

use super::direct::{write_slab, SlabChunks};
use super::plan::VarPlan;
use super::progress::Progress;
use super::slabs::SlabPlan;

/// The settings of one data transfer.
pub struct Transfer<'a> {
    /// The input file.
    pub input: &'a dyn StoreReader,
    /// Its schema.
    pub dataset: &'a Dataset,
    /// The output being written.
    pub writer: &'a dyn StoreWriter,
    /// The copy buffer size in bytes.
    pub buffer_bytes: usize,
    /// Whether chunk caches are tuned here (not when `-h` or `-e` is given).
    pub tune_caches: bool,
    /// Whether the output is netCDF-4 (chunked layouts).
    pub netcdf4_out: bool,
    /// Whether the input is netCDF-4.
    pub netcdf4_in: bool,
    /// Whether filtered chunks may be encoded here, on `threads` threads, and written
    /// directly.
    pub direct_chunks: bool,
    /// Threads for encoding chunks.
    pub threads: usize,
}

/// The number of bytes of data that [`Transfer::copy_var`] moves for `plan`.
pub fn data_bytes(dataset: &Dataset, plan: &VarPlan) -> u64 {
    let values: usize = plan.shape.iter().product();
    (values as u64).saturating_mul(dataset.type_size(plan.type_ref) as u64)
}

impl Transfer<'_> {
    /// Copies the data of one variable.
    pub fn copy_var(&self, plan: &VarPlan, progress: &Progress) -> anyhow::Result<()> {
        let groups = &plan.path.groups;
        let handle = self
            .writer
            .handle(groups, &plan.path.name)
            .ok_or_else(|| anyhow!("variable {} was not defined in the output", plan.path))?;
        let layout = if self.netcdf4_out {
            self.writer.layout(handle)?
        } else {
            Layout::Contiguous
        };
        let unit = match &layout {
            Layout::Chunked(sizes) => sizes.clone(),
            _ => vec![1; plan.shape.len()],
        };
        let size = self.dataset.type_size(plan.type_ref).max(1);
        let slabs = SlabPlan::new(&plan.shape, &unit, self.buffer_bytes / size);
        if slabs.is_empty() {
            return Ok(());
        }
        if plan.stored_chunks {
            if let Some(done) = self.copy_stored(plan, &layout, size, progress) {
                return done.map_err(|e| explain_copy_error(plan, e, "chunks"));
            }
        }
        let slab_bytes = slabs.slab_shape().iter().product::<usize>() * size;
        self.tune(plan, handle, slab_bytes, true)?;
        let result = match self.direct(plan, &layout, size) {
            // The direct writer is closed at the end of this arm, before the caches are
            // emptied (libnetcdf reopens the dataset for that).
            Some((writer, encoder)) => {
                let grown = if plan.grows {
                    writer.set_shape(&plan.shape).map_err(anyhow::Error::from)
                } else {
                    Ok(())
                };
                let chunks = (writer.as_ref(), &encoder, unit.as_slice());
                grown.and_then(|()| {
                    self.copy_raw(plan, handle, &slabs, size, progress, Some(chunks))
                })
            }
            None if is_raw_type(plan.type_ref) => {
                self.copy_raw(plan, handle, &slabs, size, progress, None)
            }
            None => self.copy_values(plan, &slabs, size, progress),
        };
        self.tune(plan, handle, slab_bytes, false)?;
        result.map_err(|e| explain_copy_error(plan, e, "data"))
    }

    /// Copies the stored chunks of a variable as they are (see [`VarPlan::stored_chunks`]),
    /// one at a time; chunks never written stay unwritten. `None` when the input or the
    /// output cannot move stored chunks (the caller then copies values).
    fn copy_stored(
        &self,
        plan: &VarPlan,
        layout: &Layout,
        size: usize,
        progress: &Progress,
    ) -> Option<anyhow::Result<()>> {
        let Layout::Chunked(chunk) = layout else {
            return None;
        };
        if chunk.len() != plan.shape.len() || chunk.contains(&0) {
            return None;
        }
        let (groups, name) = (&plan.path.groups, &plan.path.name);
        let source = self.input.stored_chunk_source(groups, name)?;
        let sink = self.writer.stored_chunk_sink(groups, name)?;
        Some((|| {
            if plan.grows {
                sink.set_shape(&plan.shape)?;
            }
            for offset in store::grid::chunk_offsets(&plan.shape, chunk) {
                progress.check_interrupt()?;
                let stored = source.read(&offset).map_err(|e| read_error(plan, e))?;
                if let Some(stored) = stored {
                    sink.write_stored(&offset, &stored)?;
                }
                let values: usize = (0..offset.len())
                    .map(|d| chunk[d].min(plan.shape[d] - offset[d]))
                    .product();
                progress.advance((values * size) as u64);
            }
            Ok(())
        })())
    }

    /// Before a variable (`starting`): an output chunk cache that holds one slab's chunks,
    /// so that each chunk is assembled in memory and written once, whole. After it: both
    /// the output's and the input's caches emptied, so that memory stays bounded whatever
    /// the number of variables.
    fn tune(
        &self,
        plan: &VarPlan,
        handle: VarHandle,
        slab_bytes: usize,
        starting: bool,
    ) -> anyhow::Result<()> {
        if !self.tune_caches || !reopen_safe(self.dataset, plan) {
            return Ok(());
        }
        if self.netcdf4_out {
            let bytes = if starting { slab_bytes + (1 << 20) } else { 0 };
            self.writer.set_var_cache(handle, bytes)?;
        }
        if self.netcdf4_in && !starting {
            self.input
                .set_var_cache(plan.input_group, plan.input_varid, 0)?;
        }
        Ok(())
    }

    /// The direct chunk writer and encoder of a variable whose chunks can be encoded here
    /// (see [`VarPlan::direct_candidate`]), unless `NCTOOLS_DIRECT_CHUNKS=0`.
    fn direct(
        &self,
        plan: &VarPlan,
        layout: &Layout,
        size: usize,
    ) -> Option<(Box<dyn ChunkSink + '_>, ChunkEncoder)> {
        let Layout::Chunked(sizes) = layout else {
            return None;
        };
        if !self.direct_chunks
            || !plan.direct_candidate
            || !is_raw_type(plan.type_ref)
            || sizes.is_empty()
        {
            return None;
        }
        let chunk_bytes = sizes.iter().product::<usize>() * size;
        super::direct::encoder_for(plan.pipeline.filters(), size, chunk_bytes, || {
            self.writer
                .hdf5_chunk_sink(&plan.path.groups, &plan.path.name)
        })
    }

    fn copy_raw(
        &self,
        plan: &VarPlan,
        handle: VarHandle,
        slabs: &SlabPlan,
        size: usize,
        progress: &Progress,
        direct: Option<(&dyn ChunkSink, &ChunkEncoder, &[usize])>,
    ) -> anyhow::Result<()> {
        let mut buffer = RawBuffer::new();
        for (start, count) in slabs.slabs() {
            progress.check_interrupt()?;
            self.input
                .read_raw(
                    plan.input_group,
                    plan.input_varid,
                    &start,
                    &count,
                    &mut buffer,
                )
                .map_err(|e| read_error(plan, e))?;
            match direct {
                Some((writer, encoder, chunk)) => {
                    let chunks = SlabChunks {
                        start: &start,
                        count: &count,
                        chunk,
                        size,
                    };
                    write_slab(writer, encoder, &chunks, buffer.as_bytes(), self.threads)?;
                }
                None => self.writer.write_raw(handle, &start, &count, &buffer)?,
            }
            progress.advance(buffer.len() as u64);
        }
        Ok(())
    }

    fn copy_values(
        &self,
        plan: &VarPlan,
        slabs: &SlabPlan,
        size: usize,
        progress: &Progress,
    ) -> anyhow::Result<()> {
        let var = find_input_var(self.dataset, plan)
            .ok_or_else(|| anyhow!("variable {} is not in the input", plan.path))?;
        for (start, count) in slabs.slabs() {
            progress.check_interrupt()?;
            let values = self
                .input
                .read_slab(self.dataset, plan.input_group, var, &start, &count)
                .map_err(|e| read_error(plan, e))?;
            self.writer
                .write(&plan.path.groups, &plan.path.name, &start, &count, &values)?;
            progress.advance((count.iter().product::<usize>() * size) as u64);
        }
        Ok(())
    }
}

/// Whether libnetcdf can change the variable's chunk cache: it reopens the HDF5 dataset
/// by the variable's name, which is the wrong dataset when a dimension of that name is
/// not the variable's first one (libnetcdf then stores the variable under another name).
fn reopen_safe(dataset: &Dataset, plan: &VarPlan) -> bool {
    let first_dim = find_input_var(dataset, plan)
        .and_then(|v| v.dim_ids.first())
        .and_then(|id| dataset.dim(*id))
        .map(|d| d.name.as_str());
    first_dim == Some(plan.path.name.as_str())
        || !super::select::has_dim_named(&dataset.root, &plan.path.name)
}

/// A failed read, explained: HDF5 failing inside a filtered variable is a chunk its
/// filters cannot decode.
/// A failure reading the input, whose message names the input and the variable.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct InputReadFailure(String);

fn read_error(plan: &VarPlan, error: store::StoreError) -> anyhow::Error {
    if error.is_library_failure() && !plan.input_filters.is_empty() {
        return InputReadFailure(format!(
            "{}: HDF5 failed decoding a chunk through its filters ({}); the chunk is probably \
             corrupt; no output was written",
            error.context, plan.input_filters
        ))
        .into();
    }
    InputReadFailure(error.to_string()).into()
}

/// An error copying the `what` (data, chunks) of a variable, naming it; a read failure
/// names the input and the variable already.
fn explain_copy_error(plan: &VarPlan, error: anyhow::Error, what: &str) -> anyhow::Error {
    match error.downcast::<InputReadFailure>() {
        Ok(read) => anyhow!(read.0),
        Err(e) => e.context(format!("copying the {what} of variable {}", plan.path)),
    }
}

/// The input variable of a plan.
fn find_input_var<'d>(dataset: &'d Dataset, plan: &VarPlan) -> Option<&'d ncmodel::Var> {
    super::stored::find_var(dataset, &plan.path)
}
