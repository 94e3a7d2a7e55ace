//! `nccopy --try-filters [LIST] in.nc` (ours): which filter to use, measured on the
//! user's own data. A bounded sample of each variable's chunks, spread over the variable,
//! is encoded with each candidate pipeline on every core; a table per variable gives the
//! ratio and the encoding and decoding speeds, marks the pipelines no other beats on both
//! ratio and speed, and suggests one. Nothing is written.

mod candidates;
mod measure;
mod report;
mod sample;

use anyhow::anyhow;
use filterspec::VarPath;
use ncmodel::{Quantize, Values};
use store::StoreReader;

pub use candidates::{parse_candidates, Candidate};

use self::measure::{measure_all, Sample};
use self::report::VarResult;
use self::sample::{sampled_vars, SampledVar};

/// Runs the advisor on `input` with the candidates of `list` (empty: the default list)
/// and the quantizations `quantize` (each added before every pipeline, for float and
/// double variables), writing the report (`json`: as JSON) to standard output. `chunks`
/// gives the chunk shape a copy would write for each variable (the sample is of those);
/// variables it leaves out are sampled by their own chunks, or blocks of about 4 MiB.
/// `only` (`-V`) names the variables to try, when given.
pub fn try_filters(
    input: &dyn StoreReader,
    list: &str,
    chunks: &[(VarPath, Vec<usize>)],
    quantize: &[Quantize],
    only: Option<&crate::copy::select::NameList>,
    json: bool,
) -> anyhow::Result<()> {
    let lossless = parse_candidates(list)?;
    let dataset = input.schema().map_err(|e| anyhow!(e))?;
    let mut vars = sampled_vars(&dataset);
    // `-V`: only the variables named (each must exist).
    if let Some(only) = only {
        let paths: Vec<String> = crate::copy::select::all_var_paths(&dataset.root)
            .iter()
            .map(VarPath::to_string)
            .collect();
        only.check_against("variable", &paths)?;
        vars.retain(|v| only.matches(&v.path.to_string()));
    }
    for var in &mut vars {
        if let Some((_, c)) = chunks
            .iter()
            .find(|(p, c)| *p == var.path && c.len() == var.shape.len())
        {
            var.chunks = c.iter().map(|&n| n.max(1)).collect();
        }
    }
    if vars.is_empty() {
        anyhow::bail!(
            "{}: no variable with values to try filters on",
            input.path()
        );
    }
    let mut results = Vec::new();
    let mut shown: Vec<Candidate> = Vec::new();
    for var in &vars {
        let candidates = candidates_for(var, &lossless, quantize);
        let chunks = read_sample(input, var)?;
        let sample = Sample {
            chunks: &chunks,
            type_ref: var.var.type_ref,
            element: var.element,
            chunk_bytes: var.chunks.iter().product::<usize>() * var.element,
            fill: fill_value(&var.var),
        };
        let measures = measure_all(&sample, &candidates);
        results.push(VarResult {
            path: var.path.clone(),
            declaration: var.declaration.clone(),
            sampled: (chunks.len(), var.chunk_count()),
            measures,
        });
        if candidates.len() > shown.len() {
            shown = candidates;
        }
    }
    // Variables without quantized rows get empty measures for them, to share one table.
    for result in &mut results {
        while result.measures.len() < shown.len() {
            result.measures.push(measure::Measure {
                unavailable: Some("quantize applies to float and double only".to_string()),
                ..measure::Measure::default()
            });
        }
    }
    let mut out = std::io::stdout().lock();
    let written = if json {
        report::write_json(&mut out, &shown, &results)
    } else {
        report::write_text(&mut out, &shown, &results)
    };
    match written {
        // A reader that stopped early (`| head`) is not an error.
        Err(e) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// The lossless candidates, then for a float or double variable each quantization before
/// each of them.
fn candidates_for(
    var: &SampledVar,
    lossless: &[Candidate],
    quantize: &[Quantize],
) -> Vec<Candidate> {
    let mut all: Vec<Candidate> = lossless
        .iter()
        .map(|c| c.for_chunks(var.element, &var.chunks))
        .collect();
    let floating = matches!(
        var.var.type_ref,
        ncmodel::TypeRef::Atomic(ncmodel::AtomicType::Float | ncmodel::AtomicType::Double)
    );
    if floating {
        for q in quantize {
            all.extend(lossless.iter().map(|c| Candidate {
                quantize: Some(*q),
                ..c.for_chunks(var.element, &var.chunks)
            }));
        }
    }
    all
}

fn read_sample(input: &dyn StoreReader, var: &SampledVar) -> anyhow::Result<Vec<Vec<u8>>> {
    var.sampled_offsets()
        .iter()
        .map(|offset| {
            var.read_chunk(input, offset)
                .map_err(|e| anyhow!("{}: reading variable {}: {e}", input.path(), var.path))
        })
        .collect()
}

/// The variable's `_FillValue` as a number, or the default fill value of its type.
fn fill_value(var: &ncmodel::Var) -> Option<f64> {
    let ncmodel::TypeRef::Atomic(t) = var.type_ref else {
        return None;
    };
    let fill = var
        .atts
        .iter()
        .find(|a| a.name == "_FillValue" && a.values.len() == 1)
        .map(|a| a.values.clone())
        .unwrap_or_else(|| Values::default_fill(t));
    match fill {
        Values::Float(v) => v.first().map(|x| f64::from(*x)),
        Values::Double(v) => v.first().copied(),
        _ => None,
    }
}
