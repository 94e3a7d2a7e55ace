//! [`Region`]: the part of an existing store's dimension that one writer fills
//! (`nccopy --region DIM=START:END`), so that many writers fill one store at once.

/// Records `[start, end)` of the root dimension `dim` of an existing store, whose
/// length there is `length`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The dimension's name (a dimension of the root group).
    pub dim: String,
    /// The first record written.
    pub start: usize,
    /// One past the last record written.
    pub end: usize,
    /// The dimension's length in the store.
    pub length: usize,
    /// Whether the region extends the dimension to `end` (an append): it starts at the
    /// store's length, and the store's metadata is updated once its chunks are written.
    pub extend: bool,
}

impl Region {
    /// The bounds aligned on chunks of `chunk` records along the dimension that hold the
    /// region (`start` rounded down, `end` rounded up, at most the length), or `None`
    /// when the region is aligned already: it starts on a chunk boundary and ends on one
    /// or at the dimension's end (an append's end is the dimension's new end).
    pub fn misalignment(&self, chunk: usize) -> Option<(usize, usize)> {
        let chunk = chunk.max(1);
        let aligned_start = self.start % chunk == 0;
        let last = if self.extend { self.end } else { self.length };
        let aligned_end = self.end % chunk == 0 || self.end == last;
        if aligned_start && aligned_end {
            return None;
        }
        let low = self.start / chunk * chunk;
        let high = self.end.div_ceil(chunk).saturating_mul(chunk).min(last);
        Some((low, high))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: usize, end: usize) -> Region {
        Region {
            dim: "time".into(),
            start,
            end,
            length: 25,
            extend: false,
        }
    }

    #[test]
    fn a_region_on_chunk_boundaries_or_ending_at_the_end_is_aligned() {
        assert_eq!(region(10, 20).misalignment(5), None);
        assert_eq!(region(20, 25).misalignment(10), None);
        assert_eq!(region(3, 7).misalignment(5), Some((0, 10)));
        assert_eq!(region(20, 23).misalignment(10), Some((20, 25)));
        let append = Region {
            start: 25,
            end: 33,
            extend: true,
            ..region(0, 0)
        };
        assert_eq!(append.misalignment(5), None);
        assert_eq!(append.misalignment(10), Some((20, 33)));
    }
}
