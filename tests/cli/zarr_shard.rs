//! Sharded Zarr version 3 stores (`sharding_indexed`), written with `nccopy --shards`
//! and read back by zarr-python and by our ncdump; stores zarr-python shards, read by
//! ours; the option's forms and its errors.
//!
//! The input is a netCDF-4 file the reference ncgen builds from `INPUT` (an unlimited
//! time dimension, shards that pass the variable's end); zarr-python (the project's
//! .venv, with netCDF4 to read the input) is the other side.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{from_line, ok, run, run_reference, scratch, skip, zarr_python, Test};

/// The input: `temp` has inner chunks of 1 x 2 x 3 in a 3 x 5 x 7 array whose record 1
/// is all fill values; `count` and `lat` are one-dimensional.
const INPUT: &str = r#"netcdf in {
dimensions:
  time = UNLIMITED ;
  lat = 5 ;
  lon = 7 ;
variables:
  float temp(time, lat, lon) ;
    temp:_FillValue = -999.f ;
    temp:_ChunkSizes = 1, 2, 3 ;
  int count(time) ;
  double lat(lat) ;
  int scalar ;
data:
  temp = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
    21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,
    _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _,
    _, _, _, _, _, _, _, _, _, _, _, _, _, _, _,
    0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5,
    15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5,
    28.5, 29.5, 30.5, 31.5, 32.5, 33.5, 34.5 ;
  count = 1, 2, 3 ;
  lat = 10, 20, 30, 40, 50 ;
  scalar = 42 ;
}
"#;

/// The variables of [`INPUT`].
const VARIABLES: [&str; 4] = ["temp", "count", "lat", "scalar"];

/// The Python side: `compare STORE INPUT` prints, as JSON, for each variable of the
/// input: whether zarr-python reads the store's array equal to the input's values
/// (netCDF4, fill values unmasked), and the array's shards and chunks.
/// `write STORE INPUT` writes the input's variables to a Zarr v3 store with
/// `shards=`, zstd inner chunks, and `dimension_names`.
const PY: &str = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np, zarr, netCDF4

command, store, source = sys.argv[1:4]
nc = netCDF4.Dataset(source)
nc.set_auto_mask(False)
if command == "compare":
    g = zarr.open_group(store, mode="r")
    out = {}
    for name, var in nc.variables.items():
        a = g[name]
        out[name] = {
            "equal": bool(np.array_equal(a[...], var[...])),
            "shards": list(a.shards) if a.shards is not None else None,
            "chunks": list(a.chunks),
        }
    print(json.dumps(out))
else:
    g = zarr.open_group(store, mode="w", zarr_format=3)
    for name, var in nc.variables.items():
        shape = var.shape
        chunks = tuple(max(1, n // 2) for n in shape)
        shards = tuple(c * 2 for c in chunks) if shape else None
        a = g.create_array(name, shape=shape, chunks=chunks, shards=shards,
                           dtype=var.dtype, fill_value=getattr(var, "_FillValue", 0),
                           compressors=zarr.codecs.ZstdCodec(level=3),
                           dimension_names=list(var.dimensions))
        if "_FillValue" in var.ncattrs():
            # As a netCDF attribute, so that ncdump prints fill values as `_`.
            a.attrs["_FillValue"] = var._FillValue.item()
        values = var[...]
        if name == "temp":
            # Record 1 (all fill values) is never written: its inner chunks are missing.
            a[0] = values[0]
            a[2] = values[2]
        else:
            a[...] = values
"#;

/// The reference ncgen's netCDF-4 file of [`INPUT`] in `dir`.
fn input(dir: &Path) -> PathBuf {
    let cdl = dir.join("in.cdl");
    std::fs::write(&cdl, INPUT).unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.join("in.nc");
    let made = run_reference(
        "ncgen",
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            nc.as_os_str(),
            cdl.as_os_str(),
        ],
    );
    ok("ncgen", &made);
    nc
}

/// zarr-python with netCDF4, or `None` after a skip (a failure in CI).
fn python() -> Option<PathBuf> {
    let py = zarr_python()?;
    if run(Command::new(&py).args(["-c", "import netCDF4"])).code != Some(0) {
        skip("netCDF4 in the project virtualenv .venv");
        return None;
    }
    Some(py)
}

/// Runs [`PY`] with `args` in `dir`; its JSON output, if any.
fn py(python: &Path, dir: &Path, args: &[&str]) -> Value {
    let done = run(Command::new(python)
        .current_dir(dir)
        .arg("-c")
        .arg(PY)
        .args(args));
    assert_eq!(done.code, Some(0), "python {args:?}: {}", done.stderr);
    serde_json::from_str(&done.stdout).unwrap_or(Value::Null)
}

/// A version 3 store URL for `dir/name`.
fn v3(dir: &Path, name: &str) -> String {
    format!("file://{}#mode=zarr,v3", dir.join(name).display())
}

/// Our nccopy with `options`, which must succeed.
fn copy(options: &[&str], source: &Path, target: &str) {
    let done = Test::ours("nccopy")
        .args(options)
        .arg(source)
        .arg(target)
        .run();
    assert_eq!(done.code, Some(0), "nccopy {options:?}: {}", done.stderr);
}

/// The `zarr.json` of the array `name` of the store `store`.
fn array_meta(store: &Path, name: &str) -> Value {
    let text = std::fs::read_to_string(store.join(name).join("zarr.json"))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The data section of `ncdump -v VAR` of `path`, by `dump` (ours or the reference).
fn data_of(dump: impl Fn(&[&str]) -> crate::support::Run, path: &str, var: &str) -> String {
    let done = dump(&["-v", var, path]);
    assert_eq!(
        done.code,
        Some(0),
        "ncdump -v {var} {path}: {}",
        done.stderr
    );
    from_line(&done.stdout, "data:").to_string()
}

/// Our ncdump of `store` shows each variable's data as the reference ncdump shows the
/// input's.
fn assert_same_data(store: &str, input: &Path) {
    let input = input.to_string_lossy();
    for var in VARIABLES {
        let theirs = data_of(|a| run_reference("ncdump", a), &input, var);
        let ours = data_of(|a| Test::ours("ncdump").args(a).run(), store, var);
        assert!(!theirs.is_empty(), "no data of {var}");
        assert_eq!(theirs, ours, "{var} of {store}");
    }
}

/// The index at the end of a shard of `count` inner chunks: offset and length of each.
fn shard_index(shard: &Path, count: usize) -> Vec<(u64, u64)> {
    let bytes = std::fs::read(shard).unwrap_or_else(|e| panic!("{shard:?}: {e}"));
    // 16 bytes per inner chunk, then the crc32c checksum's 4.
    let index = &bytes[bytes.len() - 16 * count - 4..bytes.len() - 4];
    index
        .chunks_exact(16)
        .map(|e| {
            let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
            (word(&e[..8]), word(&e[8..]))
        })
        .collect()
}

#[test]
fn nccopy_shards_a_netcdf4_file_that_zarr_python_and_ncdump_read_back() {
    let Some(python) = python() else {
        return;
    };
    let dir = scratch();
    let nc = input(dir.path());
    let url = v3(dir.path(), "out.zarr");
    copy(
        &[
            "-F",
            "*,zstd,3",
            "--shards",
            "*:1K",
            "--shards",
            "temp:2,2,2",
        ],
        &nc,
        &url,
    );
    let store = dir.path().join("out.zarr");

    // temp: shards of 2 x 4 x 6, inner chunks 1 x 2 x 3 encoded with zstd; the index
    // is bytes then crc32c, at the end.
    let meta = array_meta(&store, "temp");
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shape"],
        serde_json::json!([2, 4, 6])
    );
    let codec = &meta["codecs"][0];
    assert_eq!(codec["name"], "sharding_indexed", "{meta}");
    let config = &codec["configuration"];
    assert_eq!(config["chunk_shape"], serde_json::json!([1, 2, 3]));
    assert_eq!(config["codecs"][1]["name"], "zstd", "{config}");
    assert_eq!(config["index_codecs"][0]["name"], "bytes");
    assert_eq!(
        config["index_codecs"][0]["configuration"]["endian"],
        "little"
    );
    assert_eq!(config["index_codecs"][1]["name"], "crc32c");
    assert_eq!(config["index_location"], "end");

    // zarr-python reads every variable equal to the input.
    let read = py(
        &python,
        dir.path(),
        &["compare", "out.zarr", &nc.to_string_lossy()],
    );
    for var in VARIABLES {
        assert_eq!(read[var]["equal"], true, "{var}: {read}");
    }
    assert_eq!(read["temp"]["shards"], serde_json::json!([2, 4, 6]));
    assert_eq!(read["temp"]["chunks"], serde_json::json!([1, 2, 3]));

    // Our ncdump reads the same data as the reference ncdump reads from the input.
    assert_same_data(&url, &nc);

    // ncdump -hs shows the inner chunks and their filter, as of a netCDF-4 file's
    // chunks; nccopy to netCDF-4 keeps them (-M 0: chunks this small are kept too).
    let lines = [
        "temp:_ChunkSizes = 1, 2, 3 ;",
        "temp:_Filter = \"32015,3\" ;",
    ];
    let header = Test::ours("ncdump").args(["-hs", &url]).run();
    let copied = dir.path().join("copied.nc");
    copy(&["-M", "0"], Path::new(&url), &copied.to_string_lossy());
    let theirs = run_reference("ncdump", ["-hs".as_ref(), copied.as_os_str()]);
    for line in lines {
        assert!(header.stdout.contains(line), "{line}: {}", header.stdout);
        assert!(theirs.stdout.contains(line), "{line}: {}", theirs.stdout);
    }
    // Record 1's inner chunks are not stored: the copy decodes and encodes, so that
    // every chunk is written, and reads as the input.
    let copied_data = |a: &[&str]| Test::ours("ncdump").args(a).run();
    for var in VARIABLES {
        assert_eq!(
            data_of(copied_data, &copied.to_string_lossy(), var),
            data_of(|a| run_reference("ncdump", a), &nc.to_string_lossy(), var),
            "{var}"
        );
    }

    // Record 1 holds only fill values: its inner chunks are left out of the index
    // (offset and length all ones), record 0's are stored. The shard of records 2 and 3
    // (past the end) has record 3's missing.
    let first = shard_index(&store.join("temp/c/0/0/0"), 8);
    assert!(first[..4].iter().all(|e| e.0 != u64::MAX), "{first:?}");
    assert!(
        first[4..].iter().all(|e| *e == (u64::MAX, u64::MAX)),
        "{first:?}"
    );
    let last = shard_index(&store.join("temp/c/1/0/0"), 8);
    assert!(last[..4].iter().all(|e| e.0 != u64::MAX), "{last:?}");
    assert!(
        last[4..].iter().all(|e| *e == (u64::MAX, u64::MAX)),
        "{last:?}"
    );
}

#[test]
fn the_shards_are_the_same_whatever_the_number_of_threads() {
    let dir = scratch();
    let nc = input(dir.path());
    let spec = ["-F", "*,zstd,3", "--shards", "temp:3,2,2"];
    copy(
        &[&spec[..], &["-j", "1"]].concat(),
        &nc,
        &v3(dir.path(), "one.zarr"),
    );
    copy(
        &[&spec[..], &["-j", "3"]].concat(),
        &nc,
        &v3(dir.path(), "three.zarr"),
    );
    // temp's shards are 3 x 4 x 6 of 12 inner chunks each: 4 shards.
    let shards = [
        "temp/c/0/0/0",
        "temp/c/0/1/0",
        "temp/c/0/0/1",
        "temp/c/0/1/1",
    ];
    for shard in shards {
        let read = |store: &str| {
            std::fs::read(dir.path().join(store).join(shard))
                .unwrap_or_else(|e| panic!("{store}/{shard}: {e}"))
        };
        assert_eq!(read("one.zarr"), read("three.zarr"), "{shard}");
    }
}

#[test]
fn a_store_zarr_python_shards_is_read_and_copied_by_ours() {
    let Some(python) = python() else {
        return;
    };
    let dir = scratch();
    let nc = input(dir.path());
    py(
        &python,
        dir.path(),
        &["write", "py.zarr", &nc.to_string_lossy()],
    );
    let store = dir.path().join("py.zarr");
    assert_eq!(
        array_meta(&store, "temp")["codecs"][0]["name"],
        "sharding_indexed"
    );
    assert_same_data(&store.to_string_lossy(), &nc);
    // Copied to a netCDF-4 file, and to shards of our own (inner chunks decoded and
    // encoded again), the data stay the same.
    let copied = dir.path().join("copied.nc");
    copy(&[], &store, &copied.to_string_lossy());
    assert_same_data(&copied.to_string_lossy(), &nc);
    let resharded = v3(dir.path(), "again.zarr");
    copy(&["-M", "0", "--shards", "*:100K"], &store, &resharded);
    assert_same_data(&resharded, &nc);
    // The inner chunks and their codec are kept (-M 0: chunks this small are kept too).
    let again = array_meta(&dir.path().join("again.zarr"), "temp");
    let config = &again["codecs"][0]["configuration"];
    assert_eq!(
        config["chunk_shape"],
        serde_json::json!([1, 2, 3]),
        "{again}"
    );
    assert_eq!(config["codecs"][1]["name"], "zstd", "{again}");
}

#[test]
fn a_size_fills_shards_from_the_last_dimension_and_none_opts_out() {
    let dir = scratch();
    let nc = input(dir.path());
    // Inner chunks of temp are 24 bytes: 0.2K holds 8 of them; along lon there are 3,
    // then along lat 2 more fit (3 x 2 = 6 chunks, 144 bytes), and no more dimension.
    copy(
        &["--shards", "*:0.2K", "--shards", "lat:none"],
        &nc,
        &v3(dir.path(), "sized.zarr"),
    );
    let store = dir.path().join("sized.zarr");
    let temp = array_meta(&store, "temp");
    assert_eq!(
        temp["chunk_grid"]["configuration"]["chunk_shape"],
        serde_json::json!([1, 4, 9])
    );
    assert_eq!(temp["codecs"][0]["name"], "sharding_indexed");
    let lat = array_meta(&store, "lat");
    assert_eq!(lat["codecs"][0]["name"], "bytes", "{lat}");
    // Scalars are never sharded.
    let scalar = array_meta(&store, "scalar");
    assert_eq!(scalar["codecs"][0]["name"], "bytes", "{scalar}");
    assert_same_data(&v3(dir.path(), "sized.zarr"), &nc);
}

#[test]
fn shards_need_a_zarr_version_3_output() {
    let dir = scratch();
    let nc = input(dir.path());
    let outputs = [
        dir.path().join("plain.zarr").to_string_lossy().into_owned(),
        format!(
            "file://{}#mode=nczarr,file",
            dir.path().join("nc.zarr").display()
        ),
        format!(
            "file://{}#mode=zarr,v2",
            dir.path().join("v2.zarr").display()
        ),
        dir.path().join("out.nc").to_string_lossy().into_owned(),
    ];
    for output in outputs {
        let done = Test::ours("nccopy")
            .args(["--shards", "*:1M"])
            .arg(&nc)
            .arg(&output)
            .run();
        assert_eq!(done.code, Some(2), "{output}: {}", done.stderr);
        assert!(
            done.stderr.contains("Zarr version 3 feature") && done.stderr.contains("mode=zarr,v3"),
            "{output}: {}",
            done.stderr
        );
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(left.len(), 2, "{left:?}");
}

#[test]
fn bad_shard_specs_are_refused_before_anything_is_written() {
    let dir = scratch();
    let nc = input(dir.path());
    // Usage errors (exit 2), then what only the input tells (exit 1).
    let cases: [(&str, i32, &str); 6] = [
        ("*:4,4", 2, "`*` takes a size"),
        ("temp:0,1,1", 2, "not a number of inner chunks"),
        ("temp:x", 2, "not a number of inner chunks"),
        ("nosuch:2", 1, "the input has no variable /nosuch"),
        ("temp:2,2", 1, "gives 2 chunk counts for its 3 dimensions"),
        ("big:64,1", 1, "256 MiB"),
    ];
    let big = dir.path().join("big.nc");
    let cdl = dir.path().join("big.cdl");
    // 1 GB declared, nothing written: a shard of 64 of its 8 MB chunks is 512 MB.
    std::fs::write(
        &cdl,
        "netcdf big {\ndimensions:\n  y = 1000 ;\n  x = 1000000 ;\nvariables:\n  \
         byte big(y, x) ;\n    big:_ChunkSizes = 8, 1000000 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let made = run_reference(
        "ncgen",
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            big.as_os_str(),
            cdl.as_os_str(),
        ],
    );
    ok("made", &made);
    for (spec, code, message) in cases {
        let source = if spec.starts_with("big") { &big } else { &nc };
        let out = dir.path().join("out.zarr");
        let done = Test::ours("nccopy")
            .args(["--shards", spec])
            .arg(source)
            .arg(v3(dir.path(), "out.zarr"))
            .run();
        assert_eq!(done.code, Some(code), "{spec}: {}", done.stderr);
        assert!(done.stderr.contains(message), "{spec}: {}", done.stderr);
        assert!(!out.exists(), "{spec}: an output was left");
    }
}

/// `python -c STORED COMMAND DIR`: `write` makes `DIR/s.zarr`, an array `v` of doubles
/// (8 x 4000, inner chunks 2 x 2000, shards 4 x 4000) every inner chunk written, zstd at
/// level 19 while its metadata says level 3 (a copy that decoded and encoded the chunks
/// would hold other bytes); `compare` prints, as JSON, for `DIR/stored.nc` and
/// `DIR/recoded.nc`: whether each HDF5 chunk of `v` holds exactly the bytes of the
/// store's inner chunk at the same place, and whether the values are the same.
const STORED: &str = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np, zarr, h5py, hdf5plugin

command, dir = sys.argv[1:3]
store = dir + "/s.zarr"
values = np.sin(np.arange(8 * 4000).reshape(8, 4000) / 300.0) * 100
if command == "write":
    g = zarr.open_group(store, mode="w", zarr_format=3)
    a = g.create_array("v", shape=values.shape, chunks=(2, 2000), shards=(4, 4000),
                       dtype="f8", fill_value=-1.0, dimension_names=["y", "x"],
                       compressors=zarr.codecs.ZstdCodec(level=19))
    a[...] = values
    path = store + "/v/zarr.json"
    meta = json.load(open(path))
    text = json.dumps(meta).replace('"level": 19', '"level": 3')
    assert text != json.dumps(meta)
    open(path, "w").write(text)
else:
    def inner(offset):
        shard = [offset[0] // 4, offset[1] // 4000]
        position = (offset[0] % 4) // 2 * 2 + (offset[1] % 4000) // 2000
        data = open(f"{store}/v/c/{shard[0]}/{shard[1]}", "rb").read()
        index = np.frombuffer(data[-4 - 16 * 4:-4], "<u8").reshape(4, 2)
        start, length = (int(n) for n in index[position])
        return data[start:start + length]
    out = {}
    for name in ("stored", "recoded"):
        with h5py.File(f"{dir}/{name}.nc", "r") as f:
            d = f["v"]
            same = []
            for i in range(d.id.get_num_chunks()):
                offset = d.id.get_chunk_info(i).chunk_offset
                same.append(d.id.read_direct_chunk(offset)[1] == inner(offset))
            out[name] = {"chunks": len(same), "all_same": all(same), "values": bool(np.array_equal(d[...], values))}
    print(json.dumps(out))
"#;

#[test]
fn the_inner_chunks_of_a_sharded_store_are_copied_to_netcdf4_as_they_are() {
    let Some(python) = zarr_python() else {
        return;
    };
    if run(Command::new(&python).args(["-c", "import h5py, hdf5plugin"])).code != Some(0) {
        skip("h5py and hdf5plugin in the project virtualenv .venv");
        return;
    }
    let dir = scratch();
    let here = dir.path().to_string_lossy().into_owned();
    let script = |command: &str| {
        let done = run(Command::new(&python).args(["-c", STORED, command, &here]));
        assert_eq!(done.code, Some(0), "python {command}: {}", done.stderr);
        done.stdout
    };
    script("write");
    let store = dir.path().join("s.zarr");
    // -M 0: chunks are kept whatever their size.
    copy(
        &["-M", "0"],
        &store,
        &dir.path().join("stored.nc").to_string_lossy(),
    );
    copy(
        &["-M", "0", "--recode"],
        &store,
        &dir.path().join("recoded.nc").to_string_lossy(),
    );
    let result: Value = serde_json::from_str(&script("compare")).unwrap_or(Value::Null);
    assert_eq!(result["stored"]["chunks"], 8, "{result}");
    assert_eq!(result["stored"]["all_same"], true, "{result}");
    assert_eq!(result["stored"]["values"], true, "{result}");
    // Decoded and encoded again, at the level the metadata gives: other bytes.
    assert_eq!(result["recoded"]["all_same"], false, "{result}");
    assert_eq!(result["recoded"]["values"], true, "{result}");
}

#[test]
fn shards_under_a_compressor_of_their_own_are_read() {
    // zarr-python given a sharding serializer adds its default compressor after it
    // (`[sharding_indexed, zstd]`): the shard, its index included, is compressed whole.
    // Before: read as the raw shard, "codec crc32c: corrupt chunk" (with the index at
    // the end or at the start).
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let program = r#"
import json, warnings, numpy as np, zarr
from zarr.codecs import ShardingCodec
warnings.simplefilter("ignore")
for where in ("start", "end"):
    a = zarr.create_array(f"{where}.zarr", shape=(5, 8), chunks=(2, 4), dtype="i4",
        dimension_names=["y", "x"], fill_value=-1,
        serializer=ShardingCodec(chunk_shape=(1, 2), index_location=where))
    a[:4, :] = np.arange(32).reshape(4, 8)
    names = [c["name"] for c in json.load(open(f"{where}.zarr/zarr.json"))["codecs"]]
    print(where, names)
"#;
    let made = run(Command::new(&python)
        .args(["-c", program])
        .current_dir(dir.path()));
    ok("zarr-python", &made);
    assert!(
        made.stdout.contains("start ['sharding_indexed', 'zstd']"),
        "{}",
        made.stdout
    );
    for store in ["start.zarr", "end.zarr"] {
        let path = dir.path().join(store);
        let dump = Test::ours("ncdump").arg(&path).run();
        assert_eq!(dump.code, Some(0), "{store}: {}", dump.stderr);
        let values: Vec<String> = (0..32).map(|v| v.to_string()).collect();
        // The last row was never written: zarr-python's fill value (-1; version 3 has no
        // `_FillValue` convention of `fill_value`).
        let expected = format!("{}, {} ;", values.join(", "), ["-1"; 8].join(", "));
        let flat = dump.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&expected), "{store}: {}", dump.stdout);
        let nc = dir.path().join(format!("{store}.nc"));
        let copied = Test::ours("nccopy").arg(&path).arg(&nc).run();
        assert_eq!(copied.code, Some(0), "{store}: {}", copied.stderr);
        let back = Test::ours("ncdump").arg(&nc).run();
        let back = back.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(back.contains(&expected), "{store}: {back}");
    }
}
