//! Decoded chunks crossing the storage boundary: what a front end hands
//! [`crate::StoreWriter::write_chunks`] (a slab of whole chunks, or whole chunks one by
//! one) for the backend to encode in parallel and store, and what a reader gives of its
//! variables' chunks, decoded, from any thread ([`DecodedChunkReader`]).

use crate::{RawBuffer, StoreError};

/// Reads one whole chunk, decoded; called once, on whichever thread the backend runs it.
pub type ChunkRead<'a> = Box<dyn FnOnce() -> Result<Vec<u8>, StoreError> + Send + 'a>;

/// One whole chunk of a variable to be written.
pub struct ChunkJob<'a> {
    /// The chunk's first element (element indices, a multiple of the chunk shape).
    pub offset: Vec<usize>,
    /// Gives the chunk's values: the whole chunk shape, row-major, in the machine's byte
    /// order, zero beyond the variable's end.
    pub read: ChunkRead<'a>,
}

impl std::fmt::Debug for ChunkJob<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkJob")
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

/// The decoded data [`crate::StoreWriter::write_chunks`] is given.
pub enum ChunkFeed<'a> {
    /// The hyperslab `start`/`count` made of whole chunks (clipped at the variable's
    /// end), values in the machine's byte order, for the backend to cut into its chunks.
    Slab {
        /// The slab's first element.
        start: &'a [usize],
        /// The slab's shape.
        count: &'a [usize],
        /// Its values, row-major.
        values: &'a RawBuffer,
    },
    /// Whole chunks one by one, in the row-major order of the chunk grid, each read when
    /// the backend is ready for it (so that decoding runs on its threads, within its
    /// in-flight budget).
    Chunks(Box<dyn Iterator<Item = ChunkJob<'a>> + 'a>),
}

impl std::fmt::Debug for ChunkFeed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Slab { start, count, .. } => f
                .debug_struct("Slab")
                .field("start", start)
                .field("count", count)
                .finish_non_exhaustive(),
            Self::Chunks(_) => f.write_str("Chunks"),
        }
    }
}

/// Decoded data for one variable, as [`crate::StoreWriter::write_chunks`] takes it.
#[derive(Debug)]
pub struct ChunkWrite<'a> {
    /// The variable's shape once written: chunks are clipped to it, and a variable along
    /// an unlimited dimension grows to it first.
    pub shape: &'a [usize],
    /// The data.
    pub feed: ChunkFeed<'a>,
}

/// Whole chunks of one variable of a store being read, decoded, from any thread (see
/// [`crate::StoreReader::decoded_chunk_reader`]).
pub trait DecodedChunkReader: Sync {
    /// The chunk whose first element is at `offset` (a multiple of the chunk shape),
    /// whole: values in the machine's byte order, row-major, zero beyond the variable's
    /// end; a chunk never written reads as the variable's fill values.
    fn read(&self, offset: &[usize]) -> Result<Vec<u8>, StoreError>;
}

/// The extent of the chunk at `offset` of `chunks` that lies in an array of `shape`.
pub fn extent_in(shape: &[usize], chunks: &[usize], offset: &[usize]) -> Vec<usize> {
    offset
        .iter()
        .zip(chunks)
        .zip(shape)
        .map(|((o, c), n)| (*c).min(n.saturating_sub(*o)))
        .collect()
}

/// The box of `extent` at the start of a whole chunk of `chunks` (elements of `elem`
/// bytes), copied out into an array of its own.
pub fn cut_from_chunk(chunk: &[u8], chunks: &[usize], extent: &[usize], elem: usize) -> Vec<u8> {
    let mut part = vec![0u8; extent.iter().product::<usize>() * elem];
    let origin = vec![0; extent.len()];
    let from = crate::grid::Region {
        shape: chunks,
        offset: &origin,
    };
    let to = crate::grid::Region {
        shape: extent,
        offset: &origin,
    };
    crate::grid::copy_box(chunk, &from, &mut part, &to, extent, elem);
    part
}

/// `part`, an array of `extent`, placed at the start of a whole chunk of `chunks`
/// (elements of `elem` bytes) whose other elements are `pad`.
pub fn pad_to_chunk(
    part: &[u8],
    extent: &[usize],
    chunks: &[usize],
    elem: usize,
    pad: &[u8],
) -> Vec<u8> {
    let mut chunk = pad.repeat(chunks.iter().product());
    let origin = vec![0; extent.len()];
    let from = crate::grid::Region {
        shape: extent,
        offset: &origin,
    };
    let to = crate::grid::Region {
        shape: chunks,
        offset: &origin,
    };
    crate::grid::copy_box(part, &from, &mut chunk, &to, extent, elem);
    chunk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_chunks_cut_and_padded() {
        // A 3 x 5 array in 2 x 2 chunks: the chunk at [2, 4] holds one element.
        assert_eq!(extent_in(&[3, 5], &[2, 2], &[2, 4]), [1, 1]);
        assert_eq!(extent_in(&[3, 5], &[2, 2], &[0, 2]), [2, 2]);
        let chunk = [1u8, 2, 3, 4];
        assert_eq!(cut_from_chunk(&chunk, &[2, 2], &[2, 1], 1), [1, 3]);
        assert_eq!(
            pad_to_chunk(&[1, 3], &[2, 1], &[2, 2], 1, &[0]),
            [1, 0, 3, 0]
        );
        let wide = pad_to_chunk(&[1, 2], &[1, 1], &[1, 2], 2, &[9, 9]);
        assert_eq!(wide, [1, 2, 9, 9]);
    }
}
