//! The one `nctools` program behind the three tools: it runs `ncdump`, `ncgen` or `nccopy`
//! by the name it was started by (the installed `ncdump` is a link to `nctools`), or by
//! its first argument (`nctools dump FILE`).
//!
//! A tool always sees its own name as its program name, however it was started, so its
//! help, usage lines, errors, panic hook and crash handler say `ncdump`, `ncgen` or
//! `nccopy`, never `nctools` or a link's path.

use std::ffi::OsString;
use std::path::Path;

use crate::exit::EXIT_USAGE;

/// One of the three tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `ncdump`: print a netCDF file as CDL.
    Dump,
    /// `ncgen`: compile CDL text into a netCDF file.
    Generate,
    /// `nccopy`: copy a netCDF file, converting its format, filters or chunking.
    Copy,
}

impl Tool {
    /// Every tool, in the order the help lists them.
    pub const ALL: [Tool; 3] = [Tool::Dump, Tool::Generate, Tool::Copy];

    /// The tool's program name: `ncdump`, `ncgen`, `nccopy`.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Dump => "ncdump",
            Tool::Generate => "ncgen",
            Tool::Copy => "nccopy",
        }
    }

    /// The tool's short name, for `nctools SHORT ARGS`: `dump`, `gen`, `copy`.
    pub fn short_name(self) -> &'static str {
        match self {
            Tool::Dump => "dump",
            Tool::Generate => "gen",
            Tool::Copy => "copy",
        }
    }

    /// What the tool does, in a few words, for `nctools --help`.
    fn summary(self) -> &'static str {
        match self {
            Tool::Dump => "print a netCDF file as CDL",
            Tool::Generate => "compile CDL text into a netCDF file",
            Tool::Copy => "copy a netCDF file, converting its format, filters or chunking",
        }
    }

    /// The tool an argument of `nctools` names: its short name or its program name.
    pub fn from_subcommand(word: &str) -> Option<Tool> {
        Tool::ALL
            .into_iter()
            .find(|tool| word == tool.short_name() || word == tool.name())
    }

    /// The tool a program name stands for: the file name of `program` without a `.exe`
    /// ending, either a tool's name (`/usr/local/bin/ncdump`) or a tool's name followed
    /// by a version or variant (`ncdump-4.10`, `ncdump_dev`, `ncdump.new`, `ncdump2`).
    /// `None` for any other name (`nctools`, `ncdumpx`).
    pub fn from_program_name(program: &Path) -> Option<Tool> {
        let file = program.file_name()?.to_str()?;
        let stem = match file.len().checked_sub(4) {
            Some(cut) if file.is_char_boundary(cut) && file[cut..].eq_ignore_ascii_case(".exe") => {
                &file[..cut]
            }
            _ => file,
        };
        Tool::ALL.into_iter().find(|tool| {
            stem.strip_prefix(tool.name()).is_some_and(|rest| {
                rest.chars()
                    .next()
                    .is_none_or(|c| matches!(c, '-' | '_' | '.') || c.is_ascii_digit())
            })
        })
    }

    /// Runs the tool on `args` (its arguments, without a program name) and returns its
    /// exit code. The tool's program name is its own name.
    pub fn run(self, args: Vec<String>) -> i32 {
        let argv: Vec<String> = std::iter::once(self.name().to_string())
            .chain(args)
            .collect();
        match self {
            Tool::Dump => crate::dump::main(argv),
            Tool::Generate => crate::generate::main(argv),
            Tool::Copy => crate::copy::main(argv),
        }
    }
}

/// Runs what the command line (program name first, as [`std::env::args_os`] gives it)
/// asks for and returns the exit code: the tool the program name stands for, else
/// `nctools`' own command line (`nctools dump|gen|copy ARGS`, `--help`, `--version`).
pub fn main(argv: Vec<OsString>) -> i32 {
    let mut argv = argv.into_iter();
    let program = argv.next().unwrap_or_default();
    match Tool::from_program_name(Path::new(&program)) {
        Some(tool) => run_tool(tool, argv.collect()),
        None => front_end(argv.collect()),
    }
}

/// Runs `tool` on `args` (without a program name), refusing an argument that is not
/// UTF-8 with a usage error in the tool's name.
pub fn run_tool(tool: Tool, args: Vec<OsString>) -> i32 {
    match utf8_arguments(args) {
        Ok(args) => tool.run(args),
        Err(bad) => {
            eprintln!(
                "{}: argument {bad:?} is not valid UTF-8; nctools takes only UTF-8 arguments \
                 and file names",
                tool.name()
            );
            EXIT_USAGE
        }
    }
}

/// The arguments as text, or the first one that is not UTF-8.
fn utf8_arguments(args: Vec<OsString>) -> Result<Vec<String>, OsString> {
    args.into_iter().map(OsString::into_string).collect()
}

/// `nctools ARGS`: a tool by its short name, or the help or version.
fn front_end(args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter();
    let Some(first) = args.next() else {
        eprint!("{}", help());
        return EXIT_USAGE;
    };
    let word = first.to_string_lossy();
    if let Some(tool) = Tool::from_subcommand(&word) {
        return run_tool(tool, args.collect());
    }
    match &*word {
        "-h" | "--help" | "help" => {
            print_stdout(&help());
            0
        }
        "-V" | "--version" => {
            print_stdout(&version_text());
            0
        }
        _ => {
            eprintln!(
                "nctools: unknown tool {word:?}: expected dump, gen or copy (see nctools --help)"
            );
            EXIT_USAGE
        }
    }
}

/// What `nctools --version` prints: its version, the versions of the libnetcdf and
/// libhdf5 it runs with (they decide much of what it reads and writes), and where HDF5
/// looks for filter plugins. (The tools' own `--version` stays one line.)
fn version_text() -> String {
    use crate::storage::backends::{library_versions, plugin_search_path};
    let (netcdf, hdf5) = library_versions();
    format!(
        "nctools {}\nlibnetcdf {}\nlibhdf5 {}\nHDF5 plugins: {}\n",
        env!("CARGO_PKG_VERSION"),
        netcdf.trim_end_matches(['$', ' ']),
        hdf5.as_deref().unwrap_or("(version unknown)"),
        plugin_search_path()
    )
}

/// Prints `text` on standard output; a closed stream is not worth an error.
fn print_stdout(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().write_all(text.as_bytes());
}

/// `nctools --help`.
fn help() -> String {
    let mut text = format!(
        "nctools {}: netCDF's ncdump, ncgen and nccopy in one program\n\n\
         Usage: nctools <TOOL> [ARGS]...\n\
         \x20      ncdump|ncgen|nccopy [ARGS]...   (links to nctools)\n\n\
         Tools:\n",
        env!("CARGO_PKG_VERSION")
    );
    for tool in Tool::ALL {
        text.push_str(&format!(
            "  {:<6} {:<8} {}\n",
            tool.short_name(),
            tool.name(),
            tool.summary()
        ));
    }
    text.push_str(
        "\nOptions:\n  -h, --help     Print help\n  -V, --version  Print version\n\n\
         Started as ncdump, ncgen or nccopy (a link, or a name such as ncdump-4.10), it is \
         that tool.\n`nctools TOOL --help` prints a tool's help.\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> Option<Tool> {
        Tool::from_program_name(Path::new(name))
    }

    #[test]
    fn a_program_name_is_a_tool_with_or_without_a_directory_exe_or_version() {
        assert_eq!(named("ncdump"), Some(Tool::Dump));
        assert_eq!(named("/usr/local/bin/ncgen"), Some(Tool::Generate));
        assert_eq!(named("./nccopy"), Some(Tool::Copy));
        assert_eq!(named("ncdump.exe"), Some(Tool::Dump));
        assert_eq!(named("nccopy.EXE"), Some(Tool::Copy));
        assert_eq!(named("ncdump-4.10"), Some(Tool::Dump));
        assert_eq!(named("ncgen_dev"), Some(Tool::Generate));
        assert_eq!(named("nccopy2"), Some(Tool::Copy));
        assert_eq!(named("nccopy-0.1.0.exe"), Some(Tool::Copy));
    }

    #[test]
    fn other_names_are_no_tool() {
        for name in [
            "nctools",
            "/usr/bin/nctools",
            "ncdumpx",
            "nc",
            "",
            "/",
            "dump",
            "é.exe",
        ] {
            assert_eq!(named(name), None, "{name}");
        }
    }

    #[test]
    fn a_subcommand_is_a_short_or_program_name() {
        assert_eq!(Tool::from_subcommand("dump"), Some(Tool::Dump));
        assert_eq!(Tool::from_subcommand("gen"), Some(Tool::Generate));
        assert_eq!(Tool::from_subcommand("nccopy"), Some(Tool::Copy));
        assert_eq!(Tool::from_subcommand("Dump"), None);
        assert_eq!(Tool::from_subcommand("--help"), None);
    }

    #[test]
    fn arguments_must_be_utf8() {
        use std::os::unix::ffi::OsStringExt;
        let bad = OsString::from_vec(vec![b'a', 0xff]);
        let args = vec![OsString::from("-h"), bad.clone()];
        assert_eq!(utf8_arguments(args), Err(bad));
        assert_eq!(
            utf8_arguments(vec![OsString::from("x")]),
            Ok(vec!["x".to_string()])
        );
    }

    #[test]
    fn the_help_names_every_tool() {
        let text = help();
        for tool in Tool::ALL {
            assert!(text.contains(tool.name()) && text.contains(tool.short_name()));
        }
    }
}
