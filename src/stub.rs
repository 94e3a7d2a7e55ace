//! The placeholder front end of a tool that is not implemented yet: it answers
//! `--version` and `--help`, and otherwise says clearly that it cannot do the work.

use std::io::Write;

/// Exit code of a runtime error (DECISIONS D7).
pub const EXIT_RUNTIME_ERROR: i32 = 1;

/// Runs the placeholder for `tool` on the arguments after the program name, returning
/// the process exit code.
pub fn run(tool: &str, args: &[String]) -> i32 {
    let version = env!("CARGO_PKG_VERSION");
    let mut out = std::io::stdout().lock();
    if args.iter().any(|a| a == "--version" || a == "-V") {
        // A closed stdout is not worth a panic.
        let _ = writeln!(out, "{tool} (nctools) {version}");
        return 0;
    }
    if args.iter().any(|a| a == "--help") {
        let _ = writeln!(
            out,
            "{tool} (nctools) {version}: not implemented yet; use the netCDF-C {tool} meanwhile."
        );
        return 0;
    }
    let _ = out.flush();
    eprintln!(
        "{tool}: not implemented yet in nctools {version}; use the netCDF-C {tool} meanwhile"
    );
    EXIT_RUNTIME_ERROR
}
