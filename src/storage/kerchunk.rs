//! Virtual references to the chunks of netCDF-4 files (`nccopy --kerchunk`): each input
//! opened with libnetcdf for its schema and with HDF5 for its chunk index, the references
//! made by the Zarr backend.

use std::collections::HashMap;

use anyhow::{anyhow, Context};
use ncmodel::{Group, TypeRef};

/// The most chunks listed for one variable of one file: a hostile chunk index cannot
/// make the references grow without bound.
const MAX_CHUNKS_PER_VARIABLE: u64 = 4_000_000;

/// The references made, and the variables left out (`/v: reason`).
#[derive(Debug)]
pub struct KerchunkReferences {
    /// The kerchunk version 1 JSON text.
    pub json: String,
    /// Each variable left out, with why.
    pub skipped: Vec<String>,
}

/// Kerchunk version 1 references to every chunk of the netCDF-4 files `inputs`, combined
/// along the root dimension `concat` when there are several. Each file is named by its
/// absolute path.
pub fn kerchunk_references(
    inputs: &[String],
    concat: Option<&str>,
) -> anyhow::Result<KerchunkReferences> {
    let mut files = Vec::with_capacity(inputs.len());
    // What is left of the cap on inlined values (the combined coordinate's, and those of
    // the variables that cannot be referenced), file by file.
    let mut inline_budget = zarr::kerchunk::MAX_INLINED;
    for input in inputs {
        files.push(source_file(input, concat, &mut inline_budget)?);
    }
    if let Some(dim) = concat {
        zarr::kerchunk::order_along(&mut files, dim)?;
    }
    let refs = zarr::kerchunk::references(&files, concat)?;
    Ok(KerchunkReferences {
        json: refs.json,
        skipped: refs.skipped,
    })
}

/// The file `input` as the references need it; what it inlines taken from `inline_budget`.
fn source_file(
    input: &str,
    concat: Option<&str>,
    inline_budget: &mut usize,
) -> anyhow::Result<zarr::kerchunk::SourceFile> {
    // What ncdump and nccopy say of an input that is not a netCDF file (a FIFO, refused
    // before anything opens it blocking; a directory; CDL text) is said here too.
    let kind = super::input_kind::identify(std::path::Path::new(input));
    if let Some(problem) = super::input_kind::not_netcdf(input, &kind) {
        return Err(anyhow!(problem));
    }
    let absolute = std::fs::canonicalize(input).with_context(|| input.to_string())?;
    let size = std::fs::metadata(&absolute)
        .with_context(|| input.to_string())?
        .len();
    let hdf5 = kind == super::input_kind::InputKind::Hdf5;
    let file = super::open_with_libnetcdf(input, hdf5, false)?;
    let dataset = file.schema()?;
    if dataset.format != ncmodel::Format::Netcdf4
        && dataset.format != ncmodel::Format::Netcdf4Classic
    {
        return Err(anyhow!(
            "{input}: not a netCDF-4 file; references point at HDF5 chunks"
        ));
    }
    let mut layouts = HashMap::new();
    collect_layouts(&file, &dataset.root, &mut Vec::new(), &mut layouts);
    // The coordinate first: a declared length past the budget is an error.
    let coordinate = match concat {
        Some(dim) => coordinate_bytes(&file, &dataset, dim, *inline_budget)
            .with_context(|| input.to_string())?,
        None => None,
    };
    *inline_budget = inline_budget.saturating_sub(coordinate.as_ref().map_or(0, Vec::len));
    let mut inlined = Inlined {
        values: HashMap::new(),
        over_budget: HashMap::new(),
        budget: inline_budget,
    };
    collect_inlined(
        &file,
        &dataset,
        &dataset.root,
        &mut Vec::new(),
        &layouts,
        &mut inlined,
    )?;
    let Inlined {
        values: inlined,
        over_budget: over_inline_budget,
        ..
    } = inlined;
    Ok(zarr::kerchunk::SourceFile {
        url: absolute.to_string_lossy().into_owned(),
        dataset,
        layouts,
        size,
        coordinate,
        inlined,
        over_inline_budget,
    })
}

/// The values (machine order) of the root's coordinate variable of the dimension `dim`,
/// if it has one of a fixed-size type; refused, before anything is read, when they would
/// be more than `budget` bytes (what is left of [`zarr::kerchunk::MAX_INLINED`] once the
/// files before are read). Read in pieces of at most [`COORDINATE_PIECE`] bytes.
fn coordinate_bytes(
    file: &ncio::NcFile,
    dataset: &ncmodel::Dataset,
    dim: &str,
    budget: usize,
) -> anyhow::Result<Option<Vec<u8>>> {
    let root = &dataset.root;
    let Some(d) = root.dims.iter().find(|d| d.name == dim) else {
        return Ok(None);
    };
    let Some(var) = root
        .vars
        .iter()
        .find(|v| v.name == dim && v.dim_ids == [d.id])
    else {
        return Ok(None);
    };
    if !ncio::is_raw_type(var.type_ref) {
        return Ok(None);
    }
    let TypeRef::Atomic(atomic) = var.type_ref else {
        return Ok(None);
    };
    let element = atomic.size().max(1);
    let needed = d.len.checked_mul(element).filter(|n| *n <= budget);
    let Some(needed) = needed else {
        return Err(anyhow!(
            "variable /{}: its {} values along --concat {dim} are inlined into the \
             references, all files together at most {} MiB, and these would pass that; \
             combine fewer files, or files with a shorter {dim}",
            var.name,
            d.len,
            zarr::kerchunk::MAX_INLINED >> 20
        ));
    };
    let mut values = Vec::with_capacity(needed);
    let piece = (COORDINATE_PIECE / element).max(1);
    let mut start = 0;
    while start < d.len {
        let count = piece.min(d.len - start);
        let mut buf = store::RawBuffer::new();
        file.read_raw(root.ncid, var.id, &[start], &[count], &mut buf)?;
        values.extend_from_slice(buf.as_bytes());
        start += count;
    }
    Ok(Some(values))
}

/// The most bytes of a coordinate variable read at once.
const COORDINATE_PIECE: usize = 1 << 20;

type Layouts = HashMap<String, Result<store::StoredLayout, String>>;

fn collect_layouts(file: &ncio::NcFile, group: &Group, path: &mut Vec<String>, out: &mut Layouts) {
    for var in &group.vars {
        let full: String = path
            .iter()
            .chain(std::iter::once(&var.name))
            .map(|p| format!("/{p}"))
            .collect();
        let layout = match file.stored_chunks(path, &var.name) {
            Some(reader) => reader
                .layout(MAX_CHUNKS_PER_VARIABLE)
                .map_err(|e| e.to_string()),
            None => Err("HDF5 cannot open its dataset".to_string()),
        };
        out.insert(full, layout);
    }
    for child in &group.groups {
        path.push(child.name.clone());
        collect_layouts(file, child, path, out);
        path.pop();
    }
}

/// The values read to be inlined, and what is left of the budget for them.
struct Inlined<'a> {
    /// The values, by full path.
    values: HashMap<String, Vec<u8>>,
    /// The variables left unread, their values past the budget: sizes by full path.
    over_budget: HashMap<String, usize>,
    /// What is left of [`zarr::kerchunk::MAX_INLINED`].
    budget: &'a mut usize,
}

/// The values of the variables of `group` (at `path`) that cannot be referenced but can
/// be inlined (`zarr::kerchunk::inlines`), by full path, as long as the budget lasts.
fn collect_inlined(
    file: &ncio::NcFile,
    dataset: &ncmodel::Dataset,
    group: &Group,
    path: &mut Vec<String>,
    layouts: &Layouts,
    out: &mut Inlined<'_>,
) -> anyhow::Result<()> {
    for var in &group.vars {
        let full: String = path
            .iter()
            .chain(std::iter::once(&var.name))
            .map(|p| format!("/{p}"))
            .collect();
        let Some(Ok(layout)) = layouts.get(&full) else {
            continue;
        };
        let dims: Vec<usize> = var
            .dim_ids
            .iter()
            .map(|id| dataset.dim(*id).map_or(0, |d| d.len))
            .collect();
        if !zarr::kerchunk::inlines(var, layout, &dims) {
            continue;
        }
        let TypeRef::Atomic(atomic) = var.type_ref else {
            continue;
        };
        let size = dims.iter().product::<usize>().saturating_mul(atomic.size());
        if size > *out.budget {
            out.over_budget.insert(full, size);
            continue;
        }
        let mut buf = store::RawBuffer::new();
        let start = vec![0; dims.len()];
        file.read_raw(group.ncid, var.id, &start, &dims, &mut buf)?;
        *out.budget = out.budget.saturating_sub(buf.as_bytes().len().max(size));
        out.values.insert(full, buf.as_bytes().to_vec());
    }
    for child in &group.groups {
        path.push(child.name.clone());
        collect_inlined(file, dataset, child, path, layouts, out)?;
        path.pop();
    }
    Ok(())
}
