//! Every tool answers --version on stdout with exit 0.

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
