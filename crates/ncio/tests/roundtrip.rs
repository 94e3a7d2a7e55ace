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
    eprintln!("SKIPPED: the reference {tool} is not installed (run scripts/setup)");
    None
}

fn dump(file: &Path) -> String {
    let Some(ncdump) = reference("ncdump") else {
        return String::new();
    };
    let out = Command::new(ncdump).arg("-s").arg(file).output();
    let out = out.unwrap_or_else(|e| panic!("ncdump: {e}"));
    // The dataset name and the library's provenance line differ between the two files.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .filter(|l| !l.contains("_NCProperties"))
        .collect::<Vec<_>>()
        .join("\n")
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
    assert_eq!(dump(&target), dump(source), "{}", source.display());
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
        let status = Command::new(&ncgen)
            .args(["-k", kind, "-o"])
            .arg(&source)
            .arg(&cdl)
            .status();
        assert!(status.is_ok_and(|s| s.success()), "ncgen {name}");
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
