//! The chunk sizes libnetcdf 4.9 chooses for a variable defined without any (observed on
//! the reference build and checked on 125 random shapes; docs/nccopy.md). nccopy needs
//! them where `-c` sets some dimensions and leaves the others to the library, and to apply
//! `-M` to default-chunked variables.

/// libnetcdf's target chunk size in bytes (its build's `DEFAULT_CHUNK_SIZE`).
pub const DEFAULT_CHUNK_BYTES: f64 = 16_777_216.0;

/// HDF5's limit on the size of one chunk.
const MAX_CHUNK_BYTES: f64 = 4_294_967_295.0;

/// The default chunk lengths of a variable of `shape` (current lengths; unlimited
/// dimensions flagged in `unlimited`) and values of `type_size` bytes.
pub fn default_chunks(shape: &[usize], unlimited: &[bool], type_size: usize) -> Vec<usize> {
    let n = shape.len();
    let size = type_size.max(1);
    let mut chunks = vec![0usize; n];
    // The library accumulates the number of values in single precision.
    let mut fixed_values: f32 = 1.0;
    let mut n_unlimited = 0;
    for d in 0..n {
        if unlimited[d] {
            n_unlimited += 1;
            chunks[d] = 1;
        } else {
            fixed_values *= shape[d] as f32;
        }
    }
    if n == 1 && n_unlimited == 1 {
        // The library divides by the type size twice here.
        let per_chunk = (DEFAULT_CHUNK_BYTES as usize / size).clamp(1, 4096);
        chunks[0] = (per_chunk / size).max(1);
    }
    if n > 1 && n == n_unlimited {
        let len = (DEFAULT_CHUNK_BYTES / size as f64).powf(1.0 / n as f64) as usize;
        chunks.iter_mut().for_each(|c| *c = len.max(1));
    }
    let n_fixed = (n - n_unlimited) as f64;
    for d in 0..n {
        if chunks[d] != 0 {
            continue;
        }
        let bytes = fixed_values * size as f32;
        let factor = (DEFAULT_CHUNK_BYTES / f64::from(bytes)).powf(1.0 / n_fixed);
        let len = (factor * shape[d] as f64 - 0.5) as usize;
        chunks[d] = len.min(shape[d]).max(1);
    }
    let product = |c: &[usize]| c.iter().fold(size as f64, |p, len| p * *len as f64);
    while product(&chunks) > MAX_CHUNK_BYTES {
        chunks.iter_mut().for_each(|c| *c = (*c / 2).max(1));
    }
    for d in 0..n {
        // Unlimited dimensions have no length yet when the library chooses.
        let len = if unlimited[d] { 0 } else { shape[d] };
        if len == 0 {
            continue;
        }
        let count = len.div_ceil(chunks[d]);
        let overhang = count * chunks[d] - len;
        chunks[d] -= overhang / count;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunk sizes the reference nccopy 4.9.0 wrote (`ncdump -hs`), for float unless said.
    #[test]
    fn matches_the_reference_library() {
        let f = 4;
        assert_eq!(
            default_chunks(&[2000, 2000], &[false, false], f),
            vec![2000, 2000]
        );
        assert_eq!(
            default_chunks(&[50, 2000, 50], &[false; 3], f),
            vec![25, 1000, 25]
        );
        assert_eq!(
            default_chunks(&[5, 3000, 3000], &[true, false, false], f),
            vec![1, 1500, 1500]
        );
        assert_eq!(
            default_chunks(&[5, 100, 200], &[true, false, false], f),
            vec![1, 100, 200]
        );
        assert_eq!(default_chunks(&[5], &[true], 8), vec![512]);
        assert_eq!(default_chunks(&[5], &[true], 1), vec![4096]);
        assert_eq!(default_chunks(&[5], &[true], 4), vec![1024]);
        assert_eq!(default_chunks(&[5, 7], &[true, false], 2), vec![1, 7]);
        assert_eq!(default_chunks(&[10], &[false], f), vec![10]);
        assert_eq!(default_chunks(&[2_000_000], &[false], 8), vec![2_000_000]);
    }
}
