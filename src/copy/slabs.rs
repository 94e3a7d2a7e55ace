//! The order in which nccopy moves a variable's data: hyperslabs made of whole output
//! chunks (so that each chunk is written once, complete, and compressed once), as large
//! as the copy buffer allows, visited in the chunks' row-major order.

/// How a variable's data is cut into hyperslabs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlabPlan {
    shape: Vec<usize>,
    slab: Vec<usize>,
}

impl SlabPlan {
    /// Plans the copy of a variable of `shape`, whose slabs must be made of whole blocks
    /// of `unit` (the output chunk shape; ones for contiguous data), holding at most
    /// `budget` values where possible (one unit is always allowed, whatever its size).
    pub fn new(shape: &[usize], unit: &[usize], budget: usize) -> Self {
        let n = shape.len();
        let mut slab: Vec<usize> = (0..n)
            .map(|d| unit.get(d).copied().unwrap_or(1).clamp(1, shape[d].max(1)))
            .collect();
        for d in (0..n).rev() {
            let others: usize = slab
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != d)
                .map(|(_, len)| *len)
                .product();
            let fits = budget / others.max(1);
            if fits >= shape[d] {
                slab[d] = shape[d].max(1);
                continue;
            }
            let step = slab[d];
            slab[d] = step.max(fits / step * step);
            break;
        }
        Self {
            shape: shape.to_vec(),
            slab,
        }
    }

    /// The slab shape (before clipping at the variable's end).
    pub fn slab_shape(&self) -> &[usize] {
        &self.slab
    }

    /// Whether the variable holds no value at all (a zero-length dimension).
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// The hyperslabs `(start, count)` in order; a scalar gives one empty slab.
    pub fn slabs(&self) -> Slabs<'_> {
        Slabs {
            plan: self,
            next: (!self.is_empty()).then(|| vec![0; self.shape.len()]),
        }
    }
}

/// The iterator of [`SlabPlan::slabs`].
#[derive(Debug)]
pub struct Slabs<'a> {
    plan: &'a SlabPlan,
    next: Option<Vec<usize>>,
}

impl Iterator for Slabs<'_> {
    type Item = (Vec<usize>, Vec<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        let start = self.next.take()?;
        let shape = &self.plan.shape;
        let slab = &self.plan.slab;
        let count: Vec<usize> = (0..shape.len())
            .map(|d| slab[d].min(shape[d] - start[d]))
            .collect();
        let mut following = start.clone();
        for d in (0..shape.len()).rev() {
            following[d] += slab[d];
            if following[d] < shape[d] {
                self.next = Some(following);
                break;
            }
            following[d] = 0;
        }
        Some((start, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(plan: &SlabPlan) -> Vec<(Vec<usize>, Vec<usize>)> {
        plan.slabs().collect()
    }

    #[test]
    fn whole_variable_when_it_fits() {
        let plan = SlabPlan::new(&[4, 5], &[2, 5], 100);
        assert_eq!(all(&plan), vec![(vec![0, 0], vec![4, 5])]);
    }

    #[test]
    fn rows_of_whole_chunks_within_the_budget() {
        // 10 x 10 in 3 x 4 chunks, 30 values: slabs of 3 rows of complete chunks along
        // the last dimension (3 x 10), the last one clipped.
        let plan = SlabPlan::new(&[10, 10], &[3, 4], 30);
        assert_eq!(plan.slab_shape(), &[3, 10]);
        let slabs = all(&plan);
        assert_eq!(slabs.len(), 4);
        assert_eq!(slabs[3], (vec![9, 0], vec![1, 10]));
    }

    #[test]
    fn a_chunk_larger_than_the_budget_is_still_one_slab() {
        let plan = SlabPlan::new(&[10, 10], &[5, 5], 4);
        assert_eq!(plan.slab_shape(), &[5, 5]);
        let slabs = all(&plan);
        assert_eq!(
            slabs,
            vec![
                (vec![0, 0], vec![5, 5]),
                (vec![0, 5], vec![5, 5]),
                (vec![5, 0], vec![5, 5]),
                (vec![5, 5], vec![5, 5]),
            ]
        );
    }

    #[test]
    fn every_value_is_covered_once() {
        for (shape, unit, budget) in [
            (vec![7, 9, 11], vec![2, 4, 3], 50),
            (vec![7, 9, 11], vec![1, 1, 1], 13),
            (vec![1, 1], vec![1, 1], 1),
            (vec![100], vec![7], 20),
        ] {
            let plan = SlabPlan::new(&shape, &unit, budget);
            let mut seen = vec![0u8; shape.iter().product()];
            for (start, count) in plan.slabs() {
                for d in 0..shape.len() {
                    assert!(start[d] % plan.slab_shape()[d] == 0);
                    assert!(start[d] + count[d] <= shape[d]);
                }
                let mut index = vec![0; shape.len()];
                'outer: loop {
                    let flat =
                        (0..shape.len()).fold(0, |acc, d| acc * shape[d] + start[d] + index[d]);
                    seen[flat] += 1;
                    for d in (0..shape.len()).rev() {
                        index[d] += 1;
                        if index[d] < count[d] {
                            continue 'outer;
                        }
                        index[d] = 0;
                    }
                    break;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{shape:?} {unit:?} {budget}");
        }
    }

    #[test]
    fn scalars_and_empty_variables() {
        let scalar = SlabPlan::new(&[], &[], 10);
        assert_eq!(all(&scalar), vec![(vec![], vec![])]);
        let empty = SlabPlan::new(&[0, 5], &[1, 5], 10);
        assert!(empty.is_empty());
        assert!(all(&empty).is_empty());
    }
}
