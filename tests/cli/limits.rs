//! Inputs of absurd sizes: a classic header of 100,000 dimensions, CDL types and lengths
//! past what a format or memory holds, codec parameters out of range, and chunks in codecs
//! we cannot decode. Each is read in reasonable time or refused before anything is
//! written, with a message that names the object and the limit.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use classic::testfile::{TestFile, TestVar};

use crate::support::{reference, run_reference, scratch, Run, Test};

/// Exit 1, nothing on standard output, `needle` on standard error.
#[track_caller]
fn assert_refused(run: &Run, needle: &str) {
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains(needle),
        "{needle:?} not in {}",
        run.stderr
    );
}

/// Writes `file`'s header to `path`.
fn write_classic(path: &Path, file: &TestFile) {
    fs::write(path, file.header_only()).unwrap_or_else(|e| panic!("{e}"));
}

/// `n` names `d0`, `d1`, ... that live as long as the test binary (TestFile holds
/// `&'static str`): one leaked string, sliced.
fn many_names(n: usize) -> Vec<&'static str> {
    let names: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
    let all: &'static str = Box::leak(names.concat().into_boxed_str());
    let mut start = 0;
    names
        .iter()
        .map(|name| {
            let slice = &all[start..start + name.len()];
            start += name.len();
            slice
        })
        .collect()
}

#[test]
fn a_classic_header_of_100000_dimensions_is_dumped_in_reasonable_time() {
    let dir = scratch();
    let file = TestFile {
        version: 1,
        numrecs: 0,
        dims: many_names(100_000).into_iter().map(|n| (n, 1)).collect(),
        global_atts: vec![],
        vars: vec![],
    };
    let path = dir.path().join("dims.nc");
    write_classic(&path, &file);
    assert!(fs::metadata(&path).map(|m| m.len()).unwrap_or(0) > 1_500_000);

    let started = Instant::now();
    let ours = Test::ours("ncdump").arg("-h").arg(&path).run();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "ncdump -h took {:?}",
        started.elapsed()
    );
    assert_eq!(ours.code, Some(0), "{}", ours.stderr);
    let head: Vec<&str> = ours.stdout.lines().take(6).collect();
    // What the reference ncdump -h prints (netCDF-C 4.9), and checked against it below
    // when it is installed.
    assert_eq!(
        head,
        [
            "netcdf dims {",
            "dimensions:",
            "\td0 = 1 ;",
            "\td1 = 1 ;",
            "\td2 = 1 ;",
            "\td3 = 1 ;"
        ]
    );
    assert!(
        ours.stdout.contains("\td99999 = 1 ;\n}\n"),
        "the end is missing"
    );
    if reference("ncdump").is_some() {
        let theirs = run_reference("ncdump", [Path::new("-h"), &path]);
        assert_eq!(theirs.code, Some(0), "{}", theirs.stderr);
        assert_eq!(theirs.stdout, ours.stdout);
    }
}

#[test]
fn a_classic_header_with_a_name_twice_is_still_refused() {
    let dir = scratch();
    let twice = TestFile {
        version: 1,
        numrecs: 0,
        dims: vec![("x", 2), ("y", 3), ("x", 4)],
        global_atts: vec![],
        vars: vec![],
    };
    let path = dir.path().join("twice.nc");
    write_classic(&path, &twice);
    let dumped = Test::ours("ncdump").arg("-h").arg(&path).run();
    assert_refused(&dumped, "corrupt header at byte 48: two dimensions named x");

    let var = |name| TestVar {
        name,
        dims: vec![0],
        nc_type: 4,
        atts: vec![],
    };
    let twice = TestFile {
        version: 1,
        numrecs: 0,
        dims: vec![("x", 2)],
        global_atts: vec![],
        vars: vec![var("v"), var("w"), var("v")],
    };
    write_classic(&path, &twice);
    let dumped = Test::ours("ncdump").arg("-h").arg(&path).run();
    assert_refused(&dumped, "two variables named v");
}
