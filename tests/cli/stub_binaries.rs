//! Every tool answers --version; until a tool lands, it otherwise fails clearly.

use crate::support::Test;

#[test]
fn every_tool_prints_its_version() {
    for tool in ["nccopy", "ncgen", "ncdump"] {
        let run = Test::ours(tool).args(["--version"]).run();
        assert_eq!(run.code, Some(0), "{tool}");
        assert_eq!(
            run.stdout,
            format!("{tool} (nctools) {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn unimplemented_work_is_a_clear_error_with_exit_1() {
    for tool in ["nccopy"] {
        let run = Test::ours(tool).args(["in.nc", "out.nc"]).run();
        assert_eq!(run.code, Some(1), "{tool}");
        assert!(run.stdout.is_empty());
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "one line on stderr: {}",
            run.stderr
        );
        assert!(run.stderr.contains("not implemented yet"), "{}", run.stderr);
    }
}
