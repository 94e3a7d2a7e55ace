//! Which elements of one chunk a slab takes, element by element: as many as the slab
//! holds of the chunk, never the chunk's size, for data read element by element (strings)
//! where a chunk-sized buffer of places would cost what a hostile chunk shape says.

/// The elements of the chunk `index` (chunks of shape `chunks`) that the slab
/// `start`/`count` takes, as (offset in the chunk, offset in the slab) pairs, in the
/// chunk's row-major order (so offsets in the chunk increase). A scalar (rank 0) is one
/// element.
pub(crate) fn picks(
    start: &[usize],
    count: &[usize],
    chunks: &[usize],
    index: &[usize],
) -> Vec<(usize, usize)> {
    let rank = chunks.len();
    if rank == 0 {
        return vec![(0, 0)];
    }
    if start.len() != rank || count.len() != rank || index.len() != rank {
        return Vec::new();
    }
    let origin: Vec<usize> = (0..rank)
        .map(|d| index[d].saturating_mul(chunks[d]))
        .collect();
    let lo: Vec<usize> = (0..rank).map(|d| start[d].max(origin[d])).collect();
    let hi: Vec<usize> = (0..rank)
        .map(|d| {
            start[d]
                .saturating_add(count[d])
                .min(origin[d].saturating_add(chunks[d]))
        })
        .collect();
    if (0..rank).any(|d| lo[d] >= hi[d]) {
        return Vec::new();
    }
    let mut chunk_stride = vec![1usize; rank];
    let mut slab_stride = vec![1usize; rank];
    for d in (0..rank - 1).rev() {
        chunk_stride[d] = chunk_stride[d + 1].saturating_mul(chunks[d + 1]);
        slab_stride[d] = slab_stride[d + 1].saturating_mul(count[d + 1]);
    }
    let mut position = lo.clone();
    let mut out = Vec::new();
    loop {
        let (mut in_chunk, mut in_slab) = (0usize, 0usize);
        for d in 0..rank {
            in_chunk =
                in_chunk.saturating_add((position[d] - origin[d]).saturating_mul(chunk_stride[d]));
            in_slab =
                in_slab.saturating_add((position[d] - start[d]).saturating_mul(slab_stride[d]));
        }
        out.push((in_chunk, in_slab));
        let mut d = rank;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            position[d] += 1;
            if position[d] < hi[d] {
                break;
            }
            position[d] = lo[d];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::picks;

    #[test]
    fn a_slab_takes_only_its_part_of_a_chunk() {
        // Chunks of 2x3; the slab rows 1..3, columns 1..3; chunk (0, 0) holds row 1,
        // columns 1 and 2 of it.
        assert_eq!(picks(&[1, 1], &[2, 2], &[2, 3], &[0, 0]), [(4, 0), (5, 1)]);
        assert_eq!(picks(&[1, 1], &[2, 2], &[2, 3], &[1, 0]), [(1, 2), (2, 3)]);
        // A chunk far larger than the array: four places, not a hundred million.
        assert_eq!(
            picks(&[0], &[4], &[100_000_000], &[0]),
            [(0, 0), (1, 1), (2, 2), (3, 3)]
        );
        assert!(picks(&[0], &[4], &[2], &[5]).is_empty());
        assert_eq!(picks(&[], &[], &[], &[]), [(0, 0)]);
    }
}
