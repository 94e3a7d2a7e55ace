//! The sample `--try-filters` encodes: a bounded number of each variable's chunks, spread
//! evenly over the variable, read as raw values.

use ncmodel::{Dataset, Group, Layout, TypeRef, Var};
use store::{RawBuffer, StoreReader};

/// Chunks sampled per variable at most.
pub const SAMPLED_CHUNKS: u64 = 8;

/// Bytes of the blocks a variable that is not chunked is cut into for the sample.
const BLOCK_BYTES: usize = 4 << 20;

/// A variable to sample: where it is and its shape.
#[derive(Debug, Clone)]
pub struct SampledVar {
    /// The variable's path.
    pub path: filterspec::VarPath,
    /// Its declaration for the report (`float(time=4, lat=6)`).
    pub declaration: String,
    /// The variable.
    pub var: Var,
    /// Dimension lengths.
    pub shape: Vec<usize>,
    /// The chunk shape sampled (the variable's own chunks, or blocks of about 4 MiB).
    pub chunks: Vec<usize>,
    /// Bytes of one value.
    pub element: usize,
}

impl SampledVar {
    /// How many chunks the variable has.
    pub fn chunk_count(&self) -> u64 {
        store::grid::chunk_count(&self.shape, &self.chunks)
    }

    /// The first indices of the sampled chunks: at most [`SAMPLED_CHUNKS`], evenly spread
    /// over the chunk grid in row-major order, each from the middle of its share.
    pub fn sampled_offsets(&self) -> Vec<Vec<usize>> {
        let total = self.chunk_count();
        let n = total.min(SAMPLED_CHUNKS);
        let grid: Vec<u64> = self
            .shape
            .iter()
            .zip(&self.chunks)
            .map(|(&len, &chunk)| len.div_ceil(chunk.max(1)) as u64)
            .collect();
        (0..n)
            .map(|i| {
                let mut linear = (2 * i + 1) * total / (2 * n);
                let mut offset = vec![0; grid.len()];
                for k in (0..grid.len()).rev() {
                    offset[k] = (linear % grid[k].max(1)) as usize * self.chunks[k];
                    linear /= grid[k].max(1);
                }
                offset
            })
            .collect()
    }

    /// Reads the chunk starting at `offset` (cut at the variable's edges) as raw values in
    /// the machine's byte order.
    pub fn read_chunk(&self, input: &dyn StoreReader, offset: &[usize]) -> anyhow::Result<Vec<u8>> {
        let count: Vec<usize> = offset
            .iter()
            .zip(&self.chunks)
            .zip(&self.shape)
            .map(|((&o, &c), &len)| c.min(len - o))
            .collect();
        let mut buffer = RawBuffer::new();
        input
            .read_raw(&self.path, offset, &count, &mut buffer)
            .map_err(|e| anyhow::anyhow!(e))?;
        Ok(buffer.as_bytes().to_vec())
    }
}

/// The variables of `dataset` worth sampling: of a fixed-size atomic type, with values.
pub fn sampled_vars(dataset: &Dataset) -> Vec<SampledVar> {
    let mut out = Vec::new();
    walk(dataset, &dataset.root, &mut Vec::new(), &mut out);
    out
}

fn walk(dataset: &Dataset, group: &Group, groups: &mut Vec<String>, out: &mut Vec<SampledVar>) {
    for var in &group.vars {
        if !store::is_raw_type(var.type_ref) {
            continue;
        }
        let dims: Vec<(String, usize)> = var
            .dim_ids
            .iter()
            .filter_map(|id| dataset.dim(*id).map(|d| (d.name.clone(), d.len)))
            .collect();
        let shape: Vec<usize> = dims.iter().map(|d| d.1).collect();
        if shape.contains(&0) || dims.len() != var.dim_ids.len() {
            continue;
        }
        let element = dataset.type_size(var.type_ref);
        let chunks = match var.storage.as_ref().map(|s| &s.layout) {
            Some(Layout::Chunked(c)) if c.len() == shape.len() && !c.contains(&0) => c.clone(),
            _ => blocks(&shape, element),
        };
        let type_name = match var.type_ref {
            TypeRef::Atomic(a) => a.cdl_name().to_string(),
            TypeRef::User(_) => "?".to_string(),
        };
        let declaration = if dims.is_empty() {
            type_name
        } else {
            let list: Vec<String> = dims.iter().map(|(n, l)| format!("{n}={l}")).collect();
            format!("{type_name}({})", list.join(", "))
        };
        out.push(SampledVar {
            path: filterspec::VarPath::new(groups.clone(), var.name.clone()),
            declaration,
            var: var.clone(),
            shape,
            chunks,
            element,
        });
    }
    for child in &group.groups {
        groups.push(child.name.clone());
        walk(dataset, child, groups, out);
        groups.pop();
    }
}

/// Blocks of about [`BLOCK_BYTES`] for a variable that is not chunked: whole rows of the
/// fastest dimensions, the outer ones cut.
fn blocks(shape: &[usize], element: usize) -> Vec<usize> {
    let mut chunks = shape.to_vec();
    let mut bytes: usize = shape.iter().product::<usize>().saturating_mul(element);
    for length in &mut chunks {
        if bytes <= BLOCK_BYTES {
            break;
        }
        let inner = bytes / (*length).max(1);
        *length = (BLOCK_BYTES / inner.max(1)).clamp(1, *length);
        bytes = inner.saturating_mul(*length);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_keep_whole_rows_and_stay_near_4_mib() {
        assert_eq!(blocks(&[241, 360, 720], 4), vec![4, 360, 720]);
        assert_eq!(blocks(&[10, 10], 8), vec![10, 10]);
        assert_eq!(blocks(&[3, 4096, 4096], 4), vec![1, 256, 4096]);
    }
}
