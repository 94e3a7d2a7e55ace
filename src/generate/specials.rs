//! ncgen's special attributes (DECISIONS D4, D5): the `_Storage`, `_ChunkSizes`,
//! `_Fletcher32`, `_Shuffle`, `_DeflateLevel`, `_Endianness`, `_NoFill`, `_Filter`,
//! `_Codecs` and quantize attributes of variables, and the global `_Format`, become
//! storage properties and the output format; they are removed from the attributes.

use super::chunk_sizes;
use codecs::nczarr::{codecs_filter_ids, codecs_to_filters};
use filterspec::{known, parse_filter_attribute, FilterSpec, Pipeline};
use ncmodel::{
    AtomicType, Attribute, Dataset, Endianness, Format, Group, Layout, Quantize, QuantizeMode,
    Storage, TypeRef, Values, Var,
};

/// A special attribute whose value cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{attribute}: {problem}", owner(var))]
pub struct SpecialError {
    /// The variable's full path (`/` for global attributes).
    pub var: String,
    /// The attribute's name.
    pub attribute: String,
    /// What is wrong and what to write instead.
    pub problem: String,
    /// How to put it right, when the problem does not say.
    pub hint: Option<String>,
}

/// How a message names the owner of an attribute: `variable /v:` or `global attribute `.
fn owner(var: &str) -> String {
    if var == "/" {
        "global attribute ".to_string()
    } else {
        format!("variable {var}: ")
    }
}

/// What the special attributes decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpecialsOutcome {
    /// The format asked for by a global `_Format`, if any.
    pub format: Option<Format>,
    /// Whether any netCDF-4-only special attribute was given (then output defaults to
    /// netCDF-4).
    pub needs_netcdf4: bool,
    /// Warnings for the user (filters suppressed on variable-sized types, ...).
    pub warnings: Vec<String>,
}

const READ_ONLY_GLOBALS: [&str; 3] = ["_NCProperties", "_IsNetcdf4", "_SuperblockVersion"];

fn text(att: &Attribute) -> Option<String> {
    match &att.values {
        Values::Char(bytes) => Some(String::from_utf8_lossy(bytes).trim_end_matches('\0').into()),
        Values::String(v) if v.len() == 1 => v[0]
            .as_ref()
            .map(|b| String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

fn integers(att: &Attribute) -> Option<Vec<i128>> {
    (0..att.values.len())
        .map(|i| att.values.integer_at(i))
        .collect()
}

fn boolean(att: &Attribute) -> Option<bool> {
    if let Some(t) = text(att) {
        return match t.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        };
    }
    match integers(att)?.as_slice() {
        [v] => Some(*v != 0),
        _ => None,
    }
}

/// Applies the special attributes of every variable and the global ones, in place.
/// `fixed_strings`: the output stores strings fixed-length (a Zarr store), so filters
/// apply to string variables too.
pub fn apply_specials(
    dataset: &mut Dataset,
    fixed_strings: bool,
) -> Result<SpecialsOutcome, SpecialError> {
    let mut outcome = SpecialsOutcome::default();
    let root = &mut dataset.root;
    let mut format_att = None;
    root.atts.retain(|a| {
        if a.name == "_Format" {
            format_att = Some(a.clone());
            return false;
        }
        !READ_ONLY_GLOBALS.contains(&a.name.as_str())
    });
    if let Some(att) = format_att {
        let name = text(&att).unwrap_or_default();
        outcome.format =
            Some(
                crate::formats::format_by_name(&name).ok_or_else(|| SpecialError {
                    var: "/".into(),
                    attribute: "_Format".into(),
                    problem: format!(
                        "no such format: \"{name}\" (use classic, 64-bit offset, cdf5, netCDF-4 \
                 or netCDF-4 classic model)"
                    ),
                    hint: None,
                })?,
            );
    }
    let snapshot = dataset.clone();
    let context = Context {
        dataset: &snapshot,
        fixed_strings,
    };
    apply_in_group(&context, &mut dataset.root, "", &mut outcome)?;
    Ok(outcome)
}

/// What the specials of every variable are judged against.
struct Context<'a> {
    /// The dataset as parsed.
    dataset: &'a Dataset,
    /// Whether the output stores strings fixed-length.
    fixed_strings: bool,
}

fn apply_in_group(
    context: &Context<'_>,
    group: &mut Group,
    prefix: &str,
    outcome: &mut SpecialsOutcome,
) -> Result<(), SpecialError> {
    for var in &mut group.vars {
        let path = format!("{prefix}/{}", var.name);
        apply_to_var(context, var, &path, outcome)?;
    }
    for child in &mut group.groups {
        let child_prefix = format!("{prefix}/{}", child.name);
        apply_in_group(context, child, &child_prefix, outcome)?;
    }
    Ok(())
}

/// The special attributes of one variable, as given.
#[derive(Default)]
struct VarSpecials {
    storage: Option<Layout>,
    /// The `_ChunkSizes` values, checked once the layout is known (the reference ignores
    /// them for contiguous and compact variables).
    chunks: Option<Values>,
    fletcher32: bool,
    shuffle: bool,
    deflate: Option<u32>,
    filters: Vec<FilterSpec>,
    /// The `_Codecs` text, read once the `_Filter` attributes are known.
    codecs: Option<String>,
    endianness: Option<Endianness>,
    no_fill: bool,
    quantize: Option<Quantize>,
    any: bool,
}

fn apply_to_var(
    context: &Context<'_>,
    var: &mut Var,
    path: &str,
    outcome: &mut SpecialsOutcome,
) -> Result<(), SpecialError> {
    let dataset = context.dataset;
    for att in &mut var.atts {
        // `v:_FillValue = ""` on a char variable means NUL, as in the reference.
        if att.name == "_FillValue" && att.values == Values::Char(Vec::new()) {
            att.values = Values::Char(vec![0]);
        }
    }
    let mut specials = VarSpecials::default();
    let mut kept = Vec::with_capacity(var.atts.len());
    for att in std::mem::take(&mut var.atts) {
        if !read_special(&att, path, &mut specials)? {
            kept.push(att);
        }
    }
    var.atts = kept;
    if !specials.any {
        return Ok(());
    }
    outcome.needs_netcdf4 = true;
    let mut pipeline = Pipeline::new();
    if specials.fletcher32 {
        pipeline.define(FilterSpec::new(known::FLETCHER32, []));
    }
    if specials.shuffle {
        pipeline.define(FilterSpec::new(known::SHUFFLE, []));
    }
    if let Some(level) = specials.deflate {
        pipeline.define(FilterSpec::new(known::DEFLATE, [level]));
    }
    let from_filter = std::mem::take(&mut specials.filters);
    let codecs_error = |e: codecs::nczarr::CodecError| SpecialError {
        var: path.into(),
        attribute: "_Codecs".into(),
        problem: e.to_string(),
        hint: None,
    };
    match (&specials.codecs, from_filter.is_empty()) {
        // Alone, the codecs are the filters, each member read.
        (Some(codecs), true) => codecs_to_filters(codecs)
            .map_err(codecs_error)?
            .into_iter()
            .for_each(|f| pipeline.define(f)),
        // Beside _Filter, which gives the parameters, they only have to name the same
        // filters (netCDF-C ignores them when writing).
        (Some(codecs), false)
            if !same_filter_ids(
                &codecs_filter_ids(codecs).map_err(codecs_error)?,
                &from_filter,
            ) =>
        {
            return Err(SpecialError {
                var: path.into(),
                attribute: "_Codecs".into(),
                problem: "disagrees with _Filter: give one of them, or make them name the \
                          same filters"
                    .into(),
                hint: None,
            })
        }
        _ => from_filter.into_iter().for_each(|f| pipeline.define(f)),
    }
    let mut filters = pipeline.filters().to_vec();
    let fixed_string = context.fixed_strings && var.type_ref == TypeRef::Atomic(AtomicType::String);
    if !filters.is_empty() && dataset.is_variable_sized(var.type_ref) && !fixed_string {
        outcome.warnings.push(format!(
            "variable {path}: filters are not applied to variable-sized types ({} suppressed)",
            filterspec::format_spec_list(&filters)
        ));
        filters.clear();
    }
    if !filters.is_empty() && var.dim_ids.is_empty() {
        outcome.warnings.push(format!(
            "variable {path}: filters cannot apply to a scalar variable ({} ignored)",
            filterspec::format_spec_list(&filters)
        ));
        filters.clear();
    }
    let chunks = match (&specials.storage, specials.chunks.take()) {
        (Some(Layout::Contiguous | Layout::Compact), _) | (_, None) => None,
        (_, Some(values)) => Some(checked_chunk_sizes(dataset, var, path, &values, outcome)?),
    };
    let layout = match (specials.storage, chunks) {
        (Some(Layout::Chunked(_)) | None, Some(chunks)) => Layout::Chunked(chunks),
        (Some(layout), _) => layout,
        (None, None) if !filters.is_empty() => Layout::Chunked(Vec::new()),
        (None, None) => Layout::Other,
    };
    var.storage = Some(Storage {
        layout,
        filters,
        endianness: specials.endianness.unwrap_or(Endianness::Native),
        no_fill: specials.no_fill,
        quantize: specials.quantize,
        codecs: None,
    });
    Ok(())
}

/// The sizes of `_ChunkSizes = values` on `var` (at `path`), checked against its
/// dimensions; sizes beyond its rank are ignored with a warning, as the reference does.
fn checked_chunk_sizes(
    dataset: &Dataset,
    var: &Var,
    path: &str,
    values: &Values,
    outcome: &mut SpecialsOutcome,
) -> Result<Vec<usize>, SpecialError> {
    let dims = chunk_sizes::dim_shapes(dataset, var);
    let sizes = chunk_sizes::chunk_sizes(values, &dims).map_err(|e| SpecialError {
        var: path.into(),
        attribute: "_ChunkSizes".into(),
        problem: e.problem,
        hint: e.hint,
    })?;
    if sizes.ignored > 0 {
        outcome.warnings.push(format!(
            "variable {path}: _ChunkSizes: {} size(s) beyond its {} dimension(s) ignored, as \
             the reference ncgen does",
            sizes.ignored,
            dims.len()
        ));
    }
    Ok(sizes.sizes)
}

/// Whether the codecs' filter ids and the `_Filter` filters make the same pipeline.
fn same_filter_ids(codec_ids: &[u32], filters: &[FilterSpec]) -> bool {
    let stored =
        |list: Vec<FilterSpec>| -> Vec<u32> { Pipeline::from_definitions(list).ids().collect() };
    let from_codecs = codec_ids
        .iter()
        .map(|id| FilterSpec::new(*id, []))
        .collect();
    stored(from_codecs) == stored(filters.to_vec())
}

/// Reads one attribute if it is special; returns whether it was.
fn read_special(
    att: &Attribute,
    path: &str,
    specials: &mut VarSpecials,
) -> Result<bool, SpecialError> {
    let error = |problem: &str| SpecialError {
        var: path.into(),
        attribute: att.name.clone(),
        problem: problem.into(),
        hint: None,
    };
    match att.name.as_str() {
        "_Storage" => {
            let layout = match text(att).map(|t| t.to_ascii_lowercase()).as_deref() {
                Some("contiguous") => Layout::Contiguous,
                Some("compact") => Layout::Compact,
                Some("chunked") => Layout::Chunked(Vec::new()),
                _ => return Err(error("must be \"contiguous\", \"chunked\" or \"compact\"")),
            };
            // As in the reference, the last of _Storage and _ChunkSizes decides.
            if !matches!(layout, Layout::Chunked(_)) {
                specials.chunks = None;
            }
            specials.storage = Some(layout);
        }
        "_ChunkSizes" => {
            specials.chunks = Some(att.values.clone());
            specials.storage = Some(Layout::Chunked(Vec::new()));
        }
        "_Fletcher32" => {
            specials.fletcher32 =
                boolean(att).ok_or_else(|| error("must be \"true\" or \"false\""))?;
        }
        "_Shuffle" => {
            specials.shuffle =
                boolean(att).ok_or_else(|| error("must be \"true\" or \"false\""))?;
        }
        "_DeflateLevel" => {
            let level = match integers(att).as_deref() {
                Some([v]) if (0..=9).contains(v) => *v as u32,
                _ => return Err(error("must be one integer from 0 to 9")),
            };
            specials.deflate = Some(level);
        }
        "_Endianness" => {
            specials.endianness =
                Some(match text(att).map(|t| t.to_ascii_lowercase()).as_deref() {
                    Some("little") => Endianness::Little,
                    Some("big") => Endianness::Big,
                    Some("native") => Endianness::Native,
                    _ => return Err(error("must be \"little\", \"big\" or \"native\"")),
                });
        }
        "_NoFill" => {
            specials.no_fill =
                boolean(att).ok_or_else(|| error("must be \"true\" or \"false\""))?;
        }
        "_Filter" => {
            let value = text(att).ok_or_else(|| error("must be a string, like \"307,9\""))?;
            let specs = parse_filter_attribute(&value)
                .map_err(|e| error(&format!("not a filter spec list:\n{}", e.render())))?;
            // Repeated _Filter attributes append, as the spec says.
            specials.filters.extend(specs);
        }
        "_Codecs" => {
            let value = text(att).ok_or_else(|| error("must be a JSON string"))?;
            specials.codecs = Some(value);
        }
        name => {
            let Some(mode) = QuantizeMode::from_attribute_name(name) else {
                return Ok(false);
            };
            let nsd = match integers(att).as_deref() {
                Some([v]) if *v > 0 => *v as i32,
                _ => return Err(error("must be one positive integer")),
            };
            specials.quantize = Some(Quantize { mode, nsd });
        }
    }
    specials.any = true;
    Ok(true)
}
