//! Filtered output without HDF5's single-threaded filter pipeline: each slab read from the
//! input is cut into its output chunks, which are encoded on every core by `codecs`
//! (shuffle, deflate, szip and the built-in filters: the bytes HDF5 would store) and
//! written with HDF5's direct chunk write, in order. Edge chunks are padded with zeros,
//! as HDF5 pads them for variables without fill values (the only ones sent here).

use codecs::known::SZIP;
use codecs::{ChunkEncoder, FilterSpec};
use store::{ChunkSink, StoredChunk};

/// The encoder of the output variable's `filters` for values of `size` bytes and chunks
/// of `chunk_bytes`, with the sink `open` gives; `None` when a filter is not encoded
/// here or the sink cannot be opened. Szip runs with the four words HDF5's set-local
/// step stored when the variable was created (read back from it: they depend on the
/// type, its byte order and the chunk's shape), so that its chunks are HDF5's own.
pub fn encoder_for<'a>(
    filters: &[FilterSpec],
    size: usize,
    chunk_bytes: usize,
    open: impl FnOnce() -> Option<Box<dyn ChunkSink + 'a>>,
) -> Option<(Box<dyn ChunkSink + 'a>, ChunkEncoder)> {
    if !filters.iter().any(|f| f.id == SZIP) {
        let encoder = ChunkEncoder::new(filters, size, chunk_bytes)?;
        return Some((open()?, encoder));
    }
    let sink = open()?;
    let stored: Vec<FilterSpec> = filters
        .iter()
        .map(|f| match f.id {
            SZIP => sink
                .stored_filter_params(SZIP)
                .map(|words| FilterSpec::new(SZIP, words)),
            _ => Some(f.clone()),
        })
        .collect::<Option<_>>()?;
    let encoder = ChunkEncoder::new(&stored, size, chunk_bytes)?;
    Some((sink, encoder))
}

/// The chunks of one slab: the slab's shape, the chunk shape and the element size.
#[derive(Debug, Clone)]
pub struct SlabChunks<'a> {
    /// The slab's start in the variable.
    pub start: &'a [usize],
    /// The slab's shape (`count`).
    pub count: &'a [usize],
    /// The output chunk shape.
    pub chunk: &'a [usize],
    /// Bytes per value.
    pub size: usize,
}

impl SlabChunks<'_> {
    /// The chunks' offsets within the slab, in row-major order.
    fn offsets(&self) -> Vec<Vec<usize>> {
        store::grid::chunk_offsets(self.count, self.chunk).collect()
    }

    /// The whole chunk at `offset` within the slab, from the slab's bytes; the part
    /// beyond the slab (at the variable's edges) is zero.
    fn gather(&self, slab: &[u8], offset: &[usize]) -> Vec<u8> {
        let n = self.count.len();
        let chunk_values: usize = self.chunk.iter().product();
        let mut out = vec![0u8; chunk_values * self.size];
        let valid: Vec<usize> = (0..n)
            .map(|d| self.chunk[d].min(self.count[d] - offset[d]))
            .collect();
        let run = valid[n - 1] * self.size;
        let mut index = vec![0usize; n - 1];
        loop {
            let (mut from, mut to) = (0usize, 0usize);
            for d in 0..n {
                let i = if d < n - 1 { index[d] } else { 0 };
                from = from * self.count[d] + offset[d] + i;
                to = to * self.chunk[d] + i;
            }
            let (from, to) = (from * self.size, to * self.size);
            out[to..to + run].copy_from_slice(&slab[from..from + run]);
            let mut d = n - 1;
            loop {
                if d == 0 {
                    return out;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < valid[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}

/// Encodes every chunk of the slab `bytes` on up to `threads` threads and writes them in
/// order.
pub fn write_slab(
    writer: &dyn ChunkSink,
    encoder: &ChunkEncoder,
    chunks: &SlabChunks<'_>,
    bytes: &[u8],
    threads: usize,
) -> anyhow::Result<()> {
    let offsets = chunks.offsets();
    let per_thread = offsets.len().div_ceil(threads.max(1));
    let encoded: Vec<anyhow::Result<Vec<StoredChunk>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = offsets
            .chunks(per_thread.max(1))
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|o| {
                            let (filter_mask, bytes) =
                                encoder.encode_masked(&chunks.gather(bytes, o))?;
                            Ok(StoredChunk { filter_mask, bytes })
                        })
                        .collect::<anyhow::Result<Vec<_>>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(anyhow::anyhow!(
                        "a compression thread failed; rerun with NCTOOLS_DIRECT_CHUNKS=0 to let \
                         HDF5 compress"
                    ))
                })
            })
            .collect()
    });
    let mut index = 0;
    for part in encoded {
        for chunk in part? {
            let offset: Vec<usize> = offsets[index]
                .iter()
                .zip(chunks.start)
                .map(|(o, s)| o + s)
                .collect();
            writer.write_stored(&offset, &chunk)?;
            index += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_of_a_slab_with_padding_at_the_edges() {
        // A 3 x 5 slab of one-byte values in 2 x 2 chunks.
        let slab: Vec<u8> = (0..15).collect();
        let chunks = SlabChunks {
            start: &[0, 0],
            count: &[3, 5],
            chunk: &[2, 2],
            size: 1,
        };
        let offsets = chunks.offsets();
        assert_eq!(offsets.len(), 6);
        assert_eq!(offsets[1], vec![0, 2]);
        assert_eq!(chunks.gather(&slab, &[0, 0]), vec![0, 1, 5, 6]);
        assert_eq!(chunks.gather(&slab, &[0, 4]), vec![4, 0, 9, 0]);
        assert_eq!(chunks.gather(&slab, &[2, 4]), vec![14, 0, 0, 0]);
    }

    #[test]
    fn multi_byte_values_and_one_dimension() {
        let slab: Vec<u8> = (0..12).collect();
        let chunks = SlabChunks {
            start: &[4],
            count: &[3],
            chunk: &[2],
            size: 4,
        };
        assert_eq!(chunks.offsets(), vec![vec![0], vec![2]]);
        assert_eq!(chunks.gather(&slab, &[2]), vec![8, 9, 10, 11, 0, 0, 0, 0]);
    }
}
