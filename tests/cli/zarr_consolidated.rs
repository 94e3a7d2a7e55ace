//! Consolidated metadata: our Zarr stores carry it unless `noconsolidated` says not
//! (`.zmetadata` in version 2 and NCZarr, the root `zarr.json`'s `consolidated_metadata`
//! in version 3), so that xarray and zarr-python open them in one read and without
//! warnings; our reader uses it, and never silently when it no longer matches the store.
//!
//! - xarray (Python warnings made errors) and zarr-python's `open_consolidated` open our
//!   v2, v3 and NCZarr stores and read the values written; a store written with
//!   `noconsolidated` makes xarray warn, as every store did before;
//! - zarr-python parses our consolidated metadata into the same metadata as it makes when
//!   it consolidates the same store itself;
//! - `noconsolidated` writes none, `consolidated` (netCDF-C's word) the default store;
//! - consolidated metadata edited after the store was written is noticed: at open a
//!   node it lacks, a node it names that is gone, or a root attribute it changed gives a
//!   warning and the store's own documents; a changed copy of an array's document fails
//!   the read of that array with a message naming it, and `noconsolidated` reads it;
//! - the reference ncdump reads our consolidated NCZarr store as it reads the reference
//!   nccopy's.
//!
//! Python runs from the project's .venv; a missing .venv or reference tool fails the
//! tests in CI and is a visible skip elsewhere.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::support::{
    first_difference, from_line, ok, reference, run, run_reference, scratch, zarr_python, Run, Test,
};

/// The input: fixed dimensions (NCZarr in netCDF-C 4.9 holds no unlimited one), no
/// scalar and no char variable (xarray reads neither from pure Zarr v2), a group.
const CDL: &str = "netcdf in {
dimensions:
\ty = 2 ;
\tx = 3 ;
variables:
\tfloat temp(y, x) ;
\t\ttemp:units = \"K\" ;
\tint x(x) ;

// global attributes:
\t\t:title = \"consolidated\" ;
data:

 temp =
  1.5, 2.5, 3.5,
  4.5, 5.5, 6.5 ;

 x = 10, 20, 30 ;

group: g {
  dimensions:
  \tn = 2 ;
  variables:
  \tshort w(n) ;
  \t\tw:long_name = \"w\" ;
  data:

   w = 7, 8 ;
  } // group g
}
";

/// The values of [`CDL`] as the Python side prints them.
fn expected_values() -> Value {
    json!({
        "temp": [[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]],
        "x": [10, 20, 30],
        "w": [7, 8],
        "title": "consolidated",
    })
}

/// The three kinds of store we write: (label, URL mode, Zarr format).
const KINDS: [(&str, &str, u8); 3] = [
    ("nczarr", "nczarr,file", 2),
    ("v2", "zarr,file", 2),
    ("v3", "zarr,v3", 3),
];

/// The netCDF-C URL of the directory `store` in `mode`.
fn url(store: &Path, mode: &str) -> String {
    format!("file://{}#mode={mode}", store.display())
}

/// DIR/in.nc, made by our ncgen from [`CDL`].
fn input(dir: &Path) -> PathBuf {
    let cdl = dir.join("in.cdl");
    fs::write(&cdl, CDL).unwrap_or_else(|e| panic!("{cdl:?}: {e}"));
    let nc = dir.join("in.nc");
    ok(
        "our ncgen -k nc4",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&nc)
            .arg(&cdl)
            .run(),
    );
    nc
}

/// Our nccopy of `input` to DIR/NAME.zarr in `mode` (with `extra` mode words); the
/// store's path.
fn store(dir: &Path, input: &Path, name: &str, mode: &str) -> PathBuf {
    let store = dir.join(format!("{name}.zarr"));
    ok(
        &format!("our nccopy to {mode}"),
        Test::ours("nccopy").arg(input).arg(url(&store, mode)).run(),
    );
    store
}

/// Runs the Python `script` in `dir` with Python's warnings made errors (`-W error`).
fn python(python: &Path, dir: &Path, script: &str) -> Run {
    run(Command::new(python)
        .args(["-W", "error", "-c", script])
        .current_dir(dir))
}

/// The JSON of the file `path`.
fn json_of(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// Whether `store` holds consolidated metadata of the Zarr format `format`.
fn has_consolidated(store: &Path, format: u8) -> bool {
    if format == 2 {
        store.join(".zmetadata").is_file()
    } else {
        json_of(&store.join("zarr.json"))
            .get("consolidated_metadata")
            .is_some()
    }
}

/// Reads `STORE` (argv[1], Zarr format argv[2]) with xarray, consolidated and with its
/// default, and with zarr-python's `open_consolidated`; prints the values of each way.
const READ: &str = r#"
import json, sys
import xarray as xr, zarr
store, fmt = sys.argv[1], int(sys.argv[2])
out = {}
for how, kw in (("xarray", {"consolidated": True}), ("xarray-default", {})):
    ds = xr.open_zarr(store, **kw)
    g = xr.open_zarr(store, group="g", **kw)
    out[how] = {"temp": ds.temp.values.tolist(), "x": ds.x.values.tolist(),
                "w": g.w.values.tolist(), "title": ds.attrs["title"]}
root = zarr.open_consolidated(store, zarr_format=fmt)
out["zarr"] = {"temp": root["temp"][...].tolist(), "x": root["x"][...].tolist(),
               "w": root["g/w"][...].tolist(), "title": root.attrs["title"]}
print(json.dumps(out))
"#;

#[test]
fn xarray_and_zarr_python_open_our_stores_consolidated_without_warnings() {
    let Some(py) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let input = input(dir.path());
    for (label, mode, format) in KINDS {
        let store = store(dir.path(), &input, label, mode);
        assert!(has_consolidated(&store, format), "{label}: none written");
        let done = run(Command::new(&py)
            .args(["-W", "error", "-c", READ])
            .arg(&store)
            .arg(format.to_string())
            .current_dir(dir.path()));
        assert_eq!(done.code, Some(0), "{label}: {}", done.stderr);
        let got: Value =
            serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{label}: {e}"));
        for how in ["xarray", "xarray-default", "zarr"] {
            assert_eq!(got[how], expected_values(), "{label}, {how}");
        }
    }
    // Without consolidated metadata, xarray's default open warns (an error here).
    let store = store(dir.path(), &input, "plain", "zarr,file,noconsolidated");
    let done = python(
        &py,
        dir.path(),
        "import xarray as xr; xr.open_zarr('plain.zarr')",
    );
    assert_ne!(done.code, Some(0), "xarray did not warn");
    assert!(
        done.stderr.contains("consolidated metadata"),
        "{store:?}: {}",
        done.stderr
    );
}

#[test]
fn zarr_python_parses_our_consolidated_metadata_as_its_own() {
    let Some(py) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let input = input(dir.path());
    for (label, mode, format) in &KINDS[1..] {
        store(dir.path(), &input, &format!("ours-{label}"), mode);
        // The same store without, consolidated by zarr-python.
        store(
            dir.path(),
            &input,
            &format!("theirs-{label}"),
            &format!("{mode},noconsolidated"),
        );
        let script = format!(
            r#"
import warnings, zarr
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # zarr-python's note that v3 consolidation is not in the spec
    zarr.consolidate_metadata("theirs-{label}.zarr")
def flat(store):
    meta = zarr.open_consolidated(store, zarr_format={format}).metadata.consolidated_metadata
    out = {{}}
    for path, node in meta.flattened_metadata.items():
        d = node.to_dict()
        d.pop("consolidated_metadata", None)
        out[path] = d
    return out
ours, theirs = flat("ours-{label}.zarr"), flat("theirs-{label}.zarr")
assert sorted(ours) == ["g", "g/w", "temp", "x"], sorted(ours)
for path in theirs:
    assert ours.get(path) == theirs[path], (path, ours.get(path), theirs[path])
print(len(ours))
"#
        );
        let done = python(&py, dir.path(), &script);
        assert_eq!(done.code, Some(0), "{label}: {}", done.stderr);
        assert_eq!(done.stdout.trim(), "4", "{label}");
    }
}

/// `.zmetadata` in zarr-python 2's form: `metadata` (each document as the store holds
/// it, by key, in key order) then `zarr_consolidated_format` 1, indented by four spaces,
/// in ASCII; the root `zarr.json` of v3 with zarr-python 3's inline form.
#[test]
fn the_consolidated_documents_are_the_stores_own() {
    let dir = scratch();
    let input = input(dir.path());
    for (label, mode, format) in KINDS {
        let store = store(dir.path(), &input, label, mode);
        if format == 2 {
            let text = fs::read_to_string(store.join(".zmetadata"))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(
                text.starts_with("{\n    \"metadata\": {\n"),
                "{label}: {text}"
            );
            assert!(text.is_ascii(), "{label}");
            let all = json_of(&store.join(".zmetadata"));
            let members: Vec<&String> = all
                .as_object()
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            assert_eq!(members, ["metadata", "zarr_consolidated_format"], "{label}");
            assert_eq!(all["zarr_consolidated_format"], 1, "{label}");
            let keys: Vec<&String> = all["metadata"]
                .as_object()
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "{label}");
            for doc in [
                ".zgroup",
                ".zattrs",
                "temp/.zarray",
                "temp/.zattrs",
                "g/.zgroup",
                "g/w/.zarray",
            ] {
                assert_eq!(
                    all["metadata"][doc],
                    json_of(&store.join(doc)),
                    "{label}: {doc}"
                );
            }
            let mut on_disk = Vec::new();
            metadata_files(&store, "", &mut on_disk);
            on_disk.sort();
            assert_eq!(keys, on_disk.iter().collect::<Vec<_>>(), "{label}");
        } else {
            let root = json_of(&store.join("zarr.json"));
            let consolidated = &root["consolidated_metadata"];
            assert_eq!(consolidated["kind"], "inline");
            assert_eq!(consolidated["must_understand"], false);
            let metadata = &consolidated["metadata"];
            for path in ["temp", "x", "g/w"] {
                assert_eq!(
                    metadata[path],
                    json_of(&store.join(path).join("zarr.json")),
                    "{path}"
                );
            }
            let mut group = json_of(&store.join("g/zarr.json"));
            group["consolidated_metadata"] =
                json!({"kind": "inline", "must_understand": false, "metadata": {}});
            assert_eq!(metadata["g"], group);
        }
    }
}

/// The keys of the version 2 metadata documents under `dir` (`g/w/.zarray`), `prefix`
/// being the key of `dir`.
fn metadata_files(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir:?}: {e}"));
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() {
            metadata_files(&path, &format!("{prefix}{name}/"), out);
        } else if [".zarray", ".zattrs", ".zgroup"].contains(&name.as_str()) {
            out.push(format!("{prefix}{name}"));
        }
    }
}

/// The data of the root group's variables in the dump `dump` (pure Zarr puts the
/// dimensions of groups in the root, so their headers differ from the input's).
fn root_data(dump: &str) -> &str {
    let data = from_line(dump, "data:");
    data.split_once("\ngroup: ").map_or(data, |(root, _)| root)
}

#[test]
fn noconsolidated_writes_none_and_consolidated_is_the_default() {
    let dir = scratch();
    let input = input(dir.path());
    let input_dump = ok(
        "our ncdump of the input",
        Test::ours("ncdump").arg(&input).run(),
    );
    for (label, mode, format) in KINDS {
        let without = store(
            dir.path(),
            &input,
            &format!("{label}-none"),
            &format!("{mode},noconsolidated"),
        );
        assert!(!has_consolidated(&without, format), "{label}");
        let default = store(dir.path(), &input, &format!("{label}-default"), mode);
        let asked = store(
            dir.path(),
            &input,
            &format!("{label}-asked"),
            &format!("{mode},consolidated"),
        );
        let root = if format == 2 {
            ".zmetadata"
        } else {
            "zarr.json"
        };
        let bytes = |s: &Path| fs::read(s.join(root)).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        assert_eq!(bytes(&default), bytes(&asked), "{label}");
        // Read through the consolidated metadata, the stores that have some read as the
        // store without, read from its documents; that one holds the input's values.
        let documents = ok(
            "our ncdump",
            Test::ours("ncdump")
                .arg(url(&without, &format!("{mode},noconsolidated")))
                .run(),
        );
        assert_eq!(root_data(&documents), root_data(&input_dump), "{label}");
        assert!(
            documents.contains("   w = 7, 8 ;\n"),
            "{label}: {documents}"
        );
        for store in [&without, &default, &asked] {
            let dumped = Test::ours("ncdump").arg(store).run();
            assert_eq!(dumped.stderr, "", "{store:?}");
            assert_eq!(
                from_line(&ok("our ncdump", dumped), "data:"),
                from_line(&documents, "data:"),
                "{store:?}"
            );
        }
    }
    // A plain .zarr path is NCZarr, consolidated.
    let plain = dir.path().join("plain.zarr");
    ok(
        "our nccopy to a plain path",
        Test::ours("nccopy").arg(&input).arg(&plain).run(),
    );
    assert!(has_consolidated(&plain, 2));
}

/// Edits the consolidated metadata of `store` (Zarr format `format`): `edit` gets the
/// map of node documents (v2: by key, `g/w/.zarray`; v3: by path, `g/w`).
fn edit_consolidated(
    store: &Path,
    format: u8,
    edit: impl FnOnce(&mut serde_json::Map<String, Value>),
) {
    let (file, pointer) = if format == 2 {
        (store.join(".zmetadata"), "/metadata")
    } else {
        (store.join("zarr.json"), "/consolidated_metadata/metadata")
    };
    let mut all = json_of(&file);
    match all.pointer_mut(pointer).and_then(Value::as_object_mut) {
        Some(map) => edit(map),
        None => panic!("{file:?} has no {pointer}"),
    }
    let text = serde_json::to_string_pretty(&all).unwrap_or_else(|e| panic!("{e}"));
    fs::write(&file, text).unwrap_or_else(|e| panic!("{file:?}: {e}"));
}

/// The keys of a node's documents in the consolidated metadata of Zarr format `format`.
fn node_keys(format: u8, node: &str) -> Vec<String> {
    if format == 2 {
        [".zarray", ".zattrs", ".zgroup"]
            .iter()
            .map(|d| format!("{node}/{d}"))
            .collect()
    } else {
        vec![node.to_string()]
    }
}

#[test]
fn stale_consolidated_metadata_is_noticed_at_open_and_the_documents_read() {
    let dir = scratch();
    let input = input(dir.path());
    type Edit = fn(&mut serde_json::Map<String, Value>, u8);
    let edits: [(&str, Edit, &str); 3] = [
        (
            "lacks",
            |m, f| {
                for k in node_keys(f, "g/w") {
                    m.remove(&k);
                }
            },
            "it lacks /g/w",
        ),
        (
            "ghost",
            |m, f| {
                for (from, to) in node_keys(f, "x").into_iter().zip(node_keys(f, "ghost")) {
                    if let Some(doc) = m.get(&from).cloned() {
                        m.insert(to, doc);
                    }
                }
            },
            "it names /ghost, which the store does not hold",
        ),
        (
            "title",
            |m, f| {
                if f == 2 {
                    m.insert(".zattrs".into(), json!({"title": "stale"}));
                }
            },
            "the store's .zattrs is not the same",
        ),
    ];
    for (label, mode, format) in KINDS {
        // What the store reads as, unedited.
        let clean = store(dir.path(), &input, &format!("{label}-clean"), mode);
        let expected = ok("our ncdump", Test::ours("ncdump").arg(&clean).run());
        for (what, edit, message) in edits {
            if what == "title" && format == 3 {
                // v3's root document is the one that holds the consolidated metadata.
                continue;
            }
            let name = format!("{label}-{what}");
            let store = store(dir.path(), &input, &name, mode);
            edit_consolidated(&store, format, |m| edit(m, format));
            let dumped = Test::ours("ncdump").arg(&store).run();
            assert!(
                dumped
                    .stderr
                    .contains("warning: the consolidated metadata of")
                    && dumped.stderr.contains(message)
                    && dumped
                        .stderr
                        .contains("own metadata documents were read instead"),
                "{name}: {}",
                dumped.stderr
            );
            let out = ok(&name, dumped);
            let body = |t: &str| {
                t.split_once('\n')
                    .map(|(_, b)| b.to_string())
                    .unwrap_or_default()
            };
            assert!(
                body(&out) == body(&expected),
                "{name}: differs at {}",
                first_difference(&body(&expected), &body(&out))
            );
        }
    }
}

/// A store on local disk whose consolidated copy of an array's document is stale (an edit
/// of `.zarray` alone, as netCDF-C's `run_filter_errors` makes): a warning names the
/// difference and the store's own documents are read, as netCDF-C reads them (before:
/// the header was printed from the stale copy and reading the data was refused).
#[test]
fn a_stale_copy_of_an_array_document_is_a_warning_and_the_store_is_read() {
    let dir = scratch();
    let input = input(dir.path());
    let expected = ok(
        "our ncdump of the input",
        Test::ours("ncdump").arg(&input).run(),
    );
    for (label, mode, format) in KINDS {
        let store = store(dir.path(), &input, label, mode);
        // The copy says `temp` is compressed with zlib: its chunks would not decode, or
        // decode wrong.
        let (key, doc) = if format == 2 {
            ("temp/.zarray", "temp/.zarray")
        } else {
            ("temp", "temp/zarr.json")
        };
        edit_consolidated(&store, format, |m| {
            if let Some(Value::Object(array)) = m.get_mut(key) {
                if format == 2 {
                    array.insert("compressor".into(), json!({"id": "zlib", "level": 1}));
                } else {
                    array.insert(
                        "codecs".into(),
                        json!([{"name": "bytes", "configuration": {"endian": "little"}},
                               {"name": "gzip", "configuration": {"level": 1}}]),
                    );
                }
            }
        });
        for tool in ["ncdump", "nccopy"] {
            let mut test = Test::ours(tool).arg(&store);
            let copy = dir.path().join(format!("{label}.nc"));
            if tool == "nccopy" {
                test = test.arg(&copy);
            }
            let done = test.run();
            assert_eq!(done.code, Some(0), "{label} {tool}: {}", done.stderr);
            assert!(
                done.stderr.contains("warning")
                    && done
                        .stderr
                        .contains(&format!("its copy of {doc} is not the same"))
                    && done
                        .stderr
                        .contains("own metadata documents were read instead"),
                "{label} {tool}: {}",
                done.stderr
            );
            let dumped = if tool == "nccopy" {
                ok(label, Test::ours("ncdump").arg(&copy).run())
            } else {
                done.stdout
            };
            assert_eq!(root_data(&dumped), root_data(&expected), "{label} {tool}");
        }
        let read = Test::ours("ncdump")
            .arg(url(&store, &format!("{mode},noconsolidated")))
            .run();
        assert_eq!(read.stderr, "", "{label}");
        let read = ok(label, read);
        assert_eq!(root_data(&read), root_data(&expected), "{label}");
        assert!(read.contains("   w = 7, 8 ;\n"), "{label}: {read}");
    }
}

#[test]
fn the_reference_ncdump_reads_our_consolidated_nczarr_as_the_reference_store() {
    if !["ncgen", "ncdump", "nccopy"]
        .iter()
        .all(|t| reference(t).is_some())
    {
        return;
    }
    let dir = scratch();
    // netCDF-C 4.9.0's NCZarr reader fails on groups: the root's variables alone.
    let cdl = dir.path().join("s.cdl");
    let root_only = CDL
        .split_once("\ngroup: g {")
        .map(|(head, _)| format!("{head}\n}}\n"))
        .unwrap_or_default();
    fs::write(&cdl, root_only.replace("netcdf in", "netcdf s")).unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join("s.nc");
    let (input_text, cdl_text) = (input.display().to_string(), cdl.display().to_string());
    ok(
        "reference ncgen",
        run_reference("ncgen", ["-k", "nc4", "-o", &input_text, &cdl_text]),
    );
    for side in ["ours", "ref"] {
        fs::create_dir_all(dir.path().join(side)).unwrap_or_else(|e| panic!("{side}: {e}"));
    }
    let ours = dir.path().join("ours/s.zarr");
    let theirs = url(&dir.path().join("ref/s.zarr"), "nczarr,file");
    ok(
        "our nccopy",
        Test::ours("nccopy").arg(&input).arg(&ours).run(),
    );
    assert!(has_consolidated(&ours, 2));
    ok(
        "reference nccopy",
        run_reference("nccopy", [input_text.as_str(), theirs.as_str()]),
    );
    let ours = url(&ours, "nczarr,file");
    for opts in [&[][..], &["-h"][..]] {
        let dump = |store: &str| {
            let mut args = opts.to_vec();
            args.push(store);
            ok("reference ncdump", run_reference("ncdump", &args))
        };
        let (of_ours, of_theirs) = (dump(&ours), dump(&theirs));
        assert!(
            of_ours == of_theirs,
            "reference ncdump {opts:?} differs at {}",
            first_difference(&of_theirs, &of_ours)
        );
        assert!(
            of_ours.contains("\t\t:title = \"consolidated\" ;"),
            "{of_ours}"
        );
    }
}

/// A consolidated pure Zarr store of 30,000 one-element arrays, each with its own
/// dimension: `ncdump -h` reads it in time linear in the arrays (indexes of dimension
/// names in the reader and in the CDL writer, and of the store's listing). Before: a
/// search of every dimension per axis, three times over (the store's check, the schema,
/// the CDL writer): 20,000 arrays took 20 s, 80,000 took 66 s, so this one is killed.
#[test]
fn a_store_of_many_arrays_each_with_its_dimension_is_read_in_linear_time() {
    const ARRAYS: usize = 30_000;
    let dir = scratch();
    let store = dir.path().join("many.zarr");
    let mut meta = serde_json::Map::new();
    meta.insert(".zgroup".into(), json!({"zarr_format": 2}));
    for i in 0..ARRAYS {
        let zarray = json!({
            "zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4",
            "compressor": null, "fill_value": 0, "filters": null, "order": "C"
        });
        let zattrs = json!({"_ARRAY_DIMENSIONS": [format!("d{i}")]});
        let node = store.join(format!("v{i}"));
        fs::create_dir_all(&node).unwrap_or_else(|e| panic!("{e}"));
        fs::write(node.join(".zarray"), zarray.to_string()).unwrap_or_else(|e| panic!("{e}"));
        fs::write(node.join(".zattrs"), zattrs.to_string()).unwrap_or_else(|e| panic!("{e}"));
        meta.insert(format!("v{i}/.zarray"), zarray);
        meta.insert(format!("v{i}/.zattrs"), zattrs);
    }
    fs::write(store.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap_or_else(|e| panic!("{e}"));
    let consolidated = json!({"zarr_consolidated_format": 1, "metadata": meta});
    fs::write(store.join(".zmetadata"), consolidated.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let bounded = crate::bounded::run_ours("ncdump", ["-h".as_ref(), store.as_os_str()]);
    let run = bounded.assert_within(300, 40);
    ok("run", run);
    assert!(!run.stderr.contains("does not match"), "{}", run.stderr);
    let last = ARRAYS - 1;
    assert!(
        run.stdout.contains(&format!("\td{last} = 1 ;")),
        "no dimension d{last}"
    );
    assert!(
        run.stdout.contains(&format!("\tint v{last}(d{last}) ;")),
        "no variable v{last}"
    );
    assert_eq!(run.stdout.matches(" = 1 ;").count(), ARRAYS);
}
