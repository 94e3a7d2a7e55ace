//! Many jobs into one Zarr store: `--template DIM=N` declares the store with its root
//! dimension `DIM` of length N (the variables along `DIM` get their metadata only, the
//! others are copied whole), and `--region DIM=START:END` writes an input's records into
//! records START..END of that store, chunks only, so that jobs writing disjoint regions
//! may run at once.

use anyhow::{anyhow, bail};

use chunkspec::ChunkSpecs;
use ncmodel::Layout;

use filterspec::VarRequest;

use super::plan::{CopyOptions, CopyPlan};
use super::stored::{copies_stored_chunks, find_var, find_var_mut};

/// `--template DIM=N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The dimension's name.
    pub dim: String,
    /// Its length in the store.
    pub length: usize,
}

/// `--region DIM=START:END`, as given (the store's length is learnt from the store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionRequest {
    /// The dimension's name.
    pub dim: String,
    /// The first record written.
    pub start: usize,
    /// One past the last.
    pub end: usize,
}

/// Parses `--template DIM=N`.
pub fn parse_template(text: &str) -> anyhow::Result<Template> {
    let usage = || anyhow!("--template {text}: write DIM=N, N the dimension's length in the store");
    let (dim, length) = text.split_once('=').ok_or_else(usage)?;
    let length: usize = length.trim().parse().map_err(|_| usage())?;
    if dim.is_empty() || length == 0 {
        return Err(usage());
    }
    Ok(Template {
        dim: dim.to_string(),
        length,
    })
}

/// Parses `--region DIM=START:END`.
pub fn parse_region(text: &str) -> anyhow::Result<RegionRequest> {
    let usage = || {
        anyhow!(
            "--region {text}: write DIM=START:END, the records START to END (END excluded) of DIM"
        )
    };
    let (dim, range) = text.split_once('=').ok_or_else(usage)?;
    let (start, end) = range.split_once(':').ok_or_else(usage)?;
    let start: usize = start.trim().parse().map_err(|_| usage())?;
    let end: usize = end.trim().parse().map_err(|_| usage())?;
    if dim.is_empty() || start >= end {
        return Err(usage());
    }
    Ok(RegionRequest {
        dim: dim.to_string(),
        start,
        end,
    })
}

/// The length of the root dimension `dim` of `dataset`, or an error naming `what`.
fn root_dim_len(dataset: &ncmodel::Dataset, dim: &str, what: &str) -> anyhow::Result<(i32, usize)> {
    dataset
        .root
        .dims
        .iter()
        .find(|d| d.name == dim)
        .map(|d| (d.id, d.len))
        .ok_or_else(|| anyhow!("{what} has no dimension {dim} in its root group"))
}

/// Whether the variable of `plan` at index `i` lies along the dimension `id`.
fn along(plan: &CopyPlan, i: usize, id: i32) -> bool {
    plan.vars
        .get(i)
        .and_then(|v| find_var(&plan.dataset, &v.path))
        .is_some_and(|var| var.dim_ids.contains(&id))
}

/// Makes `plan` a template's: `DIM` gets the template's length, and the variables along
/// it are declared without data (their region writes fill them), in chunks along `DIM`
/// no longer than the input's records unless `chunks` (`-c`) names `DIM` or the
/// variable.
pub fn apply_template(
    plan: &mut CopyPlan,
    template: &Template,
    chunks: &ChunkSpecs,
) -> anyhow::Result<()> {
    let what = format!("--template {}={}: the input", template.dim, template.length);
    let (id, _) = root_dim_len(&plan.dataset, &template.dim, &what)?;
    for i in 0..plan.vars.len() {
        if along(plan, i, id) {
            plan.vars[i].copy_data = false;
        }
    }
    // One file, one chunk along DIM: a chunk longer than the file's records (the 512 of
    // netCDF4-python's default along an unlimited time) would make every region job
    // after the first share a chunk with another, unless -c chose it.
    let records = plan.dataset.dim(id).map_or(0, |d| d.len);
    let chosen_by_user = |path: &store::VarPath| {
        chunks.vars.iter().any(|(p, _)| p == path)
            || chunks.dims.iter().any(|(name, _)| *name == template.dim)
    };
    if records > 0 {
        for i in 0..plan.vars.len() {
            let path = plan.vars[i].path.clone();
            if !along(plan, i, id) || chosen_by_user(&path) {
                continue;
            }
            let Some(var) = find_var_mut(&mut plan.dataset, &path) else {
                continue;
            };
            let axes: Vec<usize> = (0..var.dim_ids.len())
                .filter(|a| var.dim_ids[*a] == id)
                .collect();
            if let Some(Layout::Chunked(sizes)) = var.storage.as_mut().map(|s| &mut s.layout) {
                for axis in axes {
                    if let Some(size) = sizes.get_mut(axis).filter(|size| **size > records) {
                        *size = records;
                    }
                }
            }
        }
    }
    if let Some(dim) = plan.dataset.root.dims.iter_mut().find(|d| d.id == id) {
        dim.len = template.length;
    }
    Ok(())
}

/// Makes the output's layout the store's, for `--append` and `--region`: the store
/// decides (as xarray's appends and region writes do). Each variable the store has takes
/// its chunks and filters, whatever the input's are, so that an append needs no `-c` or
/// `-F` repeating the store's; its data is then re-chunked and re-encoded as needed
/// (stored chunks are copied as they are only where they still agree). What the user
/// asks for explicitly (`-c`; `-d`, `-s` or `-F` naming the variable or `*`) is kept,
/// and compared with the store like the rest.
pub fn adopt_store_layout(
    plan: &mut CopyPlan,
    store_dataset: &ncmodel::Dataset,
    input_dataset: &ncmodel::Dataset,
    options: &CopyOptions,
) {
    let stores = options.stores();
    for i in 0..plan.vars.len() {
        let path = plan.vars[i].path.clone();
        let Some(theirs) = find_var(store_dataset, &path).and_then(|v| v.storage.clone()) else {
            continue;
        };
        let chunks_asked = options.chunks.is_set();
        let filters_asked = options.deflate.is_set()
            || options.filters.global_none()
            || !matches!(options.filters.request_for(&path), VarRequest::Undefined);
        let Some(var) = find_var_mut(&mut plan.dataset, &path) else {
            continue;
        };
        let Some(ours) = var.storage.as_mut() else {
            continue;
        };
        let mut changed = false;
        if !chunks_asked
            && matches!(theirs.layout, Layout::Chunked(_))
            && ours.layout != theirs.layout
        {
            ours.layout = theirs.layout;
            changed = true;
        }
        // A store whose codecs are not all filters' (version 3's gzip) says less in its
        // filters than it holds: the input's filters are kept, and the writer's codecs
        // for them compared with the store's.
        let filters_say_all = theirs.codecs.as_deref().is_none_or(|text| {
            serde_json::from_str::<Vec<serde_json::Value>>(text)
                .is_ok_and(|codecs| codecs.len() == theirs.filters.len())
        });
        if !filters_asked && filters_say_all && ours.filters != theirs.filters {
            ours.filters = theirs.filters;
            changed = true;
        }
        if !changed {
            continue;
        }
        let output = ours.clone();
        let var = var.clone();
        let input_storage = find_var(input_dataset, &path).and_then(|v| v.storage.as_ref());
        let planned = &mut plan.vars[i];
        planned.pipeline = filterspec::Pipeline::from_stored(output.filters.clone());
        planned.stored_chunks = planned.stored_chunks
            && copies_stored_chunks(input_dataset, &var, input_storage, &output, &stores);
        planned.why = format!("{}, the store's chunks and filters", planned.why);
    }
}

/// Makes `plan` a region write's: only the variables along `DIM` are written (the
/// template wrote the others). The input's length along `DIM` must be the region's;
/// `store_dataset` is the store's schema, which gives the dimension's length there.
pub fn apply_region(
    plan: &mut CopyPlan,
    request: &RegionRequest,
    store_dataset: &ncmodel::Dataset,
    target: &str,
) -> anyhow::Result<store::Region> {
    let option = format!("--region {}={}:{}", request.dim, request.start, request.end);
    let (id, input_len) =
        root_dim_len(&plan.dataset, &request.dim, &format!("{option}: the input"))?;
    let (_, length) = root_dim_len(store_dataset, &request.dim, &format!("{option}: {target}"))?;
    if request.end > length {
        bail!(
            "{option}: the region ends beyond the store's {} records of {}",
            length,
            request.dim
        );
    }
    let wanted = request.end - request.start;
    if input_len != wanted {
        bail!(
            "{option}: the region holds {wanted} records of {}, and the input has {input_len}",
            request.dim
        );
    }
    for i in 0..plan.vars.len() {
        if !along(plan, i, id) {
            plan.vars[i].copy_data = false;
        }
    }
    Ok(store::Region {
        dim: request.dim.clone(),
        start: request.start,
        end: request.end,
        length,
        extend: false,
    })
}

/// What `--append DIM` reads before it writes: the store and the input, each with its
/// schema.
pub struct AppendSources<'a> {
    /// The store appended to, opened for reading.
    pub store: &'a dyn store::StoreReader,
    /// Its schema.
    pub store_dataset: &'a ncmodel::Dataset,
    /// The input.
    pub input: &'a dyn store::StoreReader,
    /// Its schema.
    pub input_dataset: &'a ncmodel::Dataset,
}

/// Makes `plan` an append's (`--append DIM`): the input's records go after the store's,
/// and only the variables along `DIM` are written. The coordinate variable `DIM`, where
/// both have one, must increase from the store's last value on, unless
/// `allow_overlap`.
pub fn apply_append(
    plan: &mut CopyPlan,
    dim: &str,
    sources: &AppendSources<'_>,
    allow_overlap: bool,
    target: &str,
) -> anyhow::Result<store::Region> {
    let option = format!("--append {dim}");
    let (id, records) = root_dim_len(&plan.dataset, dim, &format!("{option}: the input"))?;
    let (_, length) = root_dim_len(sources.store_dataset, dim, &format!("{option}: {target}"))?;
    if records == 0 {
        bail!("{option}: the input has no records of {dim}");
    }
    if !allow_overlap {
        check_coordinates(dim, sources, length, &option)?;
    }
    for i in 0..plan.vars.len() {
        if !along(plan, i, id) {
            plan.vars[i].copy_data = false;
        }
    }
    let Some(end) = length.checked_add(records) else {
        bail!("{option}: {target} holds {length} records of {dim}, too many to add to");
    };
    Ok(store::Region {
        dim: dim.to_string(),
        start: length,
        end,
        length,
        extend: true,
    })
}

/// The values of the root coordinate variable `dim` (one dimension, `dim`) of `dataset`
/// from `start` on, as numbers; `None` when there is no such variable or its type is
/// not a number.
fn coordinates(
    reader: &dyn store::StoreReader,
    dataset: &ncmodel::Dataset,
    dim: &str,
    start: usize,
) -> anyhow::Result<Option<Vec<f64>>> {
    let Some(var) = dataset.root.vars.iter().find(|v| v.name == dim) else {
        return Ok(None);
    };
    let (Some(id), 1) = (var.dim_ids.first(), var.dim_ids.len()) else {
        return Ok(None);
    };
    let Some(length) = dataset.dim(*id).map(|d| d.len) else {
        return Ok(None);
    };
    if start >= length {
        return Ok(Some(Vec::new()));
    }
    let path = store::VarPath::new(Vec::<String>::new(), dim);
    let values = reader
        .read_slab(dataset, &path, &[start], &[length - start])
        .map_err(|e| anyhow!(e))?;
    Ok((0..values.len())
        .map(|i| values.number_at(i))
        .collect::<Option<Vec<f64>>>())
}

/// Fails unless the input's coordinates along `dim` increase, from after the store's
/// last one.
fn check_coordinates(
    dim: &str,
    sources: &AppendSources<'_>,
    length: usize,
    option: &str,
) -> anyhow::Result<()> {
    let Some(new) = coordinates(sources.input, sources.input_dataset, dim, 0)? else {
        return Ok(());
    };
    let last = match length.checked_sub(1) {
        Some(last) => coordinates(sources.store, sources.store_dataset, dim, last)?
            .and_then(|values| values.first().copied()),
        None => None,
    };
    let mut previous = last;
    for (i, value) in new.iter().enumerate() {
        if let Some(before) = previous {
            if value.partial_cmp(&before) != Some(std::cmp::Ordering::Greater) {
                let whose = if i == 0 {
                    format!("the store's last {dim} is {before}")
                } else {
                    format!("the input's {dim} at record {} is {before}", i - 1)
                };
                bail!(
                    "{option}: the input's {dim} at record {i} is {value}, and {whose}: {dim} \
                     must increase (a duplicate or overlapping range); --allow-overlap \
                     appends the records anyway"
                );
            }
        }
        previous = Some(*value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_and_regions_parse_and_bad_forms_are_refused() -> anyhow::Result<()> {
        assert_eq!(
            parse_template("time=1000")?,
            Template {
                dim: "time".into(),
                length: 1000
            }
        );
        assert!(parse_template("time").is_err());
        assert!(parse_template("time=0").is_err());
        assert_eq!(
            parse_region("time=10:20")?,
            RegionRequest {
                dim: "time".into(),
                start: 10,
                end: 20
            }
        );
        assert!(parse_region("time=20:10").is_err());
        assert!(parse_region("time=10").is_err());
        Ok(())
    }
}
