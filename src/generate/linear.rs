//! Turning a run of values in row-major order into hyperslabs: ncgen receives a
//! variable's data as a stream and writes each batch where it belongs.

/// One hyperslab: start and count per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hyperslab {
    /// Start index per dimension.
    pub start: Vec<usize>,
    /// Count per dimension.
    pub count: Vec<usize>,
}

/// The hyperslabs covering the values `first .. first + n` (row-major linear indices) of
/// a variable of shape `dims`. The outermost length does not matter (an unlimited
/// dimension grows as records are written); the others must be positive.
pub fn hyperslabs(dims: &[usize], first: usize, n: usize) -> Vec<Hyperslab> {
    let mut out = Vec::new();
    if dims.is_empty() {
        if n > 0 {
            out.push(Hyperslab {
                start: Vec::new(),
                count: Vec::new(),
            });
        }
        return out;
    }
    cover(dims, first, n, &mut Vec::new(), &mut out);
    out
}

fn cover(
    dims: &[usize],
    first: usize,
    n: usize,
    prefix: &mut Vec<usize>,
    out: &mut Vec<Hyperslab>,
) {
    if n == 0 {
        return;
    }
    let inner: usize = dims[1..].iter().product::<usize>().max(1);
    let slab = |start0: usize, count0: usize, prefix: &[usize]| {
        let mut start = prefix.to_vec();
        let mut count = vec![1; prefix.len()];
        start.push(start0);
        count.push(count0);
        start.extend(std::iter::repeat_n(0, dims.len() - 1));
        count.extend_from_slice(&dims[1..]);
        Hyperslab { start, count }
    };
    if dims.len() == 1 {
        out.push(slab(first, n, prefix));
        return;
    }
    let (mut at, mut left) = (first, n);
    let offset = at % inner;
    if offset != 0 {
        let take = left.min(inner - offset);
        prefix.push(at / inner);
        cover(&dims[1..], offset, take, prefix, out);
        prefix.pop();
        at += take;
        left -= take;
    }
    let whole = left / inner;
    if whole > 0 {
        out.push(slab(at / inner, whole, prefix));
        at += whole * inner;
        left -= whole * inner;
    }
    if left > 0 {
        prefix.push(at / inner);
        cover(&dims[1..], 0, left, prefix, out);
        prefix.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(dims: &[usize], first: usize, n: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
        hyperslabs(dims, first, n)
            .into_iter()
            .map(|h| (h.start, h.count))
            .collect()
    }

    #[test]
    fn whole_rows_are_one_slab() {
        assert_eq!(covered(&[4, 3], 0, 12), vec![(vec![0, 0], vec![4, 3])]);
        assert_eq!(covered(&[4, 3], 3, 6), vec![(vec![1, 0], vec![2, 3])]);
    }

    #[test]
    fn partial_rows_at_both_ends() {
        assert_eq!(
            covered(&[4, 3], 2, 6),
            vec![
                (vec![0, 2], vec![1, 1]),
                (vec![1, 0], vec![1, 3]),
                (vec![2, 0], vec![1, 2])
            ]
        );
    }

    #[test]
    fn three_dimensions_and_scalars() {
        assert_eq!(
            covered(&[2, 2, 2], 1, 4),
            vec![
                (vec![0, 0, 1], vec![1, 1, 1]),
                (vec![0, 1, 0], vec![1, 1, 2]),
                (vec![1, 0, 0], vec![1, 1, 1]),
            ]
        );
        assert_eq!(covered(&[], 0, 1), vec![(vec![], vec![])]);
        assert_eq!(covered(&[5], 2, 0), vec![]);
    }

    #[test]
    fn every_value_is_covered_once() {
        let dims = [3, 4, 5];
        for first in 0..60 {
            for n in 0..(60 - first) {
                let total: usize = hyperslabs(&dims, first, n)
                    .iter()
                    .map(|h| h.count.iter().product::<usize>())
                    .sum();
                assert_eq!(total, n, "first {first} n {n}");
            }
        }
    }
}
