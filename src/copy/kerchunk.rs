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
    if inputs.is_empty() {
        return Err(Failure::usage(anyhow!("--kerchunk needs an input file")));
    }
    if inputs.len() > 1 && args.concat.is_none() {
        return Err(Failure::usage(anyhow!(
            "--kerchunk with several inputs needs --concat DIM, the dimension to combine \
             them along"
        )));
    }
    if inputs.iter().any(|i| i == refs) {
        return Err(Failure::usage(anyhow!(
            "{refs}: the references would overwrite an input"
        )));
    }
    let made = crate::storage::kerchunk_references(&inputs, args.concat.as_deref())
        .map_err(Failure::runtime)?;
    for skipped in &made.skipped {
        eprintln!("nccopy: warning: not referenced: {skipped}");
    }
    std::fs::write(refs, made.json)
        .with_context(|| format!("{refs}: cannot write the references"))
        .map_err(Failure::runtime)?;
    Ok(())
}
