//! When a variable's stored chunks can be copied as they are, without decoding or
//! encoding them: the output keeps the input's filters (ids and parameters, in order),
//! chunk shape, type, byte order and quantization, and both are netCDF-4 files. This is
//! decided per variable, so subsetting (`-v`, `-g`), `-k nc4`/`nc4c` and filters given
//! for other variables keep it, and it needs none of the filters: a variable whose
//! filter nctools lacks can be copied as long as its filters do not change.

use filterspec::VarPath;
use ncmodel::{Dataset, Layout, Storage, Var};
use store::StoreReader;

use super::plan::CopyPlan;

/// Whether the chunks of `var` (of the `input` dataset, stored as `input_storage`) can
/// be copied as stored into an output that stores it as `output`.
pub fn copies_stored_chunks(
    input: &Dataset,
    var: &Var,
    input_storage: Option<&Storage>,
    output: &Storage,
) -> bool {
    let Some(stored) = input_storage else {
        return false;
    };
    let hdf5_input = !input.is_nczarr && !input.format.is_classic_family();
    let same_chunks = match (&stored.layout, &output.layout) {
        (Layout::Chunked(a), Layout::Chunked(b)) => !a.is_empty() && a == b,
        _ => false,
    };
    hdf5_input
        && same_chunks
        && store::is_raw_type(var.type_ref)
        && !var.dim_ids.is_empty()
        && stored.filters == output.filters
        && stored.endianness == output.endianness
        && stored.quantize == output.quantize
}

/// Output variables are not pre-filled, as the reference nccopy writes them, since every
/// chunk is written. A variable whose stored chunks are copied keeps the chunks its
/// input never wrote unwritten: there the output keeps the input's fill setting, so that
/// they read as fill values (as in the input) rather than as whatever is on disk.
pub fn keep_fill_of_unwritten_chunks(
    input: &dyn StoreReader,
    dataset: &Dataset,
    plan: &mut CopyPlan,
) -> Result<(), store::StoreError> {
    for var in plan.vars.iter().filter(|v| v.stored_chunks) {
        let Some(source) = input.hdf5_chunk_source(&var.path.groups, &var.path.name) else {
            continue;
        };
        let Some(output) = find_var_mut(&mut plan.dataset, &var.path) else {
            continue;
        };
        let Some(storage) = output.storage.as_mut() else {
            continue;
        };
        let Layout::Chunked(chunks) = &storage.layout else {
            continue;
        };
        let grid: u64 = var
            .shape
            .iter()
            .zip(chunks)
            .map(|(n, c)| n.div_ceil((*c).max(1)) as u64)
            .product();
        if source.written_chunks()? < grid {
            storage.no_fill = find_var(dataset, &var.path)
                .and_then(|v| v.storage.as_ref())
                .is_some_and(|s| s.no_fill);
        }
    }
    Ok(())
}

/// The variable at `path` of `dataset`.
pub fn find_var<'d>(dataset: &'d Dataset, path: &VarPath) -> Option<&'d Var> {
    let mut group = &dataset.root;
    for name in &path.groups {
        group = group.groups.iter().find(|g| &g.name == name)?;
    }
    group.var(&path.name)
}

fn find_var_mut<'d>(dataset: &'d mut Dataset, path: &VarPath) -> Option<&'d mut Var> {
    let mut group = &mut dataset.root;
    for name in &path.groups {
        group = group.groups.iter_mut().find(|g| &g.name == name)?;
    }
    group.vars.iter_mut().find(|v| v.name == path.name)
}
