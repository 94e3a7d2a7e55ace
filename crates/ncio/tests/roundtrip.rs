//! Writing: a file's schema and data read with NcFile and written with NcWriter give the
//! same CDL from the reference ncdump (types, groups, storage, filters, attributes).

use std::path::{Path, PathBuf};
use std::process::Command;

use ncio::{NcFile, NcWriter};
use ncmodel::{Dataset, Group};

fn reference(tool: &str) -> Option<PathBuf> {
    let path = Path::new("/usr/bin").join(tool);
    if path.is_file() {
        return Some(path);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !ci,
        "the reference {tool} is missing and CI=true: run scripts/setup"
    );
    // Recorded where scripts/test looks (cargo hides a passing test's standard error);
    // see skip() in tests/cli/support.rs.
    let line =
        format!("SKIPPED: ncio roundtrip: the reference {tool} is missing (run scripts/setup)");
    eprintln!("{line}");
    let log = match std::env::var_os("NCTOOLS_TEST_SKIP_LOG") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped-tests.log"),
    };
    let _ = std::fs::create_dir_all(log.parent().unwrap_or(Path::new(".")));
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()));
    if let Err(e) = written {
        eprintln!("(cannot record the skip in {}: {e})", log.display());
    }
    None
}

/// The reference `ncdump ARGS file`, which must exit 0 and print a whole CDL (its last
/// line is the closing brace); the dataset name (first line) and the library's provenance
/// line are left out, as they differ between a file and its copy.
fn dump(args: &[&str], file: &Path) -> String {
    let Some(ncdump) = reference("ncdump") else {
        panic!("the reference ncdump vanished");
    };
    let out = Command::new(ncdump).args(args).arg(file).output();
    let out = out.unwrap_or_else(|e| panic!("ncdump: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "reference ncdump {args:?} {}: {} {stderr}",
        file.display(),
        out.status
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.trim_end().ends_with('}'),
        "reference ncdump {args:?} {}: not a whole CDL:\n{text}",
        file.display()
    );
    text.lines()
        .skip(1)
        .filter(|l| !l.contains("_NCProperties"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The dumps a round trip compares: the whole CDL (header and data) and, but for CDF5,
/// the header with the special attributes (`-hs`; the reference 4.9 fails on CDF5 with
/// -s after printing `_Storage`, so there only the header and data are compared).
fn dumps(file: &Path, cdf5: bool) -> Vec<(&'static str, String)> {
    let mut all = vec![("ncdump", dump(&[], file))];
    if !cdf5 {
        all.push(("ncdump -hs", dump(&["-hs"], file)));
    }
    all
}

fn copy_data(input: &NcFile, ds: &Dataset, group: &Group, path: &mut Vec<String>, out: &NcWriter) {
    for var in &group.vars {
        let count: Vec<usize> = var
            .dim_ids
            .iter()
            .map(|d| ds.dim(*d).map_or(0, |d| d.len))
            .collect();
        if count.contains(&0) {
            continue;
        }
        let start = vec![0; count.len()];
        let values = input
            .read_slab(ds, group.ncid, var, &start, &count)
            .unwrap_or_else(|e| panic!("{e}"));
        out.write(path, &var.name, &start, &count, &values)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for child in &group.groups {
        path.push(child.name.clone());
        copy_data(input, ds, child, path, out);
        path.pop();
    }
}

fn clear_quantize(group: &mut Group) {
    for var in &mut group.vars {
        if let Some(storage) = var.storage.as_mut() {
            storage.quantize = None;
        }
    }
    group.groups.iter_mut().for_each(clear_quantize);
}

fn round_trip(source: &Path, dir: &Path) {
    let input = NcFile::open(&source.to_string_lossy()).unwrap_or_else(|e| panic!("{e}"));
    let mut ds = input.schema().unwrap_or_else(|e| panic!("{e}"));
    // The reference ncgen records a quantize attribute without quantizing the data, so a
    // writer that does quantize (as it should) would change the values: copy as stored.
    clear_quantize(&mut ds.root);
    let target = dir.join("copy.nc");
    let mut out =
        NcWriter::create(&target.to_string_lossy(), ds.format).unwrap_or_else(|e| panic!("{e}"));
    out.define(&ds).unwrap_or_else(|e| panic!("{e}"));
    copy_data(&input, &ds, &ds.root, &mut Vec::new(), &out);
    out.finish().unwrap_or_else(|e| panic!("{e}"));
    let cdf5 = ds.format == ncmodel::Format::Cdf5;
    for ((what, expected), (_, got)) in dumps(source, cdf5).into_iter().zip(dumps(&target, cdf5)) {
        assert!(
            expected.lines().count() > 3,
            "{what} {}: nothing to compare:\n{expected}",
            source.display()
        );
        assert_eq!(got, expected, "{what} {}", source.display());
    }
}

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/ncdump")
}

#[test]
fn every_test_case_survives_a_round_trip() {
    let Some(ncgen) = reference("ncgen") else {
        return;
    };
    for (name, kind) in [
        ("types", "nc4"),
        ("groups", "nc4"),
        ("unlimited", "nc4"),
        ("names", "nc4"),
        ("filters", "nc4"),
        ("classic", "nc3"),
        ("classic", "nc5"),
        ("classic", "nc7"),
    ] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let source = dir.path().join(format!("{name}.nc"));
        let cdl = cases().join(format!("{name}.cdl"));
        let made = Command::new(&ncgen)
            .args(["-k", kind, "-o"])
            .arg(&source)
            .arg(&cdl)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {ncgen:?}: {e}"));
        assert!(
            made.status.success() && source.is_file(),
            "reference ncgen -k {kind} {name}: {} {}",
            made.status,
            String::from_utf8_lossy(&made.stderr)
        );
        round_trip(&source, dir.path());
    }
}

#[test]
fn an_unfinished_writer_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let target = dir.path().join("never.nc");
    let writer = NcWriter::create(&target.to_string_lossy(), ncmodel::Format::Netcdf4);
    drop(writer.unwrap_or_else(|e| panic!("{e}")));
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .map(|d| d.count())
        .into_iter()
        .collect();
    assert_eq!(left, [0], "the temporary file is removed");
}
