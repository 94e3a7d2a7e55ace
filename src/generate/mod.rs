//! `ncgen`: CDL text to a netCDF file, with the special attributes of DECISIONS D4/D5.
//!
//! Two passes over the input: the first parses the header (every group's types,
//! dimensions, variables and attributes) and notes where each data entry starts; the file
//! is then defined in full, and the second pass streams each data entry into its variable
//! slab by slab. The output is written under a temporary name and renamed at the end, so
//! a CDL error or a failed filter leaves no file (DECISIONS D7).

mod args;
mod chars;
mod chunk_sizes;
mod code;
mod data;
mod input;
mod limits;
mod linear;
mod nested;
mod output;
mod specials;
mod user_values;

use anyhow::anyhow;
use cdl::parse::{find_site, AttributeSite, CdlHeader, Dialect};
use clap::Parser;
use ncmodel::Format;

pub use args::GenerateArgs;

use crate::exit::Failure;

/// Runs ncgen on the command-line arguments (program name first); returns the exit code.
pub fn main(argv: Vec<String>) -> i32 {
    crate::interrupt::install();
    crate::exit::install_panic_hook("ncgen");
    crash_guard::install("ncgen");
    crate::storage::backends::register_filters();
    let args = match GenerateArgs::try_parse_from(&argv) {
        Ok(args) => args,
        Err(e) => return crate::exit::clap_error(e),
    };
    match run(&args) {
        Ok(()) => 0,
        Err(failure) => crate::interrupt::report(&failure, "ncgen"),
    }
}

/// The language of the program to write instead of a file (`-l`, `-c`, `-f`), or `None`
/// for a binary file.
fn check_language(args: &GenerateArgs) -> Result<Option<code::Language>, Failure> {
    let language = match (&args.language, args.c_code, args.fortran_code) {
        (Some(l), _, _) => l.to_ascii_lowercase(),
        (None, true, _) => "c".into(),
        (None, false, true) => "f77".into(),
        (None, false, false) => return Ok(None),
    };
    match language.as_str() {
        "b" | "binary" => Ok(None),
        other => code::Language::from_name(other).map(Some).ok_or_else(|| {
            Failure::usage(anyhow!(
                "-l {other}: unknown output language (b, c, f77, python or java)"
            ))
        }),
    }
}

fn run(args: &GenerateArgs) -> Result<(), Failure> {
    let remote = args
        .output
        .as_deref()
        .is_some_and(crate::storage::over_network);
    crate::jobs::configure(args.jobs, remote);
    if args.list_filters {
        return crate::inventory::print_filter_list(args.json).map_err(Failure::runtime);
    }
    let language = check_language(args)?;
    let requested = output::requested_format(args).map_err(Failure::usage)?;
    let inputs: Vec<&str> = args.input.as_deref().into_iter().collect();
    if let (Some(target), None) = (&args.output, language) {
        // Before the CDL is read: a target that cannot be written, or is the input.
        crate::storage::output_check::check(target, &inputs).map_err(Failure::runtime)?;
    }
    let source = input::CdlInput::open(args.input.as_deref()).map_err(Failure::runtime)?;
    // Like the reference, a classic-model -k makes the netCDF-4 type names plain names.
    let dialect = match requested {
        Some(Format::Classic | Format::Offset64 | Format::Netcdf4Classic) => Dialect::Classic,
        Some(Format::Cdf5) => Dialect::Cdf5,
        Some(Format::Netcdf4) | None => Dialect::Enhanced,
    };
    let CdlHeader {
        mut dataset,
        name,
        data,
        warnings,
        sites,
    } = source.parse_header(dialect).map_err(Failure::runtime)?;
    for warning in &warnings {
        crate::exit::warn("ncgen", warning);
    }
    // The output named with -o, resolved into its backend; a name made from the CDL's
    // (no -o) is a netCDF file.
    let named_output = args.output.as_deref().map(crate::storage::resolve_output);
    let fixed_strings = named_output
        .as_ref()
        .is_some_and(|o| o.capabilities().fixed_width_strings());
    let outcome = specials::apply_specials(&mut dataset, fixed_strings)
        .map_err(|e| Failure::runtime(special_error(&sites, e)))?;
    for warning in &outcome.warnings {
        crate::exit::warn("ncgen", warning);
    }
    order_types(&mut dataset);
    let implied = named_output
        .as_ref()
        .and_then(|o| o.capabilities().implied_format);
    let format =
        output::output_format(requested, implied, &dataset, &outcome).map_err(Failure::runtime)?;
    dataset.format = format;
    if format != Format::Netcdf4 {
        for att in output::drop_string_attributes(&mut dataset.root) {
            crate::exit::warn(
                "ncgen",
                format_args!(
                    "string attribute {att} left out: the {} format has no string type \
                     (declare it as char, without `string`, to keep it)",
                    format.name()
                ),
            );
        }
    }
    // Before the output is created: names netCDF refuses (a group `..` must never become
    // a path in a Zarr store), and sizes the format or memory cannot hold.
    ncmodel::check_dataset_names(&dataset).map_err(|e| Failure::runtime(e.into()))?;
    limits::check(&dataset, format).map_err(Failure::runtime)?;
    let name = args.dataset_name.clone().unwrap_or(name);
    if let Some(language) = language {
        // The program goes to standard output; -o names the file it creates.
        let setup = code::Setup {
            file_name: match &args.output {
                Some(path) => path.clone(),
                None => output::default_output_name(args, &name).map_err(Failure::runtime)?,
            },
            no_fill: false,
            dataset_name: name,
        };
        let writer = Box::new(code::CodeWriter::to_stdout(language, setup));
        return write_dataset(args, &source, &dataset, &data, writer);
    }
    let Some(target) =
        output::output_path(args, &name, requested.is_some()).map_err(Failure::runtime)?
    else {
        // No output asked for: like the reference, only check the CDL.
        return Ok(());
    };
    if args.output.is_none() {
        crate::storage::output_check::check(&target, &inputs).map_err(Failure::runtime)?;
    }
    crate::interrupt::Interrupted::check().map_err(|e| Failure::runtime(e.into()))?;
    crash_guard::set_file(&store::redact_url(&target), crash_guard::Role::Output);
    crash_guard::set_activity("creating the file");
    let output = named_output
        .filter(|o| o.target() == target)
        .unwrap_or_else(|| crate::storage::resolve_output(&target));
    let writer = output.create(format, false).map_err(|e| {
        Failure::runtime(
            crate::storage::output_check::explain_create_error(&target, &e)
                .unwrap_or_else(|| output::explain_write_error(e)),
        )
    })?;
    write_dataset(args, &source, &dataset, &data, writer)
}

/// Defines the dataset in `writer` (a file, or a program), streams the data entries into
/// it and finishes it.
fn write_dataset(
    args: &GenerateArgs,
    source: &input::CdlInput,
    dataset: &ncmodel::Dataset,
    data: &[cdl::parse::DataEntry],
    mut writer: Box<dyn store::StoreWriter>,
) -> Result<(), Failure> {
    if args.no_fill {
        writer
            .set_no_fill()
            .map_err(|e| Failure::runtime(anyhow!(e)))?;
    }
    crash_guard::set_activity("defining the file");
    writer
        .define(dataset)
        .map_err(|e| Failure::runtime(output::explain_write_error(e)))?;
    if !args.header_only {
        let mut loader = data::DataLoader::new(dataset, writer.as_ref());
        for entry in data {
            let reader = source.data_reader(entry).map_err(Failure::runtime)?;
            loader
                .load(entry, reader)
                .map_err(|e| Failure::runtime(e.context(source.name().to_string())))?;
        }
    }
    crate::interrupt::Interrupted::check().map_err(|e| Failure::runtime(e.into()))?;
    for warning in writer.warnings() {
        crate::exit::warn("ncgen", warning);
    }
    crash_guard::set_activity("closing the file");
    writer
        .finish()
        .map_err(|e| Failure::runtime(output::explain_write_error(e)))
}

/// A special attribute's error shown like a parse error, at the attribute in the CDL
/// (one-line problems; a filter spec error has its own caret into the value).
fn special_error(sites: &[AttributeSite], error: specials::SpecialError) -> anyhow::Error {
    let site = find_site(sites, &error.var, &error.attribute);
    match site {
        Some(site) if !error.problem.contains('\n') => {
            anyhow!(
                "{}",
                site.error(&error.to_string(), error.hint.as_deref())
                    .render()
            )
        }
        _ => match &error.hint {
            Some(hint) => anyhow!("{error} ({hint})"),
            None => error.into(),
        },
    }
}

/// Puts the user types in the order the reference ncgen defines them (their ids, and so
/// the order ncdump lists them): within each group, first the types built only from
/// atomic types, then the others, each in source order.
fn order_types(dataset: &mut ncmodel::Dataset) {
    use ncmodel::{TypeRef, UserTypeKind};
    let mut groups: Vec<Vec<String>> = Vec::new();
    for t in &dataset.types {
        if !groups.contains(&t.group_path) {
            groups.push(t.group_path.clone());
        }
    }
    let simple = |kind: &UserTypeKind| match kind {
        UserTypeKind::Compound { fields } => fields
            .iter()
            .all(|f| matches!(f.type_ref, TypeRef::Atomic(_))),
        UserTypeKind::Vlen { base } => matches!(base, TypeRef::Atomic(_)),
        UserTypeKind::Opaque | UserTypeKind::Enum { .. } => true,
    };
    dataset.types.sort_by_key(|t| {
        let group = groups.iter().position(|g| *g == t.group_path);
        (group, !simple(&t.kind))
    });
}
