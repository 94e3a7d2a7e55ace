//! Chunks stored with their axes permuted (v2's Fortran order, v3's `transpose` codec)
//! brought back to C order.

/// The chunk of C-order shape `shape` from `stored`, which holds it with its axes in
/// `order` (stored axis `k` is the chunk's axis `order[k]`), elements of `elem` bytes.
pub fn to_c_order(stored: &[u8], shape: &[usize], order: &[usize], elem: usize) -> Vec<u8> {
    let rank = shape.len();
    let mut out = vec![0u8; stored.len()];
    if rank == 0 || shape.contains(&0) || stored.len() != shape.iter().product::<usize>() * elem {
        out.copy_from_slice(stored);
        return out;
    }
    // Strides of the stored array, by stored axis, then by the chunk's axis.
    let stored_shape: Vec<usize> = order.iter().map(|&a| shape[a]).collect();
    let mut stored_strides = vec![elem; rank];
    for k in (0..rank - 1).rev() {
        stored_strides[k] = stored_strides[k + 1] * stored_shape[k + 1];
    }
    let mut strides = vec![0; rank];
    for (k, &axis) in order.iter().enumerate() {
        strides[axis] = stored_strides[k];
    }
    let mut index = vec![0usize; rank];
    let mut from = 0usize;
    for element in out.chunks_exact_mut(elem) {
        element.copy_from_slice(&stored[from..from + elem]);
        // The next index in C order, moving `from` along.
        let mut d = rank;
        while d > 0 {
            d -= 1;
            index[d] += 1;
            from += strides[d];
            if index[d] < shape[d] {
                break;
            }
            from -= strides[d] * shape[d];
            index[d] = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_order_and_permutations_come_back_to_c_order() {
        // The 2×3 array 0..6 in C order is 0 3 1 4 2 5 in Fortran order.
        let fortran = [0u8, 3, 1, 4, 2, 5];
        assert_eq!(
            to_c_order(&fortran, &[2, 3], &[1, 0], 1),
            [0, 1, 2, 3, 4, 5]
        );
        // Two-byte elements move whole.
        let wide: Vec<u8> = fortran.iter().flat_map(|v| [*v, 100 + v]).collect();
        let back: Vec<u8> = (0..6u8).flat_map(|v| [v, 100 + v]).collect();
        assert_eq!(to_c_order(&wide, &[2, 3], &[1, 0], 2), back);
        // A 2×3×4 array stored with axes (2, 0, 1): stored[k][i][j] = a[i][j][k].
        let shape = [2, 3, 4];
        let c: Vec<u8> = (0..24).collect();
        let mut stored = Vec::new();
        for k in 0..4 {
            for i in 0..2 {
                for j in 0..3 {
                    stored.push(c[(i * 3 + j) * 4 + k]);
                }
            }
        }
        assert_eq!(to_c_order(&stored, &shape, &[2, 0, 1], 1), c);
        // The identity, and a length that does not fit, are copies.
        assert_eq!(to_c_order(&c, &shape, &[0, 1, 2], 1), c);
        assert_eq!(to_c_order(&[1, 2], &shape, &[2, 0, 1], 1), [1, 2]);
    }
}
