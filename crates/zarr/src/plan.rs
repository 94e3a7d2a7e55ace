//! What the writer makes of a [`Dataset`]: each variable's array (shape, chunks, dtype,
//! fill, codecs) and each group's place, checked before anything is written.

use chunkspec::ShardSpecs;
use filterspec::VarPath;
use ncmodel::{AtomicType, Dataset, Endianness, Group, Layout, TypeRef, Var};
use serde_json::Value;

use crate::codec::codec_of_filter;
use crate::dtype::Dtype;
use crate::error::{Result, ZarrError};
use crate::values::first_element;
use crate::wshard::{inner_per_shard, ShardedDim};

/// The most dimensions a netCDF variable may have (netCDF-C's `NC_MAX_VAR_DIMS`).
const MAX_VAR_DIMS: usize = 1024;

/// A variable to be written.
#[derive(Debug, Clone)]
pub struct PlannedVar {
    /// Group path from the root (empty for the root).
    pub group_path: Vec<String>,
    /// Index of its group in preorder (the root is 0).
    pub group: i32,
    /// Its id in its group.
    pub id: i32,
    /// The variable as defined.
    pub var: Var,
    /// The element type as stored.
    pub dtype: Dtype,
    /// Chunk shape (`[1]` for a scalar).
    pub chunks: Vec<usize>,
    /// The element fill value (`_FillValue` or the default), machine order.
    pub fill: Vec<u8>,
    /// Whether `fill_value` is written as null (no fill).
    pub no_fill: bool,
    /// Codecs, filters then compressor.
    pub codecs: Vec<Value>,
    /// Quantization applied to the values written (float and double only).
    pub quantize: Option<ncmodel::Quantize>,
    /// Inner chunks per shard along each dimension, for a variable stored in shards
    /// (Zarr version 3 `sharding_indexed`); `None` when each chunk is stored alone.
    pub shard: Option<Vec<usize>>,
}

impl PlannedVar {
    /// The shape of a stored chunk: a shard's, for a sharded variable.
    pub fn stored_chunks(&self) -> Vec<usize> {
        match &self.shard {
            Some(per) => self.chunks.iter().zip(per).map(|(c, n)| c * n).collect(),
            None => self.chunks.clone(),
        }
    }
}

/// Every variable of `dataset`, checked, sharded as `shards` asks (Zarr version 3 only).
/// With `vlen_strings` (pure Zarr), a string variable whose width nobody set is stored
/// as strings of variable length (`vlen-utf8`), as zarr-python and xarray store them.
pub fn plan(
    dataset: &Dataset,
    no_fill_all: bool,
    vlen_strings: bool,
    shards: &ShardSpecs,
) -> Result<Vec<PlannedVar>> {
    // Types no variable or attribute uses (left out with -V) are not written: Zarr has no
    // place for them, and no need.
    let mut users = Vec::new();
    users_of_types(&dataset.root, "", &mut users);
    if !users.is_empty() {
        let names: Vec<String> = dataset
            .types
            .iter()
            .filter(|t| users.iter().any(|(id, _)| *id == t.id))
            .map(|t| {
                let kind = match t.kind {
                    ncmodel::UserTypeKind::Compound { .. } => "compound",
                    ncmodel::UserTypeKind::Vlen { .. } => "vlen",
                    ncmodel::UserTypeKind::Opaque => "opaque",
                    ncmodel::UserTypeKind::Enum { .. } => "enum",
                };
                if t.group_path.is_empty() {
                    format!("{} ({kind})", t.name)
                } else {
                    format!("/{}/{} ({kind})", t.group_path.join("/"), t.name)
                }
            })
            .collect();
        let mut who: Vec<&str> = users.iter().map(|(_, user)| user.as_str()).collect();
        who.dedup();
        return Err(ZarrError::BadType(format!(
            "the user-defined type{} {} cannot be stored in Zarr (NCZarr holds atomic types \
             only), and {} use{} {}; copy the other variables only (nccopy -V) or write a \
             netCDF-4 file instead",
            if names.len() == 1 { "" } else { "s" },
            names.join(", "),
            who.join(", "),
            if who.len() == 1 { "s" } else { "" },
            if names.len() == 1 { "it" } else { "them" },
        )));
    }
    let mut walk = Walk {
        dataset,
        no_fill_all,
        vlen_strings,
        shards,
        next: 0,
        out: Vec::new(),
    };
    walk.group(&dataset.root, &mut Vec::new())?;
    Ok(walk.out)
}

/// The variables and attributes of `group` (at `path`, `""` for the root) and below
/// whose type is user-defined: the type's id and who uses it (`/v`, `/v:att`, `/:att`).
fn users_of_types(group: &Group, path: &str, out: &mut Vec<(ncmodel::TypeId, String)>) {
    for att in &group.atts {
        if let TypeRef::User(id) = att.type_ref {
            out.push((id, format!("{path}/:{}", att.name)));
        }
    }
    for var in &group.vars {
        if let TypeRef::User(id) = var.type_ref {
            out.push((id, format!("{path}/{}", var.name)));
        }
        for att in &var.atts {
            if let TypeRef::User(id) = att.type_ref {
                out.push((id, format!("{path}/{}:{}", var.name, att.name)));
            }
        }
    }
    for child in &group.groups {
        users_of_types(child, &format!("{path}/{}", child.name), out);
    }
}

/// The walk of [`plan`] through the groups.
struct Walk<'a> {
    dataset: &'a Dataset,
    no_fill_all: bool,
    vlen_strings: bool,
    shards: &'a ShardSpecs,
    next: i32,
    out: Vec<PlannedVar>,
}

impl Walk<'_> {
    fn group(&mut self, group: &Group, path: &mut Vec<String>) -> Result<()> {
        let gid = self.next;
        self.next += 1;
        for (id, var) in group.vars.iter().enumerate() {
            let planned = plan_var(
                self.dataset,
                var,
                path,
                (gid, id as i32),
                self.no_fill_all,
                self.vlen_strings,
            )?;
            let planned = sharded(self.dataset, planned, self.shards)?;
            self.out.push(planned);
        }
        for child in &group.groups {
            path.push(child.name.clone());
            self.group(child, path)?;
            path.pop();
        }
        Ok(())
    }
}

/// `planned` with the shard shape `shards` asks for it, checked.
fn sharded(dataset: &Dataset, mut planned: PlannedVar, shards: &ShardSpecs) -> Result<PlannedVar> {
    let path = VarPath::new(planned.group_path.clone(), planned.var.name.clone());
    let Some(shape) = shards.of(&path) else {
        return Ok(planned);
    };
    // Strings of variable length are stored in plain chunks (nctools reads no shards
    // of them): the rest of the dataset is still sharded.
    if planned.var.dim_ids.is_empty() || planned.dtype.text == crate::dtype::Text::Vlen {
        return Ok(planned);
    }
    let dims: Vec<ShardedDim> = planned
        .var
        .dim_ids
        .iter()
        .zip(&planned.chunks)
        .map(|(id, chunk)| {
            let dim = dataset.dim(*id);
            ShardedDim {
                chunk: *chunk,
                len: dim.map_or(0, |d| d.len),
                unlimited: dim.is_some_and(|d| d.unlimited),
            }
        })
        .collect();
    let per = inner_per_shard(shape, &dims, planned.dtype.size)
        .map_err(|problem| ZarrError::Invalid(format!("variable {path}: {problem}")))?;
    planned.shard = Some(per);
    Ok(planned)
}

/// `planned` planned again, as its variable now is (after an attribute was added), with
/// the same shards and the same kind of strings.
pub fn replan(dataset: &Dataset, planned: &PlannedVar, no_fill_all: bool) -> Result<PlannedVar> {
    let vlen_strings = planned.dtype.text == crate::dtype::Text::Vlen;
    let mut again = plan_var(
        dataset,
        &planned.var,
        &planned.group_path,
        (planned.group, planned.id),
        no_fill_all,
        vlen_strings,
    )?;
    again.shard.clone_from(&planned.shard);
    Ok(again)
}

fn plan_var(
    dataset: &Dataset,
    var: &Var,
    path: &[String],
    (group, id): (i32, i32),
    no_fill_all: bool,
    vlen_strings: bool,
) -> Result<PlannedVar> {
    let full = format!(
        "{}/{}",
        path.iter().map(|p| format!("/{p}")).collect::<String>(),
        var.name
    );
    let TypeRef::Atomic(atomic) = var.type_ref else {
        return Err(ZarrError::BadType(format!(
            "variable {full}: user-typed variables cannot be stored in Zarr"
        )));
    };
    let storage = var.storage.as_ref();
    let big = storage.is_some_and(|s| s.endianness == Endianness::Big);
    let dtype = match atomic {
        // Of variable length in pure Zarr unless a width was asked for; else
        // fixed-length, as netCDF-C 4.9.1 and later store strings (see strings.rs).
        AtomicType::String
            if vlen_strings && !crate::strings::width_set(&dataset.root.atts, &var.atts) =>
        {
            Dtype::vlen_string()
        }
        AtomicType::String => {
            let width = crate::strings::var_maxstrlen(&dataset.root.atts, &var.atts);
            // A width is one value's size: at most the value limit (red team s34 RB8:
            // `_nczarr_maxstrlen = 2000000000` in 114 bytes of CDL aborted ncgen and
            // nccopy allocating a fill value that wide).
            let limit = codecs::partial::value_cap();
            if width > limit {
                return Err(ZarrError::TooLarge(format!(
                    "variable {full}: its strings' width of {width} bytes (_nczarr_maxstrlen \
                     or _nczarr_default_maxstrlen) is more than the value limit of {limit} \
                     bytes (a sixteenth of the chunk limit, {})",
                    codecs::partial::CHUNK_LIMIT_VARIABLE
                )));
            }
            Dtype::fixed_string(width)
        }
        _ => Dtype::of(atomic, big),
    };
    // netCDF's own limit (NC_MAX_VAR_DIMS): netCDF-C reads a variable's dimensions into
    // an array of 1,024 (red team s34 RB5: the reference ncdump aborted on our store of a
    // variable of 1,100 dimensions, "stack smashing detected").
    if var.dim_ids.len() > MAX_VAR_DIMS {
        return Err(ZarrError::Invalid(format!(
            "variable {full} has {} dimensions, more than the {MAX_VAR_DIMS} netCDF allows \
             (NC_MAX_VAR_DIMS)",
            var.dim_ids.len()
        )));
    }
    let mut dims = Vec::new();
    for id in &var.dim_ids {
        dims.push(dataset.dim(*id).ok_or_else(|| {
            ZarrError::Invalid(format!(
                "variable {full} uses dimension id {id}, which is not defined"
            ))
        })?);
    }
    let asked = match storage.map(|s| &s.layout) {
        Some(Layout::Chunked(c)) if c.len() == dims.len() && !c.contains(&0) => Some(c.clone()),
        _ => None,
    };
    let chunks = if dims.is_empty() {
        vec![1]
    } else {
        asked.map_or_else(|| default_chunks(&dims, dtype.size), |c| within(&c, &dims))
    };
    if atomic == AtomicType::String {
        let elements = chunks.iter().fold(1usize, |a, c| a.saturating_mul(*c));
        crate::vlen::check_string_chunks(elements, &full)?;
    }
    crate::meta::check_chunk_size(&chunks, dtype.size).map_err(|problem| {
        let hint = if atomic == AtomicType::String {
            "give it smaller chunks (_ChunkSizes, nccopy -c) or a smaller _nczarr_maxstrlen"
        } else {
            "give it smaller chunks (_ChunkSizes, nccopy -c)"
        };
        ZarrError::Invalid(format!("variable {full}: {problem}; {hint}"))
    })?;
    let codecs = storage
        .map(|s| s.filters.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|f| {
            codec_of_filter(f, dtype.size)
                .map_err(|m| ZarrError::NoCodec(format!("variable {full}: {m}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let fill_att = var.atts.iter().find(|a| a.name == "_FillValue");
    let fill = fill_att
        .and_then(|a| first_element(&a.values, &dtype))
        .unwrap_or_else(|| crate::values::default_fill(&dtype));
    let quantize = storage
        .and_then(|s| s.quantize)
        .filter(|_| matches!(atomic, AtomicType::Float | AtomicType::Double));
    let mut var = var.clone();
    if let Some(q) = quantize {
        // As libnetcdf does: the attribute that records it comes last, and only once.
        var.atts
            .retain(|a| ncmodel::QuantizeMode::from_attribute_name(&a.name).is_none());
        var.atts.push(ncmodel::Attribute {
            name: q.mode.attribute_name().to_string(),
            type_ref: TypeRef::Atomic(AtomicType::Int),
            values: ncmodel::Values::Int(vec![q.nsd]),
        });
    }
    Ok(PlannedVar {
        group_path: path.to_vec(),
        group,
        id,
        var,
        dtype,
        chunks,
        fill,
        no_fill: no_fill_all || storage.is_some_and(|s| s.no_fill),
        codecs,
        quantize,
        shard: None,
    })
}

/// Chunks no longer than their fixed dimensions (a chunk of a Zarr array may be larger
/// than the array; written as it is, each would be padded to its whole size), as
/// netCDF-4 requires of chunks too. Along an unlimited dimension they are kept.
fn within(chunks: &[usize], dims: &[&ncmodel::Dim]) -> Vec<usize> {
    chunks
        .iter()
        .zip(dims)
        .map(|(c, d)| {
            if d.unlimited {
                *c
            } else {
                (*c).min(d.len.max(1))
            }
        })
        .collect()
}

/// The size up to which a variable given no chunks is one chunk (4 MiB).
const DEFAULT_CHUNK_BYTES: usize = 4 << 20;

/// Chunks when none are given: the whole variable, as netCDF-C 4.9.0 does, with about
/// 4 MiB along an unlimited dimension. A larger variable is split, its first
/// dimensions halved until a chunk is at most [`DEFAULT_CHUNK_BYTES`] (or one element
/// along them all): a declaration of gigabytes whose data are a few values costs the
/// chunks those values are in, not one chunk of gigabytes.
fn default_chunks(dims: &[&ncmodel::Dim], elem: usize) -> Vec<usize> {
    let fixed: usize = dims
        .iter()
        .filter(|d| !d.unlimited)
        .map(|d| d.len.max(1))
        .fold(1usize, usize::saturating_mul);
    let per_record = fixed.saturating_mul(elem).max(1);
    let mut chunks: Vec<usize> = dims
        .iter()
        .map(|d| {
            if d.unlimited {
                (DEFAULT_CHUNK_BYTES / per_record).clamp(1, 1024)
            } else {
                d.len.max(1)
            }
        })
        .collect();
    let bytes = |c: &[usize]| c.iter().fold(elem.max(1), |a, n| a.saturating_mul(*n));
    while bytes(&chunks) > DEFAULT_CHUNK_BYTES {
        let Some(first) = chunks.iter_mut().find(|c| **c > 1) else {
            break;
        };
        *first = first.div_ceil(2);
    }
    chunks
}
