//! `nccopy`: copy a netCDF file, converting its format, filters, chunking or
//! quantization on the way (DECISIONS D2, D4, D6, D7).
//!
//! The copy is planned first ([`plan::make_plan`]: the output schema and each variable's
//! pipeline with the rule that decided it), which is all `--dry-run` needs. Then every
//! variable that will be read is checked for unavailable filters (D6) before anything is
//! written; the output is defined in full, and the data streams variable by variable in
//! slabs of whole output chunks bounded by `-m` (`transfer`). The output is written
//! under a temporary name and renamed at the end (D7).

mod advisor;
mod args;
mod chunking;
mod default_chunks;
mod job;
mod kerchunk;
mod options;
mod plan;
mod progress;
mod quantize;
mod regions;
mod select;
mod slabs;
mod stored;
mod transfer;

use std::io::Write;

use anyhow::{anyhow, Context};
use clap::Parser;
use store::{Availability, StoreReader};

pub use args::CopyArgs;
pub use plan::{make_plan, CopyOptions, CopyPlan, VarPlan};

use crate::exit::Failure;
use crate::interrupt::Interrupted;
use crate::storage::Output;
use job::CopyJob;

/// Runs nccopy on the command-line arguments (program name first); returns the exit code.
pub fn main(argv: Vec<String>) -> i32 {
    crate::interrupt::install();
    crate::exit::install_panic_hook("nccopy");
    crash_guard::install("nccopy");
    crate::storage::backends::register_filters();
    let args = match CopyArgs::try_parse_from(&argv) {
        Ok(args) => args,
        Err(e) => return crate::exit::clap_error(e),
    };
    match run(&args) {
        Ok(()) => 0,
        Err(failure) => crate::interrupt::report(&failure, "nccopy"),
    }
}

fn run(args: &CopyArgs) -> Result<(), Failure> {
    if args.list_filters {
        return crate::inventory::print_filter_list(args.json).map_err(Failure::runtime);
    }
    if let Some(list) = &args.try_filters {
        return try_filters(args, list);
    }
    if args.json {
        return Err(Failure::usage(anyhow!(
            "--json goes with --list-filters or --try-filters"
        )));
    }
    if let Some(refs) = &args.kerchunk {
        return kerchunk::write_references(args, refs);
    }
    let Some(source) = args.input.as_deref() else {
        return Err(Failure::usage(anyhow!("an input file is required")));
    };
    // The pool every backend encodes and decodes chunks on (`-j`).
    let remote = crate::storage::over_network(source)
        || args
            .output
            .as_deref()
            .is_some_and(crate::storage::over_network);
    crate::jobs::configure(args.jobs, remote);
    let CopyJob {
        mut options,
        buffer_bytes,
        cache,
        template,
        region: region_request,
        into_store,
    } = CopyJob::from_args(args)?;
    if let Some((bytes, slots)) = cache {
        crate::storage::set_default_chunk_cache(bytes, slots)
            .map_err(|e| Failure::runtime(e.into()))?;
    }
    if let (Some(target), false, false) = (args.output.as_deref(), args.dry_run, into_store) {
        // Before any data moves: a target that cannot be written, or is the input.
        crate::storage::output_check::check(target, &[source]).map_err(Failure::runtime)?;
    }
    crash_guard::set_file(&store::redact_url(source), crash_guard::Role::Input);
    crash_guard::set_activity("opening the file");
    let input = crate::storage::open_with(
        source,
        crate::storage::InputOptions {
            in_memory: args.input_in_memory,
            allow_truncated: args.allow_truncated,
        },
    )
    .map_err(Failure::runtime)?;
    options.input = Some(input.capabilities());
    crash_guard::set_activity("reading the schema");
    let dataset = input.schema().map_err(|e| Failure::runtime(anyhow!(e)))?;
    let left_out = input.left_out();
    if !left_out.is_empty() && args.only_vars.is_none() {
        // Never a copy that silently lacks a variable.
        return Err(Failure::runtime(anyhow!(
            "{source}: {}; to copy the other variables, name them with -V; no output was \
             written",
            left_out.join("; ")
        )));
    }
    let target_format = options.output.capabilities().implied_format;
    let format = match target_format {
        Some(implied) => {
            options::check_implied_format(&options, implied).map_err(Failure::usage)?
        }
        None => options::output_format(&options, dataset.format),
    };
    options::check_classic_output(&options, format).map_err(Failure::usage)?;
    if let Some(problem) = filter_given_as_variable(&options, &args.filters, &dataset) {
        return Err(Failure::usage(problem));
    }
    check_names(&options, &dataset).map_err(Failure::runtime)?;
    let plan = make_plan(&dataset, &options, format).map_err(Failure::runtime)?;
    // Before the output is created: every name copied must be a netCDF name (an input's
    // `../../EVIL` must never become a path in a Zarr store, whatever libnetcdf checks).
    ncmodel::check_dataset_names(&plan.dataset).map_err(|e| Failure::runtime(e.into()))?;
    check_output_format(&plan, source, format).map_err(Failure::runtime)?;
    for warning in &plan.warnings {
        crate::exit::warn("nccopy", warning);
    }
    if args.dry_run {
        // The filters a real run would stop on, in its words, as warnings.
        for problem in input_filter_problems(input.as_ref(), &plan)
            .into_iter()
            .chain(output_filter_problems(&options.output, &plan))
        {
            crate::exit::warn("nccopy", problem);
        }
        return print_plan(&plan).map_err(Failure::runtime);
    }
    check_input_filters(input.as_ref(), &plan).map_err(Failure::runtime)?;
    if args.output.is_none() {
        return Err(Failure::usage(anyhow!(
            "an output file is required (or --dry-run)"
        )));
    }
    check_output_filters(&options.output, &plan).map_err(Failure::runtime)?;
    let mut plan = plan;
    if let Some(template) = &template {
        regions::apply_template(&mut plan, template, &options.chunks).map_err(Failure::usage)?;
    }
    let mut append_lock = None;
    let region = match (&region_request, &args.append, args.output.as_deref()) {
        (Some(request), _, Some(target)) => {
            let (_, store_dataset) = open_store(target, "--region")?;
            regions::adopt_store_layout(&mut plan, &store_dataset, &dataset, &options);
            Some(
                regions::apply_region(&mut plan, request, &store_dataset, target)
                    .map_err(Failure::runtime)?,
            )
        }
        (None, Some(dim), Some(target)) => {
            // Taken before the store's length is read, held until the copy is done.
            append_lock = options
                .output
                .lock_for_append()
                .map_err(|e| Failure::runtime(anyhow!(e)))?;
            let (store, store_dataset) = open_store(target, "--append")?;
            regions::adopt_store_layout(&mut plan, &store_dataset, &dataset, &options);
            let sources = regions::AppendSources {
                store: store.as_ref(),
                store_dataset: &store_dataset,
                input: input.as_ref(),
                input_dataset: &dataset,
            };
            Some(
                regions::apply_append(&mut plan, dim, &sources, args.allow_overlap, target)
                    .map_err(Failure::runtime)?,
            )
        }
        _ => None,
    };
    stored::settle_unwritten_chunks(input.as_ref(), &dataset, &mut plan, &options.stores())
        .map_err(|e| Failure::runtime(anyhow!(e)))?;
    declare_copied_filters(&plan);
    let copy = Copy {
        input: input.as_ref(),
        dataset: &dataset,
        plan: &plan,
        buffer_bytes: buffer_bytes.max(1),
        tune_caches: cache.is_none(),
        shards: &options.shards,
        region,
    };
    let written = copy
        .write(&options.output, args.output_in_memory)
        .map_err(Failure::runtime);
    drop(append_lock);
    written
}

/// The existing store `target` of `--region` or `--append` (`option`), opened for
/// reading, and its schema.
fn open_store(
    target: &str,
    option: &str,
) -> Result<(Box<dyn StoreReader>, ncmodel::Dataset), Failure> {
    let store = crate::storage::open(target)
        .with_context(|| format!("{option}: opening the store {target}"))
        .map_err(Failure::runtime)?;
    let dataset = store.schema().map_err(|e| Failure::runtime(anyhow!(e)))?;
    Ok((store, dataset))
}

/// `--try-filters [LIST] in.nc`: the advisor. `--try-filters in.nc` (no list) reads the
/// file name as the option's value: it is taken as the input.
fn try_filters(args: &CopyArgs, list: &str) -> Result<(), Failure> {
    let (list, source) = match (args.input.as_deref(), args.output.as_deref()) {
        (Some(input), None) => (list, input),
        (None, None) if !list.is_empty() => ("", list),
        (Some(_), Some(output)) => {
            return Err(Failure::usage(anyhow!(
                "--try-filters writes nothing: give no output file ({output})"
            )))
        }
        _ => return Err(Failure::usage(anyhow!("--try-filters needs an input file"))),
    };
    crate::jobs::configure(args.jobs, false);
    let quantize = args
        .quantize
        .iter()
        .map(|text| advisor_quantize(text))
        .collect::<anyhow::Result<Vec<_>>>()
        .map_err(Failure::usage)?;
    advisor::parse_candidates(list).map_err(Failure::usage)?;
    let input = crate::storage::open(source).map_err(Failure::runtime)?;
    let chunks = output_chunks(args, input.as_ref()).map_err(Failure::runtime)?;
    let only = args
        .only_vars
        .as_deref()
        .map(|text| select::NameList::parse("-V", text))
        .transpose()
        .map_err(Failure::usage)?;
    advisor::try_filters(
        input.as_ref(),
        list,
        &chunks,
        &quantize,
        only.as_ref(),
        args.json,
    )
    .map_err(Failure::runtime)
}

/// The chunk shape each variable would have in a filtered netCDF-4 copy with the other
/// options given (`-c` included): the advisor samples those chunks, as a copy would
/// encode them.
fn output_chunks(
    args: &CopyArgs,
    input: &dyn StoreReader,
) -> anyhow::Result<Vec<(filterspec::VarPath, Vec<usize>)>> {
    let mut planning = args.clone();
    planning.filters = vec!["*,zstd,3".to_string()];
    planning.quantize.clear();
    planning.try_filters = None;
    planning.output = None;
    let options = options::copy_options(&planning)?;
    let dataset = input.schema().map_err(|e| anyhow!(e))?;
    let plan = make_plan(&dataset, &options, ncmodel::Format::Netcdf4)?;
    Ok(plan
        .vars
        .iter()
        .filter_map(|v| {
            let var = stored::find_var(&plan.dataset, &v.path)?;
            let ncmodel::Layout::Chunked(chunks) = &var.storage.as_ref()?.layout else {
                return None;
            };
            if !chunks.is_empty() {
                return Some((v.path.clone(), chunks.clone()));
            }
            // Left to the library: the chunks it chooses.
            let dims: Vec<&ncmodel::Dim> = var
                .dim_ids
                .iter()
                .filter_map(|id| plan.dataset.dim(*id))
                .collect();
            let shape: Vec<usize> = dims.iter().map(|d| d.len).collect();
            let unlimited: Vec<bool> = dims.iter().map(|d| d.unlimited).collect();
            let size = plan.dataset.type_size(var.type_ref);
            Some((
                v.path.clone(),
                default_chunks::default_chunks(&shape, &unlimited, size),
            ))
        })
        .collect())
}

/// A `--quantize` given with `--try-filters`: `ALGORITHM,N` (or `*,ALGORITHM,N`), tried
/// on every float and double variable.
fn advisor_quantize(text: &str) -> anyhow::Result<ncmodel::Quantize> {
    let spec = if text.starts_with("*,") {
        text.to_string()
    } else {
        format!("*,{text}")
    };
    let requests = quantize::QuantizeRequests::parse([spec.as_str()])?;
    match requests.request_for(&filterspec::VarPath::new(
        Vec::<String>::new(),
        String::new(),
    )) {
        quantize::QuantizeRequest::All(q) | quantize::QuantizeRequest::Named(q) => Ok(q),
        quantize::QuantizeRequest::Undefined => {
            anyhow::bail!("--quantize {text}: with --try-filters, write ALGORITHM,N")
        }
    }
}

/// `-F zstd,3`: the variables part names a filter (by name or id) that is no variable
/// of the input, so the user meant a filter for every variable. A usage error that says
/// `-F` takes variables first, with the spec they probably meant.
fn filter_given_as_variable(
    options: &CopyOptions,
    texts: &[String],
    dataset: &ncmodel::Dataset,
) -> Option<anyhow::Error> {
    let vars = select::all_var_paths(&dataset.root);
    let unmatched = options.filters.unmatched(&vars);
    let first = unmatched.first()?;
    let name = first.path.to_string();
    let name = name.trim_start_matches('/');
    let is_filter = filterspec::known::by_name(name).is_some() || name.parse::<u32>().is_ok();
    if !is_filter {
        return None;
    }
    let text = texts.iter().find(|t| {
        t.split(',').next().is_some_and(|selector| {
            selector
                .split('&')
                .any(|n| n.trim_start_matches('/') == name)
        })
    })?;
    Some(anyhow::anyhow!(
        "-F {text}: `{name}` is taken as a variable, and the input has none of that name; \
         -F takes the variables first, then the filter: -F '*,{text}' applies it to every \
         variable, -F 'VAR,{text}' to VAR alone"
    ))
}

/// Every name on the command line must name something in the input (DECISIONS D2: a
/// misspelled `-F` variable is an error, not a silently unfiltered copy).
fn check_names(options: &CopyOptions, dataset: &ncmodel::Dataset) -> anyhow::Result<()> {
    let vars = select::all_var_paths(&dataset.root);
    if let Some(unmatched) = options.filters.unmatched(&vars).first() {
        let hint = match unmatched.suggestions.first() {
            Some(close) => format!("; did you mean {close}?"),
            None => "; `ncdump -h` lists the variables".to_string(),
        };
        anyhow::bail!(
            "-F: the input has no variable {}{hint} (no output was written)",
            unmatched.path
        );
    }
    let texts: Vec<String> = vars.iter().map(ToString::to_string).collect();
    let unknown = |option: &str, path: &filterspec::VarPath| {
        let wanted = path.to_string();
        let close = filterspec::close_matches(&wanted, texts.iter().map(String::as_str));
        let hint = close
            .first()
            .map_or(String::new(), |c| format!("; did you mean {c}?"));
        anyhow::anyhow!("{option}: the input has no variable {wanted}{hint}")
    };
    if let Some(path) = options
        .quantize
        .explicit_paths()
        .find(|p| !vars.contains(p))
    {
        return Err(unknown("--quantize", path));
    }
    if let Some((path, _)) = options.chunks.vars.iter().find(|(p, _)| !vars.contains(p)) {
        return Err(unknown(&format!("-c {path}:..."), path));
    }
    if let Some((path, _)) = options.shards.vars.iter().find(|(p, _)| !vars.contains(p)) {
        return Err(unknown(&format!("--shards {path}:..."), path));
    }
    for (dim, _) in &options.chunks.dims {
        if !select::has_dim_named(&dataset.root, dim) {
            anyhow::bail!(
                "-c {dim}/...: the input has no dimension {dim}; `ncdump -h` lists the \
                 dimensions"
            );
        }
    }
    options.selection.check(&dataset.root)
}

/// The output format must hold what is copied (groups, user types, strings, the
/// netCDF-4 integer types, several unlimited dimensions).
fn check_output_format(
    plan: &CopyPlan,
    input: &str,
    format: ncmodel::Format,
) -> anyhow::Result<()> {
    let Some(what) = crate::formats::misfit(&plan.dataset, format, true) else {
        return Ok(());
    };
    anyhow::bail!(
        "{input}: the {} format cannot hold its {what}; use -k nc4, or leave that out with \
         -V/-G; no output was written",
        format.name()
    )
}

fn print_plan(plan: &CopyPlan) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    for var in &plan.vars {
        writeln!(out, "{}", var.plan_line())?;
    }
    out.flush()?;
    Ok(())
}

/// DECISIONS D6: a variable whose data is read through an unavailable filter stops the
/// copy before anything is written.
fn check_input_filters(input: &dyn StoreReader, plan: &CopyPlan) -> anyhow::Result<()> {
    match input_filter_problems(input, plan).first() {
        Some(problem) => anyhow::bail!("{problem}; no output was written"),
        None => Ok(()),
    }
}

/// Why each variable whose data is read through an unavailable filter cannot be copied,
/// one message each. Variables whose stored chunks are copied as they are need none of
/// their filters.
fn input_filter_problems(input: &dyn StoreReader, plan: &CopyPlan) -> Vec<String> {
    let mut problems = Vec::new();
    for var in plan.vars.iter().filter(|v| v.copy_data && !v.stored_chunks) {
        let filters: Vec<String> = var
            .input_filters
            .ids()
            .filter(|id| !input.filter_available(*id))
            .map(crate::plugins::describe_filter)
            .collect();
        let codecs = input.unreadable_codecs(&var.path);
        // A plugin can provide a missing HDF5 filter; nothing can provide a Zarr codec.
        let or = if filters.is_empty() { "so" } else { "or" };
        let missing: Vec<String> = filters
            .into_iter()
            .chain(codecs.iter().map(|id| format!("codec {id:?}")))
            .collect();
        if !missing.is_empty() {
            let remedy = input.filter_remedy();
            problems.push(format!(
                "{}: cannot read variable {}: {} not available; {remedy}, {or} leave the \
                 variable out with -V",
                input.path(),
                var.path,
                missing.join(", ") + if missing.len() == 1 { " is" } else { " are" },
            ));
        }
    }
    problems
}

/// Every output filter must be available before anything is written (DECISIONS D6).
fn check_output_filters(output: &Output, plan: &CopyPlan) -> anyhow::Result<()> {
    match output_filter_problems(output, plan).first() {
        Some(problem) => anyhow::bail!("{problem}; no output was written"),
        None => Ok(()),
    }
}

/// Why each variable cannot be written to `output` with its filters, one message each.
/// Variables whose filters are only declared ([`VarPlan::filters_declared_only`]) need
/// none of them: a placeholder is registered for those nctools lacks, so that the output
/// can declare them (`storage::declare_filters_copied_as_stored`).
fn output_filter_problems(output: &Output, plan: &CopyPlan) -> Vec<String> {
    let mut problems = Vec::new();
    for var in plan.vars.iter().filter(|v| !v.filters_declared_only()) {
        let Some((id, remedy)) =
            var.pipeline
                .ids()
                .find_map(|id| match output.capabilities().codec(id) {
                    Availability::Available => None,
                    Availability::Missing { remedy } => Some((id, remedy)),
                })
        else {
            continue;
        };
        let path = filterspec::escape_path(&var.path);
        problems.push(format!(
            "cannot write variable {} with {}: {remedy}, or write the variable unfiltered \
             with -F '{path},none' (-F none for every variable)",
            var.path,
            crate::plugins::describe_filter(id),
        ));
    }
    problems
}

/// Lets the output declare the filters of variables that only declare them (stored
/// chunks copied, or no data copied), where nctools lacks them and no plugin provides
/// them: a placeholder that never runs is registered with HDF5 for each (after every
/// availability check).
fn declare_copied_filters(plan: &CopyPlan) {
    let ids: Vec<u32> = plan
        .vars
        .iter()
        .filter(|v| v.filters_declared_only())
        .flat_map(|v| v.pipeline.ids().collect::<Vec<_>>())
        .collect();
    crate::storage::declare_filters_copied_as_stored(&ids);
}

/// One copy, once planned.
struct Copy<'a> {
    input: &'a dyn StoreReader,
    dataset: &'a ncmodel::Dataset,
    plan: &'a CopyPlan,
    buffer_bytes: usize,
    tune_caches: bool,
    /// `--shards`.
    shards: &'a chunkspec::ShardSpecs,
    /// `--region`: the part of an existing store written.
    region: Option<store::Region>,
}

impl Copy<'_> {
    fn write(&self, output: &Output, in_memory: bool) -> anyhow::Result<()> {
        let target = output.target();
        let format = self.plan.dataset.format;
        let explain = |e| crate::plugins::explain_write_error(e, "drop the filter from -F");
        crash_guard::set_activity("creating the output");
        let shards = self.shards;
        let created = match &self.region {
            Some(region) => output.open_region(format, region.clone()),
            None => output.create_sharded(format, in_memory, shards),
        };
        let mut writer = created.map_err(|e| {
            crate::storage::output_check::explain_create_error(target, &e)
                .unwrap_or_else(|| anyhow!("{target}: {}", e.message))
        })?;
        if format.is_classic_family() && self.plan.vars.iter().all(|v| v.copy_data) {
            writer.set_no_fill().map_err(|e| anyhow!(e))?;
        }
        crash_guard::set_activity("defining the output");
        writer.define(&self.plan.dataset).map_err(explain)?;
        let total = self
            .plan
            .vars
            .iter()
            .filter(|v| v.copy_data)
            .map(|v| transfer::data_bytes(self.dataset, v))
            .sum();
        let progress = progress::Progress::new(total);
        let transfer = transfer::Transfer {
            input: self.input,
            dataset: self.dataset,
            writer: writer.as_ref(),
            buffer_bytes: self.buffer_bytes,
            tune_caches: self.tune_caches,
            netcdf4_out: !format.is_classic_family(),
            netcdf4_in: !self.dataset.format.is_classic_family(),
        };
        for var in self.plan.vars.iter().filter(|v| v.copy_data) {
            crash_guard::set_activity(&format!("copying variable {}", var.path));
            transfer.copy_var(var, &progress).map_err(|e| {
                match e.chain().find_map(|e| e.downcast_ref::<Interrupted>()) {
                    Some(stop) => anyhow!(*stop),
                    None => e,
                }
            })?;
        }
        progress.finish();
        Interrupted::check()?;
        crash_guard::set_activity("finishing the output");
        for warning in writer.warnings() {
            crate::exit::warn("nccopy", warning);
        }
        writer
            .finish()
            .with_context(|| format!("{target}: finishing the output"))
    }
}
