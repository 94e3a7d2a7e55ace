//! nccopy's command line: every option of netCDF-C 4.10.1's nccopy (the same as 4.9.0's),
//! plus `--dry-run`, `--quantize`, `--shards` and the other long options (ours).

use clap::{ArgAction, Parser};

/// nccopy's options, as netCDF-C 4.10.1 names them.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "nccopy",
    version = crate::VERSION,
    about = "Copy a netCDF file, optionally changing its format, filters, chunking or \
             quantization (nctools, compatible with netCDF-C 4.10.1's nccopy)",
    disable_help_flag = true,
    args_override_self = true,
    disable_version_flag = true,
    after_help = "Filter specs (-F): none | *,none | VARS,none | VARS,SPECLIST, where VARS is * or \
                  full variable paths joined by & and SPECLIST is filters joined by |, each \
                  ID[,P1,P2,...] with ID a number or a name (bzip2, zstd, deflate, ...). \
                  Example: nccopy -F 'temp&/g/rh,bzip2,9|shuffle' in.nc out.nc"
)]
pub struct CopyArgs {
    /// Output format
    #[command(flatten)]
    pub format: crate::formats::FormatArgs,
    /// Deflate level 1-9 for every variable (0 removes deflate only)
    #[arg(short = 'd', value_name = "n")]
    pub deflate: Option<String>,
    /// Add the shuffle filter to every variable but scalars, filtered or not (it helps the
    /// compression after it; alone it only reorders the bytes)
    #[arg(short = 's')]
    pub shuffle: bool,
    /// Make unlimited dimensions fixed-size
    #[arg(short = 'u')]
    pub fix_unlimited: bool,
    /// Build the output in memory and write it at the end
    #[arg(short = 'w')]
    pub output_in_memory: bool,
    /// Chunking: dim/n,dim2/n2,... (per dimension), var:n1,n2,... (per variable),
    /// var:contiguous, var:compact, var: (unchunked), / (no chunking at all); repeatable
    #[arg(short = 'c', value_name = "chunkspec", action = ArgAction::Append)]
    pub chunkspecs: Vec<String>,
    /// Copy the data of these variables only (all declarations are kept)
    #[arg(short = 'v', value_name = "var1,...")]
    pub data_vars: Option<String>,
    /// Copy these variables only (with all dimensions and group attributes)
    #[arg(short = 'V', value_name = "var1,...")]
    pub only_vars: Option<String>,
    /// Copy the data of these groups only
    #[arg(short = 'g', value_name = "grp1,...")]
    pub data_groups: Option<String>,
    /// Copy these groups only
    #[arg(short = 'G', value_name = "grp1,...")]
    pub only_groups: Option<String>,
    /// Copy buffer size in bytes (suffix K, M, G or T: powers of 1000, as in netCDF-C; default 16 MiB): bounds the memory used
    #[arg(short = 'm', value_name = "bufsize")]
    pub buffer_size: Option<String>,
    /// Chunk cache size per variable in bytes (suffix K, M, G or T: powers of 1000)
    #[arg(short = 'h', value_name = "chunk_cache")]
    pub chunk_cache: Option<String>,
    /// Number of chunk slots in each variable's chunk cache
    #[arg(short = 'e', value_name = "cache_elems")]
    pub cache_elems: Option<String>,
    /// Read the whole input into memory first
    #[arg(short = 'r')]
    pub input_in_memory: bool,
    /// Chunk caches sized for each variable's chunks (the reference's experimental
    /// option; nctools always sizes each output variable's cache for the chunks it writes)
    #[arg(short = 'x')]
    pub per_variable_caches: bool,
    /// Read a netCDF classic file shorter than its header says it must be: the values
    /// past its end read as fill values, with a warning (without it, such a file is an
    /// error and nothing is read)
    #[arg(long = "allow-truncated")]
    pub allow_truncated: bool,
    /// Zarr version 3 output only: store a variable's chunks in shards (one object
    /// each), VAR:n1,n2,... inner chunks per shard along each dimension, VAR:SIZE (e.g.
    /// 64M) as many as fit in SIZE bytes of values, VAR:none; * for every variable (a
    /// size or none); repeatable
    #[arg(long = "shards", value_name = "VAR:SHAPE", action = ArgAction::Append)]
    pub shards: Vec<String>,
    /// Zarr output: declare a store for many region writes (--region): the root
    /// dimension DIM gets length N; variables along DIM get their metadata only, the
    /// others are copied
    #[arg(long = "template", value_name = "DIM=N", conflicts_with = "region")]
    pub template: Option<String>,
    /// Write the input's records into records START to END (END excluded) of DIM of an
    /// existing Zarr store made with --template: chunks only, so that jobs writing
    /// disjoint chunk-aligned regions may run at once
    #[arg(long = "region", value_name = "DIM=START:END")]
    pub region: Option<String>,
    /// Append the input's records along DIM, the unlimited (or any root) dimension of an
    /// existing Zarr store, after checking that the input matches the store; the
    /// store's metadata takes the new length last, once the chunks are written
    #[arg(long = "append", value_name = "DIM", conflicts_with_all = ["template", "region"])]
    pub append: Option<String>,
    /// With --append: append even when the input's coordinates along DIM do not increase
    /// from the store's last one (a duplicate or overlapping range)
    #[arg(long = "allow-overlap", requires = "append")]
    pub allow_overlap: bool,
    /// Filters for output variables (see below); repeatable
    #[arg(short = 'F', value_name = "filterspec", action = ArgAction::Append, value_parser = crate::completion_values::FILTER_SPECS, hide_possible_values = true)]
    pub filters: Vec<String>,
    /// Log level (accepted for compatibility; libnetcdf logging is not built in)
    #[arg(short = 'L', value_name = "n")]
    pub log_level: Option<String>,
    /// Minimum size in bytes of a fixed-size variable that keeps or gets chunking
    /// (default 8192)
    #[arg(short = 'M', value_name = "n")]
    pub min_chunk_size: Option<String>,
    /// Print each output variable's filters and why (FULL_PATH<TAB>FILTERS<TAB>WHY), write
    /// nothing
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Quantize float and double variables: VARS,ALGORITHM,N with ALGORITHM bitgroom or
    /// granularbr (N significant digits) or bitround (N bits); repeatable
    #[arg(long = "quantize", value_name = "VARS,ALGORITHM,N", action = ArgAction::Append)]
    pub quantize: Vec<String>,
    /// Threads that decode and encode chunks (default: every core, at most 8); the
    /// output is the same for any number
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Decode and encode every chunk, even of variables whose filters, chunks, type and
    /// byte order do not change (by default their stored chunks are copied as they are)
    #[arg(long = "recode")]
    pub recode: bool,
    /// List every filter nctools knows and every plugin found, with where each comes
    /// from (built-in, HDF5, plugin file, not available)
    #[arg(long = "list-filters")]
    pub list_filters: bool,
    /// Try filter pipelines on a sample of each variable's chunks and report ratio and
    /// speeds, with a suggestion; writes nothing. LIST: pipelines separated by `;`
    /// (default: deflate, zstd, bzip2, blosc and lz4 at several levels, with and without
    /// shuffle); with --quantize, each quantization is tried before each pipeline
    #[arg(long = "try-filters", value_name = "LIST", num_args = 0..=1, default_missing_value = "")]
    pub try_filters: Option<String>,
    /// With --list-filters or --try-filters: print JSON for scripts
    #[arg(long = "json")]
    pub json: bool,
    /// Write kerchunk version 1 references (JSON) to every chunk of the netCDF-4 inputs
    /// into REFS instead of copying: every positional argument is then an input
    #[arg(long = "kerchunk", value_name = "REFS")]
    pub kerchunk: Option<String>,
    /// With --kerchunk and several inputs: the root dimension to combine them along, in
    /// the order given
    #[arg(long = "concat", value_name = "DIM", requires = "kerchunk")]
    pub concat: Option<String>,
    /// Print help
    #[arg(long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
    /// Print version
    #[arg(long = "version", action = ArgAction::Version)]
    pub version: Option<bool>,
    /// The input file (or NCZarr URL)
    #[arg(required_unless_present_any = ["list_filters", "try_filters"])]
    pub input: Option<String>,
    /// The output file (or NCZarr URL); not needed with --dry-run
    #[arg(required_unless_present_any = ["dry_run", "list_filters", "try_filters", "kerchunk"])]
    pub output: Option<String>,
    /// With --kerchunk: more inputs
    #[arg(requires = "kerchunk", hide = true)]
    pub more_inputs: Vec<String>,
}
