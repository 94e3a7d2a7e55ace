//! The reader and writer every backend implements.

use std::path::Path;

use ncmodel::{Dataset, Layout, Values, VarPath};

use crate::chunks::{cut_from_chunk, extent_in, ChunkFeed, ChunkWrite, DecodedChunkReader};
use crate::{Capabilities, RawBuffer, StoreError};

/// A dataset open for reading.
///
/// Variables are named by their [`VarPath`]; each backend finds its own ids for it.
pub trait StoreReader {
    /// The path or URL the store was opened with.
    fn path(&self) -> &str;

    /// The whole schema: groups, dimensions, types, variables, attributes and storage.
    fn schema(&self) -> Result<Dataset, StoreError>;

    /// What this backend can hold and do, for the front ends: how it stores strings and
    /// chunks, and which codecs it writes.
    fn capabilities(&self) -> Capabilities;

    /// The hyperslab `start`/`count` of the variable `var` of `dataset` (the schema this
    /// reader returned), row-major. A scalar variable takes empty `start` and `count`.
    fn read_slab(
        &self,
        dataset: &Dataset,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, StoreError>;

    /// The hyperslab `start`/`count` of the variable `var` as raw values in the
    /// machine's byte order, into `buffer`; the variable must be of a fixed-size atomic
    /// type (not `string`).
    fn read_raw(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        buffer: &mut RawBuffer,
    ) -> Result<(), StoreError>;

    /// Whether data stored through the filter `id` can be decoded here.
    fn filter_available(&self, id: u32) -> bool;

    /// What to do about a filter that is not available here, for messages: where it was
    /// looked for and how to provide it.
    fn filter_remedy(&self) -> String;

    /// The codecs of the variable `var` that cannot be decoded here and that have no
    /// HDF5 filter id for [`StoreReader::filter_available`] to judge (a Zarr codec such as
    /// `delta`), by name. Empty when every stored codec can be decoded.
    fn unreadable_codecs(&self, var: &VarPath) -> Vec<String> {
        let _ = var;
        Vec::new()
    }

    /// Sets the cache of the variable `var`'s decoded chunks to `bytes` (0 frees it).
    /// Backends without such a cache ignore it.
    fn set_var_cache(&self, var: &VarPath, bytes: usize) -> Result<(), StoreError> {
        let _ = (var, bytes);
        Ok(())
    }

    /// The virtual global attribute `_IsNetcdf4` (what `ncdump -s` prints), when the
    /// store has one.
    fn is_netcdf4_attribute(&self) -> Option<i32> {
        None
    }

    /// libnetcdf's extended format and open mode (`nc_inq_format_extended`: the format
    /// number, `NC_FORMATX_NC3` = 1, `NC_FORMATX_NC_HDF5` = 2, ..., and the mode bits),
    /// for a store libnetcdf opened; `None` for the backends of nctools' own, whose
    /// format the schema says.
    fn extended_format(&self) -> Option<(i32, i32)> {
        None
    }

    /// A source of the stored (still encoded) chunks of the variable `var`, for copying them as they are into a store whose chunks of the
    /// same filters are the same bytes (HDF5 files, Zarr stores: see
    /// [`StoreWriter::stored_chunk_sink`]); `None` when the backend cannot give them (not
    /// a store on disk, or a variable that is not chunked).
    fn stored_chunk_source(&self, var: &VarPath) -> Option<Box<dyn ChunkSource + '_>> {
        let _ = var;
        None
    }

    /// A reader of the whole chunks of the variable `var` of `dataset` (the schema this
    /// reader returned), decoded, from any thread: what a copy into chunks of the same shape
    /// hands the writer chunk by chunk, with no slab in between. `None` when the backend reads only slabs of it (not
    /// chunked, or a type that does not move as raw bytes).
    fn decoded_chunk_reader(
        &self,
        dataset: &Dataset,
        var: &VarPath,
    ) -> Option<Box<dyn DecodedChunkReader + '_>> {
        let _ = (dataset, var);
        None
    }

    /// The variables of the input that cannot be read at all (a type netCDF cannot
    /// hold), one message each naming the variable and the reason. The schema leaves
    /// them out; the tools say so and fail unless the user chose other variables.
    fn left_out(&self) -> Vec<String> {
        Vec::new()
    }

    /// What the user should know about how the input was read (a type read as another,
    /// say), one sentence each; printed as warnings by the tools.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// How many bytes each variable of `vars` takes in storage; `None` where it is not
    /// known.
    fn stored_sizes(&self, vars: &[VarPath]) -> Vec<Option<u64>>;
}

/// A dataset being written, its variables named by their [`VarPath`] as in
/// [`StoreReader`]. It is written under a temporary name and moved into place by
/// [`StoreWriter::finish`]; dropped unfinished, it leaves nothing behind.
pub trait StoreWriter {
    /// The target path, as given.
    fn target(&self) -> &str;

    /// The temporary name the output is written under, when there is one on disk.
    fn temporary_path(&self) -> Option<&Path>;

    /// Asks that variables are not pre-filled with fill values (all of them will be
    /// written).
    fn set_no_fill(&mut self) -> Result<(), StoreError>;

    /// Defines the whole dataset: groups, dimensions, types, variables with their
    /// storage, attributes.
    fn define(&mut self, dataset: &Dataset) -> Result<(), StoreError>;

    /// Writes the hyperslab `start`/`count` of the variable `var`; the values are of the
    /// variable's type, one per element.
    fn write(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        values: &Values,
    ) -> Result<(), StoreError>;

    /// The layout the variable `var` was given (chunk sizes included), once defined.
    fn layout(&self, var: &VarPath) -> Result<Layout, StoreError>;

    /// The bytes one value of `var` (of a fixed-size type of `size` bytes, in the
    /// machine's order) reads as where nothing is written, when the output guarantees it
    /// (a new output with fill on): a slab of nothing but that value need not be written,
    /// so that a variable declared large and never written costs no disk (red team s36
    /// RD1: a 6 KB file declaring `int v(2000000000)` became 7.8 GB). `None`, the
    /// default, has every slab written.
    fn unwritten_value(&self, var: &VarPath, size: usize) -> Option<Vec<u8>> {
        let _ = (var, size);
        None
    }

    /// Writes raw values in the machine's byte order (as [`StoreReader::read_raw`] reads
    /// them) to the hyperslab `start`/`count` of the variable.
    fn write_raw(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        buffer: &RawBuffer,
    ) -> Result<(), StoreError>;

    /// Sets the cache of one variable's chunks being assembled to `bytes`; backends
    /// without such a cache ignore it.
    fn set_var_cache(&self, var: &VarPath, bytes: usize) -> Result<(), StoreError> {
        let _ = (var, bytes);
        Ok(())
    }

    /// Encodes and stores decoded data of the variable `var` whose layout is chunked:
    /// a slab of whole chunks to cut, or whole chunks one by one (see [`ChunkWrite`]).
    /// Backends that encode chunks themselves do it in parallel, on rayon's global pool,
    /// within one in-flight budget ([`crate::pipeline::run_ordered`]); by default each
    /// chunk's part inside the variable is written with [`StoreWriter::write_raw`], in
    /// order.
    fn write_chunks(&self, var: &VarPath, write: ChunkWrite<'_>) -> Result<(), StoreError> {
        match write.feed {
            ChunkFeed::Slab {
                start,
                count,
                values,
            } => self.write_raw(var, start, count, values),
            ChunkFeed::Chunks(jobs) => {
                let Layout::Chunked(chunks) = self.layout(var)? else {
                    return Err(StoreError::new(
                        crate::ErrorKind::InvalidRequest,
                        "whole chunks given for a variable that is not chunked",
                        "writing chunks",
                    ));
                };
                let mut buffer = RawBuffer::new();
                for job in jobs {
                    let offset = job.offset;
                    let chunk = (job.read)()?;
                    write_chunk_part(
                        self,
                        var,
                        (&chunks, write.shape),
                        &offset,
                        &chunk,
                        &mut buffer,
                    )?;
                }
                Ok(())
            }
        }
    }

    /// A sink for chunks copied as another store keeps them (see
    /// [`StoreReader::stored_chunk_source`]); `None` when the backend cannot take them
    /// as they are.
    fn stored_chunk_sink(&self, var: &VarPath) -> Option<Box<dyn ChunkSink + '_>> {
        let _ = var;
        None
    }

    /// What the backend changed in the data written so far that a user should hear
    /// about (a string cut to the length a format holds), one message each.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Closes the output and moves it to its name.
    fn finish(self: Box<Self>) -> Result<(), StoreError>;
}

/// Takes encoded chunks of one variable, from any thread.
pub trait ChunkSink: Sync {
    /// Writes a chunk as another store keeps it (see [`ChunkSource::read`]), its filter
    /// mask included.
    fn write_stored(&self, offset: &[usize], chunk: &StoredChunk) -> Result<(), StoreError>;

    /// Grows the variable to `shape` before chunks beyond its current shape are written
    /// (a variable along an unlimited dimension starts empty).
    fn set_shape(&self, shape: &[usize]) -> Result<(), StoreError>;
}

/// One chunk as a store keeps it: encoded by the variable's filters, except those whose
/// bit is set in `filter_mask` (HDF5 skips an optional filter that fails).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredChunk {
    /// The filters skipped, one bit per filter of the pipeline, in order.
    pub filter_mask: u32,
    /// The stored bytes.
    pub bytes: Vec<u8>,
}

/// Gives the stored chunks of one variable as they are, without decoding them.
pub trait ChunkSource {
    /// How many of the variable's chunks were ever written.
    fn written_chunks(&self) -> Result<u64, StoreError>;

    /// The chunk whose first element is at `offset` (element indices, a multiple of the
    /// chunk shape); `None` when that chunk was never written.
    fn read(&self, offset: &[usize]) -> Result<Option<StoredChunk>, StoreError>;

    /// The offsets of the chunks ever written, in row-major order, when the source can
    /// list them for less than visiting each of the grid's `places` costs; `None` (the
    /// default) has the caller visit every place. A grid declared with billions of places
    /// and a few chunks written is then copied in the time of the few (red team s36 RE9:
    /// a 9 KB file of 2^50 values in chunks of 2^20, one written, took hours).
    fn written_offsets(&self, places: u64) -> Result<Option<Vec<Vec<usize>>>, StoreError> {
        let _ = places;
        Ok(None)
    }
}

/// Writes the part of the whole chunk `chunk` at `offset` that lies in the variable
/// (`chunks` and the variable's `shape`) with [`StoreWriter::write_raw`], through
/// `buffer`.
fn write_chunk_part<W: StoreWriter + ?Sized>(
    writer: &W,
    var: &VarPath,
    (chunks, shape): (&[usize], &[usize]),
    offset: &[usize],
    chunk: &[u8],
    buffer: &mut RawBuffer,
) -> Result<(), StoreError> {
    let extent = extent_in(shape, chunks, offset);
    let values: usize = chunks.iter().product();
    let elem = chunk.len() / values.max(1);
    if extent == chunks {
        buffer.resize(chunk.len());
        buffer.as_bytes_mut().copy_from_slice(chunk);
    } else {
        let part = cut_from_chunk(chunk, chunks, &extent, elem);
        buffer.resize(part.len());
        buffer.as_bytes_mut().copy_from_slice(&part);
    }
    writer.write_raw(var, offset, &extent, buffer)
}
