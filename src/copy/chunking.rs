//! The layout of an output variable of a netCDF-4 file, as the reference nccopy 4.9
//! chooses it (observed; docs/nccopy.md):
//!
//! 1. start from the input's layout (netCDF-3 input: contiguous);
//! 2. `-c /` makes everything contiguous; `-c var:...` sets the variable's layout;
//! 3. the variable is chunked when it has `-c var:n,...` sizes, output filters, an
//!    unlimited dimension, a dimension named in `-c dim/n`, or chunked input; each chunk
//!    length comes from `-c var:`, else `-c dim/`, else the input's chunks, else the
//!    library's default;
//! 4. a fixed-size variable whose chunk (or whole size, for compact storage) is smaller
//!    than `-M` bytes (default 8192) becomes contiguous;
//! 5. a filtered variable that ended up unchunked gets the library's default chunks
//!    (DECISIONS D4), as does one with an unlimited dimension.

use anyhow::bail;
use filterspec::VarPath;
use ncmodel::{Dataset, Layout, Var};

use super::default_chunks::default_chunks;
use chunkspec::{ChunkSpecs, VarChunking};

/// What decides the layout of one variable.
pub struct LayoutChoice<'a> {
    /// The variable's full path.
    pub path: &'a VarPath,
    /// The output schema (dimensions as the output has them, after `-u`).
    pub dataset: &'a Dataset,
    /// The variable.
    pub var: &'a Var,
    /// Its dimension lengths.
    pub shape: &'a [usize],
    /// Its layout in the input (`None` for netCDF-3 input).
    pub input: Option<&'a Layout>,
    /// Whether it gets output filters.
    pub filtered: bool,
    /// `-c`.
    pub chunks: &'a ChunkSpecs,
    /// `-M`.
    pub min_chunk_bytes: usize,
}

impl LayoutChoice<'_> {
    fn unlimited(&self) -> Vec<bool> {
        self.var
            .dim_ids
            .iter()
            .map(|id| self.dataset.dim(*id).is_some_and(|d| d.unlimited))
            .collect()
    }

    fn type_size(&self) -> usize {
        self.dataset.type_size(self.var.type_ref)
    }

    fn dim_name(&self, d: usize) -> Option<&str> {
        let id = self.var.dim_ids.get(d)?;
        self.dataset.dim(*id).map(|dim| dim.name.as_str())
    }

    /// `-c dim/n` for dimension `d`: `Some(None)` for `dim/` (the whole length).
    fn dim_spec(&self, d: usize) -> Option<Option<usize>> {
        let name = self.dim_name(d)?;
        let spec = self.chunks.dims.iter().rev().find(|(n, _)| n == name)?;
        Some(spec.1)
    }
}

/// The library's default chunk sizes: it chooses them when given none.
const LIBRARY_DEFAULT: Layout = Layout::Chunked(Vec::new());

/// Chooses the output layout.
pub fn choose_layout(choice: &LayoutChoice<'_>) -> anyhow::Result<Layout> {
    if choice.var.dim_ids.is_empty() {
        return Ok(Layout::Contiguous);
    }
    let unlimited = choice.unlimited();
    let has_unlimited = unlimited.iter().any(|u| *u);
    let var_spec = choice
        .chunks
        .vars
        .iter()
        .find(|(p, _)| p == choice.path)
        .map(|(_, spec)| spec);
    let layout = if choice.chunks.unchunked {
        Layout::Contiguous
    } else {
        match var_spec {
            Some(VarChunking::Contiguous) if !has_unlimited => Layout::Contiguous,
            Some(VarChunking::Compact) if !has_unlimited => Layout::Compact,
            Some(VarChunking::Sizes(sizes)) => chunked(choice, Some(sizes), &unlimited)?,
            _ => {
                let named = (0..choice.shape.len()).any(|d| choice.dim_spec(d).is_some());
                let input_chunked = matches!(choice.input, Some(Layout::Chunked(_)));
                if choice.filtered || has_unlimited || named || input_chunked {
                    chunked(choice, None, &unlimited)?
                } else {
                    match choice.input {
                        Some(Layout::Compact) => Layout::Compact,
                        _ => Layout::Contiguous,
                    }
                }
            }
        }
    };
    let small = |values: usize| values * choice.type_size() < choice.min_chunk_bytes;
    let chunk_values = |sizes: &[usize]| -> usize {
        if sizes.is_empty() {
            default_chunks(choice.shape, &unlimited, choice.type_size())
                .iter()
                .product()
        } else {
            sizes.iter().product()
        }
    };
    let layout = match layout {
        Layout::Chunked(sizes) if !has_unlimited && small(chunk_values(&sizes)) => {
            Layout::Contiguous
        }
        Layout::Compact if small(choice.shape.iter().product()) => Layout::Contiguous,
        other => other,
    };
    Ok(match layout {
        Layout::Contiguous | Layout::Compact if choice.filtered || has_unlimited => LIBRARY_DEFAULT,
        other => other,
    })
}

/// Chunk lengths per dimension: `-c var:` (0: unset), `-c dim/`, the input's chunks, the
/// library's default.
fn chunked(
    choice: &LayoutChoice<'_>,
    var_sizes: Option<&Vec<usize>>,
    unlimited: &[bool],
) -> anyhow::Result<Layout> {
    let n = choice.shape.len();
    let path = choice.path;
    if let Some(sizes) = var_sizes {
        if sizes.len() != n {
            bail!(
                "-c {path}:...: {} chunk lengths given, but {path} has {n} dimensions",
                sizes.len()
            );
        }
    }
    let input = match choice.input {
        Some(Layout::Chunked(sizes)) if sizes.len() == n => Some(sizes),
        _ => None,
    };
    let mut defaults: Option<Vec<usize>> = None;
    let mut sizes = Vec::with_capacity(n);
    for d in 0..n {
        let given = var_sizes.map(|s| s[d]).filter(|len| *len > 0);
        let given = given.or_else(|| {
            choice
                .dim_spec(d)
                .map(|len| len.unwrap_or(choice.shape[d]).max(1))
        });
        let len = match (given, input) {
            (Some(len), _) => {
                if len > choice.shape[d] && !unlimited[d] {
                    bail!(
                        "-c: chunk length {len} for dimension {} of {path} is larger than the \
                         dimension ({})",
                        choice.dim_name(d).unwrap_or("?"),
                        choice.shape[d]
                    );
                }
                len
            }
            // After -u the dimension is fixed: a chunk may not be longer than it.
            (None, Some(input)) if unlimited[d] => input[d],
            (None, Some(input)) => input[d].min(choice.shape[d]).max(1),
            (None, None) => {
                let all = defaults.get_or_insert_with(|| {
                    default_chunks(choice.shape, unlimited, choice.type_size())
                });
                all[d]
            }
        };
        sizes.push(len);
    }
    if var_sizes.is_none() && input.is_none() && (0..n).all(|d| choice.dim_spec(d).is_none()) {
        // Nothing chosen here: let the library choose, as it does for the reference.
        return Ok(LIBRARY_DEFAULT);
    }
    Ok(Layout::Chunked(sizes))
}
