//! Many jobs into one Zarr store: `--template DIM=N` declares the store with its root
//! dimension `DIM` of length N (the variables along `DIM` get their metadata only, the
//! others are copied whole), and `--region DIM=START:END` writes an input's records into
//! records START..END of that store, chunks only, so that jobs writing disjoint regions
//! may run at once.

use anyhow::{anyhow, bail};

use super::plan::CopyPlan;
use super::stored::find_var;

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
/// it are declared without data (their region writes fill them).
pub fn apply_template(plan: &mut CopyPlan, template: &Template) -> anyhow::Result<()> {
    let what = format!("--template {}={}: the input", template.dim, template.length);
    let (id, _) = root_dim_len(&plan.dataset, &template.dim, &what)?;
    for i in 0..plan.vars.len() {
        if along(plan, i, id) {
            plan.vars[i].copy_data = false;
        }
    }
    if let Some(dim) = plan.dataset.root.dims.iter_mut().find(|d| d.id == id) {
        dim.len = template.length;
    }
    Ok(())
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
    })
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
