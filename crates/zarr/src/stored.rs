//! Chunk files moved as they are: a store's chunks read without decoding them, and
//! chunks another store keeps (an HDF5 file's, for codecs whose bytes are the same in
//! both) written as chunk files without encoding them. nccopy copies a variable this way
//! when its filters, chunk shape, type and byte order do not change. The inner chunks of
//! a sharded array are read the same way, through the shards' indexes.

use store::{ChunkSink, ChunkSource, StoreError, StoredChunk};

use crate::codec::encode_chain;
use crate::error::ZarrError;
use crate::meta::ArrayMeta;
use crate::writer::ZarrWriter;

/// The grid index of the chunk whose first element is at `offset`.
fn grid_index(meta: &ArrayMeta, offset: &[usize]) -> Option<Vec<usize>> {
    (offset.len() == meta.chunks.len() && !meta.chunks.contains(&0)).then(|| {
        offset
            .iter()
            .zip(&meta.chunks)
            .map(|(o, c)| o / c)
            .collect()
    })
}

fn bad_offset(offset: &[usize], meta: &ArrayMeta) -> StoreError {
    ZarrError::Invalid(format!(
        "a chunk offset {offset:?} for chunks of {:?}",
        meta.chunks
    ))
    .into_store(meta.name())
}

/// The chunk files of one array, read as they are.
pub struct ChunkFiles {
    /// The array (its shape as read).
    pub meta: ArrayMeta,
}

impl ChunkSource for ChunkFiles {
    fn written_chunks(&self) -> Result<u64, StoreError> {
        let start = vec![0; self.meta.shape.len()];
        let written = store::grid::chunks_touched(&start, &self.meta.shape, &self.meta.chunks)
            .filter(|index| {
                self.meta
                    .store
                    .contains(&self.meta.chunk_key(index))
                    .unwrap_or(false)
            })
            .count();
        Ok(written as u64)
    }

    fn read(&self, offset: &[usize]) -> Result<Option<StoredChunk>, StoreError> {
        let index = grid_index(&self.meta, offset).ok_or_else(|| bad_offset(offset, &self.meta))?;
        let key = self.meta.chunk_key(&index);
        let cap = crate::read::encoded_cap(&self.meta);
        match self.meta.store.get(&key, cap) {
            Ok(bytes) => Ok(bytes.map(|bytes| StoredChunk {
                filter_mask: 0,
                bytes,
            })),
            Err(e) => Err(ZarrError::from(e).into_store("reading a stored chunk")),
        }
    }
}

/// The inner chunks of one sharded array, read as they are through each shard's index:
/// to netCDF they are the array's chunks (see `schema`), so nccopy moves them as it
/// moves chunk files.
pub struct ShardedChunks {
    /// The array (its shape as read; its chunks are shards).
    pub meta: ArrayMeta,
    /// Its sharding codec.
    pub sharding: crate::shard::Sharding,
}

impl ShardedChunks {
    /// The shard and the position in it (both in their grids' units) of the inner chunk
    /// whose first element is at `offset`.
    fn locate(&self, offset: &[usize]) -> Option<(Vec<usize>, Vec<usize>)> {
        let inner = &self.sharding.inner_chunks;
        let fits = offset.len() == self.meta.chunks.len()
            && !inner.contains(&0)
            && offset.iter().zip(inner).all(|(o, i)| o % i == 0);
        fits.then(|| {
            let shard = offset
                .iter()
                .zip(&self.meta.chunks)
                .map(|(o, c)| o / c)
                .collect();
            let position = offset
                .iter()
                .zip(&self.meta.chunks)
                .zip(inner)
                .map(|((o, c), i)| o % c / i)
                .collect();
            (shard, position)
        })
    }
}

impl ChunkSource for ShardedChunks {
    fn written_chunks(&self) -> Result<u64, StoreError> {
        let start = vec![0; self.meta.shape.len()];
        let mut written = 0;
        for index in store::grid::chunks_touched(&start, &self.meta.shape, &self.meta.chunks) {
            written += crate::shard::stored_inner_count(&self.meta, &self.sharding, &index)
                .map_err(|e| e.into_store("counting stored chunks"))?;
        }
        Ok(written)
    }

    fn read(&self, offset: &[usize]) -> Result<Option<StoredChunk>, StoreError> {
        let (shard, position) = self.locate(offset).ok_or_else(|| {
            ZarrError::Invalid(format!(
                "an inner chunk offset {offset:?} for inner chunks of {:?}",
                self.sharding.inner_chunks
            ))
            .into_store(self.meta.name())
        })?;
        crate::shard::read_inner_stored(&self.meta, &self.sharding, &shard, &position)
            .map(|bytes| {
                bytes.map(|bytes| StoredChunk {
                    filter_mask: 0,
                    bytes,
                })
            })
            .map_err(|e| e.into_store("reading a stored chunk"))
    }
}

/// Chunk files of one array being written, from chunks kept by another store.
pub struct ChunkFileSink<'w> {
    /// The array.
    pub meta: ArrayMeta,
    /// The variable's filters in HDF5's order, to undo those of a chunk HDF5 stored with
    /// some skipped (its filter mask), before it is encoded again here.
    pub filters: Vec<filterspec::FilterSpec>,
    /// The writer, which keeps the dimensions' lengths.
    pub writer: &'w ZarrWriter,
    /// The variable's index in the writer's plan.
    pub index: usize,
}

impl ChunkSink for ChunkFileSink<'_> {
    fn write_stored(&self, offset: &[usize], chunk: &StoredChunk) -> Result<(), StoreError> {
        let index = grid_index(&self.meta, offset).ok_or_else(|| bad_offset(offset, &self.meta))?;
        // Named by its key in the store, not its place in the slab (red team s35 RB12).
        let context = || {
            format!(
                "writing chunk {}",
                self.meta.describe(&self.meta.chunk_key(&index))
            )
        };
        let recoded;
        let bytes = if chunk.filter_mask == 0 {
            &chunk.bytes
        } else {
            // HDF5 skipped a filter on this chunk: it holds other bytes than the store's
            // codecs would; decode it and encode it with them.
            let decoder = codecs::ChunkDecoder::new(&self.filters, self.meta.dtype.size)
                .ok_or_else(|| {
                    ZarrError::NoCodec("a chunk stored with a filter skipped".into())
                        .into_store(context())
                })?;
            let data = decoder
                .decode(&chunk.bytes, chunk.filter_mask, self.meta.chunk_bytes())
                .map_err(|e| ZarrError::Corrupt(e.to_string()).into_store(context()))?;
            let name = self.meta.name();
            recoded = encode_chain(
                &self.meta.codecs,
                &self.meta.codec_array(self.meta.dtype.size),
                data,
            )
            .map_err(|e| crate::wdata::fail(&name, e).into_store(context()))?;
            &recoded
        };
        let key = self.meta.chunk_key(&index);
        self.meta
            .store
            .set(&key, bytes)
            .map_err(|e| ZarrError::from(e).into_store(context()))
    }

    fn set_shape(&self, shape: &[usize]) -> Result<(), StoreError> {
        self.writer
            .grow(self.index, shape)
            .map_err(|e| e.into_store(self.meta.name()))
    }
}
