//! Splitting a variable into hyperslabs of bounded size, in row-major order.

/// The most values read at once.
const MAX_SLAB_VALUES: usize = 1 << 20;

/// The most bytes read at once, where values are large (compounds, opaque types).
const MAX_SLAB_BYTES: usize = 64 << 20;

/// One hyperslab.
pub(crate) struct Slab {
    /// Start index per dimension.
    pub(crate) start: Vec<usize>,
    /// Count per dimension.
    pub(crate) count: Vec<usize>,
}

/// The slabs covering a variable of shape `dims`, in row-major order: the outer
/// dimensions one index at a time, one dimension in steps, the inner ones whole.
pub(crate) struct SlabPlan {
    dims: Vec<usize>,
    /// The dimension that is stepped through.
    split: usize,
    /// The step along `split`.
    step: usize,
}

impl SlabPlan {
    /// The plan for a variable of shape `dims` (empty for a scalar) whose values take
    /// `value_bytes` each in memory: at most [`MAX_SLAB_VALUES`] values and, where values
    /// are large, [`MAX_SLAB_BYTES`] (one value at least).
    pub(crate) fn new(dims: &[usize], value_bytes: usize) -> Self {
        let by_bytes = MAX_SLAB_BYTES / value_bytes.max(1);
        Self::with_limit(dims, by_bytes.clamp(1, MAX_SLAB_VALUES))
    }

    fn with_limit(dims: &[usize], limit: usize) -> Self {
        let mut inner = 1usize;
        let mut split = dims.len().saturating_sub(1);
        // Find the outermost dimension whose inner block still fits.
        for k in (0..dims.len()).rev() {
            split = k;
            let block = inner.saturating_mul(dims[k]);
            if block > limit {
                break;
            }
            inner = block;
            if k == 0 {
                break;
            }
        }
        let inner_of_split: usize = dims
            .get(split + 1..)
            .map_or(1, |d| d.iter().fold(1usize, |a, n| a.saturating_mul(*n)));
        let step =
            (limit / inner_of_split.max(1)).clamp(1, dims.get(split).copied().unwrap_or(1).max(1));
        Self {
            dims: dims.to_vec(),
            split,
            step,
        }
    }

    /// The slabs, in order. They are counted in 128 bits: a declared shape may hold more
    /// slabs than a `usize` counts (two dimensions of 2^64 - 1), which are then read one
    /// after the other until the reading fails, never an overflow.
    pub(crate) fn slabs(&self) -> impl Iterator<Item = Slab> + '_ {
        let rank = self.dims.len();
        let outer: Vec<usize> = self.dims[..self.split.min(rank)].to_vec();
        let outer_total: u128 = outer
            .iter()
            .fold(1u128, |a, n| a.saturating_mul(*n as u128));
        let along = self.dims.get(self.split).copied().unwrap_or(1);
        let steps: u128 = if rank == 0 {
            1
        } else {
            along.div_ceil(self.step) as u128
        };
        (0..outer_total.max(1).saturating_mul(steps)).map(move |n| {
            if rank == 0 {
                return Slab {
                    start: Vec::new(),
                    count: Vec::new(),
                };
            }
            let (mut outer_index, step_index) = (n / steps, n % steps);
            let mut start = vec![0; rank];
            let mut count = self.dims.clone();
            for k in (0..self.split).rev() {
                let len = (outer[k] as u128).max(1);
                // Below `outer[k]`, so a usize.
                start[k] = (outer_index % len) as usize;
                outer_index /= len;
                count[k] = 1;
            }
            // `step_index` is below `along / step` rounded up, so this is at most `along`.
            start[self.split] = (step_index as usize).saturating_mul(self.step);
            count[self.split] = self.step.min(along - start[self.split]);
            Slab { start, count }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slabs(dims: &[usize], limit: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
        SlabPlan::with_limit(dims, limit)
            .slabs()
            .map(|s| (s.start, s.count))
            .collect()
    }

    #[test]
    fn small_variables_are_one_slab() {
        assert_eq!(slabs(&[2, 3], 100), vec![(vec![0, 0], vec![2, 3])]);
        assert_eq!(slabs(&[], 100), vec![(vec![], vec![])]);
    }

    #[test]
    fn large_variables_step_through_the_outermost_fitting_dimension() {
        assert_eq!(
            slabs(&[5, 4], 8),
            vec![
                (vec![0, 0], vec![2, 4]),
                (vec![2, 0], vec![2, 4]),
                (vec![4, 0], vec![1, 4])
            ]
        );
        assert_eq!(
            slabs(&[2, 3, 4], 4),
            vec![
                (vec![0, 0, 0], vec![1, 1, 4]),
                (vec![0, 1, 0], vec![1, 1, 4]),
                (vec![0, 2, 0], vec![1, 1, 4]),
                (vec![1, 0, 0], vec![1, 1, 4]),
                (vec![1, 1, 0], vec![1, 1, 4]),
                (vec![1, 2, 0], vec![1, 1, 4]),
            ]
        );
    }

    #[test]
    fn rows_longer_than_the_limit_are_split() {
        assert_eq!(
            slabs(&[1, 5], 2),
            vec![
                (vec![0, 0], vec![1, 2]),
                (vec![0, 2], vec![1, 2]),
                (vec![0, 4], vec![1, 1])
            ]
        );
    }
}
