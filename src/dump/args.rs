//! ncdump's command line: every option of netCDF-C 4.10.1's ncdump (those of 4.9.0, and
//! `-XF`).

use clap::{ArgAction, Parser};

/// ncdump's options, as netCDF-C 4.10.1 names them.
#[derive(Debug, Parser)]
#[command(
    name = "ncdump",
    version = crate::VERSION,
    about = "Print a netCDF file as CDL text (nctools, compatible with netCDF-C 4.10.1's ncdump)",
    disable_help_flag = true,
    args_override_self = true
)]
pub struct DumpArgs {
    /// Coordinate variable data and header information
    #[arg(short = 'c')]
    pub coordinates: bool,
    /// Header information only, no data
    #[arg(short = 'h')]
    pub header: bool,
    /// Data for variable(s) VAR1,... only
    #[arg(short = 'v', value_name = "var1[,...]", action = ArgAction::Append)]
    pub variables: Vec<String>,
    /// Brief annotations for C or Fortran indices in data
    #[arg(short = 'b', value_name = "c|f", value_parser = crate::completion_values::INDEX_LANGUAGES, hide_possible_values = true)]
    pub brief: Option<String>,
    /// Full annotations for C or Fortran indices in data
    #[arg(short = 'f', value_name = "c|f", value_parser = crate::completion_values::INDEX_LANGUAGES, hide_possible_values = true)]
    pub full: Option<String>,
    /// Line length maximum in data section (default 80)
    #[arg(short = 'l', value_name = "len")]
    pub line_len: Option<String>,
    /// Name for netCDF (default derived from file name)
    #[arg(short = 'n', value_name = "name")]
    pub name: Option<String>,
    /// Display floating-point values with less precision
    #[arg(short = 'p', value_name = "n[,n]")]
    pub precision: Option<String>,
    /// Display floating-point values with less precision, keeping C_format attributes
    /// (the old form of -p)
    #[arg(short = 'd', value_name = "n[,n]")]
    pub old_precision: Option<String>,
    /// Output kind of netCDF file
    #[arg(short = 'k')]
    pub kind: bool,
    /// Output extended format information (the storage format and open mode)
    #[arg(short = 'K')]
    pub extended_kind: bool,
    /// Output special (virtual) attributes
    #[arg(short = 's')]
    pub special: bool,
    /// Output time data as date-time strings
    #[arg(short = 't')]
    pub times: bool,
    /// Output time data as date-time strings with ISO-8601 'T' separator
    #[arg(short = 'i', visible_short_alias = 'T')]
    pub iso_times: bool,
    /// Data and metadata for group(s) GRP1,... only
    #[arg(short = 'g', value_name = "grp1[,...]", action = ArgAction::Append)]
    pub groups: Vec<String>,
    /// With client-side caching of variables for DAP URLs
    #[arg(short = 'w')]
    pub cache: bool,
    /// Output XML (NcML) instead of CDL
    #[arg(short = 'x')]
    pub xml: bool,
    /// Output _Filter and _Codecs instead of _Fletcher32, _Shuffle, and _Deflate
    #[arg(short = 'F')]
    pub filters: bool,
    /// Special options: -Xp suppresses the properties attribute, -XF prints the type of
    /// every _FillValue attribute, -Xm reads in memory; repeatable
    #[arg(short = 'X', value_name = "p|F|m", action = ArgAction::Append)]
    pub special_options: Vec<String>,
    /// Set log level to n (>= 0); ignored, as logging is not enabled
    #[arg(short = 'L', value_name = "n")]
    pub log_level: Option<String>,
    /// List every filter nctools knows and every plugin found, with where each comes
    /// from (built-in, HDF5, plugin file, not available)
    #[arg(long = "list-filters")]
    pub list_filters: bool,
    /// Show each filtered variable's pipeline with its parameters decoded, whether each
    /// filter is available here, and stored vs. uncompressed size (reads no data)
    #[arg(long = "filters")]
    pub inspect_filters: bool,
    /// Threads that decode chunks and format values (default: every core, at most 8);
    /// the output is the same for any number
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Read a netCDF classic file shorter than its header says it must be: the values
    /// past its end read as fill values, with a warning (without it, such a file is an
    /// error and nothing is read)
    #[arg(long = "allow-truncated")]
    pub allow_truncated: bool,
    /// With --list-filters or --filters: print JSON for scripts
    #[arg(long = "json")]
    pub json: bool,
    /// Print help
    #[arg(long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
    /// Name of netCDF file (or URL)
    #[arg(required_unless_present = "list_filters")]
    pub file: Option<String>,
}
