//! The chunk grid, shared by the backends that move chunks themselves: which chunks a
//! hyperslab touches, and copying boxes of elements between row-major arrays (a slab and
//! a chunk).

/// The grid indices of every chunk the slab `start`/`count` touches, row-major (none
/// when the slab is empty), one at a time.
pub fn chunks_touched(start: &[usize], count: &[usize], chunks: &[usize]) -> ChunkIndices {
    let empty = count.contains(&0) || chunks.contains(&0);
    let (low, high): (Vec<usize>, Vec<usize>) = start
        .iter()
        .zip(count)
        .zip(chunks)
        .map(|((s, c), k)| (s / k.max(&1), (s + c).saturating_sub(1) / k.max(&1)))
        .unzip();
    ChunkIndices {
        next: (!empty).then(|| low.clone()),
        low,
        high,
    }
}

/// The first element of every chunk of an array of `shape` in chunks of `chunks`,
/// row-major (none when a dimension is empty).
pub fn chunk_offsets<'a>(
    shape: &[usize],
    chunks: &'a [usize],
) -> impl Iterator<Item = Vec<usize>> + 'a {
    chunks_touched(&vec![0; shape.len()], shape, chunks)
        .map(move |index| index.iter().zip(chunks).map(|(i, c)| i * c).collect())
}

/// How many chunks of `chunks` an array of `shape` has.
pub fn chunk_count(shape: &[usize], chunks: &[usize]) -> u64 {
    shape
        .iter()
        .zip(chunks)
        .map(|(n, c)| n.div_ceil((*c).max(1)) as u64)
        .product()
}

/// The grid indices of the chunks of a slab (see [`chunks_touched`]).
#[derive(Debug, Clone)]
pub struct ChunkIndices {
    low: Vec<usize>,
    high: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Iterator for ChunkIndices {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        let mut following = current.clone();
        for d in (0..following.len()).rev() {
            if following[d] < self.high[d] {
                following[d] += 1;
                self.next = Some(following);
                break;
            }
            following[d] = self.low[d];
        }
        Some(current)
    }
}

/// The part of the slab `start`/`count` that lies in the chunk `index`: its start in the
/// chunk, its start in the slab, and its extent.
pub fn overlap(
    index: &[usize],
    chunks: &[usize],
    start: &[usize],
    count: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let mut in_chunk = Vec::with_capacity(index.len());
    let mut in_slab = Vec::with_capacity(index.len());
    let mut extent = Vec::with_capacity(index.len());
    for d in 0..index.len() {
        let lo = (index[d] * chunks[d]).max(start[d]);
        let hi = ((index[d] + 1) * chunks[d]).min(start[d] + count[d]);
        in_chunk.push(lo - index[d] * chunks[d]);
        in_slab.push(lo - start[d]);
        extent.push(hi - lo);
    }
    (in_chunk, in_slab, extent)
}

/// A box of elements of `elem` bytes in a row-major array.
pub struct Region<'a> {
    /// The array's shape.
    pub shape: &'a [usize],
    /// Where the box starts in it.
    pub offset: &'a [usize],
}

/// Copies the box of `extent` elements from `src` to `dst`.
pub fn copy_box(
    src: &[u8],
    from: &Region<'_>,
    dst: &mut [u8],
    to: &Region<'_>,
    extent: &[usize],
    elem: usize,
) {
    let rank = extent.len();
    if rank == 0 {
        dst[..elem].copy_from_slice(&src[..elem]);
        return;
    }
    if extent.contains(&0) {
        return;
    }
    let strides = |shape: &[usize]| {
        let mut s = vec![elem; rank];
        for d in (0..rank - 1).rev() {
            s[d] = s[d + 1] * shape[d + 1];
        }
        s
    };
    let (ss, ds) = (strides(from.shape), strides(to.shape));
    let run = extent[rank - 1] * elem;
    let mut index = vec![0usize; rank - 1];
    loop {
        let mut so = from.offset[rank - 1] * elem;
        let mut d_o = to.offset[rank - 1] * elem;
        for d in 0..rank - 1 {
            so += (from.offset[d] + index[d]) * ss[d];
            d_o += (to.offset[d] + index[d]) * ds[d];
        }
        dst[d_o..d_o + run].copy_from_slice(&src[so..so + run]);
        let mut d = rank - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < extent[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// A slab (`start`/`count`) of an array chunked by `chunks`, with elements of `elem`
/// bytes: what reading and writing share to move data between the slab and its chunks.
pub struct SlabGrid<'a> {
    /// The slab's first element.
    pub start: &'a [usize],
    /// The slab's shape.
    pub count: &'a [usize],
    /// The chunk shape.
    pub chunks: &'a [usize],
    /// Bytes per element (for the slab buffers; see [`SlabGrid::chunk_to_slab`]).
    pub elem: usize,
}

impl SlabGrid<'_> {
    /// The chunks the slab touches, in batches of a few per thread: a batch is decoded
    /// or encoded in parallel, so memory stays near the slab plus the chunks in flight.
    /// A batch holds at most [`IN_FLIGHT_BYTES`] of chunks (of `chunk_bytes` each), however
    /// many cores there are, and at least one chunk.
    pub fn batches(&self, chunk_bytes: usize) -> Vec<Vec<Vec<usize>>> {
        let batch = batch_len(chunk_bytes);
        let touched: Vec<Vec<usize>> =
            chunks_touched(self.start, self.count, self.chunks).collect();
        touched.chunks(batch).map(<[Vec<usize>]>::to_vec).collect()
    }

    /// Copies `part`, the part of the chunk `index` that lies in the slab (in its own
    /// shape), into `slab`.
    pub fn part_to_slab(&self, index: &[usize], part: &[u8], slab: &mut [u8]) {
        let (_, in_slab, extent) = overlap(index, self.chunks, self.start, self.count);
        let origin = vec![0; extent.len()];
        let from = Region {
            shape: &extent,
            offset: &origin,
        };
        let to = Region {
            shape: self.count,
            offset: &in_slab,
        };
        copy_box(part, &from, slab, &to, &extent, self.elem);
    }

    /// Fills the part of `slab` that lies in the chunk `index` with `element` (for a
    /// chunk that was never written), without building the chunk: memory in proportion
    /// to that part, not to the chunk.
    pub fn fill_slab_part(&self, index: &[usize], element: &[u8], slab: &mut [u8]) {
        let (_, _, extent) = overlap(index, self.chunks, self.start, self.count);
        self.part_to_slab(index, &filled(element, extent.iter().product()), slab);
    }

    /// Whether the slab covers the whole chunk `index`.
    pub fn covers(&self, index: &[usize]) -> bool {
        overlap(index, self.chunks, self.start, self.count).2 == self.chunks
    }

    /// Whether the slab holds every element of the chunk `index` that lies inside an
    /// array of `shape` (a chunk at the array's end runs past it); `false` when `shape`
    /// has another rank than the grid (a scalar stored as one element).
    pub fn covers_within(&self, index: &[usize], shape: &[usize]) -> bool {
        if shape.len() != index.len() || self.chunks.len() != index.len() {
            return false;
        }
        let (in_chunk, _, extent) = overlap(index, self.chunks, self.start, self.count);
        in_chunk.iter().all(|&o| o == 0)
            && (0..index.len()).all(|d| {
                let inside = shape[d]
                    .saturating_sub(index[d] * self.chunks[d])
                    .min(self.chunks[d]);
                extent[d] == inside
            })
    }

    /// Copies the part of the chunk `index` (its whole data, `chunk`) that lies in the
    /// slab into `slab`.
    pub fn chunk_to_slab(&self, index: &[usize], chunk: &[u8], slab: &mut [u8]) {
        let (in_chunk, in_slab, extent) = overlap(index, self.chunks, self.start, self.count);
        let from = Region {
            shape: self.chunks,
            offset: &in_chunk,
        };
        let to = Region {
            shape: self.count,
            offset: &in_slab,
        };
        copy_box(chunk, &from, slab, &to, &extent, self.elem);
    }

    /// Copies the part of `slab` that lies in the chunk `index` into `chunk`.
    pub fn slab_to_chunk(&self, index: &[usize], slab: &[u8], chunk: &mut [u8]) {
        let (in_chunk, in_slab, extent) = overlap(index, self.chunks, self.start, self.count);
        let from = Region {
            shape: self.count,
            offset: &in_slab,
        };
        let to = Region {
            shape: self.chunks,
            offset: &in_chunk,
        };
        copy_box(slab, &from, chunk, &to, &extent, self.elem);
    }
}

/// The most bytes of decoded chunks a reader or writer holds at once besides its slab:
/// a budget that does not grow with the number of cores.
pub const IN_FLIGHT_BYTES: usize = 64 << 20;

/// How many chunks of `chunk_bytes` go in one batch: two per thread, within
/// [`IN_FLIGHT_BYTES`], and at least one.
pub fn batch_len(chunk_bytes: usize) -> usize {
    let per_thread = rayon::current_num_threads().max(1) * 2;
    (IN_FLIGHT_BYTES / chunk_bytes.max(1)).clamp(1, per_thread)
}

/// `count` elements of `element` bytes each, all equal to `element`.
pub fn filled(element: &[u8], count: usize) -> Vec<u8> {
    element.repeat(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_stay_within_the_in_flight_budget_whatever_the_cores() {
        let per_thread = rayon::current_num_threads().max(1) * 2;
        assert_eq!(batch_len(1 << 10), per_thread.min(IN_FLIGHT_BYTES >> 10));
        assert_eq!(batch_len(IN_FLIGHT_BYTES / 2), per_thread.min(2));
        assert_eq!(batch_len(IN_FLIGHT_BYTES * 8), 1);
        assert_eq!(batch_len(0), per_thread);
    }

    #[test]
    fn chunks_of_slabs_and_arrays() {
        let touched: Vec<Vec<usize>> = chunks_touched(&[1, 0], &[3, 2], &[2, 2]).collect();
        assert_eq!(touched, [vec![0, 0], vec![1, 0]]);
        let offsets: Vec<Vec<usize>> = chunk_offsets(&[3, 5], &[2, 2]).collect();
        assert_eq!(
            offsets,
            [[0, 0], [0, 2], [0, 4], [2, 0], [2, 2], [2, 4]].map(|o| o.to_vec())
        );
        assert_eq!(chunk_count(&[3, 5], &[2, 2]), 6);
        assert_eq!(chunk_offsets(&[3, 0], &[2, 2]).count(), 0);
        assert_eq!(
            chunk_offsets(&[], &[]).collect::<Vec<_>>(),
            [Vec::<usize>::new()]
        );
    }

    #[test]
    fn a_chunk_at_the_arrays_end_is_covered_by_the_slab_holding_its_part_inside() {
        // Chunks of 4 x 3 over an array of 6 x 5: chunk [1, 1] holds rows 4..8 and
        // columns 3..6, of which rows 4..6 and columns 3..5 are inside.
        let grid = SlabGrid {
            start: &[4, 0],
            count: &[2, 5],
            chunks: &[4, 3],
            elem: 1,
        };
        assert!(!grid.covers(&[1, 1]));
        assert!(grid.covers_within(&[1, 1], &[6, 5]));
        assert!(grid.covers_within(&[1, 0], &[6, 5]));
        // Once the array is longer, the slab holds only part of what is inside.
        assert!(!grid.covers_within(&[1, 1], &[7, 5]));
        // A slab starting inside the chunk does not hold it.
        let late = SlabGrid {
            start: &[5, 0],
            count: &[1, 5],
            chunks: &[4, 3],
            elem: 1,
        };
        assert!(!late.covers_within(&[1, 0], &[6, 5]));
        // A scalar, stored as one element: the shape has no dimension.
        let scalar = SlabGrid {
            start: &[0],
            count: &[1],
            chunks: &[1],
            elem: 1,
        };
        assert!(!scalar.covers_within(&[0], &[]));
    }

    #[test]
    fn copy_between_boxes() {
        let src: Vec<u8> = (0..16).collect();
        let mut dst = vec![0u8; 4];
        let from = Region {
            shape: &[4, 4],
            offset: &[1, 1],
        };
        let to = Region {
            shape: &[2, 2],
            offset: &[0, 0],
        };
        copy_box(&src, &from, &mut dst, &to, &[2, 2], 1);
        assert_eq!(dst, [5, 6, 9, 10]);
    }
}
