//! `ncdump`: print a netCDF file as CDL, byte-identical to netCDF-C 4.9's ncdump.

mod args;
mod codec_notes;
mod kind;
mod source;
pub(crate) mod terminal;

use std::io::{self, BufWriter, Write};

use anyhow::anyhow;
use cdl::{Annotations, DumpOptions, FloatDigits, IndexLang, TimeStrings, WriteError};

pub use args::DumpArgs;
use source::FileSource;
use terminal::TerminalSafe;

use crate::exit::Failure;

/// Runs ncdump on the command-line arguments (program name first); returns the exit code.
pub fn main(argv: Vec<String>) -> i32 {
    crate::exit::install_panic_hook("ncdump");
    crash_guard::install("ncdump");
    crate::storage::backends::register_filters();
    if argv.len() <= 1 {
        // Like the reference: no arguments prints the usage and succeeds.
        let usage = <DumpArgs as clap::CommandFactory>::command().render_help();
        eprint!("{usage}");
        return 0;
    }
    let matches = match <DumpArgs as clap::CommandFactory>::command().try_get_matches_from(&argv) {
        Ok(matches) => matches,
        Err(e) => return crate::exit::clap_error(e),
    };
    let args = match <DumpArgs as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(args) => args,
        Err(e) => return crate::exit::clap_error(e),
    };
    // Like the reference, the last of -t and -i decides.
    let last = |id: &str| {
        let given = matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        given.then(|| matches.indices_of(id).and_then(Iterator::max))?
    };
    let times = match (last("times"), last("iso_times")) {
        (Some(t), Some(i)) if t > i => TimeStrings::Blank,
        (_, Some(_)) => TimeStrings::Iso,
        (Some(_), None) => TimeStrings::Blank,
        (None, None) => TimeStrings::Off,
    };
    let order = Order {
        times,
        old_precision_last: last("old_precision") > last("precision"),
    };
    match run(&args, order) {
        Ok(()) => 0,
        Err(failure) => failure.report("ncdump"),
    }
}

/// What only the order of the options tells.
#[derive(Debug, Clone, Copy)]
struct Order {
    /// `-t` and `-i`: the last decides.
    times: TimeStrings,
    /// Whether `-d` came after `-p` (the last sets the digits).
    old_precision_last: bool,
}

/// The `-X` options, each by its first letter in either case, as the reference reads them.
#[derive(Debug, Clone, Copy, Default)]
struct SpecialOptions {
    /// `-Xm`: read the file into memory first.
    in_memory: bool,
    /// `-XF`: print the type of every variable's `_FillValue` attribute.
    fill_value_types: bool,
}

fn special_options(values: &[String]) -> Result<SpecialOptions, Failure> {
    let mut special = SpecialOptions::default();
    for value in values {
        match value.chars().next().map(|c| c.to_ascii_lowercase()) {
            Some('m') => special.in_memory = true,
            Some('f') => special.fill_value_types = true,
            // -Xp: the properties attribute is printed as the reference 4.9.0 prints it.
            Some('p') => {}
            _ => {
                return Err(Failure::usage(anyhow!(
                    "invalid value for -X option: {value} (expected p, F or m)"
                )))
            }
        }
    }
    Ok(special)
}

fn index_lang(option: &str, value: &str) -> Result<IndexLang, Failure> {
    match value.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('c') => Ok(IndexLang::C),
        Some('f') => Ok(IndexLang::Fortran),
        _ => Err(Failure::usage(anyhow!(
            "invalid value for -{option} option: {value} (expected c or f)"
        ))),
    }
}

/// The digits of `-p` and of its old form `-d`, applied in command-line order as the
/// reference does: each sets both digits (a type it leaves out gets its default), and
/// only `-p` marks the digits it gives as overriding `C_format` attributes.
fn digits(args: &DumpArgs, old_form_last: bool) -> Result<FloatDigits, Failure> {
    let parse = |option: &str, text: &str| {
        cdl::number::parse_precision_option(text)
            .map_err(|e| Failure::usage(anyhow!("-{option} {text}: {e} (expected 1 to 20)")))
    };
    let given = match (&args.precision, &args.old_precision) {
        (Some(p), Some(d)) if old_form_last => vec![("p", p), ("d", d)],
        (Some(p), Some(d)) => vec![("d", d), ("p", p)],
        (Some(p), None) => vec![("p", p)],
        (None, Some(d)) => vec![("d", d)],
        (None, None) => Vec::new(),
    };
    let mut digits = FloatDigits::default();
    for (option, text) in given {
        let parsed = parse(option, text)?;
        digits.float = parsed.precision.float;
        digits.double = parsed.precision.double;
        if option == "p" {
            digits.float_specified |= parsed.float_specified;
            digits.double_specified |= parsed.double_specified;
        }
    }
    Ok(digits)
}

/// The dataset name ncdump derives from a path: the last component without extension.
pub fn dataset_name(path: &str) -> String {
    if store::is_url(path) {
        // As netCDF-C names a URL's dataset: the last segment of its path (no query, no
        // fragment such as `#mode=zarr,file`), without its extension unless the name is
        // all extension (`.zarr`).
        let without_fragment = path.split(['#', '?']).next().unwrap_or(path);
        let base = without_fragment
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("");
        return match base.rfind('.') {
            Some(dot) if dot > 0 => base[..dot].to_string(),
            _ => base.to_string(),
        };
    }
    let base = path.rsplit('/').next().unwrap_or(path);
    match base.rfind('.') {
        Some(dot) => base[..dot].to_string(),
        None => base.to_string(),
    }
}

fn split_list(values: &[String]) -> Option<Vec<String>> {
    let names: Vec<String> = values
        .iter()
        .flat_map(|v| v.split(','))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    (!values.is_empty()).then_some(names)
}

fn options(
    args: &DumpArgs,
    path: &str,
    order: Order,
    special: SpecialOptions,
) -> Result<DumpOptions, Failure> {
    let annotations = match (&args.brief, &args.full) {
        (_, Some(lang)) => Annotations::Full(index_lang("f", lang)?),
        (Some(lang), None) => Annotations::Brief(index_lang("b", lang)?),
        (None, None) => Annotations::None,
    };
    let max_line_len = match &args.line_len {
        None => 80,
        Some(text) => match text.trim().parse::<usize>() {
            Ok(n) if n >= 10 => n,
            _ => {
                return Err(Failure::usage(anyhow!(
                    "unreasonably small line length specified: {text} (at least 10)"
                )))
            }
        },
    };
    Ok(DumpOptions {
        name: args.name.clone().unwrap_or_else(|| dataset_name(path)),
        header_only: args.header,
        coordinates_only: args.coordinates,
        special_attributes: args.special,
        all_filters_in_filter_attribute: args.filters,
        annotations,
        max_line_len,
        digits: digits(args, order.old_precision_last)?,
        fill_value_types: special.fill_value_types,
        variables: split_list(&args.variables),
        groups: split_list(&args.groups),
        times: order.times,
    })
}

/// `--list-filters` and `--filters` (ours), with `--json`; `None` when neither is asked for.
fn filter_reports(args: &DumpArgs) -> Option<Result<(), Failure>> {
    if args.list_filters {
        return Some(crate::inventory::print_filter_list(args.json).map_err(Failure::runtime));
    }
    if !args.inspect_filters {
        return args.json.then(|| {
            Err(Failure::usage(anyhow!(
                "--json goes with --list-filters or --filters"
            )))
        });
    }
    let path = args.file.as_deref().unwrap_or_default();
    let mut out = BufWriter::new(io::stdout().lock());
    let result = crate::inventory::inspect_file(path, args.json, &mut out)
        .and_then(|()| out.flush().map_err(anyhow::Error::from));
    Some(result.map_err(Failure::runtime))
}

fn run(args: &DumpArgs, order: Order) -> Result<(), Failure> {
    let remote = args
        .file
        .as_deref()
        .is_some_and(crate::storage::over_network);
    crate::jobs::configure(args.jobs, remote);
    if let Some(result) = filter_reports(args) {
        return result;
    }
    let Some(path) = args.file.as_deref() else {
        return Err(Failure::usage(anyhow!("no input file given")));
    };
    let special = special_options(&args.special_options)?;
    let options = options(args, path, order, special)?;
    crash_guard::set_file(&store::redact_url(path), crash_guard::Role::Input);
    crash_guard::set_activity("opening the file");
    let input = crate::storage::InputOptions {
        in_memory: special.in_memory,
        allow_truncated: args.allow_truncated,
    };
    let file = crate::storage::open_with(path, input).map_err(Failure::runtime)?;
    crash_guard::set_activity("reading the schema");
    let mut dataset = file.schema().map_err(|e| Failure::runtime(anyhow!(e)))?;
    if args.special && !dataset.format.is_classic_family() {
        dataset.specials.is_netcdf4 = file.is_netcdf4_attribute();
        for (var, id) in codec_notes::unknown_codecs(&dataset.root, "") {
            crate::exit::warn("ncdump", codec_notes::warning(&var, &id));
        }
    }
    // Like the reference, -k wins over -K, and both are answered before -v and -g are
    // checked.
    if args.kind || args.extended_kind {
        let line = if args.kind {
            dataset.format.name().to_string()
        } else {
            let (kind, mode) =
                kind::extended_format(file.extended_format(), dataset.format, special.in_memory);
            kind::describe(kind, mode).map_err(Failure::runtime)?
        };
        let mut out = io::stdout().lock();
        writeln!(out, "{line}").map_err(|e| Failure::runtime(e.into()))?;
        return Ok(());
    }
    source::check_selection(&dataset, &options, path).map_err(Failure::runtime)?;
    if args.xml {
        if dataset.format == ncmodel::Format::Netcdf4 {
            return Err(Failure::runtime(anyhow!(
                "{}: NcML output (-x) is only possible for the classic model; this is a \
                 netCDF-4 file",
                path
            )));
        }
        let out = BufWriter::new(TerminalSafe::for_terminal(io::stdout().lock()));
        return cdl::write_ncml(out, &dataset, &options, path)
            .map_err(|e| Failure::runtime(anyhow!(e).context("writing output")));
    }
    let stdout = io::stdout();
    let out = BufWriter::with_capacity(1 << 16, TerminalSafe::for_terminal(stdout.lock()));
    let mut source = FileSource::new(file.as_ref(), &dataset);
    let left_out = file.left_out();
    match cdl::write_dataset(out, &dataset, &options, &mut source) {
        // Variables netCDF cannot hold are left out of the dump: said, and a failure
        // unless the user chose which variables to show.
        Ok(()) if !left_out.is_empty() && args.variables.is_empty() => {
            Err(Failure::runtime(anyhow!(
                "{path}: {}; {} left out of the dump above (choose the others with -v)",
                left_out.join("; "),
                if left_out.len() == 1 {
                    "it is"
                } else {
                    "they are"
                }
            )))
        }
        Ok(()) => Ok(()),
        Err(WriteError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(WriteError::Io(e)) => Err(Failure::runtime(anyhow!(e).context("writing output"))),
        Err(e @ WriteError::TimeType { .. }) => Err(Failure::runtime(anyhow!(e))),
        Err(WriteError::Data { path, source: e }) => {
            let message = source.describe_failure(&path, &e);
            Err(Failure::runtime(anyhow!(message)))
        }
    }
}
