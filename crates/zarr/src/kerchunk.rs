//! Virtual references (kerchunk's version 1 JSON) to the chunks of netCDF-4 files: the
//! Zarr version 2 metadata this crate writes for a pure (xarray) store, and for every
//! chunk the file, byte offset and length HDF5's chunk index gives. Several files are
//! combined along one dimension, as kerchunk's `MultiZarrToZarr` does.

use std::collections::{BTreeMap, HashMap};

use kv::MemoryStore;
use ncmodel::{Dataset, Group, Layout, TypeRef, Var};
use serde_json::{Map, Value};
use store::{ChunkPlace, StoredLayout, ZarrFlavor, ZarrVersion};

use crate::error::{Result, ZarrError};
use crate::plan::{plan, PlannedVar};
use crate::strings::base64_encode;
use crate::wmeta::MetaWriter;
use kv::ReadableStore;

/// One netCDF-4 file to reference.
#[derive(Debug)]
pub struct SourceFile {
    /// What the references name the file by (its path or URL).
    pub url: String,
    /// Its schema.
    pub dataset: Dataset,
    /// Where each variable's data lies, by full path (`/v`, `/g/v`); an error text where
    /// it could not be told.
    pub layouts: HashMap<String, std::result::Result<StoredLayout, String>>,
    /// The file's size in bytes: no reference may reach beyond it.
    pub size: u64,
    /// With several files: the values (machine order) of the coordinate variable of the
    /// dimension they are combined along, inlined in the references as kerchunk's
    /// `MultiZarrToZarr` does (its chunks seldom line up from file to file).
    pub coordinate: Option<Vec<u8>>,
    /// The values (machine order) of the variables that cannot be referenced but are
    /// small enough to inline ([`inlines`]), by full path.
    pub inlined: HashMap<String, Vec<u8>>,
    /// The variables that could be inlined but were not read, as their values would pass
    /// what is left of [`MAX_INLINED`] (with their sizes in bytes), by full path.
    pub over_inline_budget: HashMap<String, usize>,
}

/// The most bytes of values a variable that cannot be referenced may have to be inlined
/// (decoded, in base64) instead: compact variables always fit (HDF5 caps them at 64 KiB).
pub const INLINE_LIMIT: usize = 64 * 1024;

/// The most bytes of values read and inlined into the references (as base64, a third
/// more), all files together: the coordinate variable of the `--concat` dimension first
/// (16 MiB is two million 8-byte times; a declared length beyond it is refused, naming the
/// variable, before anything is read), then the variables that cannot be referenced, each
/// at most [`INLINE_LIMIT`] (one past what is left is left out, named; before, a 1.46 MB
/// file of 4,000 such variables took 1.8 GB, red team s35 RA3).
pub const MAX_INLINED: usize = 16 << 20;

/// Whether `var`, laid out as `layout`, cannot be referenced but can be inlined: compact,
/// or with a filter whose HDF5 bytes no Zarr codec reads, of a fixed-size atomic type
/// and at most [`INLINE_LIMIT`] bytes of values (`dims`: the lengths of its dimensions).
pub fn inlines(var: &Var, layout: &StoredLayout, dims: &[usize]) -> bool {
    let TypeRef::Atomic(atomic) = var.type_ref else {
        return false;
    };
    if atomic == ncmodel::AtomicType::String {
        return false;
    }
    let unreferenced = matches!(layout, StoredLayout::Compact)
        || var.storage.as_ref().is_some_and(|s| {
            s.filters
                .iter()
                .any(|f| !codecs::registry::is_passthrough(f.id))
        });
    let bytes = dims
        .iter()
        .try_fold(atomic.size(), |n, d| n.checked_mul(*d));
    unreferenced && bytes.is_some_and(|b| b > 0 && b <= INLINE_LIMIT)
}

/// The references made, and the variables left out.
#[derive(Debug)]
pub struct References {
    /// The kerchunk version 1 JSON text.
    pub json: String,
    /// Each variable left out, with why (`/v: reason`).
    pub skipped: Vec<String>,
}

/// The references of `files`, combined along the root dimension `concat` when there are
/// several (the first file gives the schema; variables without that dimension come from
/// it alone).
pub fn references(files: &[SourceFile], concat: Option<&str>) -> Result<References> {
    let Some(first) = files.first() else {
        return Err(ZarrError::Invalid("no input file".into()));
    };
    if files.len() > 1 && concat.is_none() {
        return Err(ZarrError::Invalid(
            "several inputs need a dimension to combine them along (--concat DIM)".into(),
        ));
    }
    let concat_dim = match concat {
        Some(name) => Some(
            first
                .dataset
                .root
                .dims
                .iter()
                .find(|d| d.name == name)
                .ok_or_else(|| {
                    ZarrError::Invalid(format!(
                        "{}: no dimension {name} in the root group",
                        first.url
                    ))
                })?
                .clone(),
        ),
        None => None,
    };
    // Lengths along the combined dimension, file by file.
    let mut starts = Vec::with_capacity(files.len());
    let mut total = 0usize;
    for file in files {
        starts.push(total);
        let len = match &concat_dim {
            Some(dim) => file
                .dataset
                .root
                .dims
                .iter()
                .find(|d| d.name == dim.name)
                .map(|d| d.len)
                .ok_or_else(|| {
                    ZarrError::Invalid(format!("{}: no dimension {}", file.url, dim.name))
                })?,
            None => 0,
        };
        total = total
            .checked_add(len)
            .ok_or_else(|| ZarrError::Invalid("the combined dimension is too long".into()))?;
    }
    let mut dataset = first.dataset.clone();
    let mut selection = Selection {
        files,
        concat: concat_dim.as_ref().map(|d| d.id),
        skipped: Vec::new(),
        kept: Vec::new(),
        inlined: Vec::new(),
    };
    selection.group(&mut dataset.root, &mut Vec::new());
    let Selection {
        skipped,
        kept,
        inlined: inlined_vars,
        ..
    } = selection;
    let mut lens: HashMap<i32, usize> = HashMap::new();
    collect_lens(&dataset.root, &mut lens);
    if let Some(dim) = &concat_dim {
        lens.insert(dim.id, total);
        set_dim_len(&mut dataset.root, dim.id, total);
    }
    let inlined = match &concat_dim {
        Some(dim) if files.len() > 1 => inline_coordinate(&mut dataset, dim, files, total),
        _ => None,
    };
    // References keep the fixed-width string form they always had.
    let planned = plan(&dataset, false, false, &chunkspec::ShardSpecs::default())?;
    let memory = MemoryStore::new();
    MetaWriter {
        dataset: &dataset,
        vars: &planned,
        lens: &lens,
        flavor: ZarrFlavor::Xarray,
        dimension_names: true,
        version: ZarrVersion::V2,
        consolidated: false,
    }
    .write_all(&memory)?;
    let mut refs = Map::new();
    for key in memory.keys() {
        let Some(bytes) = memory.get(&key, u64::MAX)? else {
            continue;
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| ZarrError::Invalid(format!("metadata {} is not UTF-8", key.as_str())))?;
        let text = if key.as_str() == ".zattrs" {
            without_nc_properties(&text)?
        } else {
            text
        };
        refs.insert(key.as_str().to_string(), Value::String(text));
    }
    let mut kept: BTreeMap<String, Vec<Vec<ChunkPlace>>> = kept.into_iter().collect();
    for (path, rank, bytes) in &inlined_vars {
        let key = format!("{}/{}", &path[1..], vec!["0"; (*rank).max(1)].join("."));
        refs.insert(
            key,
            Value::String(format!("base64:{}", base64_encode(bytes))),
        );
    }
    if let Some((path, bytes)) = inlined {
        kept.remove(&path);
        let key = format!("{}/0", &path[1..]);
        refs.insert(
            key,
            Value::String(format!("base64:{}", base64_encode(&bytes))),
        );
    }
    for var in &planned {
        let path = crate::codec::var_path(&var.group_path, &var.var.name);
        let Some(per_file) = kept.get(&path) else {
            continue;
        };
        let along = concat_dim
            .as_ref()
            .and_then(|d| var.var.dim_ids.iter().position(|id| *id == d.id));
        for (k, places) in per_file.iter().enumerate() {
            if k > 0 && along.is_none() {
                break;
            }
            let shift = along.map(|axis| (axis, starts[k]));
            for place in places {
                let index = chunk_index(var, place, shift).map_err(|problem| {
                    ZarrError::Invalid(format!("{}: variable {path}: {problem}", files[k].url))
                })?;
                let key = format!("{}/{}", &path[1..], index);
                refs.insert(
                    key,
                    serde_json::json!([files[k].url, place.address, place.size]),
                );
            }
        }
    }
    let json = serde_json::json!({"version": 1, "refs": Value::Object(refs)});
    Ok(References {
        json: json.to_string(),
        skipped,
    })
}

/// Puts `files` in the order of their coordinate values along the root dimension
/// `concat`, as kerchunk's `MultiZarrToZarr` orders its inputs, so that the combined
/// coordinate increases whatever order the files were named in; files whose ranges
/// overlap are refused, naming both. Files without the coordinate variable keep their
/// order.
pub fn order_along(files: &mut Vec<SourceFile>, concat: &str) -> Result<()> {
    let Some(ranges) = files
        .iter()
        .map(|f| coordinate_range(f, concat))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(());
    };
    let mut keyed: Vec<(SourceFile, (f64, f64))> =
        std::mem::take(files).into_iter().zip(ranges).collect();
    keyed.sort_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
    for pair in keyed.windows(2) {
        let ((before, (first, last)), (after, (next, next_last))) = (&pair[0], &pair[1]);
        if next <= last {
            return Err(ZarrError::Invalid(format!(
                "{} and {} overlap along {concat} ({first} to {last}, and {next} to \
                 {next_last}): references to both would repeat or interleave {concat}",
                before.url, after.url
            )));
        }
    }
    *files = keyed.into_iter().map(|(file, _)| file).collect();
    Ok(())
}

/// The first and last values of the coordinate variable `dim` of `file`, as numbers,
/// when it has one with values of a number type; its values must increase.
fn coordinate_range(file: &SourceFile, dim: &str) -> Option<(f64, f64)> {
    let var = file
        .dataset
        .root
        .vars
        .iter()
        .find(|v| v.name == dim && v.dim_ids.len() == 1)?;
    let TypeRef::Atomic(atomic) = var.type_ref else {
        return None;
    };
    let values = ncmodel::Values::from_native_bytes(atomic, file.coordinate.as_deref()?)?;
    let last = values.len().checked_sub(1)?;
    Some((values.number_at(0)?, values.number_at(last)?))
}

/// Makes the root's coordinate variable of `dim` one uncompressed chunk of `total`
/// values in machine order, when every file has its values: its path and the values,
/// concatenated.
fn inline_coordinate(
    dataset: &mut Dataset,
    dim: &ncmodel::Dim,
    files: &[SourceFile],
    total: usize,
) -> Option<(String, Vec<u8>)> {
    let mut bytes = Vec::new();
    for file in files {
        bytes.extend_from_slice(file.coordinate.as_ref()?);
    }
    let var = dataset
        .root
        .vars
        .iter_mut()
        .find(|v| v.name == dim.name && v.dim_ids == [dim.id])?;
    let storage = var.storage.as_mut()?;
    storage.layout = Layout::Chunked(vec![total.max(1)]);
    storage.filters.clear();
    storage.endianness = ncmodel::Endianness::Native;
    Some((format!("/{}", dim.name), bytes))
}

/// The Zarr key's chunk index (`i.j.k`) of the stored chunk `place` of `var`, its index
/// along `shift.0` moved by `shift.1` elements (the file's start in the combined array).
fn chunk_index(
    var: &PlannedVar,
    place: &ChunkPlace,
    shift: Option<(usize, usize)>,
) -> std::result::Result<String, String> {
    if place.index.is_empty() {
        return Ok(vec!["0"; var.chunks.len()].join("."));
    }
    if place.index.len() != var.chunks.len() {
        return Err("a chunk of the wrong rank".into());
    }
    let mut parts = Vec::with_capacity(place.index.len());
    for (axis, (offset, chunk)) in place.index.iter().zip(&var.chunks).enumerate() {
        let mut offset = *offset;
        if let Some((along, start)) = shift {
            if along == axis {
                if start % chunk != 0 {
                    return Err(format!(
                        "the file starts at {start} along the combined dimension, not a \
                         multiple of the chunk length {chunk}: its chunks cannot be referenced"
                    ));
                }
                offset += start as u64;
            }
        }
        if *chunk == 0 || offset % *chunk as u64 != 0 {
            return Err(format!(
                "a chunk at element {offset}, not on the chunk grid"
            ));
        }
        parts.push((offset / *chunk as u64).to_string());
    }
    Ok(parts.join("."))
}

/// Why a variable or group named as a Zarr metadata document is left out.
const DOCUMENT_NAME: &str = "its name is one of Zarr's metadata documents (.zattrs, .zgroup, \
     .zarray, .zmetadata), which a reader would take for one";

/// Whether `name` is a Zarr metadata document's name (red team s35 RA9: a variable named
/// `.zattrs` was referenced as `.zattrs/0`, beside the group's own `.zattrs`, and xarray
/// saw an empty dataset).
fn is_document_name(name: &str) -> bool {
    name == ".zattrs" || kv::ZARR_MARKERS.contains(&name)
}

/// The walk that decides, variable by variable, what is referenced, inlined or left out.
struct Selection<'a> {
    files: &'a [SourceFile],
    /// The id of the dimension the files are combined along.
    concat: Option<i32>,
    /// Each variable left out, with why.
    skipped: Vec<String>,
    /// Each variable referenced: its full path and its stored blocks in each file.
    kept: Vec<(String, Vec<Vec<ChunkPlace>>)>,
    /// Each variable inlined: its full path, rank and values (machine order).
    inlined: Vec<(String, usize, Vec<u8>)>,
}

impl Selection<'_> {
    /// Removes from `group` (at `path`) the variables that can be neither referenced nor
    /// inlined, naming them in `skipped`; the inlined ones become one uncompressed chunk.
    fn group(&mut self, group: &mut Group, path: &mut Vec<String>) {
        let mut vars = std::mem::take(&mut group.vars);
        vars.retain_mut(|var| {
            let full = crate::codec::var_path(path, &var.name);
            if is_document_name(&var.name) {
                self.skipped.push(format!("{full}: {DOCUMENT_NAME}"));
                return false;
            }
            let checked = same_in_every_file(var, path, self.files, self.concat)
                .and_then(|()| referenceable(var, &full, self.files));
            match checked {
                Ok((layout_chunks, places)) => {
                    if let (Some(chunks), Some(storage)) = (layout_chunks, var.storage.as_mut()) {
                        storage.layout = Layout::Chunked(chunks);
                    }
                    self.kept.push((full, places));
                    true
                }
                Err(reason) => {
                    if self.inline(var, &full) {
                        self.skipped
                            .push(format!("{full}: {reason}; its values are inlined instead"));
                        true
                    } else if let Some(size) = self
                        .files
                        .first()
                        .and_then(|first| first.over_inline_budget.get(&full))
                    {
                        self.skipped.push(format!(
                            "{full}: {reason}; its {size} bytes of values would pass the {} \
                             MiB that inlined values may take together",
                            MAX_INLINED >> 20
                        ));
                        false
                    } else {
                        self.skipped.push(format!("{full}: {reason}"));
                        false
                    }
                }
            }
        });
        group.vars = vars;
        group.groups.retain(|child| {
            let named = is_document_name(&child.name);
            if named {
                let full = crate::codec::var_path(path, &child.name);
                self.skipped.push(format!("group {full}: {DOCUMENT_NAME}"));
            }
            !named
        });
        for child in &mut group.groups {
            path.push(child.name.clone());
            self.group(child, path);
            path.pop();
        }
    }

    /// Makes `var` one uncompressed chunk of its values read from the first file, when
    /// they were read and it is not along the combined dimension.
    fn inline(&mut self, var: &mut Var, full: &str) -> bool {
        let Some(first) = self.files.first() else {
            return false;
        };
        let Some(bytes) = first.inlined.get(full) else {
            return false;
        };
        if self.files.len() > 1 && self.concat.is_some_and(|id| var.dim_ids.contains(&id)) {
            return false;
        }
        let shape: Vec<usize> = var
            .dim_ids
            .iter()
            .map(|id| first.dataset.dim(*id).map_or(0, |d| d.len))
            .collect();
        let Some(storage) = var.storage.as_mut() else {
            return false;
        };
        storage.layout = Layout::Chunked(if shape.is_empty() {
            vec![1]
        } else {
            shape.clone()
        });
        storage.filters.clear();
        storage.endianness = ncmodel::Endianness::Native;
        self.inlined
            .push((full.to_string(), shape.len(), bytes.clone()));
        true
    }
}

/// The attributes that decide what a stored value means (the fill value, CF's packing
/// and missing value): references of several files take the first file's, so they must
/// agree in every file (red team s36 RD12: a later file's `_FillValue` or `scale_factor`
/// was dropped, and its fill values read as data).
const MEANING_ATTRIBUTES: [&str; 4] = ["_FillValue", "missing_value", "scale_factor", "add_offset"];

/// Whether `var` (of the first file's group at `path`) is stored alike in every file:
/// type, layout and chunks, filters, byte order, the attributes that give its values
/// their meaning ([`MEANING_ATTRIBUTES`]), and its dimensions' names and lengths (along
/// the dimension `concat`, any length); otherwise the first difference.
fn same_in_every_file(
    var: &Var,
    path: &[String],
    files: &[SourceFile],
    concat: Option<i32>,
) -> std::result::Result<(), String> {
    let Some((first, rest)) = files.split_first() else {
        return Ok(());
    };
    let dims_of = |file: &SourceFile, v: &Var| -> Vec<(String, Option<usize>)> {
        v.dim_ids
            .iter()
            .map(|id| {
                let dim = file.dataset.dim(*id);
                let name = dim.map_or_else(String::new, |d| d.name.clone());
                let len = if concat
                    .is_some_and(|c| first.dataset.dim(c).is_some_and(|d| d.name == name))
                {
                    None
                } else {
                    dim.map(|d| d.len)
                };
                (name, len)
            })
            .collect()
    };
    let want_dims = dims_of(first, var);
    let meaning = |v: &Var| -> Vec<Option<ncmodel::Attribute>> {
        MEANING_ATTRIBUTES
            .iter()
            .map(|name| v.atts.iter().find(|a| a.name == *name).cloned())
            .collect()
    };
    let want_meaning = meaning(var);
    for file in rest {
        let other = file
            .dataset
            .group_at(path)
            .and_then(|g| g.vars.iter().find(|v| v.name == var.name))
            .ok_or_else(|| format!("{}: not in this file", file.url))?;
        let differs = if other.type_ref != var.type_ref {
            Some("its type")
        } else if dims_of(file, other) != want_dims {
            Some("its dimensions")
        } else if meaning(other) != want_meaning {
            Some("its _FillValue, missing_value, scale_factor or add_offset")
        } else {
            match (&other.storage, &var.storage) {
                (Some(a), Some(b)) if a.layout != b.layout => Some("its chunks"),
                (Some(a), Some(b)) if a.filters != b.filters => Some("its filters"),
                (Some(a), Some(b)) if a.endianness != b.endianness => Some("its byte order"),
                (Some(_), Some(_)) => None,
                _ => Some("its storage"),
            }
        };
        if let Some(what) = differs {
            return Err(format!("{}: {what} differ from the first file's", file.url));
        }
    }
    Ok(())
}

/// Whether `var` (full path `full`) can be referenced in every file: the chunk shape to
/// give it when it is contiguous, and its stored blocks in each file; otherwise why not.
#[allow(clippy::type_complexity)]
fn referenceable(
    var: &Var,
    full: &str,
    files: &[SourceFile],
) -> std::result::Result<(Option<Vec<usize>>, Vec<Vec<ChunkPlace>>), String> {
    match &var.type_ref {
        TypeRef::Atomic(ncmodel::AtomicType::String) => {
            return Err("variable-length strings have no fixed-size chunks to reference".into())
        }
        TypeRef::Atomic(_) => {}
        _ => return Err("user-defined types cannot be stored in Zarr".into()),
    }
    let storage = var.storage.as_ref().ok_or("no storage information")?;
    for filter in &storage.filters {
        if !codecs::registry::is_passthrough(filter.id) {
            let name = filterspec::known::name_of(filter.id).unwrap_or("unknown");
            return Err(format!(
                "filter {} ({name}) stores bytes no Zarr codec reads as they are",
                filter.id
            ));
        }
    }
    let mut contiguous_chunks = None;
    let mut per_file = Vec::with_capacity(files.len());
    for file in files {
        let layout = match file.layouts.get(full) {
            Some(Ok(layout)) => layout,
            Some(Err(problem)) => return Err(format!("{}: {problem}", file.url)),
            None => return Err(format!("{}: not in this file", file.url)),
        };
        let places = match layout {
            StoredLayout::Chunked(places) => places.clone(),
            StoredLayout::Contiguous(place) => {
                let shape: Vec<usize> = var
                    .dim_ids
                    .iter()
                    .map(|id| file.dataset.dim(*id).map_or(0, |d| d.len))
                    .collect();
                if shape.contains(&0) {
                    return Err("contiguous and empty".into());
                }
                contiguous_chunks = Some(shape);
                place.iter().cloned().collect()
            }
            StoredLayout::Compact => {
                return Err("compact layout: its data lies in the object header".into())
            }
            StoredLayout::Other => return Err("a layout that cannot be referenced".into()),
        };
        let shape: Vec<u64> = var
            .dim_ids
            .iter()
            .map(|id| file.dataset.dim(*id).map_or(0, |d| d.len as u64))
            .collect();
        for place in &places {
            let outside = place.index.len() == shape.len()
                && place.index.iter().zip(&shape).any(|(i, n)| i >= n);
            if outside || (!place.index.is_empty() && place.index.len() != shape.len()) {
                return Err(format!(
                    "{}: a chunk at {:?}, outside the variable's shape {shape:?}",
                    file.url, place.index
                ));
            }
            if place.filter_mask != 0 {
                return Err(format!(
                    "{}: a chunk stored with filters skipped (filter mask {:#x})",
                    file.url, place.filter_mask
                ));
            }
            let end = place.address.checked_add(place.size);
            if end.is_none_or(|end| end > file.size) {
                return Err(format!(
                    "{}: a chunk at byte {} of {} bytes reaches beyond the end of the file \
                     ({} bytes)",
                    file.url, place.address, place.size, file.size
                ));
            }
        }
        per_file.push(places);
    }
    Ok((contiguous_chunks, per_file))
}

/// The root's `.zattrs` text without `_NCProperties`, which the Zarr writer adds for
/// the reference tools: it describes a file this is not (kerchunk leaves it out too).
fn without_nc_properties(text: &str) -> Result<String> {
    let mut value = crate::json::parse(text, ".zattrs")?;
    if let Value::Object(members) = &mut value {
        members.remove("_NCProperties");
    }
    Ok(value.to_string())
}

fn collect_lens(group: &Group, lens: &mut HashMap<i32, usize>) {
    for dim in &group.dims {
        lens.insert(dim.id, dim.len);
    }
    for child in &group.groups {
        collect_lens(child, lens);
    }
}

fn set_dim_len(group: &mut Group, id: i32, len: usize) {
    for dim in &mut group.dims {
        if dim.id == id {
            dim.len = len;
        }
    }
    for child in &mut group.groups {
        set_dim_len(child, id, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads_as_rfc_4648_does() {
        assert_eq!(base64_encode(b""), "");
        assert_eq!(base64_encode(b"f"), "Zg==");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foo"), "Zm9v");
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(&[0xff, 0xfe]), "//4=");
    }

    #[test]
    fn no_input_and_several_inputs_without_a_dimension_are_refused() {
        assert!(references(&[], None).is_err());
    }
}
