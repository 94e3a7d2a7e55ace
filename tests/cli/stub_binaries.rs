//! Every tool answers --version; nccopy, until it lands, otherwise fails clearly.

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
    let run = Test::ours("nccopy").args(["in.nc", "out.nc"]).run();
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.stderr.lines().count(),
        1,
        "one line on stderr: {}",
        run.stderr
    );
    assert!(run.stderr.contains("not implemented yet"), "{}", run.stderr);
}
