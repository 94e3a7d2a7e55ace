//! Writing decoded chunks of netCDF-4 variables (filtered or not) without HDF5's
//! single-threaded filter pipeline and chunk cache: each chunk (cut from a slab, or
//! handed whole) is encoded by `codecs` (shuffle, deflate, szip and the built-in
//! filters: the bytes HDF5 would store; none for an unfiltered variable) on rayon's pool
//! within the in-flight budget, and written with HDF5's direct chunk write, in order.
//! Edge chunks are padded with zeros, as HDF5 pads them for variables without fill
//! values (the only ones written this way). Anything else (fill values, a filter not
//! encoded here, `NCTOOLS_DIRECT_CHUNKS=0`, a file in memory) goes through libnetcdf.

use codecs::known::SZIP;
use codecs::{ChunkEncoder, FilterSpec};
use ncmodel::{Layout, Var};
use store::grid::{batch_len, chunks_touched, SlabGrid};
use store::pipeline::run_ordered;
use store::{ChunkFeed, ChunkJob, ChunkWrite, RawBuffer, StoredChunk};

use crate::raw::VarHandle;

use crate::create::NcWriter;
use crate::direct::DirectChunkWriter;
use crate::error::NcError;
use store::ErrorKind;

/// A variable of the file being written whose chunks may be encoded here (through its
/// filters, or none: a chunk is then written as it is, not held again in HDF5's cache):
/// chunked, of a type that moves as raw bytes, in the machine's byte order, not
/// quantized and without fill values.
#[derive(Debug, Clone)]
pub(crate) struct EncodableVar {
    group_path: Vec<String>,
    name: String,
    filters: Vec<FilterSpec>,
    element: usize,
}

impl EncodableVar {
    /// The variable `var` of the group at `group_path`, if its chunks may be encoded here.
    pub(crate) fn of(group_path: &[String], var: &Var) -> Option<Self> {
        let storage = var.storage.as_ref()?;
        let encodable = storage.no_fill
            && storage.quantize.is_none()
            && matches!(storage.layout, Layout::Chunked(_))
            && storage.endianness.is_machine_order()
            && store::is_raw_type(var.type_ref);
        let ncmodel::TypeRef::Atomic(atomic) = var.type_ref else {
            return None;
        };
        encodable.then(|| Self {
            group_path: group_path.to_vec(),
            name: var.name.clone(),
            filters: storage.filters.clone(),
            element: atomic.size(),
        })
    }
}

/// A chunk encoded, at its offset.
type EncodedChunk = (Vec<usize>, StoredChunk);

impl NcWriter {
    /// Encodes and writes decoded data of the variable `var` (see
    /// [`store::StoreWriter::write_chunks`]): here when its chunks may be encoded here,
    /// else through libnetcdf.
    pub(crate) fn write_chunks(
        &self,
        var: VarHandle,
        write: ChunkWrite<'_>,
    ) -> Result<(), NcError> {
        let Layout::Chunked(chunks) = self.layout(var)? else {
            return self.write_through_library(var, write, &[]);
        };
        match self.direct_encoder(var, &chunks) {
            Some((sink, encoder)) => {
                let chunk_bytes = chunks.iter().product::<usize>() * encoder.element;
                sink.set_shape(write.shape)?;
                let encode = |(offset, chunk): (Vec<usize>, Vec<u8>)| {
                    encoder.encode(&offset, chunk, chunk_bytes, &sink)
                };
                let deliver = |(offset, chunk): EncodedChunk| sink.write_stored(&offset, &chunk);
                let in_flight = batch_len(chunk_bytes);
                match write.feed {
                    ChunkFeed::Slab {
                        start,
                        count,
                        values,
                    } => {
                        let grid = SlabGrid {
                            start,
                            count,
                            chunks: &chunks,
                            elem: encoder.element,
                        };
                        let cut = |index: Vec<usize>| {
                            let mut chunk = vec![0u8; chunk_bytes];
                            grid.slab_to_chunk(&index, values.as_bytes(), &mut chunk);
                            let offset = index.iter().zip(&chunks).map(|(i, c)| i * c).collect();
                            encode((offset, chunk))
                        };
                        run_ordered(
                            chunks_touched(start, count, &chunks),
                            in_flight,
                            cut,
                            deliver,
                        )
                    }
                    ChunkFeed::Chunks(jobs) => {
                        let decode_and_encode = |job: ChunkJob<'_>| {
                            let chunk = (job.read)()?;
                            encode((job.offset, chunk))
                        };
                        run_ordered(jobs, in_flight, decode_and_encode, deliver)
                    }
                }
            }
            None => self.write_through_library(var, write, &chunks),
        }
    }

    /// Writes decoded data through libnetcdf (and HDF5's pipeline): a slab as it is,
    /// whole chunks (of `chunks`) read on the pool and written in order, each cut to its
    /// part inside the variable.
    fn write_through_library(
        &self,
        var: VarHandle,
        write: ChunkWrite<'_>,
        chunks: &[usize],
    ) -> Result<(), NcError> {
        match write.feed {
            ChunkFeed::Slab {
                start,
                count,
                values,
            } => self.write_raw(var, start, count, values),
            ChunkFeed::Chunks(jobs) => {
                let chunk_values = chunks.iter().product::<usize>().max(1);
                let mut buffer = RawBuffer::new();
                let read = |job: ChunkJob<'_>| {
                    let chunk = (job.read)()?;
                    Ok((job.offset, chunk))
                };
                // Budgeted as chunks of the largest atomic type (8 bytes a value).
                let in_flight = batch_len(chunk_values.saturating_mul(8));
                run_ordered(
                    jobs,
                    in_flight,
                    read,
                    |(offset, chunk): (Vec<usize>, Vec<u8>)| {
                        let extent = store::extent_in(write.shape, chunks, &offset);
                        let elem = chunk.len() / chunk_values;
                        let part = if extent == chunks {
                            chunk
                        } else {
                            store::cut_from_chunk(&chunk, chunks, &extent, elem)
                        };
                        buffer.resize(part.len());
                        buffer.as_bytes_mut().copy_from_slice(&part);
                        self.write_raw(var, &offset, &extent, &buffer)
                    },
                )
            }
        }
    }

    /// The direct chunk writer and encoder of the variable `var`, chunked by `chunks`,
    /// when its chunks may be encoded here; `None` otherwise (`NCTOOLS_DIRECT_CHUNKS=0`,
    /// a file HDF5 cannot open beside libnetcdf, a filter not encoded here).
    fn direct_encoder(
        &self,
        var: VarHandle,
        chunks: &[usize],
    ) -> Option<(DirectChunkWriter<'_>, VarEncoder)> {
        if !crate::direct_chunks_enabled() {
            return None;
        }
        let planned = self.encodable_var(var)?;
        let sink = self.direct_chunks(&planned.group_path, &planned.name)?;
        let chunk_bytes = chunks.iter().product::<usize>() * planned.element;
        // Szip runs with the four words HDF5's set-local step stored when the variable
        // was created (they depend on the type, its byte order and the chunk's shape),
        // so that its chunks are HDF5's own.
        let filters: Vec<FilterSpec> = planned
            .filters
            .iter()
            .map(|f| match f.id {
                SZIP => sink
                    .stored_filter_params(SZIP)
                    .map(|words| FilterSpec::new(SZIP, words)),
                _ => Some(f.clone()),
            })
            .collect::<Option<_>>()?;
        let encoder = ChunkEncoder::new(&filters, planned.element, chunk_bytes)?;
        Some((
            sink,
            VarEncoder {
                encoder,
                element: planned.element,
            },
        ))
    }
}

/// The encoder of one variable's chunks.
struct VarEncoder {
    encoder: ChunkEncoder,
    element: usize,
}

impl VarEncoder {
    /// The whole chunk `chunk` at `offset`, encoded; it must hold `chunk_bytes`.
    fn encode(
        &self,
        offset: &[usize],
        chunk: Vec<u8>,
        chunk_bytes: usize,
        sink: &DirectChunkWriter<'_>,
    ) -> Result<EncodedChunk, NcError> {
        if chunk.len() != chunk_bytes {
            return Err(NcError::new(
                ErrorKind::InvalidRequest,
                format!(
                    "a chunk of {} bytes at {offset:?} for chunks of {chunk_bytes}",
                    chunk.len()
                ),
                sink.context(),
            ));
        }
        let (filter_mask, bytes) = self.encoder.encode_owned(chunk).map_err(|e| {
            NcError::new(
                ErrorKind::CodecFailed,
                format!(
                    "encoding the chunk at {offset:?} failed ({e}); rerun with \
                     NCTOOLS_DIRECT_CHUNKS=0 to let HDF5 compress"
                ),
                sink.context(),
            )
        })?;
        Ok((offset.to_vec(), StoredChunk { filter_mask, bytes }))
    }
}
