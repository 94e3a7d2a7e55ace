//! From nccopy's command line to [`CopyOptions`]: numbers with suffixes, the deflate
//! level, the output format, and every list, with usage errors that say what to write.

use anyhow::{anyhow, bail};
use filterspec::{DeflateOptions, FilterRequests};
use ncmodel::Format;

use super::args::CopyArgs;
use super::plan::CopyOptions;
use super::quantize::QuantizeRequests;
use super::select::{NameList, Selection};
use chunkspec::{ChunkSpecs, ShardSpecs};

/// The default copy buffer: 16 MiB (the reference's is 5 MB).
pub const DEFAULT_BUFFER_BYTES: usize = 16 << 20;

/// The default `-M`: fixed-size variables with smaller chunks become contiguous.
pub const DEFAULT_MIN_CHUNK_BYTES: usize = 8192;

/// A size like `5000000`, `5M`, `1.5G` or `16k`: a number with an optional suffix K, M,
/// G, T or P (powers of 1000, as in the reference).
pub fn parse_size(option: &str, text: &str) -> anyhow::Result<usize> {
    let text = text.trim();
    let (number, multiplier) = match text.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&text[..text.len() - 1], 1e3),
        Some('M') => (&text[..text.len() - 1], 1e6),
        Some('G') => (&text[..text.len() - 1], 1e9),
        Some('T') => (&text[..text.len() - 1], 1e12),
        Some('P') => (&text[..text.len() - 1], 1e15),
        _ => (text, 1.0),
    };
    match number.trim().parse::<f64>() {
        Ok(n) if n >= 0.0 && n.is_finite() => Ok((n * multiplier) as usize),
        _ => bail!(
            "{option} {text}: not a size; write a number with an optional suffix K, M, G, T \
             or P (e.g. {option} 64M)"
        ),
    }
}

fn deflate_level(text: &str) -> anyhow::Result<u32> {
    match text.trim().parse::<u32>() {
        Ok(level) if level <= 9 => Ok(level),
        _ => bail!("-d {text}: the deflate level is 0 (no deflate) to 9 (smallest output)"),
    }
}

/// Everything the command line says about the output. Errors are usage errors.
pub fn copy_options(args: &CopyArgs) -> anyhow::Result<CopyOptions> {
    let filters = FilterRequests::from_args(args.filters.iter().map(String::as_str))
        .map_err(|e| anyhow!("-F: {}", e.render().trim_end()))?;
    let level = args.deflate.as_deref().map(deflate_level).transpose()?;
    let list = |option, text: &Option<String>| {
        text.as_deref()
            .map(|t| NameList::parse(option, t))
            .transpose()
    };
    let min_chunk_bytes = match &args.min_chunk_size {
        Some(text) => parse_size("-M", text)?,
        None => DEFAULT_MIN_CHUNK_BYTES,
    };
    Ok(CopyOptions {
        format: args.format.requested(None)?,
        filters,
        deflate: DeflateOptions {
            level,
            shuffle: args.shuffle,
        },
        chunks: ChunkSpecs::parse(args.chunkspecs.iter().map(String::as_str))?,
        shards: shard_specs(args)?,
        quantize: QuantizeRequests::parse(args.quantize.iter().map(String::as_str))?,
        fix_unlimited: args.fix_unlimited,
        min_chunk_bytes,
        selection: Selection {
            data_vars: list("-v", &args.data_vars)?,
            only_vars: list("-V", &args.only_vars)?,
            data_groups: list("-g", &args.data_groups)?,
            only_groups: list("-G", &args.only_groups)?,
        },
        output: args
            .output
            .as_deref()
            .map(crate::storage::resolve_output)
            .unwrap_or_default(),
        input: None,
        // Stored chunks move between stores on disk only: not into a file built in
        // memory (-w); the input's backend says whether it hands them out.
        recode: args.recode || args.output_in_memory,
    })
}

/// `--shards`, checked against the output: only a Zarr version 3 store has shards.
fn shard_specs(args: &CopyArgs) -> anyhow::Result<ShardSpecs> {
    let shards = ShardSpecs::parse(args.shards.iter().map(String::as_str))?;
    if shards.is_set() {
        if let Some(output) = args.output.as_deref() {
            crate::storage::resolve_output(output).check_shardable()?;
        }
    }
    Ok(shards)
}

/// The output format: `-k`, else the input's; netCDF-3 input becomes netCDF-4 when `-F`
/// asks for filters (DECISIONS D4), netCDF-4 classic model for `-d`, `-s`, `-c` and
/// `--quantize` (as the reference does for the first three).
pub fn output_format(options: &CopyOptions, input: Format) -> Format {
    if let Some(format) = options.format {
        return format;
    }
    if !input.is_classic_family() {
        return input;
    }
    if options.filters.has_output_filters() {
        Format::Netcdf4
    } else if options.asks_for_storage() {
        Format::Netcdf4Classic
    } else {
        input
    }
}

/// The output format when the target implies one (a Zarr store holds the netCDF-4
/// model): `-k` may only ask for that model.
pub fn check_implied_format(options: &CopyOptions, implied: Format) -> anyhow::Result<Format> {
    match options.format {
        Some(asked) if asked.is_classic_family() => bail!(
            "-k asks for the {} format, but the output is a Zarr store, which holds the \
             netCDF-4 model; drop -k (or use -k nc4)",
            asked.name()
        ),
        _ => Ok(implied),
    }
}

/// With netCDF-3 output asked for explicitly, storage options are an error (DECISIONS D4).
pub fn check_classic_output(options: &CopyOptions, format: Format) -> anyhow::Result<()> {
    if !format.is_classic_family() || !options.asks_for_storage() {
        return Ok(());
    }
    let what = if options.filters.has_output_filters() {
        "-F filters need"
    } else if options.quantize.is_set() {
        "--quantize needs"
    } else if options.chunks.is_set() {
        "-c chunking needs"
    } else {
        "-d/-s compression needs"
    };
    bail!(
        "{what} netCDF-4 output, but -k asks for the {} format; drop -k (or use -k nc4 \
         or -k nc7)",
        format.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_suffixes() {
        let ok = |t: &str| parse_size("-m", t).unwrap_or(usize::MAX);
        assert_eq!(ok("5000000"), 5_000_000);
        assert_eq!(ok("5M"), 5_000_000);
        assert_eq!(ok("1.5k"), 1500);
        assert_eq!(ok("2G"), 2_000_000_000);
        assert_eq!(ok("0"), 0);
        for bad in ["", "1X", "-1", "abc", "M"] {
            assert!(parse_size("-m", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn deflate_levels() {
        assert_eq!(deflate_level("0").ok(), Some(0));
        assert_eq!(deflate_level("9").ok(), Some(9));
        assert!(deflate_level("10").is_err());
        assert!(deflate_level("-1").is_err());
        assert!(deflate_level("x").is_err());
    }
}
