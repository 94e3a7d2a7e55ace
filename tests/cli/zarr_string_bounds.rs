//! Strings and declarations in Zarr output cost what their values hold:
//!
//! - a CDL of a few hundred kilobytes that declares gigabytes (20,000 strings, one of
//!   100 kB and the rest empty; `char c(2000000000)` with five characters of data) is
//!   written by `ncgen` as pure Zarr v2 and v3, NCZarr and netCDF-4 in bounded memory,
//!   and into a store of proportionate size;
//! - the netCDF-4 file of those strings (about 750 kB) is copied by `nccopy` to each
//!   Zarr form the same way;
//! - pure Zarr strings are of variable length, as zarr-python and xarray write them
//!   (v2 dtype `|O` with the `vlen-utf8` filter, v3 data type `string` with the
//!   `vlen-utf8` codec), and xarray (warnings as errors), zarr-python and our ncdump read
//!   the same values from them, empty strings and fill values included.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::bounded::run_ours;
use crate::support::{ok, run, scratch, zarr_python, Test};

/// The memory ceiling of every run here, in MiB.
const CEILING_MIB: u64 = 300;

/// The largest store (or file) accepted for data of well under a megabyte, in bytes.
const PROPORTIONATE_BYTES: u64 = 16 << 20;

/// 20,000 strings: one of 100,000 bytes, the others empty.
fn long_string_cdl() -> String {
    let mut values = vec![format!("\"{}\"", "x".repeat(100_000))];
    values.extend(std::iter::repeat_n("\"\"".to_string(), 19_999));
    format!(
        "netcdf big {{\ndimensions:\n  n = 20000 ;\nvariables:\n  string s(n) ;\ndata:\n  s = {} ;\n}}\n",
        values.join(", ")
    )
}

/// Two billion characters declared, five given.
const HUGE_CHAR_CDL: &str = "netcdf huge {\ndimensions:\n  n = 2000000000 ;\nvariables:\n  \
                             char c(n) ;\ndata:\n  c = \"hello\" ;\n}\n";

/// The Zarr outputs of `dir`: (label, target, how ncdump reads it back, path on disk).
fn zarr_targets(dir: &Path) -> Vec<(&'static str, String, String, std::path::PathBuf)> {
    let at = |name: &str| dir.join(name);
    let url = |name: &str, mode: &str| format!("file://{}#mode={mode}", at(name).display());
    vec![
        (
            "pure v2",
            url("p2.zarr", "zarr,file"),
            url("p2.zarr", "zarr"),
            at("p2.zarr"),
        ),
        (
            "pure v3",
            url("p3.zarr", "zarr,v3"),
            url("p3.zarr", "zarr,v3"),
            at("p3.zarr"),
        ),
        (
            "NCZarr",
            at("n.zarr").display().to_string(),
            at("n.zarr").display().to_string(),
            at("n.zarr"),
        ),
    ]
}

/// The bytes of the files under `path` (or of the file).
fn size_on_disk(path: &Path) -> u64 {
    let meta = std::fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .unwrap_or_else(|e| panic!("{path:?}: {e}"))
        .map(|entry| size_on_disk(&entry.unwrap_or_else(|e| panic!("{e}")).path()))
        .sum()
}

/// The data section of a dump (what follows `data:`).
fn data_of(dump: &str) -> &str {
    dump.split_once("data:").map_or("", |(_, data)| data)
}

#[test]
fn ncgen_writes_cdl_declaring_gigabytes_at_the_cost_of_its_data() {
    // Before: the strings, widened to the longest value, took 1.97 GB RSS and wrote
    // 1.9 GB stores (pure v2, v3 and NCZarr); the characters, one chunk of the whole
    // variable, took 1.98 GB RSS and wrote 1.9 GB stores.
    let dir = scratch();
    for (cdl_name, cdl) in [
        ("strings.cdl", long_string_cdl()),
        ("chars.cdl", HUGE_CHAR_CDL.to_string()),
    ] {
        let input = dir.path().join(cdl_name);
        std::fs::write(&input, &cdl).unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join(cdl_name.replace(".cdl", ""));
        std::fs::create_dir(&out).unwrap_or_else(|e| panic!("{e}"));
        let mut runs: Vec<(String, Vec<String>, std::path::PathBuf)> = zarr_targets(&out)
            .into_iter()
            .map(|(label, target, _, path)| {
                let args = vec!["-o".to_string(), target, input.display().to_string()];
                (label.to_string(), args, path)
            })
            .collect();
        let nc = out.join("out.nc");
        runs.push((
            "netCDF-4".into(),
            vec![
                "-b".into(),
                "-k".into(),
                "nc4".into(),
                "-o".into(),
                nc.display().to_string(),
                input.display().to_string(),
            ],
            nc.clone(),
        ));
        for (label, args, path) in runs {
            let bounded = run_ours("ncgen", &args);
            let done = bounded.assert_within(CEILING_MIB, 60);
            assert_eq!(done.code, Some(0), "{cdl_name} as {label}: {}", done.stderr);
            let size = size_on_disk(&path);
            // The characters' netCDF-4 file is HDF5's contiguous two gigabytes, as
            // netCDF-C writes it (sparse on disk); the Zarr stores must not be.
            if label != "netCDF-4" || cdl_name == "strings.cdl" {
                assert!(
                    size < PROPORTIONATE_BYTES,
                    "{cdl_name} as {label}: {size} bytes written"
                );
            }
        }
    }
}

#[test]
fn nccopy_copies_one_long_string_among_many_in_bounded_memory() {
    // Before: 1.97 GB RSS and a 1.9 GB store for each Zarr form (every string widened to
    // 100,000 bytes).
    let dir = scratch();
    let input = dir.path().join("strings.cdl");
    std::fs::write(&input, long_string_cdl()).unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.path().join("strings.nc");
    let made = Test::ours("ncgen")
        .args(["-b", "-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&input)
        .run();
    ok("made", &made);
    let original = Test::ours("ncdump").arg(&nc).run();
    ok("original", &original);
    for (label, target, read_back, path) in zarr_targets(dir.path()) {
        let bounded = run_ours("nccopy", [nc.display().to_string(), target]);
        let done = bounded.assert_within(CEILING_MIB, 60);
        assert_eq!(done.code, Some(0), "{label}: {}", done.stderr);
        let size = size_on_disk(&path);
        assert!(size < PROPORTIONATE_BYTES, "{label}: {size} bytes written");
        let dump = Test::ours("ncdump").arg(&read_back).run();
        assert_eq!(dump.code, Some(0), "{label}: {}", dump.stderr);
        if label == "NCZarr" {
            // netCDF-C's fixed width: the long value is cut to 128 bytes, and the
            // warning says which variable, how many, and what keeps them whole.
            assert!(
                done.stderr.contains("variable /s: 1 string value(s)")
                    && done.stderr.contains("_nczarr_maxstrlen")
                    && done.stderr.contains("pure Zarr"),
                "{}",
                done.stderr
            );
            assert!(
                data_of(&dump.stdout).contains(&format!("\"{}\"", "x".repeat(128))),
                "{label}: the value cut to 128 bytes"
            );
        } else {
            assert_eq!(done.stderr, "", "{label}");
            assert_eq!(
                data_of(&dump.stdout),
                data_of(&original.stdout),
                "{label}: values"
            );
        }
    }
}

/// A small dataset of strings with empty values, a fill value and unwritten elements.
const SMALL_CDL: &str = r#"netcdf small {
dimensions:
  x = 5 ;
variables:
  string s(x) ;
    string s:_FillValue = "FV" ;
  string t(x) ;
data:
  s = "a", "", "h\303\251llo world", _, "bb" ;
  t = "x", "yy", "", "", "z" ;
}
"#;

/// Reads every store given with xarray (warnings are errors) and zarr-python, and prints
/// {store: {"xarray": {var: values}, "zarr": {var: values}, "fill": {var: fill}}}.
const READ_PY: &str = r#"
import json, sys, warnings
warnings.simplefilter("error")
import numpy as np, xarray as xr, zarr
out = {}
for path, fmt in zip(sys.argv[1::2], sys.argv[2::2]):
    fmt = int(fmt)
    ds = xr.open_zarr(path, zarr_format=fmt, consolidated=False, mask_and_scale=False)
    g = zarr.open_group(path, mode="r", zarr_format=fmt, use_consolidated=False)
    out[path] = {
        "xarray": {n: [str(v) for v in ds[n].values.tolist()] for n in ("s", "t")},
        "zarr": {n: [str(v) for v in g[n][...].tolist()] for n in ("s", "t")},
        "fill": {n: g[n].fill_value for n in ("s", "t")},
    }
print(json.dumps(out))
"#;

#[test]
fn pure_zarr_strings_are_of_variable_length_and_read_alike_everywhere() {
    // Before: pure Zarr strings were |S128 (v2) and null_terminated_bytes (v3), widened
    // to the longest value; xarray read them as bytes.
    let dir = scratch();
    let input = dir.path().join("small.cdl");
    std::fs::write(&input, SMALL_CDL).unwrap_or_else(|e| panic!("{e}"));
    let v2 = dir.path().join("v2.zarr");
    let v3 = dir.path().join("v3.zarr");
    for (store, mode) in [(&v2, "zarr,file"), (&v3, "zarr,v3")] {
        let target = format!("file://{}#mode={mode}", store.display());
        let made = Test::ours("ncgen").arg("-o").arg(&target).arg(&input).run();
        assert_eq!(made.code, Some(0), "{mode}: {}", made.stderr);
    }
    let read_json = |path: &Path| -> Value {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
    };
    // zarr-python's and xarray's forms.
    let zarray = read_json(&v2.join("s/.zarray"));
    assert_eq!(zarray["dtype"], "|O");
    assert_eq!(zarray["filters"], json!([{ "id": "vlen-utf8" }]));
    assert_eq!(zarray["fill_value"], "FV");
    // netCDF's default fill ("") is null, as xarray writes it.
    assert_eq!(read_json(&v2.join("t/.zarray"))["fill_value"], Value::Null);
    let meta = read_json(&v3.join("s/zarr.json"));
    assert_eq!(meta["data_type"], "string");
    assert_eq!(
        meta["codecs"][0],
        json!({ "name": "vlen-utf8", "configuration": {} })
    );
    assert_eq!(meta["fill_value"], "FV");
    // xarray refuses a string _FillValue attribute in version 3: fill_value holds it.
    assert_eq!(meta["attributes"].get("_FillValue"), None);
    assert_eq!(read_json(&v3.join("t/zarr.json"))["fill_value"], "");

    let s = ["a", "", "h\u{e9}llo world", "FV", "bb"];
    let t = ["x", "yy", "", "", "z"];
    // Our ncdump: the same values (the fill value and the empty strings equal to the
    // default fill print as `_`, as for netCDF-4).
    let reference = dir.path().join("small.nc");
    let made = Test::ours("ncgen")
        .args(["-b", "-k", "nc4", "-o"])
        .arg(&reference)
        .arg(&input)
        .run();
    ok("made", &made);
    let want = Test::ours("ncdump").arg(&reference).run();
    for (store, mode) in [(&v2, "zarr"), (&v3, "zarr,v3")] {
        let url = format!("file://{}#mode={mode}", store.display());
        let dump = Test::ours("ncdump").arg(&url).run();
        assert_eq!(dump.code, Some(0), "{mode}: {}", dump.stderr);
        assert_eq!(data_of(&dump.stdout), data_of(&want.stdout), "{mode}");
        assert!(
            dump.stdout.contains("string s:_FillValue = \"FV\" ;"),
            "{mode}: {}",
            dump.stdout
        );
    }
    let Some(python) = zarr_python() else {
        return;
    };
    let done = run(Command::new(&python).arg("-c").arg(READ_PY).args([
        v2.as_os_str(),
        "2".as_ref(),
        v3.as_os_str(),
        "3".as_ref(),
    ]));
    ok("python", &done);
    let got: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}"));
    for store in [&v2, &v3] {
        let got = &got[store.display().to_string()];
        for reader in ["xarray", "zarr"] {
            assert_eq!(got[reader]["s"], json!(s), "{store:?} {reader}");
            assert_eq!(got[reader]["t"], json!(t), "{store:?} {reader}");
        }
        assert_eq!(got["fill"]["s"], "FV", "{store:?}");
    }
}

/// A planted store: its label, how ncdump names it, its files (key, text), its directory.
type HostileStore<'a> = (&'a str, String, Vec<(&'a str, String)>, &'a str);

/// Writes the files `(key, text)` under `root`.
fn plant(root: &Path, files: &[(&str, String)]) {
    for (key, text) in files {
        let path = root.join(key);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    }
}

#[test]
fn a_declared_string_width_does_not_size_what_is_read() {
    // Before: ncdump of 4 strings of |S250000000, no chunk written, took 2.22 GB RSS
    // (the slab and the fill chunk at the declared width); |S500000000 went past 3 GB.
    let dir = scratch();
    let group_v2 = r#"{"zarr_format": 2}"#.to_string();
    let nczarr_attrs = r#"{"_nczarr_group": {"dims": {"n": 4}, "vars": ["s"], "groups": []},
        "_nczarr_superblock": {"version": "2.0.0"}}"#
        .to_string();
    let v2_array = |dtype: &str, fill: &str| {
        format!(
            r#"{{"zarr_format": 2, "shape": [4], "dtype": "{dtype}", "chunks": [4],
            "fill_value": "{fill}", "order": "C", "compressor": null, "filters": null,
            "_NCZARR_ARRAY": {{"dimrefs": ["/n"], "storage": "chunked"}}}}"#
        )
    };
    let v3_array = |data_type: &str, fill: &str| {
        format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": {data_type},
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [4]}}}},
            "chunk_key_encoding": {{"name": "default", "configuration": {{"separator": "/"}}}},
            "fill_value": "{fill}", "codecs": [{{"name": "bytes"}}], "attributes": {{}},
            "dimension_names": ["n"]}}"#
        )
    };
    let group_v3 = r#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#.to_string();
    // A fill value of 3 MB given as base64 (pure Zarr) is what the JSON holds.
    let big_fill = "QUFB".repeat(1 << 20);
    let cases: Vec<HostileStore<'_>> = vec![
        (
            "NCZarr |S500000000",
            dir.path().join("s.zarr").display().to_string(),
            vec![
                (".zgroup", group_v2.clone()),
                (".zattrs", nczarr_attrs.clone()),
                ("s/.zarray", v2_array("|S500000000", "abc")),
            ],
            "s.zarr",
        ),
        (
            "pure v2 <U100000000",
            format!("file://{}#mode=zarr", dir.path().join("u.zarr").display()),
            vec![
                (".zgroup", group_v2.clone()),
                ("s/.zarray", v2_array("<U100000000", "abc")),
                ("s/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["n"]}"#.to_string()),
            ],
            "u.zarr",
        ),
        (
            "v3 null_terminated_bytes of 500000000",
            format!(
                "file://{}#mode=zarr,v3",
                dir.path().join("b.zarr").display()
            ),
            vec![
                ("zarr.json", group_v3.clone()),
                (
                    "s/zarr.json",
                    v3_array(
                        r#"{"name": "null_terminated_bytes", "configuration": {"length_bytes": 500000000}}"#,
                        "YWJj",
                    ),
                ),
            ],
            "b.zarr",
        ),
        (
            "v3 fixed_length_utf32 of 800000000",
            format!(
                "file://{}#mode=zarr,v3",
                dir.path().join("w.zarr").display()
            ),
            vec![
                ("zarr.json", group_v3.clone()),
                (
                    "s/zarr.json",
                    v3_array(
                        r#"{"name": "fixed_length_utf32", "configuration": {"length_bytes": 800000000}}"#,
                        "abc",
                    ),
                ),
            ],
            "w.zarr",
        ),
        (
            "v3 null_terminated_bytes with a 3 MB base64 fill",
            format!(
                "file://{}#mode=zarr,v3",
                dir.path().join("f.zarr").display()
            ),
            vec![
                ("zarr.json", group_v3),
                (
                    "s/zarr.json",
                    v3_array(
                        r#"{"name": "null_terminated_bytes", "configuration": {"length_bytes": 400000000}}"#,
                        &big_fill,
                    ),
                ),
            ],
            "f.zarr",
        ),
    ];
    for (label, target, files, name) in cases {
        plant(&dir.path().join(name), &files);
        let bounded = run_ours("ncdump", [&target]);
        let done = bounded.assert_within(CEILING_MIB, 60);
        assert_eq!(done.code, Some(0), "{label}: {}", done.stderr);
        let want = if label.contains("base64") {
            format!("\"{}\"", "A".repeat(3 << 20))
        } else {
            "\"abc\"".to_string()
        };
        assert_eq!(
            data_of(&done.stdout).matches(&want).count(),
            4,
            "{label}: the fill string for each of the 4 values"
        );
    }
}

/// A chunk of tens of millions of strings in an array of four costs its decoded bytes,
/// not a string object each (red team, session 28: 60 M empty `vlen-utf8` strings in a
/// 16 KB store took 3.3 GB in ncdump and nccopy, 400 M crashed at 9.6 GB; an `|S2` chunk
/// of 120 M crashed at 3.1 GB; a `<U1` one took 3.3 GB). Only the strings the slab takes
/// are kept, and a chunk of strings decodes within a quarter of the chunk limit (64 MiB:
/// here 15 M empty `vlen-utf8` strings, 30 M of `|S2`, 15 M of `<U1`).
#[test]
fn a_chunk_of_millions_of_strings_costs_its_bytes_not_a_string_each() {
    let dir = scratch();
    let Some(python) = zarr_python() else {
        return;
    };
    // Version 2 arrays of shape [4] whose one chunk (of shape [N]) holds N strings,
    // zstd-compressed: `vlen-utf8` empty strings, `|S2` and `<U1` fixed widths.
    let script = r#"
import json, os, struct, numcodecs
def array(path, n, dtype, filters, raw):
    os.makedirs(path)
    z = numcodecs.Zstd(level=19)
    meta = {"zarr_format": 2, "shape": [4], "chunks": [n], "dtype": dtype,
            "compressor": z.get_config(), "fill_value": None, "order": "C",
            "filters": filters}
    json.dump(meta, open(os.path.join(path, ".zarray"), "w"))
    json.dump({"_ARRAY_DIMENSIONS": ["x"]}, open(os.path.join(path, ".zattrs"), "w"))
    open(os.path.join(path, "0"), "wb").write(z.encode(raw))
for name in ["vlen.zarr", "fixed.zarr", "utf32.zarr"]:
    os.makedirs(name)
    json.dump({"zarr_format": 2}, open(os.path.join(name, ".zgroup"), "w"))
n = 15_000_000
raw = bytearray(struct.pack("<I", n)) + bytes(4 * n)
raw[4:8] = struct.pack("<I", 1); raw[8:8] = b"a"
array("vlen.zarr/s", n, "|O", [{"id": "vlen-utf8"}], bytes(raw))
array("fixed.zarr/s", 30_000_000, "|S2", None, b"ab" + bytes(2 * 30_000_000 - 2))
array("utf32.zarr/s", 15_000_000, "<U1", None, "b".encode("utf-32-le") + bytes(4 * 15_000_000 - 4))
"#;
    python_in(&python, dir.path(), script);
    for (store, first) in [
        ("vlen.zarr", "a"),
        ("fixed.zarr", "ab"),
        ("utf32.zarr", "b"),
    ] {
        let path = dir.path().join(store);
        let bounded = run_ours("ncdump", [path.as_os_str()]);
        let run = bounded.assert_within(CEILING_MIB, 60);
        assert_eq!(run.code, Some(0), "{store}: {}", run.stderr);
        assert!(
            run.stdout.contains(&format!(" s = \"{first}\", _, _, _ ;")),
            "{store}: {}",
            run.stdout
        );
        let copy = dir.path().join(format!("{store}.nc"));
        let bounded = run_ours("nccopy", [path.as_os_str(), copy.as_os_str()]);
        let run = bounded.assert_within(CEILING_MIB, 60);
        assert_eq!(run.code, Some(0), "{store} copy: {}", run.stderr);
    }
}

#[test]
fn a_long_fill_string_is_not_copied_to_every_unwritten_element() {
    // Red team s30 H7: a 68 KB store, `vlen-utf8` strings with a 60 KB `fill_value` and no
    // chunk written: each of the 20,000 elements got its own copy of the fill (ncdump
    // 1.2 GB, nccopy 2.4 GB and a 1.2 GB output). Now refused before any copy is made.
    let dir = scratch();
    let store = dir.path().join("fill.zarr");
    let array = store.join("s");
    std::fs::create_dir_all(&array).unwrap_or_else(|e| panic!("{e}"));
    let write = |path: std::path::PathBuf, value: Value| {
        std::fs::write(&path, value.to_string()).unwrap_or_else(|e| panic!("{e}"));
    };
    write(store.join(".zgroup"), json!({"zarr_format": 2}));
    write(
        array.join(".zarray"),
        json!({"zarr_format": 2, "shape": [20000], "chunks": [20000], "dtype": "|O",
               "compressor": null, "filters": [{"id": "vlen-utf8"}],
               "fill_value": "x".repeat(60_000), "order": "C"}),
    );
    write(array.join(".zattrs"), json!({"_ARRAY_DIMENSIONS": ["x"]}));
    let out = dir.path().join("out.nc");
    for (tool, args) in [
        ("ncdump", vec![store.as_os_str()]),
        ("nccopy", vec![store.as_os_str(), out.as_os_str()]),
    ] {
        let bounded = run_ours(tool, args);
        let done = bounded.assert_within(300, 60);
        assert_eq!(done.code, Some(1), "{tool}: {}", done.stderr);
        // nccopy to netCDF-4 refuses at the output's definition since red team s35 RB9:
        // HDF5 would fill its chunks with copies of the fill string.
        assert!(
            done.stderr
                .contains("its fill value, a string of 60000 bytes")
                || done.stderr.contains("its 60000-byte _FillValue"),
            "{tool}: {}",
            done.stderr
        );
    }
    assert!(!out.exists());
}

#[test]
fn string_chunks_widths_and_fills_that_declare_gigabytes_are_refused_before_they_are_held() {
    // Red team s34 RB1, RB2: a 195-byte store declaring one chunk of 100 million strings,
    // nothing written, took 2.78 GB to copy (a string object per element, a whole output
    // chunk at a time); a 7 KB `|S2` chunk of 120 million aborted nccopy at 3.5 GB. A
    // chunk of strings now holds at most 4 Mi elements (64 bytes each within the chunk
    // limit), read or written.
    let dir = scratch();
    let store = dir.path().join("declared.zarr");
    plant(
        &store,
        &[
            (".zgroup", json!({"zarr_format": 2}).to_string()),
            (
                "s/.zarray",
                json!({"zarr_format": 2, "shape": [100_000_000], "chunks": [100_000_000],
                       "dtype": "|O", "compressor": null, "filters": [{"id": "vlen-utf8"}],
                       "fill_value": "", "order": "C"})
                .to_string(),
            ),
            ("s/.zattrs", json!({"_ARRAY_DIMENSIONS": ["x"]}).to_string()),
        ],
    );
    let said = "its chunks hold 100000000 strings each, more than the 4194304 strings";
    let nc = dir.path().join("out.nc");
    let zarr = format!("file://{}#mode=zarr", dir.path().join("out.zarr").display());
    for (tool, args) in [
        ("ncdump", vec![store.as_os_str().to_owned()]),
        (
            "nccopy",
            vec![store.as_os_str().to_owned(), nc.as_os_str().to_owned()],
        ),
        (
            "nccopy",
            vec![store.as_os_str().to_owned(), zarr.clone().into()],
        ),
    ] {
        let bounded = run_ours(tool, &args);
        let done = bounded.assert_within(CEILING_MIB, 60);
        assert_eq!(done.code, Some(1), "{tool} {args:?}: {}", done.stderr);
        assert!(
            done.stderr.contains(said),
            "{tool} {args:?}: {}",
            done.stderr
        );
    }
    // ncgen: a width of 2e9 (RB8: aborted allocating a fill value that wide), a chunk of
    // 1e8 strings (RB1), a 60 KB fill value in each of 100,000 elements (RB9: aborted
    // allocating 6 GB), a variable of 1,100 dimensions (RB5: the reference ncdump
    // aborted reading it).
    let fill = "f".repeat(60_000);
    let rank: Vec<String> = (0..1100).map(|i| format!("d{i}")).collect();
    let cases = [
        (
            "width",
            "netcdf w {\ndimensions:\n  n = 4 ;\nvariables:\n  string s(n) ;\n    \
             s:_nczarr_maxstrlen = 2000000000 ;\ndata:\n  s = \"a\" ;\n}\n"
                .to_string(),
            "its strings' width of 2000000000 bytes (_nczarr_maxstrlen or \
             _nczarr_default_maxstrlen) is more than the value limit of 16777216 bytes",
        ),
        (
            "chunk",
            "netcdf c {\ndimensions:\n  x = 100000000 ;\nvariables:\n  string s(x) ;\n    \
             s:_ChunkSizes = 100000000 ;\ndata:\n  s = \"a\" ;\n}\n"
                .to_string(),
            "its chunks hold 100000000 strings each",
        ),
        (
            "fill",
            format!(
                "netcdf f {{\ndimensions:\n  x = 100000 ;\nvariables:\n  string s(x) ;\n    \
                 s:_FillValue = \"{fill}\" ;\ndata:\n  s = \"a\" ;\n}}\n"
            ),
            "a chunk of its strings would take 6000340005 bytes, more than the chunk limit",
        ),
        (
            "rank",
            format!(
                "netcdf r {{\ndimensions:\n{}variables:\n  byte v({}) ;\n}}\n",
                rank.iter()
                    .map(|d| format!("  {d} = 1 ;\n"))
                    .collect::<String>(),
                rank.join(", ")
            ),
            "variable /v has 1100 dimensions, more than the 1024 netCDF allows",
        ),
    ];
    for (name, cdl, said) in cases {
        let input = dir.path().join(format!("{name}.cdl"));
        std::fs::write(&input, cdl).unwrap_or_else(|e| panic!("{e}"));
        let output = format!(
            "file://{}#mode=zarr",
            dir.path().join(format!("{name}.zarr")).display()
        );
        let bounded = run_ours(
            "ncgen",
            [
                "-o".as_ref(),
                std::ffi::OsStr::new(&output),
                input.as_os_str(),
            ],
        );
        let done = bounded.assert_within(CEILING_MIB, 60);
        assert_eq!(done.code, Some(1), "{name}: {}", done.stderr);
        assert!(done.stderr.contains(said), "{name}: {}", done.stderr);
    }
}

#[test]
fn the_strings_a_read_keeps_are_bounded_together() {
    // Red team s34 RB3: 20 chunks of one 200 MB string each, 6 KB of zstd each, aborted
    // ncdump at 3.46 GB: the strings a slab kept were not bounded in sum. Here 20 strings
    // of 3.5 MiB (each under the value limit, 4 MiB) under a chunk limit of 64 MiB:
    // refused once the kept strings pass it.
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let script = r#"
import json, os, struct, numcodecs
os.makedirs("long.zarr/s")
json.dump({"zarr_format": 2}, open("long.zarr/.zgroup", "w"))
z = numcodecs.Zstd(level=3)
json.dump({"zarr_format": 2, "shape": [20], "chunks": [1], "dtype": "|O",
           "compressor": z.get_config(), "filters": [{"id": "vlen-utf8"}],
           "fill_value": "", "order": "C"}, open("long.zarr/s/.zarray", "w"))
json.dump({"_ARRAY_DIMENSIONS": ["x"]}, open("long.zarr/s/.zattrs", "w"))
n = 7 << 19
raw = z.encode(struct.pack("<II", 1, n) + b"a" * n)
for i in range(20):
    open("long.zarr/s/%d" % i, "wb").write(raw)
"#;
    python_in(&python, dir.path(), script);
    let store = dir.path().join("long.zarr");
    let bounded = crate::bounded::run_ours_with_env(
        "ncdump",
        [store.as_os_str()],
        &[("NCTOOLS_CHUNK_LIMIT", "64M")],
    );
    let done = bounded.assert_within(CEILING_MIB, 60);
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("the strings of a slab of 20 elements take more than the chunk limit"),
        "{}",
        done.stderr
    );
}

/// Runs the python `script` in `dir`; it must succeed.
fn python_in(python: &Path, dir: &Path, script: &str) {
    ok(
        "python",
        run(Command::new(python).arg("-c").arg(script).current_dir(dir)),
    );
}

/// Red team s35 RB1: one string of 250,000,000 control characters, a 210-byte bzip2
/// chunk of a 440-byte store: it was within the chunk limit, so it was read, and ncdump
/// printed it as 1 GB of escapes, holding them whole: 2.23 GB. A string is one value:
/// longer than the value limit (16 MiB), of variable length or declared wide, it is
/// refused, naming the variable and the limit, before it is printed or copied.
#[test]
fn one_string_longer_than_the_value_limit_is_refused() {
    let dir = scratch();
    let Some(python) = zarr_python() else {
        return;
    };
    let script = r#"
import json, os, struct, numcodecs
n = 20_000_000
for name, dtype, filters, raw in [
    ("vlen.zarr", "|O", [{"id": "vlen-utf8"}], struct.pack("<II", 1, n) + b"\x01" * n),
    ("fixed.zarr", "|S%d" % n, None, b"\x01" * n),
]:
    os.makedirs(name + "/s")
    json.dump({"zarr_format": 2}, open(name + "/.zgroup", "w"))
    z = numcodecs.BZ2(level=9)
    meta = {"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": dtype,
            "compressor": z.get_config(), "fill_value": None, "order": "C",
            "filters": filters}
    json.dump(meta, open(name + "/s/.zarray", "w"))
    json.dump({"_ARRAY_DIMENSIONS": ["x"]}, open(name + "/s/.zattrs", "w"))
    open(name + "/s/0", "wb").write(z.encode(raw))
"#;
    python_in(&python, dir.path(), script);
    for store in ["vlen.zarr", "fixed.zarr"] {
        let path = dir.path().join(store);
        let copy = dir.path().join(format!("{store}.nc"));
        for (tool, args) in [
            ("ncdump", vec![path.as_os_str()]),
            ("nccopy", vec![path.as_os_str(), copy.as_os_str()]),
        ] {
            let bounded = run_ours(tool, args);
            let run = bounded.assert_within(CEILING_MIB, 60);
            assert_eq!(run.code, Some(1), "{store}: {tool}: {}", run.stderr);
            assert!(
                run.stderr.contains("the value limit of 16777216 bytes"),
                "{store}: {tool}: {}",
                run.stderr
            );
        }
    }
}

/// Red team s35 RB2: strings are held about three times over while they are read and
/// written out (the decoded chunk, the strings, the output's copy): a 341-byte bzip2
/// chunk of 16 strings of 16 MB took 540 MB in ncdump and 685 MB in nccopy. A chunk of
/// strings may decode to a quarter of the chunk limit (64 MiB): that one is refused, and
/// 4 such strings are printed and copied under 300 MB.
#[test]
fn a_chunk_of_long_strings_costs_a_bounded_multiple_of_a_quarter_of_the_limit() {
    let dir = scratch();
    let Some(python) = zarr_python() else {
        return;
    };
    let script = r#"
import json, os, struct, sys, numcodecs
for name, k in [("many.zarr", 16), ("four.zarr", 4)]:
    n = 16_000_000
    os.makedirs(name + "/s")
    json.dump({"zarr_format": 2}, open(name + "/.zgroup", "w"))
    z = numcodecs.BZ2(level=9)
    json.dump({"zarr_format": 2, "shape": [k], "chunks": [k], "dtype": "|O",
               "compressor": z.get_config(), "filters": [{"id": "vlen-utf8"}],
               "fill_value": "", "order": "C"}, open(name + "/s/.zarray", "w"))
    json.dump({"_ARRAY_DIMENSIONS": ["x"]}, open(name + "/s/.zattrs", "w"))
    raw = struct.pack("<I", k) + b"".join(struct.pack("<I", n) + b"a" * n for _ in range(k))
    open(name + "/s/0", "wb").write(z.encode(raw))
"#;
    python_in(&python, dir.path(), script);
    for (store, refused) in [("many.zarr", true), ("four.zarr", false)] {
        let path = dir.path().join(store);
        let copy = dir.path().join(format!("{store}.nc"));
        for (tool, args) in [
            ("ncdump", vec![path.as_os_str()]),
            ("nccopy", vec![path.as_os_str(), copy.as_os_str()]),
        ] {
            let bounded = run_ours(tool, args);
            let run = bounded.assert_within(CEILING_MIB, 60);
            if refused {
                assert_eq!(run.code, Some(1), "{store}: {tool}: {}", run.stderr);
                assert!(
                    run.stderr.contains("a quarter of the chunk limit"),
                    "{}",
                    run.stderr
                );
            } else {
                ok(tool, run);
            }
        }
    }
}

/// Red team s35 RC3: one `|S250000000` string in a 210-byte bzip2 chunk took 762 MB
/// before the string was refused: a fixed-width chunk of strings decodes to at most a
/// quarter of the chunk limit, as a `vlen-utf8` one does; past it, refused before it is
/// decoded (an unwritten one costs nothing, as before).
#[test]
fn a_wide_fixed_string_chunk_is_refused_before_it_is_decoded() {
    let dir = scratch();
    let Some(python) = zarr_python() else {
        return;
    };
    let script = r#"
import json, os, numcodecs
n = 100_000_000
os.makedirs("wide.zarr/s")
json.dump({"zarr_format": 2}, open("wide.zarr/.zgroup", "w"))
z = numcodecs.BZ2(level=9)
json.dump({"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "|S%d" % n,
           "compressor": z.get_config(), "filters": None, "fill_value": None, "order": "C"},
          open("wide.zarr/s/.zarray", "w"))
json.dump({"_ARRAY_DIMENSIONS": ["x"]}, open("wide.zarr/s/.zattrs", "w"))
open("wide.zarr/s/0", "wb").write(z.encode(b"\x01" * n))
"#;
    python_in(&python, dir.path(), script);
    let bounded = run_ours("ncdump", [dir.path().join("wide.zarr").as_os_str()]);
    let run = bounded.assert_within(150, 60);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("more than a quarter of the chunk limit"),
        "{}",
        run.stderr
    );
}
