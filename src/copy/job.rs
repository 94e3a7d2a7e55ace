//! What one nccopy run is asked to do, read once from its arguments (as ripgrep's
//! `HiArgs` is): the copy's options, its buffer, the chunk cache, and a template, a
//! region or an append into an existing store. Usage errors are found here, before
//! anything is opened.

use anyhow::anyhow;

use super::args::CopyArgs;
use super::options;
use super::plan::CopyOptions;
use super::regions::{self, RegionRequest, Template};
use crate::exit::Failure;

/// One nccopy run's settings.
pub struct CopyJob {
    /// The copy's options (format, filters, chunking, selection, the output).
    pub options: CopyOptions,
    /// `-m`: the bytes of values one slab may hold.
    pub buffer_bytes: usize,
    /// `-h` and `-e`: the chunk cache's bytes and slots, when either is given.
    pub cache: Option<(usize, usize)>,
    /// `--template DIM=N`.
    pub template: Option<Template>,
    /// `--region DIM=START:END`.
    pub region: Option<RegionRequest>,
    /// Whether the run writes into an existing store (`--region` or `--append`).
    pub into_store: bool,
}

impl CopyJob {
    /// The settings `args` give, or the usage error they hold.
    pub fn from_args(args: &CopyArgs) -> Result<Self, Failure> {
        let options = options::copy_options(args).map_err(Failure::usage)?;
        let buffer_bytes = match &args.buffer_size {
            Some(text) => options::parse_size("-m", text).map_err(Failure::usage)?,
            None => options::DEFAULT_BUFFER_BYTES,
        };
        let cache = cache_settings(args).map_err(Failure::usage)?;
        let template = args
            .template
            .as_deref()
            .map(regions::parse_template)
            .transpose()
            .map_err(Failure::usage)?;
        let region = args
            .region
            .as_deref()
            .map(regions::parse_region)
            .transpose()
            .map_err(Failure::usage)?;
        let into_store = region.is_some() || args.append.is_some();
        if (template.is_some() || into_store) && !options.output.holds_regions() {
            return Err(Failure::usage(anyhow!(
                "--template, --region and --append write a Zarr store (a directory or an \
                 object store)"
            )));
        }
        Ok(Self {
            options,
            buffer_bytes,
            cache,
            template,
            region,
            into_store,
        })
    }
}

/// `-h` and `-e`: the chunk cache size and slots, when either is given.
fn cache_settings(args: &CopyArgs) -> anyhow::Result<Option<(usize, usize)>> {
    if args.chunk_cache.is_none() && args.cache_elems.is_none() {
        return Ok(None);
    }
    let bytes = match &args.chunk_cache {
        Some(text) => options::parse_size("-h", text)?,
        None => 16 << 20,
    };
    let slots = match &args.cache_elems {
        Some(text) => options::parse_size("-e", text)?,
        None => 4133,
    };
    Ok(Some((bytes, slots.max(1))))
}
