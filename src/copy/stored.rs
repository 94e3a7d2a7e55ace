//! When a variable's stored chunks can be copied as they are, without decoding or
//! encoding them: the output keeps the input's filters (ids and parameters, in order),
//! chunk shape, type, byte order and quantization, and both are netCDF-4 files, or one
//! or both are Zarr stores and every filter's chunk bytes are the same in HDF5 and Zarr
//! (shuffle, deflate/zlib, bzip2/bz2, zstd, blosc, fletcher32; not lz4, framed
//! differently). This is decided per variable, so subsetting (`-v`, `-g`), `-k
//! nc4`/`nc4c` and filters given for other variables keep it, and between netCDF-4 files
//! it needs none of the filters: a variable whose filter nctools lacks can be copied as
//! long as its filters do not change. A Zarr input's chain must be whole among its
//! filters: a codec with no filter here (gzip, delta, crc32c, ...) cannot be declared by
//! the output, so such a variable is decoded, or refused before anything is written.

use filterspec::known::SHUFFLE;
use filterspec::{FilterSpec, VarPath};
use ncmodel::{Dataset, Layout, Storage, Var};
use store::{Capabilities, ChunkForm, MissingChunks, StoreReader, StoredChunks};

use super::plan::CopyPlan;

/// The stores a copy reads and writes, by what their backends can do.
#[derive(Debug, Clone)]
pub struct StoreKinds {
    /// The input's backend.
    pub input: Capabilities,
    /// The output's backend.
    pub output: Capabilities,
}

/// Whether the chunks of `var` (of the `input` dataset, stored as `input_storage`) can
/// be copied as stored into an output that stores it as `output`.
pub fn copies_stored_chunks(
    input: &Dataset,
    var: &Var,
    input_storage: Option<&Storage>,
    output: &Storage,
    stores: &StoreKinds,
) -> bool {
    let Some(stored) = input_storage else {
        return false;
    };
    // A Zarr input's chain as its chunks were encoded (shuffle with its element size),
    // and none when a codec has no filter here.
    let input_filters = if stores.input.chunks == ChunkForm::Zarr {
        match zarr_chain(stored) {
            Some(chain) => chain,
            None => return false,
        }
    } else {
        stored.filters.clone()
    };
    let kinds_agree = match stores.output.stored_chunks_from(&stores.input) {
        StoredChunks::Never => false,
        StoredChunks::SameBytesOnly => input_filters
            .iter()
            .all(|f| codecs::registry::is_passthrough(f.id)),
        StoredChunks::Any => !input.is_nczarr,
    };
    let hdf5_input = kinds_agree && !input.format.is_classic_family();
    let same_chunks = match (&stored.layout, &output.layout) {
        (Layout::Chunked(a), Layout::Chunked(b)) => !a.is_empty() && a == b,
        _ => false,
    };
    hdf5_input
        && same_chunks
        && store::is_raw_type(var.type_ref)
        && !var.dim_ids.is_empty()
        && same_filters(
            &input_filters,
            &output.filters,
            input.type_size(var.type_ref),
        )
        && stored.endianness == output.endianness
        && stored.quantize == output.quantize
}

/// A Zarr input's whole codec chain as filters, from its codecs as stored (`_Codecs`):
/// shuffle keeps numcodecs' `elementsize`, which need not be the type's. `None` when a
/// codec has no filter here (gzip, delta, crc32c, ...): its chunks copied as stored
/// would go out under a chain that does not declare it (the bytes of a gzip stream under
/// "compressor": null), so such a variable is decoded instead, or refused when its codec
/// cannot be decoded (`input_filter_problems`).
fn zarr_chain(stored: &Storage) -> Option<Vec<FilterSpec>> {
    let Some(text) = &stored.codecs else {
        return Some(stored.filters.clone());
    };
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Array(codecs)) => codecs
            .iter()
            .map(|c| codecs::zarr_codec::filter_of_codec(c).ok())
            .collect(),
        _ => None,
    }
}

/// Whether two pipelines are the same filters with the same parameters, shuffle's element
/// size given (as Zarr stores give it) or not (as libnetcdf reports it).
fn same_filters(a: &[FilterSpec], b: &[FilterSpec], element: usize) -> bool {
    let params = |f: &FilterSpec| match (f.id, f.params.as_slice()) {
        (SHUFFLE, []) => vec![u32::try_from(element).unwrap_or(0)],
        _ => f.params.clone(),
    };
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.id == y.id && params(x) == params(y))
}

/// Settles what happens to the chunks the input never wrote, for the variables whose
/// stored chunks are copied (their written chunks are counted once, here). Between
/// netCDF-4 files they stay unwritten, and the output keeps the input's fill setting so
/// that they read as fill values (as in the input) rather than as whatever is on disk:
/// output variables are otherwise not pre-filled, as the reference nccopy writes them,
/// since every chunk is written (a netCDF-4 input's setting is kept whatever the output).
/// Into or out of a Zarr store, where a missing chunk reads as the store's own fill value
/// (which need not be netCDF's), such a variable is decoded and encoded instead, so that
/// every chunk is written.
pub fn settle_unwritten_chunks(
    input: &dyn StoreReader,
    dataset: &Dataset,
    plan: &mut CopyPlan,
    stores: &StoreKinds,
) -> Result<(), store::StoreError> {
    for var in plan.vars.iter_mut().filter(|v| v.stored_chunks) {
        let Some(source) = input.stored_chunk_source(&var.path) else {
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
        if source.written_chunks()? == store::grid::chunk_count(&var.shape, chunks) {
            continue;
        }
        if stores.input.missing_chunks == MissingChunks::NetcdfFill {
            storage.no_fill = find_var(dataset, &var.path)
                .and_then(|v| v.storage.as_ref())
                .is_some_and(|s| s.no_fill);
        }
        if stores.input.missing_chunks == MissingChunks::StoreFill
            || stores.output.missing_chunks == MissingChunks::StoreFill
        {
            var.stored_chunks = false;
        }
    }
    Ok(())
}

/// The variable at `path` of `dataset`.
pub fn find_var<'d>(dataset: &'d Dataset, path: &VarPath) -> Option<&'d Var> {
    dataset.var_at(path).map(|(_, var)| var)
}

/// The variable at `path` of `dataset`, to change.
pub fn find_var_mut<'d>(dataset: &'d mut Dataset, path: &VarPath) -> Option<&'d mut Var> {
    let mut group = &mut dataset.root;
    for name in &path.groups {
        group = group.groups.iter_mut().find(|g| &g.name == name)?;
    }
    group.vars.iter_mut().find(|v| v.name == path.name)
}
