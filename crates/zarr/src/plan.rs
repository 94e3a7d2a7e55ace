//! What the writer makes of a [`Dataset`]: each variable's array (shape, chunks, dtype,
//! fill, codecs) and each group's place, checked before anything is written.

use ncmodel::{AtomicType, Dataset, Endianness, Group, Layout, TypeRef, Var};
use serde_json::Value;

use crate::codec::codec_of_filter;
use crate::dtype::Dtype;
use crate::error::{Result, ZarrError};
use crate::values::first_element;

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
}

/// Every variable of `dataset`, checked; `v3` plans a Zarr v3 store.
pub fn plan(dataset: &Dataset, no_fill_all: bool) -> Result<Vec<PlannedVar>> {
    if !dataset.types.is_empty() {
        let names: Vec<String> = dataset
            .types
            .iter()
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
        return Err(ZarrError::BadType(format!(
            "the user-defined type{} {} cannot be stored in Zarr (NCZarr holds atomic types \
             only); write a netCDF-4 file instead",
            if names.len() == 1 { "" } else { "s" },
            names.join(", "),
        )));
    }
    let mut out = Vec::new();
    let mut next = 0;
    walk(
        dataset,
        &dataset.root,
        &mut Vec::new(),
        &mut next,
        no_fill_all,
        &mut out,
    )?;
    Ok(out)
}

fn walk(
    dataset: &Dataset,
    group: &Group,
    path: &mut Vec<String>,
    next: &mut i32,
    no_fill_all: bool,
    out: &mut Vec<PlannedVar>,
) -> Result<()> {
    let gid = *next;
    *next += 1;
    for (id, var) in group.vars.iter().enumerate() {
        out.push(plan_var(dataset, var, path, gid, id as i32, no_fill_all)?);
    }
    for child in &group.groups {
        path.push(child.name.clone());
        walk(dataset, child, path, next, no_fill_all, out)?;
        path.pop();
    }
    Ok(())
}

/// `planned` planned again, as its variable now is (after an attribute was added).
pub fn replan(dataset: &Dataset, planned: &PlannedVar, no_fill_all: bool) -> Result<PlannedVar> {
    plan_var(
        dataset,
        &planned.var,
        &planned.group_path,
        planned.group,
        planned.id,
        no_fill_all,
    )
}

fn plan_var(
    dataset: &Dataset,
    var: &Var,
    path: &[String],
    group: i32,
    id: i32,
    no_fill_all: bool,
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
        // Fixed-length, as netCDF-C 4.9.1 and later store strings (see strings.rs).
        AtomicType::String => {
            Dtype::fixed_string(crate::strings::var_maxstrlen(&dataset.root.atts, &var.atts))
        }
        _ => Dtype::of(atomic, big),
    };
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

/// Chunks when none are given: the whole variable, as netCDF-C 4.9.0 does, with about
/// 4 MiB along an unlimited dimension.
fn default_chunks(dims: &[&ncmodel::Dim], elem: usize) -> Vec<usize> {
    let fixed: usize = dims
        .iter()
        .filter(|d| !d.unlimited)
        .map(|d| d.len.max(1))
        .product();
    let per_record = fixed.saturating_mul(elem).max(1);
    dims.iter()
        .map(|d| {
            if d.unlimited {
                ((4 << 20) / per_record).clamp(1, 1024)
            } else {
                d.len.max(1)
            }
        })
        .collect()
}
