//! Helpers of the tests: the reference tools, and stores made with them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use store::{ZarrFlavor, ZarrLocation, ZarrVersion};

/// Whether the reference tools are installed; with CI=true their absence fails the test.
pub fn reference_tools() -> bool {
    let present = ["/usr/bin/ncgen", "/usr/bin/nccopy", "/usr/bin/ncdump"]
        .iter()
        .all(|t| Path::new(t).is_file());
    if !present {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the reference tools /usr/bin/ncgen, nccopy, ncdump are required with CI=true"
        );
        eprintln!("SKIPPED: the reference netCDF tools (/usr/bin/ncgen, nccopy, ncdump) are not installed");
    }
    present
}

/// Runs a command, failing the test with its output when it fails; returns stdout.
pub fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `file://` URL of a store in NCZarr mode.
pub fn url(path: &Path) -> String {
    format!("file://{}#mode=nczarr,file", path.display())
}

/// A location of a store directory.
pub fn location(root: &Path, flavor: ZarrFlavor, version: ZarrVersion) -> ZarrLocation {
    ZarrLocation {
        root: store::StoreRoot::Directory(root.to_path_buf()),
        flavor,
        version,
        text: root.display().to_string(),
    }
}

/// Writes CDL with the reference ncgen as netCDF-4 and copies it with the reference
/// nccopy to an NCZarr store; returns the store's path.
pub fn reference_store(dir: &Path, name: &str, cdl: &str) -> PathBuf {
    let cdl_path = dir.join(format!("{name}.cdl"));
    std::fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.join(format!("{name}.nc"));
    run(
        "/usr/bin/ncgen",
        &[
            "-4",
            "-o",
            &nc.to_string_lossy(),
            &cdl_path.to_string_lossy(),
        ],
    );
    let store = dir.join(format!("{name}.zarr"));
    run("/usr/bin/nccopy", &[&nc.to_string_lossy(), &url(&store)]);
    store
}

/// Opens the store at `root` and reads its schema.
pub fn open(
    root: &Path,
    flavor: ZarrFlavor,
    version: ZarrVersion,
) -> (zarr::ZarrReader, ncmodel::Dataset) {
    use store::StoreReader;
    let reader = zarr::ZarrReader::open(&location(root, flavor, version), &store::NoRemoteStores)
        .unwrap_or_else(|e| panic!("{e}"));
    let ds = reader.schema().unwrap_or_else(|e| panic!("{e}"));
    (reader, ds)
}
