//! `nccopy --kerchunk REFS in.nc ...`: kerchunk version 1 references to the chunks of
//! netCDF-4 files instead of a copy; the variables that cannot be referenced are named
//! on standard error.

use anyhow::{anyhow, Context};

use super::args::CopyArgs;
use crate::exit::Failure;

/// Writes the references of the inputs of `args` into `refs`.
pub fn write_references(args: &CopyArgs, refs: &str) -> Result<(), Failure> {
    let inputs: Vec<String> = args
        .input
        .iter()
        .chain(args.output.iter())
        .chain(args.more_inputs.iter())
        .cloned()
        .collect();
    if let Some(option) = copy_option_given(args) {
        return Err(Failure::usage(anyhow!(
            "{option} changes a copy; --kerchunk copies nothing (its references point at \
             the inputs' chunks as they are)"
        )));
    }
    if inputs.is_empty() {
        return Err(Failure::usage(anyhow!("--kerchunk needs an input file")));
    }
    if inputs.len() > 1 && args.concat.is_none() {
        return Err(Failure::usage(anyhow!(
            "--kerchunk with several inputs needs --concat DIM, the dimension to combine \
             them along"
        )));
    }
    // The references name each file as it was given, and reading a netCDF-4 file's
    // chunk index goes through libhdf5, which reads local files only.
    if let Some(remote) = inputs.iter().find(|i| store::is_url(i)) {
        return Err(Failure::usage(anyhow!(
            "{}: --kerchunk reads local netCDF-4 files only (their chunk index is read with \
             libhdf5); copy the file to a local disk first, or use kerchunk's own \
             SingleHdf5ToZarr for a remote file",
            store::escape_message(&store::redact_url(remote))
        )));
    }
    if inputs.iter().any(|i| i == refs) {
        return Err(Failure::usage(anyhow!(
            "{refs}: the references would overwrite an input"
        )));
    }
    // The same checks as every output: an input under another name (a link, a hard
    // link) is found by device and inode, not by its name.
    let input_names: Vec<&str> = inputs.iter().map(String::as_str).collect();
    crate::storage::output_check::check(refs, &input_names).map_err(Failure::runtime)?;
    let made = crate::storage::kerchunk_references(&inputs, args.concat.as_deref())
        .map_err(Failure::runtime)?;
    for skipped in &made.skipped {
        crate::exit::warn("nccopy", format_args!("not referenced: {skipped}"));
    }
    cleanup::replace_file(std::path::Path::new(refs), made.json.as_bytes())
        .with_context(|| format!("{refs}: cannot write the references"))
        .map_err(Failure::runtime)?;
    Ok(())
}

/// The first option given that shapes a copy, which references cannot honour.
fn copy_option_given(args: &CopyArgs) -> Option<&'static str> {
    let f = &args.format;
    [
        (
            f.kind.is_some() || f.classic || f.netcdf4 || f.cdf5 || f.offset64 || f.netcdf4_classic,
            "-k",
        ),
        (args.deflate.is_some(), "-d"),
        (args.shuffle, "-s"),
        (args.fix_unlimited, "-u"),
        (!args.chunkspecs.is_empty(), "-c"),
        (args.data_vars.is_some(), "-v"),
        (args.only_vars.is_some(), "-V"),
        (args.data_groups.is_some(), "-g"),
        (args.only_groups.is_some(), "-G"),
        (!args.filters.is_empty(), "-F"),
        (!args.quantize.is_empty(), "--quantize"),
        (!args.shards.is_empty(), "--shards"),
        (args.dry_run, "--dry-run"),
        (args.recode, "--recode"),
    ]
    .into_iter()
    .find_map(|(given, name)| given.then_some(name))
}
