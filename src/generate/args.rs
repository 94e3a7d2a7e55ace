//! ncgen's command line: every option of netCDF-C 4.10.1's ncgen (the same as 4.9.0's).

use clap::{ArgAction, Parser};

/// ncgen's options, as netCDF-C 4.10.1 names them.
#[derive(Debug, Parser)]
#[command(
    name = "ncgen",
    version = crate::VERSION,
    about = "Generate a netCDF file from CDL text (nctools, compatible with netCDF-C 4.10.1's ncgen)",
    disable_help_flag = true,
    args_override_self = true
)]
pub struct GenerateArgs {
    /// Write a binary netCDF file (the default when -o or -k is given)
    #[arg(short = 'b')]
    pub binary: bool,
    /// Write a binary netCDF file with a .cdf extension (old form of -b)
    #[arg(short = 'n')]
    pub cdf_extension: bool,
    /// Generate C code (same as -l c)
    #[arg(short = 'c')]
    pub c_code: bool,
    /// Generate Fortran 77 code (same as -l f77)
    #[arg(short = 'f')]
    pub fortran_code: bool,
    /// Output: b (a netCDF file), or a program writing it: c, f77, python or java
    #[arg(short = 'l', value_name = "b|c|f77|python|java", value_parser = crate::completion_values::NCGEN_LANGUAGES, hide_possible_values = true)]
    pub language: Option<String>,
    /// Output format
    #[command(flatten)]
    pub format: crate::formats::FormatArgs,
    /// Deprecated alias of -k
    #[arg(short = 'v', value_name = "kind", hide = true)]
    pub kind_alias: Option<String>,
    /// Output file name (default: the CDL file's name with .nc, in the working directory)
    #[arg(short = 'o', value_name = "file")]
    pub output: Option<String>,
    /// No fill: do not pre-fill variables (faster for large files)
    #[arg(short = 'x')]
    pub no_fill: bool,
    /// Dataset name (instead of the one in the CDL)
    #[arg(short = 'N', value_name = "name")]
    pub dataset_name: Option<String>,
    /// Name of the main function in generated code (accepted, unused)
    #[arg(short = 'M', value_name = "name")]
    pub main_name: Option<String>,
    /// Debug level (accepted, unused)
    #[arg(short = 'D', value_name = "n")]
    pub debug: Option<String>,
    /// Debug output, the same as -D 1 (accepted, unused)
    #[arg(short = 'd')]
    pub debug_flag: bool,
    /// Accepted and ignored, as by the reference (its option string has -1 and nothing
    /// reads it)
    #[arg(short = '1')]
    pub ignored_one: bool,
    /// Build the file in memory and write it at the end (the reference's "diskless with
    /// persistence"; the file written is the same)
    #[arg(short = 'P')]
    pub diskless: bool,
    /// Log level (accepted, unused)
    #[arg(short = 'L', value_name = "n")]
    pub log_level: Option<String>,
    /// Buffer size (accepted for compatibility, unused)
    #[arg(short = 'B', value_name = "n")]
    pub buffer: Option<String>,
    /// Whole-variable size limit (accepted for compatibility, unused)
    #[arg(short = 'W', value_name = "n")]
    pub whole_var: Option<String>,
    /// Header only: ignore the data sections
    #[arg(short = 'H')]
    pub header_only: bool,
    /// Threads that convert, encode and write values while the CDL is read (default:
    /// every core, at most 8); the output is the same for any number
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// List every filter nctools knows and every plugin found, with where each comes
    /// from (built-in, HDF5, plugin file, not available)
    #[arg(long = "list-filters")]
    pub list_filters: bool,
    /// With --list-filters: print JSON for scripts
    #[arg(long = "json", requires = "list_filters")]
    pub json: bool,
    /// Print help
    #[arg(short = 'h', long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
    /// The CDL file (`-` or none for standard input)
    pub input: Option<String>,
}
