//! String widths for outputs that store strings at a fixed width (Zarr): a string
//! variable whose longest value is longer than the width the output would give it is
//! given `_nczarr_maxstrlen` equal to that value's length, so that nothing is cut. A
//! width the user set (the variable's `_nczarr_maxstrlen`, or the root group's
//! `_nczarr_default_maxstrlen`) is kept: then longer values are cut, with a warning.

use anyhow::anyhow;
use ncmodel::{AtomicType, Attribute, Dataset, Group, TypeRef, Values, Var};
use store::StoreReader;

/// The variable attribute that sets a string variable's width in a Zarr store.
const MAXSTRLEN: &str = "_nczarr_maxstrlen";

/// The root-group attribute that sets the default width.
const DEFAULT_MAXSTRLEN: &str = "_nczarr_default_maxstrlen";

/// How many strings are read at a time while measuring.
const STRINGS_PER_READ: usize = 1 << 16;

/// `output` with `_nczarr_maxstrlen` on each string variable whose values in `input`
/// (whose schema is `source`) are longer than the width it would get.
pub fn fit(input: &dyn StoreReader, source: &Dataset, output: &Dataset) -> anyhow::Result<Dataset> {
    let mut fitted = output.clone();
    if output.root.atts.iter().any(|a| a.name == DEFAULT_MAXSTRLEN) {
        return Ok(fitted);
    }
    let default = zarr::string_width(&output.root.atts, &[]);
    fit_group(input, source, &source.root, &mut fitted.root, default)?;
    Ok(fitted)
}

fn fit_group(
    input: &dyn StoreReader,
    source: &Dataset,
    from: &Group,
    to: &mut Group,
    default: usize,
) -> anyhow::Result<()> {
    for var in &mut to.vars {
        let is_string = var.type_ref == TypeRef::Atomic(AtomicType::String);
        if !is_string || var.atts.iter().any(|a| a.name == MAXSTRLEN) {
            continue;
        }
        let Some(original) = from.vars.iter().find(|v| v.name == var.name) else {
            continue;
        };
        let longest = longest_string(input, source, from.ncid, original)?;
        if longest > default {
            var.atts.push(Attribute {
                name: MAXSTRLEN.to_string(),
                type_ref: TypeRef::Atomic(AtomicType::Int),
                values: Values::Int(vec![i32::try_from(longest).map_err(|_| {
                    anyhow!(
                        "variable {}: a string of {longest} bytes is too long",
                        var.name
                    )
                })?]),
            });
        }
    }
    for child in &mut to.groups {
        if let Some(original) = from.groups.iter().find(|g| g.name == child.name) {
            fit_group(input, source, original, child, default)?;
        }
    }
    Ok(())
}

/// The length in bytes of the longest value of the string variable `var` of the group
/// `ncid`, read a slab of at most [`STRINGS_PER_READ`] values at a time.
fn longest_string(
    input: &dyn StoreReader,
    source: &Dataset,
    ncid: i32,
    var: &Var,
) -> anyhow::Result<usize> {
    let shape: Vec<usize> = var
        .dim_ids
        .iter()
        .map(|id| source.dim(*id).map_or(0, |d| d.len))
        .collect();
    if shape.contains(&0) {
        return Ok(0);
    }
    // Whole rows of the last dimensions, as many as fit in one read, along the first.
    let row: usize = shape.iter().skip(1).product::<usize>().max(1);
    let rows_per_read = (STRINGS_PER_READ / row).max(1);
    let first = shape.first().copied().unwrap_or(1);
    let mut longest = 0;
    let mut start_row = 0;
    while start_row < first {
        let rows = rows_per_read.min(first - start_row);
        let (start, count) = if shape.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            let mut start = vec![0; shape.len()];
            let mut count = shape.clone();
            start[0] = start_row;
            count[0] = rows;
            (start, count)
        };
        let values = input
            .read_slab(source, ncid, var, &start, &count)
            .map_err(|e| anyhow!(e))?;
        if let Values::String(strings) = values {
            let here = strings.iter().flatten().map(Vec::len).max().unwrap_or(0);
            longest = longest.max(here);
        }
        start_row += rows;
    }
    Ok(longest)
}
