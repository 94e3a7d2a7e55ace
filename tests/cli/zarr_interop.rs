//! Our Zarr/NCZarr stores against zarr-python and numcodecs, and against the reference
//! netCDF-C 4.9 NCZarr, both ways:
//!
//! - stores our nccopy (`-F '*,SPEC'`) and our ncgen (`_Filter`, `_Codecs`) write, for
//!   every codec and for none, zarr-python opens as Zarr v2 and reads the input's data
//!   from; the `.zarray` compressor and filters are numcodecs configurations (the ids we
//!   expect, no key numcodecs does not know);
//! - stores zarr-python writes (v2 with numcodecs compressors and filters and xarray's
//!   `_ARRAY_DIMENSIONS`, plain and consolidated; v3 with `dimension_names`) our ncdump
//!   reads, data and `_Codecs`; our `#mode=zarr,v3` output zarr-python reads;
//! - unfiltered NCZarr: the reference ncdump reads our store as it reads the reference
//!   nccopy's, and our ncdump reads the reference's store as the reference ncdump does;
//! - never silent: a codec we lack is shown in `ncdump -hs`, and reading its data or
//!   copying it fails naming the variable and the codec, leaving nothing behind; a filter
//!   with no codec form cannot go to a Zarr output.
//!
//! Python runs from the project's .venv (scripts/setup: zarr, numcodecs, numpy); a missing
//! .venv or reference tool fails the tests in CI and is a visible skip elsewhere.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::support::{first_difference, from_line, ok, reference, run, scratch};
use crate::support::{run_reference, zarr_python, Test};

/// The Python side of the tests: `python -c PY COMMAND ARGS...`, JSON on standard output.
///
/// - `read2 STORE`: each array of the Zarr v2 group (zarr.open_group, mode "r"), as
///   {name: {zarray (the .zarray file as written), unknown_keys (keys of its codecs that
///   numcodecs' own configuration lacks), dtype, shape, chunks, data (flattened)}}
/// - `read3 STORE`: each array of the Zarr v3 group, {name: {codecs, dimension_names,
///   dtype, shape, data}}
/// - `write2 STORE CODEC CONSOLIDATED`: the v2 store of `VARIABLES` (below) with that codec
///   (labels of [`CODECS`]), `_ARRAY_DIMENSIONS` on each array, consolidated when
///   CONSOLIDATED is 1; prints {name: {data, codecs (filters then compressor, as the
///   .zarray holds them)}}
/// - `write3 STORE`: a v3 store, zstd on `temp` and blosc (zstd inside) on `n`
/// - `lacking STORE`: a v2 store whose `packed` has an LZMA filter (a codec we lack)
///   before zstd, and whose `plain` has no codec
const PY: &str = r#"
import json, os, sys, warnings
warnings.simplefilter("ignore")
import numpy as np, numcodecs, zarr

def flat(a):
    return np.asarray(a[...]).ravel().tolist()

def codecs_in(store, name):
    # The codecs of a v2 array as its .zarray holds them: filters, then the compressor.
    with open(os.path.join(store, name, ".zarray")) as f:
        meta = json.load(f)
    return (meta.get("filters") or []) + ([meta["compressor"]] if meta.get("compressor") else [])

def codec_of(label, itemsize):
    Z = numcodecs
    return {
        "none": (None, None),
        "bz2": (None, Z.BZ2(level=9)),
        "zstd": (None, Z.Zstd(level=3)),
        "blosc-lz4": (None, Z.Blosc(cname="lz4", clevel=5, shuffle=1)),
        "blosc-zstd": (None, Z.Blosc(cname="zstd", clevel=5, shuffle=1)),
        "lz4": (None, Z.LZ4()),
        "zlib": (None, Z.Zlib(level=5)),
        "shuffle-zlib": ([Z.Shuffle(elementsize=itemsize)], Z.Zlib(level=5)),
        "fletcher32-zstd": ([Z.Fletcher32()], Z.Zstd(level=3)),
    }[label]

# name, dtype, dimensions, shape, chunks, values
VARIABLES = [
    ("temp", "<f4", ["y", "x"], (4, 6), (3, 4), lambda n: np.arange(n) * 0.25 - 2.0),
    ("d", "<f8", ["y", "x"], (4, 6), (4, 6), lambda n: np.arange(n) * 0.5 + 0.125),
    ("n", "<i4", ["x"], (6,), (4,), lambda n: np.arange(n) * 1000 - 7),
    ("s", "<i2", ["x"], (6,), (6,), lambda n: np.arange(n) * 3 - 10),
    ("b", "|i1", ["y"], (4,), (3,), lambda n: np.arange(n) - 3),
]

cmd, store = sys.argv[1], sys.argv[2]
out = {}
if cmd == "read2":
    g = zarr.open_group(store, mode="r", zarr_format=2)
    for name, a in sorted(g.arrays()):
        with open(os.path.join(store, name, ".zarray")) as f:
            meta = json.load(f)
        unknown = []
        for cfg in (meta.get("filters") or []) + ([meta["compressor"]] if meta.get("compressor") else []):
            known = numcodecs.get_codec(dict(cfg)).get_config()
            unknown += [cfg["id"] + "." + k for k in cfg if k not in known]
        out[name] = {"zarray": meta, "unknown_keys": unknown, "dtype": a.dtype.str,
                     "shape": list(a.shape), "chunks": list(a.chunks), "data": flat(a)}
elif cmd == "read3":
    g = zarr.open_group(store, mode="r", zarr_format=3)
    for name, a in sorted(g.arrays()):
        with open(os.path.join(store, name, "zarr.json")) as f:
            meta = json.load(f)
        out[name] = {"codecs": [c["name"] for c in meta["codecs"]],
                     "dimension_names": meta.get("dimension_names"), "dtype": a.dtype.str,
                     "shape": list(a.shape), "data": flat(a)}
elif cmd == "write2":
    label, consolidated = sys.argv[3], sys.argv[4] == "1"
    g = zarr.open_group(store, mode="w", zarr_format=2)
    g.attrs["title"] = "written by zarr-python"
    for name, dtype, dims, shape, chunks, values in VARIABLES:
        filters, compressor = codec_of(label, np.dtype(dtype).itemsize)
        a = g.create_array(name, shape=shape, chunks=chunks, dtype=dtype,
                           compressor=compressor, filters=filters, fill_value=None)
        a[...] = values(int(np.prod(shape))).reshape(shape).astype(dtype)
        a.attrs["_ARRAY_DIMENSIONS"] = dims
        out[name] = {"data": flat(a), "codecs": codecs_in(store, name)}
    if consolidated:
        zarr.consolidate_metadata(store)
elif cmd == "write3":
    g = zarr.open_group(store, mode="w", zarr_format=3)
    t = g.create_array("temp", shape=(4, 6), chunks=(3, 4), dtype="float32",
                       compressors=[zarr.codecs.ZstdCodec(level=3)], dimension_names=["y", "x"])
    t[...] = (np.arange(24) * 0.25 - 2.0).reshape(4, 6)
    n = g.create_array("n", shape=(6,), chunks=(4,), dtype="int32",
                       compressors=[zarr.codecs.BloscCodec(cname="zstd", clevel=5, shuffle="shuffle")],
                       dimension_names=["x"])
    n[...] = np.arange(6) * 1000 - 7
    out = {"temp": {"data": flat(t)}, "n": {"data": flat(n)}}
elif cmd == "lacking":
    g = zarr.open_group(store, mode="w", zarr_format=2)
    p = g.create_array("packed", shape=(6,), chunks=(6,), dtype="<i4",
                       filters=[numcodecs.LZMA()], compressor=numcodecs.Zstd(level=3))
    p[...] = np.arange(6) * 10
    p.attrs["_ARRAY_DIMENSIONS"] = ["x"]
    q = g.create_array("plain", shape=(6,), chunks=(6,), dtype="<i4", compressor=None, fill_value=None)
    q[...] = np.arange(6)
    q.attrs["_ARRAY_DIMENSIONS"] = ["x"]
    out = {"packed": {"codecs": codecs_in(store, "packed")}}
else:
    sys.exit("no such command " + cmd)
print(json.dumps(out, sort_keys=True))
"#;

/// Runs the Python side (see [`PY`]) and returns its JSON.
fn py(python: &Path, args: &[&str]) -> Value {
    let done = run(Command::new(python).arg("-c").arg(PY).args(args));
    assert_eq!(
        done.code,
        Some(0),
        "python {args:?} failed:\n{}",
        done.stderr
    );
    serde_json::from_str(&done.stdout)
        .unwrap_or_else(|e| panic!("python {args:?}: not JSON ({e}): {}", done.stdout))
}

/// One codec as the tests use it, on our side and zarr-python's.
struct Codec {
    /// The label (also the Python side's name for it).
    label: &'static str,
    /// The filter spec for `-F '*,SPEC'` and `_Filter` ("" for none).
    spec: &'static str,
    /// The same as NCZarr's `_Codecs` JSON ("" for none).
    codecs: &'static str,
    /// The numcodecs id of each filter (without the compressor), in order.
    filters: &'static [&'static str],
    /// The compressor: numcodecs id and the keys whose value we know from the spec.
    compressor: Option<(&'static str, &'static str)>,
}

const CODECS: [Codec; 9] = [
    Codec {
        label: "none",
        spec: "",
        codecs: "",
        filters: &[],
        compressor: None,
    },
    Codec {
        label: "bz2",
        spec: "bzip2,9",
        codecs: r#"[{"id": "bz2", "level": 9}]"#,
        filters: &[],
        compressor: Some(("bz2", r#"{"level": 9}"#)),
    },
    Codec {
        label: "zstd",
        spec: "zstd,3",
        codecs: r#"[{"id": "zstd", "level": 3}]"#,
        filters: &[],
        compressor: Some(("zstd", r#"{"level": 3}"#)),
    },
    Codec {
        label: "blosc-lz4",
        spec: "blosc,0,0,0,0,5,1,1",
        codecs: r#"[{"id": "blosc", "clevel": 5, "blocksize": 0, "cname": "lz4", "shuffle": 1}]"#,
        filters: &[],
        compressor: Some(("blosc", r#"{"cname": "lz4", "clevel": 5, "shuffle": 1}"#)),
    },
    Codec {
        label: "blosc-zstd",
        spec: "blosc,0,0,0,0,5,1,5",
        codecs: r#"[{"id": "blosc", "clevel": 5, "blocksize": 0, "cname": "zstd", "shuffle": 1}]"#,
        filters: &[],
        compressor: Some(("blosc", r#"{"cname": "zstd", "clevel": 5, "shuffle": 1}"#)),
    },
    Codec {
        label: "lz4",
        spec: "lz4",
        codecs: r#"[{"id": "lz4", "acceleration": 1}]"#,
        filters: &[],
        compressor: Some(("lz4", "{}")),
    },
    Codec {
        label: "zlib",
        spec: "deflate,5",
        codecs: r#"[{"id": "zlib", "level": 5}]"#,
        filters: &[],
        compressor: Some(("zlib", r#"{"level": 5}"#)),
    },
    Codec {
        label: "shuffle-zlib",
        spec: "shuffle|deflate,5",
        codecs: r#"[{"id": "shuffle", "elementsize": 4}, {"id": "zlib", "level": 5}]"#,
        filters: &["shuffle"],
        compressor: Some(("zlib", r#"{"level": 5}"#)),
    },
    Codec {
        label: "fletcher32-zstd",
        spec: "fletcher32|zstd,3",
        codecs: r#"[{"id": "fletcher32"}, {"id": "zstd", "level": 3}]"#,
        filters: &["fletcher32"],
        compressor: Some(("zstd", r#"{"level": 3}"#)),
    },
];

/// A variable of the test input: name, CDL type, numpy dtype, dimensions, values.
struct Var {
    name: &'static str,
    cdl_type: &'static str,
    dtype: &'static str,
    dims: &'static [&'static str],
    chunks: Option<&'static str>,
    values: Vec<f64>,
}

/// The variables of the test input. With `unlimited`, a `time` dimension of 3 records
/// (UNLIMITED) and variables along it; `d2(y, x)` is always chunked 2 x 3, which does not
/// divide its 5 x 7 shape.
fn variables(unlimited: bool) -> Vec<Var> {
    let ramp = |n: usize, f: &dyn Fn(f64) -> f64| (0..n).map(|k| f(k as f64)).collect();
    let mut vars = Vec::new();
    if unlimited {
        vars.push(Var {
            name: "time",
            cdl_type: "double",
            dtype: "<f8",
            dims: &["time"],
            chunks: None,
            values: ramp(3, &|k| 6.0 * k),
        });
        vars.push(Var {
            name: "temp",
            cdl_type: "float",
            dtype: "<f4",
            dims: &["time", "y", "x"],
            chunks: Some("1, 5, 7"),
            values: ramp(105, &|k| k * 0.25 - 5.0),
        });
        vars.push(Var {
            name: "i",
            cdl_type: "int",
            dtype: "<i4",
            dims: &["time", "y"],
            chunks: Some("1, 5"),
            values: ramp(15, &|k| k * 1000.0 - 7.0),
        });
    } else {
        vars.push(Var {
            name: "temp",
            cdl_type: "float",
            dtype: "<f4",
            dims: &["y", "x"],
            chunks: None,
            values: ramp(35, &|k| k * 0.25 - 5.0),
        });
        vars.push(Var {
            name: "i",
            cdl_type: "int",
            dtype: "<i4",
            dims: &["y"],
            chunks: None,
            values: ramp(5, &|k| k * 1000.0 - 7.0),
        });
    }
    vars.push(Var {
        name: "d2",
        cdl_type: "double",
        dtype: "<f8",
        dims: &["y", "x"],
        chunks: Some("2, 3"),
        values: ramp(35, &|k| k * 0.5 + 0.125),
    });
    vars.push(Var {
        name: "s",
        cdl_type: "short",
        dtype: "<i2",
        dims: &["x"],
        chunks: None,
        values: ramp(7, &|k| k * 3.0 - 10.0),
    });
    vars.push(Var {
        name: "b",
        cdl_type: "byte",
        dtype: "|i1",
        dims: &["y"],
        chunks: None,
        values: ramp(5, &|k| k - 3.0),
    });
    vars
}

/// The element size of a numpy dtype string (`<f4` is 4).
fn itemsize(dtype: &str) -> u64 {
    dtype[2..]
        .parse()
        .unwrap_or_else(|e| panic!("dtype {dtype}: {e}"))
}

/// The CDL of the test input, `netcdf NAME`; each variable gets the lines `extra(var)`
/// (e.g. `_Filter`) among its attributes.
fn input_cdl(name: &str, unlimited: bool, extra: &dyn Fn(&Var) -> String) -> String {
    let vars = variables(unlimited);
    let mut cdl = format!("netcdf {name} {{\ndimensions:\n");
    if unlimited {
        cdl.push_str("\ttime = UNLIMITED ; // (3 currently)\n");
    }
    cdl.push_str("\ty = 5 ;\n\tx = 7 ;\nvariables:\n");
    for v in &vars {
        cdl.push_str(&format!(
            "\t{} {}({}) ;\n",
            v.cdl_type,
            v.name,
            v.dims.join(", ")
        ));
        if let Some(chunks) = v.chunks {
            cdl.push_str(&format!("\t\t{}:_ChunkSizes = {chunks} ;\n", v.name));
        }
        cdl.push_str(&format!("\t\t{}:units = \"1\" ;\n", v.name));
        cdl.push_str(&extra(v));
    }
    cdl.push_str("\n// global attributes:\n\t\t:title = \"zarr interop\" ;\ndata:\n");
    for v in &vars {
        let values: Vec<String> = v.values.iter().map(|x| x.to_string()).collect();
        cdl.push_str(&format!("\n {} = {} ;\n", v.name, values.join(", ")));
    }
    cdl.push_str("}\n");
    cdl
}

/// Writes `text` to DIR/NAME and returns the path.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
    path
}

/// The netCDF-C URL of the directory `store` in `mode` (e.g. `nczarr,file`).
fn url(store: &Path, mode: &str) -> String {
    format!("file://{}#mode={mode}", store.display())
}

/// The input netCDF-4 file DIR/in.nc (unlimited `time`), made by our ncgen.
fn netcdf4_input(dir: &Path) -> PathBuf {
    let source = write(dir, "in.cdl", &input_cdl("in", true, &|_| String::new()));
    let out = dir.join("in.nc");
    ok(
        "our ncgen -k nc4 of the input",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&out)
            .arg(&source)
            .run(),
    );
    out
}

/// The checks of a Zarr v2 store `store` that ours wrote with `codec` from the input of
/// [`variables`]`(true)`: zarr-python reads every variable's data, shape and chunks, and
/// each `.zarray` holds the numcodecs configurations we expect.
fn zarr_python_reads(python: &Path, label: &str, store: &Path, codec: &Codec) {
    let got = py(python, &["read2", &store.to_string_lossy()]);
    for v in variables(true) {
        let a = &got[v.name];
        assert!(
            a.is_object(),
            "{label}: zarr-python finds no array {}: {got}",
            v.name
        );
        assert_eq!(a["dtype"], json!(v.dtype), "{label}: dtype of {}", v.name);
        let data: Vec<f64> = a["data"]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: no data for {}", v.name))
            .iter()
            .map(|x| x.as_f64().unwrap_or(f64::NAN))
            .collect();
        assert_eq!(data, v.values, "{label}: the data of {}", v.name);
        if v.name == "d2" {
            assert_eq!(a["shape"], json!([5, 7]), "{label}: shape of d2");
            assert_eq!(a["chunks"], json!([2, 3]), "{label}: chunks of d2");
        }
        if v.name == "temp" {
            assert_eq!(a["shape"], json!([3, 5, 7]), "{label}: shape of temp");
        }
        let zarray = &a["zarray"];
        assert_eq!(zarray["zarr_format"], json!(2), "{label}: {}", v.name);
        assert_eq!(
            a["unknown_keys"],
            json!([]),
            "{label}: codec keys of {} that numcodecs does not know: {zarray}",
            v.name
        );
        let filters: Vec<Value> = match &zarray["filters"] {
            Value::Null => Vec::new(),
            Value::Array(list) => list.clone(),
            other => panic!("{label}: filters of {} is {other}", v.name),
        };
        let ids: Vec<&str> = filters.iter().filter_map(|f| f["id"].as_str()).collect();
        assert_eq!(
            ids, codec.filters,
            "{label}: filters of {}: {zarray}",
            v.name
        );
        for f in &filters {
            if f["id"] == "shuffle" {
                assert_eq!(
                    f["elementsize"],
                    json!(itemsize(v.dtype)),
                    "{label}: shuffle of {}",
                    v.name
                );
            }
        }
        match codec.compressor {
            None => assert_eq!(zarray["compressor"], Value::Null, "{label}: {}", v.name),
            Some((id, keys)) => {
                let c = &zarray["compressor"];
                assert_eq!(
                    c["id"],
                    json!(id),
                    "{label}: compressor of {}: {zarray}",
                    v.name
                );
                let keys: Value = serde_json::from_str(keys).unwrap_or(Value::Null);
                for (k, want) in keys.as_object().into_iter().flatten() {
                    assert_eq!(&c[k], want, "{label}: compressor {k} of {}: {c}", v.name);
                }
            }
        }
    }
}

/// `-M 0` keeps the input's chunks on the small `d2` too: like the reference, nccopy
/// otherwise writes a variable under 8192 bytes as one chunk (see the next test).
#[test]
fn our_nccopy_writes_zarr_v2_that_zarr_python_reads_with_every_codec() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let input = netcdf4_input(dir.path());
    for codec in &CODECS {
        let store = dir.path().join(format!("copy-{}.zarr", codec.label));
        let mut copy = Test::ours("nccopy").args(["-M", "0"]);
        let label = if codec.spec.is_empty() {
            format!("our nccopy -M 0 in.nc {}", store.display())
        } else {
            let spec = format!("*,{}", codec.spec);
            copy = copy.args(["-F", &spec]);
            format!(
                "our nccopy -M 0 -F '{spec}' in.nc copy-{}.zarr",
                codec.label
            )
        };
        ok(&label, copy.arg(&input).arg(&store).run());
        zarr_python_reads(&python, &label, &store, codec);
    }
}

/// Without `-M`, a chunked variable smaller than 8192 bytes is written as one chunk, as
/// the reference nccopy writes it to NCZarr and to netCDF-4; larger ones keep theirs.
#[test]
fn our_nccopy_to_zarr_keeps_input_chunks_as_the_reference_does() {
    let dir = scratch();
    let input = write(
        dir.path(),
        "chunks.cdl",
        "netcdf chunks {\ndimensions:\n\ty = 200 ;\n\tx = 300 ;\nvariables:\n\
         \tfloat small(y) ;\n\t\tsmall:_ChunkSizes = 20 ;\n\
         \tfloat large(y, x) ;\n\t\tlarge:_ChunkSizes = 50, 60 ;\ndata:\n small = 1 ;\n}\n",
    );
    let nc = dir.path().join("chunks.nc");
    ok(
        "our ncgen -k nc4",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&nc)
            .arg(&input)
            .run(),
    );
    let store = dir.path().join("chunks.zarr");
    ok(
        "our nccopy chunks.nc chunks.zarr",
        Test::ours("nccopy").arg(&nc).arg(&store).run(),
    );
    let chunks = |name: &str| -> Value {
        let text = fs::read_to_string(store.join(name).join(".zarray"))
            .unwrap_or_else(|e| panic!("{name}/.zarray: {e}"));
        let meta: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        meta["chunks"].clone()
    };
    assert_eq!(
        chunks("small"),
        json!([200]),
        "a variable under 8192 bytes is one chunk"
    );
    assert_eq!(
        chunks("large"),
        json!([50, 60]),
        "the input's chunks are kept"
    );
}

#[test]
fn our_ncgen_writes_zarr_v2_that_zarr_python_reads_with_every_codec() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    for codec in &CODECS {
        // `_Filter` into a plain path ending in .zarr.
        let with_filter = |v: &Var| {
            if codec.spec.is_empty() {
                String::new()
            } else {
                format!("\t\t{}:_Filter = \"{}\" ;\n", v.name, codec.spec)
            }
        };
        let source = write(
            dir.path(),
            &format!("filter-{}.cdl", codec.label),
            &input_cdl("in", true, &with_filter),
        );
        let store = dir.path().join(format!("gen-{}.zarr", codec.label));
        let label = format!(
            "our ncgen -k nc4 -o gen-{}.zarr (_Filter = \"{}\")",
            codec.label, codec.spec
        );
        ok(
            &label,
            Test::ours("ncgen")
                .args(["-k", "nc4", "-o"])
                .arg(&store)
                .arg(&source)
                .run(),
        );
        zarr_python_reads(&python, &label, &store, codec);

        // `_Codecs` into a netCDF-C URL.
        let with_codecs = |v: &Var| {
            if codec.codecs.is_empty() {
                return String::new();
            }
            // The element size of shuffle is the variable's own (and ignored on read).
            let json = codec.codecs.replace(
                "\"elementsize\": 4",
                &format!("\"elementsize\": {}", itemsize(v.dtype)),
            );
            format!(
                "\t\t{}:_Codecs = \"{}\" ;\n",
                v.name,
                json.replace('"', "\\\"")
            )
        };
        let source = write(
            dir.path(),
            &format!("codecs-{}.cdl", codec.label),
            &input_cdl("in", true, &with_codecs),
        );
        let store = dir.path().join(format!("gen-codecs-{}.zarr", codec.label));
        let target = url(&store, "nczarr,file");
        let label = format!(
            "our ncgen -k nc4 -o '{target}' (_Codecs = {})",
            codec.codecs
        );
        ok(
            &label,
            Test::ours("ncgen")
                .args(["-k", "nc4", "-o", &target])
                .arg(&source)
                .run(),
        );
        zarr_python_reads(&python, &label, &store, codec);
    }
}

/// The values of each variable in the data section of an ncdump output, as text tokens
/// (`_` for a fill value), whatever the line breaks.
fn dumped_values(dump: &str) -> BTreeMap<String, Vec<String>> {
    let data = from_line(dump, "data:");
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in data.lines().skip(1) {
        let mut rest = line.trim();
        if current.is_none() {
            // ` name = values` or ` name =` with the values on the next lines.
            if let Some((name, values)) = rest.split_once(" =") {
                current = Some(name.trim().to_string());
                rest = values.trim();
            } else {
                continue;
            }
        }
        let name = current.clone().unwrap_or_default();
        let done = rest.ends_with(';');
        let tokens = rest
            .trim_end_matches(';')
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty());
        out.entry(name)
            .or_default()
            .extend(tokens.map(String::from));
        if done {
            current = None;
        }
    }
    out
}

/// Asserts that each variable of `expected` ({name: {data: [...]}} from Python) has the
/// same numbers in our `dump`.
fn same_numbers(label: &str, expected: &Value, dump: &str) {
    let got = dumped_values(dump);
    for (name, var) in expected.as_object().into_iter().flatten() {
        let want: Vec<f64> = var["data"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| x.as_f64().unwrap_or(f64::NAN))
            .collect();
        let ours: Vec<f64> = got
            .get(name)
            .unwrap_or_else(|| panic!("{label}: no data for {name} in:\n{dump}"))
            .iter()
            .map(|t| {
                t.trim_end_matches(['f', 'b', 's'])
                    .parse()
                    .unwrap_or(f64::NAN)
            })
            .collect();
        assert_eq!(ours, want, "{label}: the data of {name}");
    }
}

/// The `_Codecs` of `var` in an `ncdump -hs` text, parsed as JSON (Null when absent).
fn codecs_of(dump: &str, var: &str) -> Value {
    let prefix = format!("{var}:_Codecs = \"");
    let Some(text) = dump
        .lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
    else {
        return Value::Null;
    };
    let text = text
        .trim_end_matches(" ;")
        .trim_end_matches('"')
        .replace("\\\"", "\"");
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("_Codecs of {var} is not JSON ({e}): {text}"))
}

#[test]
fn our_ncdump_reads_zarr_v2_that_zarr_python_writes_with_every_codec() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    for codec in &CODECS {
        for consolidated in [false, true] {
            let store = dir.path().join(format!(
                "py-{}{}.zarr",
                codec.label,
                if consolidated { "-consolidated" } else { "" }
            ));
            let path = store.to_string_lossy().into_owned();
            let written = py(
                &python,
                &[
                    "write2",
                    &path,
                    codec.label,
                    if consolidated { "1" } else { "0" },
                ],
            );
            // The plain directory, and the netCDF-C URL of a pure Zarr store.
            let target = if consolidated {
                url(&store, "zarr,file")
            } else {
                path
            };
            let label = format!("our ncdump {target}");
            let dump = ok(&label, Test::ours("ncdump").arg(&target).run());
            assert!(
                dump.contains("\ty = 4 ;") && dump.contains("\tx = 6 ;"),
                "{label}: the dimensions of _ARRAY_DIMENSIONS:\n{dump}"
            );
            assert!(dump.contains("\tfloat temp(y, x) ;"), "{label}:\n{dump}");
            assert!(
                dump.contains(":title = \"written by zarr-python\" ;"),
                "{label}:\n{dump}"
            );
            same_numbers(&label, &written, &dump);

            let label = format!("our ncdump -hs {target}");
            let header = ok(&label, Test::ours("ncdump").args(["-hs", &target]).run());
            for (name, var) in written.as_object().into_iter().flatten() {
                let want = &var["codecs"];
                let got = codecs_of(&header, name);
                if want.as_array().is_some_and(|a| a.is_empty()) {
                    assert!(
                        got.is_null() || got == json!([]),
                        "{label}: _Codecs of {name}: {got}"
                    );
                } else {
                    assert_eq!(&got, want, "{label}: _Codecs of {name}:\n{header}");
                }
            }
        }
    }
}

#[test]
fn zarr_v3_both_ways_with_zarr_python() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    // zarr-python 3 writes, ours reads (a plain directory with zarr.json).
    let store = dir.path().join("py3.zarr");
    let path = store.to_string_lossy().into_owned();
    let written = py(&python, &["write3", &path]);
    let label = format!("our ncdump {path}");
    let dump = ok(&label, Test::ours("ncdump").arg(&path).run());
    assert!(
        dump.contains("\tfloat temp(y, x) ;") && dump.contains("\tint n(x) ;"),
        "{label}: dimension_names:\n{dump}"
    );
    same_numbers(&label, &written, &dump);

    // Ours writes v3, zarr-python reads.
    let input = netcdf4_input(dir.path());
    let store = dir.path().join("ours3.zarr");
    let target = url(&store, "zarr,v3");
    let label = format!("our nccopy -F '*,zstd,3' in.nc '{target}'");
    ok(
        &label,
        Test::ours("nccopy")
            .args(["-F", "*,zstd,3"])
            .arg(&input)
            .arg(&target)
            .run(),
    );
    let got = py(&python, &["read3", &store.to_string_lossy()]);
    for v in variables(true) {
        let a = &got[v.name];
        assert!(
            a.is_object(),
            "{label}: zarr-python finds no array {}: {got}",
            v.name
        );
        let data: Vec<f64> = a["data"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| x.as_f64().unwrap_or(f64::NAN))
            .collect();
        assert_eq!(data, v.values, "{label}: the data of {}", v.name);
        assert_eq!(
            a["dimension_names"],
            json!(v.dims),
            "{label}: dimension_names of {}",
            v.name
        );
        assert!(
            a["codecs"]
                .as_array()
                .is_some_and(|c| c.contains(&json!("zstd"))),
            "{label}: codecs of {}: {}",
            v.name,
            a["codecs"]
        );
    }
}

/// Whether the reference tools are all there (a skip, or a failure in CI, when not).
fn have_reference() -> bool {
    ["ncgen", "ncdump", "nccopy"]
        .iter()
        .all(|t| reference(t).is_some())
}

#[test]
fn unfiltered_nczarr_both_ways_with_the_reference() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    // NCZarr in netCDF-C 4.9 holds no unlimited dimension and no string: fixed sizes.
    let source = write(
        dir.path(),
        "s.cdl",
        &input_cdl("s", false, &|_| String::new()),
    );
    let input = dir.path().join("s.nc");
    ok(
        "reference ncgen -k nc4",
        run_reference(
            "ncgen",
            [
                "-k".as_ref(),
                "nc4".as_ref(),
                "-o".as_ref(),
                input.as_os_str(),
                source.as_os_str(),
            ],
        ),
    );
    for side in ["ours", "ref"] {
        fs::create_dir_all(dir.path().join(side)).unwrap_or_else(|e| panic!("mkdir {side}: {e}"));
    }
    // Same base name on both sides: ncdump prints it.
    let ours_store = url(&dir.path().join("ours/s.zarr"), "nczarr,file");
    let ref_store = url(&dir.path().join("ref/s.zarr"), "nczarr,file");
    ok(
        "our nccopy to NCZarr",
        Test::ours("nccopy").arg(&input).arg(&ours_store).run(),
    );
    ok(
        "reference nccopy to NCZarr",
        run_reference("nccopy", [input.as_os_str(), OsStr::new(&ref_store)]),
    );
    for opts in [&[][..], &["-h"][..]] {
        let mut args: Vec<&str> = opts.to_vec();
        args.push(&ref_store);
        let theirs_of_theirs = ok(
            "reference ncdump of the reference store",
            run_reference("ncdump", &args),
        );
        let mut args: Vec<&str> = opts.to_vec();
        args.push(&ours_store);
        let theirs_of_ours = ok(
            "reference ncdump of our store",
            run_reference("ncdump", &args),
        );
        assert!(
            theirs_of_theirs == theirs_of_ours,
            "reference ncdump {opts:?}: our store vs the reference's differ at {}",
            first_difference(&theirs_of_theirs, &theirs_of_ours)
        );
        let ours_of_theirs = ok(
            "our ncdump of the reference store",
            Test::ours("ncdump").args(opts).arg(&ref_store).run(),
        );
        assert!(
            theirs_of_theirs == ours_of_theirs,
            "ncdump {opts:?} of the reference store: reference vs ours differ at {}",
            first_difference(&theirs_of_theirs, &ours_of_theirs)
        );
    }
    // The data is the input's.
    let of_input = ok(
        "reference ncdump of s.nc",
        run_reference("ncdump", [input.as_os_str()]),
    );
    let of_ours = ok(
        "reference ncdump of our store",
        run_reference("ncdump", [ours_store.as_str()]),
    );
    assert_eq!(
        from_line(&of_input, "data:"),
        from_line(&of_ours, "data:"),
        "the data of our store"
    );
}

/// What is left in `dir` (names), for "nothing written" checks.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_codec_we_lack_is_never_silent() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let store = dir.path().join("lacking.zarr");
    let path = store.to_string_lossy().into_owned();
    let written = py(&python, &["lacking", &path]);

    // The header is there, and the codecs verbatim.
    let header = ok("ncdump -h", Test::ours("ncdump").args(["-h", &path]).run());
    assert!(header.contains("\tint packed(x) ;"), "ncdump -h:\n{header}");
    let specials = ok(
        "ncdump -hs",
        Test::ours("ncdump").args(["-hs", &path]).run(),
    );
    assert_eq!(
        codecs_of(&specials, "packed"),
        written["packed"]["codecs"],
        "ncdump -hs:\n{specials}"
    );

    // The data cannot be decoded: exit 1, naming the variable and the codec. (Run from
    // the store's directory with a relative path, so that the message snapshots hold no
    // temporary directory.)
    let dump = Test::ours("ncdump")
        .arg("lacking.zarr")
        .current_dir(dir.path())
        .run();
    assert_eq!(
        dump.code,
        Some(1),
        "ncdump of a variable with lzma: {}",
        dump.stderr
    );
    assert!(
        dump.stderr.contains("packed") && dump.stderr.contains("lzma"),
        "the message names the variable and the codec: {}",
        dump.stderr
    );
    assert_eq!(dump.stderr.lines().count(), 1, "one line: {}", dump.stderr);
    insta::assert_snapshot!("lacking_codec_ncdump", dump.stderr);

    // nccopy refuses before writing anything, to netCDF-4 and to Zarr alike.
    let out = dir.path().join("out");
    fs::create_dir_all(&out).unwrap_or_else(|e| panic!("mkdir: {e}"));
    for target in ["copy.nc", "copy.zarr"] {
        let copy = Test::ours("nccopy")
            .arg("../lacking.zarr")
            .arg(target)
            .current_dir(&out)
            .run();
        assert_eq!(
            copy.code,
            Some(1),
            "nccopy lacking.zarr {target}: {}",
            copy.stderr
        );
        assert!(
            copy.stderr.contains("packed") && copy.stderr.contains("lzma"),
            "nccopy {target}: the message names the variable and the codec: {}",
            copy.stderr
        );
        assert_eq!(
            entries(&out),
            Vec::<String>::new(),
            "nccopy {target} left something"
        );
        insta::assert_snapshot!(
            format!("lacking_codec_nccopy_to_{}", target.replace('.', "_")),
            copy.stderr
        );
    }

    // Szip (NCZarr's codec) whose pixels per block exceed a variable's chunk (/small
    // holds 5 values) is refused before anything is written, as for a netCDF-4 output.
    let input = netcdf4_input(dir.path());
    assert_eq!(input, dir.path().join("in.nc"));
    for target in [
        "szip.zarr".to_string(),
        url(&out.join("szip-url.zarr"), "nczarr,file"),
    ] {
        let copy = Test::ours("nccopy")
            .args(["-F", "*,szip,32,32"])
            .arg("../in.nc")
            .arg(&target)
            .current_dir(&out)
            .run();
        assert!(
            copy.is_rejection(),
            "nccopy -F '*,szip,32,32' in.nc {target}: exit {:?}: {}",
            copy.code,
            copy.stderr
        );
        assert!(
            copy.stderr.contains("szip"),
            "the message names the filter: {}",
            copy.stderr
        );
        assert_eq!(
            entries(&out),
            Vec::<String>::new(),
            "nccopy -F szip {target} left something"
        );
        if target == "szip.zarr" {
            insta::assert_snapshot!("szip_to_zarr", copy.stderr);
        }
    }
}
