//! What nccopy will write: the output schema and, for each output variable, its filter
//! pipeline with the rule that decided it (DECISIONS D2, D4), its layout and whether its
//! data is copied. Pure: nothing here touches a file, so `--dry-run` needs no filter.

use filterspec::{decide, known, DeflateOptions, FilterRequests, Pipeline, VarPath};
use ncmodel::{AtomicType, Dataset, Format, Group, Storage, TypeRef};

use super::chunking::{choose_layout, LayoutChoice};
use super::quantize::{check_digits, QuantizeRequest, QuantizeRequests};
use super::select::Selection;
use chunkspec::{ChunkSpecs, VarChunking};

/// Everything the command line says about the output, besides the file names.
#[derive(Debug, Clone, Default)]
pub struct CopyOptions {
    /// `-k` (or `-3`..`-7`), if given.
    pub format: Option<Format>,
    /// `-F`.
    pub filters: FilterRequests,
    /// `-d` and `-s`.
    pub deflate: DeflateOptions,
    /// `-c`.
    pub chunks: ChunkSpecs,
    /// `--shards` (Zarr version 3 output only).
    pub shards: chunkspec::ShardSpecs,
    /// `--quantize`.
    pub quantize: QuantizeRequests,
    /// `-u`.
    pub fix_unlimited: bool,
    /// `-M`: the minimum size in bytes of a fixed-size variable that stays chunked.
    pub min_chunk_bytes: usize,
    /// `-v`, `-V`, `-g`, `-G`.
    pub selection: Selection,
    /// The output, resolved into its backend: what it can hold (a Zarr store: every
    /// variable chunked, strings fixed-width) and which codecs it writes.
    pub output: crate::storage::Output,
    /// What the input's backend can do, once it is open (a netCDF file's before).
    pub input: Option<store::Capabilities>,
    /// `--recode`: decode and encode every chunk, even where the stored chunks could be
    /// copied as they are.
    pub recode: bool,
}

impl CopyOptions {
    /// Which stores the copy reads and writes.
    pub fn stores(&self) -> super::stored::StoreKinds {
        super::stored::StoreKinds {
            input: self
                .input
                .clone()
                .unwrap_or_else(crate::storage::netcdf_file_capabilities),
            output: self.output.capabilities().clone(),
        }
    }

    /// Whether anything asks for netCDF-4 storage features (filters, chunking, quantize).
    pub fn asks_for_storage(&self) -> bool {
        self.filters.has_output_filters()
            || matches!(self.deflate.level, Some(1..))
            || self.deflate.shuffle
            || self.chunks.is_set()
            || self.quantize.is_set()
    }
}

/// One variable of the output.
#[derive(Debug, Clone, PartialEq)]
pub struct VarPlan {
    /// Its full path.
    pub path: VarPath,
    /// Its type.
    pub type_ref: TypeRef,
    /// The lengths of its dimensions in the input.
    pub shape: Vec<usize>,
    /// Whether its data is copied (`-v`, `-g`).
    pub copy_data: bool,
    /// Its output filters in stored order (empty for netCDF-3 output).
    pub pipeline: Pipeline,
    /// The rules that decided the pipeline, e.g. `table row 8, -d`.
    pub why: String,
    /// The input filters its data must be read through.
    pub input_filters: Pipeline,
    /// Whether its stored chunks are copied as they are, neither decoded nor encoded
    /// (see `copy::stored`).
    pub stored_chunks: bool,
    /// Whether it lies along an unlimited dimension of the output (which starts empty).
    pub grows: bool,
}

impl VarPlan {
    /// Whether the output declares its filters without running them: its stored chunks
    /// are copied as they are, or its data is not copied and its filters are the
    /// input's (then nothing needs them, not even to declare them: see
    /// `storage::declare_filters_copied_as_stored`).
    pub fn filters_declared_only(&self) -> bool {
        self.stored_chunks || (!self.copy_data && self.pipeline == self.input_filters)
    }

    /// The `--dry-run` line: `FULL_PATH<TAB>FILTERS<TAB>WHY`.
    pub fn plan_line(&self) -> String {
        format!("{}\t{}\t{}", self.path, self.pipeline, self.why)
    }
}

/// The whole output.
#[derive(Debug, Clone)]
pub struct CopyPlan {
    /// The output schema, storage included.
    pub dataset: Dataset,
    /// Its variables in schema order.
    pub vars: Vec<VarPlan>,
    /// Warnings for the user (filters or quantize that cannot apply).
    pub warnings: Vec<String>,
}

/// A copy that cannot be planned: an unknown name, or a format that cannot hold what was
/// asked.
pub type PlanError = anyhow::Error;

/// Plans the copy of `input` to `format`.
pub fn make_plan(
    input: &Dataset,
    options: &CopyOptions,
    format: Format,
) -> Result<CopyPlan, PlanError> {
    let mut base = input.clone();
    if options.fix_unlimited {
        fix_unlimited(&mut base.root);
    }
    let mut dataset = base.clone();
    dataset.format = format;
    dataset.is_nczarr = false;
    let mut planner = Planner {
        input: &base,
        options,
        netcdf4: !format.is_classic_family(),
        vars: Vec::new(),
        warnings: Vec::new(),
    };
    let mut groups = Vec::new();
    planner.plan_group(&mut dataset.root, &mut groups)?;
    // Types defined in groups left out (-G) go with them.
    let selection = &options.selection;
    dataset
        .types
        .retain(|t| selection.keeps_group(&t.group_path));
    Ok(CopyPlan {
        dataset,
        vars: planner.vars,
        warnings: planner.warnings,
    })
}

struct Planner<'a> {
    input: &'a Dataset,
    options: &'a CopyOptions,
    netcdf4: bool,
    vars: Vec<VarPlan>,
    warnings: Vec<String>,
}

impl Planner<'_> {
    fn plan_group(&mut self, group: &mut Group, groups: &mut Vec<String>) -> Result<(), PlanError> {
        let selection = &self.options.selection;
        group
            .vars
            .retain(|v| selection.keeps_var(&VarPath::new(groups.clone(), v.name.clone())));
        for var in &mut group.vars {
            let path = VarPath::new(groups.clone(), var.name.clone());
            self.plan_var(var, path)?;
        }
        group.groups.retain(|g| {
            let mut child = groups.clone();
            child.push(g.name.clone());
            selection.keeps_group(&child)
        });
        for child in &mut group.groups {
            groups.push(child.name.clone());
            self.plan_group(child, groups)?;
            groups.pop();
        }
        Ok(())
    }

    fn plan_var(&mut self, var: &mut ncmodel::Var, path: VarPath) -> Result<(), PlanError> {
        let shape: Vec<usize> = var
            .dim_ids
            .iter()
            .map(|id| self.input.dim(*id).map_or(0, |d| d.len))
            .collect();
        let input_storage = var.storage.take();
        let input_filters = Pipeline::from_stored(
            input_storage
                .as_ref()
                .map(|s| s.filters.clone())
                .unwrap_or_default(),
        );
        let (pipeline, why) = if self.netcdf4 {
            self.filters_for(var, &path, &input_filters)
        } else {
            (Pipeline::new(), "netCDF-3 output".to_string())
        };
        let quantize = self.quantize_for(var, &path, input_storage.as_ref())?;
        if quantize.is_some() {
            var.atts
                .retain(|a| ncmodel::QuantizeMode::from_attribute_name(&a.name).is_none());
        }
        if self.netcdf4 {
            let choice = LayoutChoice {
                path: &path,
                dataset: self.input,
                var,
                shape: &shape,
                input: input_storage.as_ref().map(|s| &s.layout),
                filtered: !pipeline.is_empty(),
                chunks: &self.options.chunks,
                min_chunk_bytes: self.options.min_chunk_bytes,
            };
            let mut layout = choose_layout(&choice)?;
            self.warn_kept_chunked(&path, &layout);
            if self.options.output.capabilities().chunked_only
                && !matches!(layout, ncmodel::Layout::Chunked(_))
            {
                layout = ncmodel::Layout::Other;
            }
            // Like the reference, written variables are not pre-filled (it is faster);
            // the library does that for atomic types
            // other than strings only. Variables whose data is not copied
            // keep fill values, so that they read as missing rather than as garbage.
            let no_fill = self.options.selection.copies_data(&path)
                && matches!(var.type_ref, TypeRef::Atomic(t) if t != AtomicType::String);
            var.storage = Some(Storage {
                layout,
                filters: pipeline.filters().to_vec(),
                endianness: input_storage
                    .as_ref()
                    .map_or(ncmodel::Endianness::Native, |s| s.endianness),
                no_fill,
                quantize,
                codecs: None,
            });
        }
        let stores = self.options.stores();
        let stored_chunks = !self.options.recode
            && self.options.selection.copies_data(&path)
            && var.storage.as_ref().is_some_and(|output| {
                super::stored::copies_stored_chunks(
                    self.input,
                    var,
                    input_storage.as_ref(),
                    output,
                    &stores,
                )
            });
        let grows = !self.options.fix_unlimited
            && var
                .dim_ids
                .iter()
                .any(|id| self.input.dim(*id).is_some_and(|d| d.unlimited));
        let why = if stored_chunks {
            format!("{why}, stored chunks copied")
        } else {
            why
        };
        self.vars.push(VarPlan {
            stored_chunks,
            grows,
            copy_data: self.options.selection.copies_data(&path),
            path,
            type_ref: var.type_ref,
            shape,
            pipeline,
            why,
            input_filters,
        });
        Ok(())
    }

    /// Warns when `-c VAR:contiguous` (or `compact`, or `VAR:`) cannot be honoured: the
    /// variable needs chunks for its filters or its unlimited dimension.
    fn warn_kept_chunked(&mut self, path: &VarPath, layout: &ncmodel::Layout) {
        let asked = self.options.chunks.vars.iter().find(|(p, _)| p == path);
        let Some((_, spec @ (VarChunking::Contiguous | VarChunking::Compact))) = asked else {
            return;
        };
        if matches!(layout, ncmodel::Layout::Chunked(_)) && !self.options.chunks.unchunked {
            let what = if *spec == VarChunking::Compact {
                "compact"
            } else {
                "contiguous"
            };
            self.warnings.push(format!(
                "variable {path}: -c asks for {what} storage, but it stays chunked: its filters \
                 or unlimited dimension need chunks"
            ));
        }
    }

    /// The output pipeline of a variable and the rules that decided it.
    fn filters_for(
        &mut self,
        var: &ncmodel::Var,
        path: &VarPath,
        input: &Pipeline,
    ) -> (Pipeline, String) {
        let requests = &self.options.filters;
        let outcome = decide(requests.global_none(), requests.request_for(path), input);
        let mut why = vec![outcome.row.to_string()];
        let mut pipeline = outcome.pipeline;
        let mut deflate = self.options.deflate;
        if matches!(deflate.level, Some(1..)) && pipeline.contains(known::SZIP) {
            // libnetcdf refuses deflate next to szip.
            self.warnings.push(format!(
                "variable {path}: -d is not applied: the variable keeps szip, which the \
                 library does not combine with deflate"
            ));
            deflate.level = None;
        }
        let after = deflate.apply(&pipeline);
        if after != pipeline {
            if deflate.level.is_some() && after.get(known::DEFLATE) != pipeline.get(known::DEFLATE)
            {
                why.push("-d".into());
            }
            if deflate.shuffle && !pipeline.contains(known::SHUFFLE) {
                why.push("-s".into());
            }
            pipeline = after;
        }
        if pipeline.is_empty() {
            return (pipeline, why.join(", "));
        }
        let explicit = requests.is_explicit(path);
        if var.dim_ids.is_empty() {
            if explicit {
                self.warnings.push(format!(
                    "variable {path}: filters cannot apply to a scalar variable ({} ignored)",
                    filterspec::format_spec_list(pipeline.filters())
                ));
            }
            return (Pipeline::new(), "scalar".into());
        }
        // A Zarr store keeps strings fixed-length, its values filtered like any other.
        let output = self.options.output.capabilities();
        let fixed_strings =
            output.fixed_width_strings() && var.type_ref == TypeRef::Atomic(AtomicType::String);
        if self.input.is_variable_sized(var.type_ref) && !fixed_strings {
            self.warnings.push(format!(
                "variable {path}: filters are not applied to variable-length types ({} \
                 suppressed)",
                filterspec::format_spec_list(pipeline.filters())
            ));
            return (Pipeline::new(), "variable-length type".into());
        }
        let size = output.stored_value_size(self.input, var) as u32;
        let stored = Pipeline::from_stored(
            pipeline
                .filters()
                .iter()
                .map(|f| match f.id {
                    known::SHUFFLE => filterspec::FilterSpec::new(known::SHUFFLE, [size]),
                    _ => f.clone(),
                })
                .collect(),
        );
        (stored, why.join(", "))
    }

    /// The quantization of a variable: `--quantize`, else the input's.
    fn quantize_for(
        &mut self,
        var: &ncmodel::Var,
        path: &VarPath,
        input: Option<&Storage>,
    ) -> Result<Option<ncmodel::Quantize>, PlanError> {
        let inherited = input.and_then(|s| s.quantize);
        let (quantize, explicit) = match self.options.quantize.request_for(path) {
            QuantizeRequest::Undefined => return Ok(inherited.filter(|_| self.netcdf4)),
            QuantizeRequest::All(q) => (q, false),
            QuantizeRequest::Named(q) => (q, true),
        };
        if super::quantize::max_digits(quantize.mode, var.type_ref).is_none() {
            if explicit {
                self.warnings.push(format!(
                    "variable {path}: only float and double variables can be quantized \
                     (--quantize ignored for it)"
                ));
            }
            return Ok(inherited);
        }
        if !explicit && is_coordinate(self.input, var) {
            self.warnings.push(format!(
                "variable {path}: coordinate variables are not quantized by `*` (name it in \
                 --quantize to quantize it)"
            ));
            return Ok(inherited);
        }
        check_digits(path, quantize, var.type_ref)?;
        Ok(Some(quantize))
    }
}

/// `-u`: every unlimited dimension that has records becomes fixed at its length.
fn fix_unlimited(group: &mut Group) {
    for dim in group.dims.iter_mut().filter(|d| d.unlimited && d.len > 0) {
        dim.unlimited = false;
    }
    group.groups.iter_mut().for_each(fix_unlimited);
}

/// Whether `var` is a coordinate variable: one dimension, of its own name.
fn is_coordinate(dataset: &Dataset, var: &ncmodel::Var) -> bool {
    matches!(var.dim_ids.as_slice(), [id] if dataset.dim(*id).is_some_and(|d| d.name == var.name))
}
