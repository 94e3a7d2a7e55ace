//! Zarr stores written by zarr-python 3 with the numcodecs codecs that have no HDF5
//! filter (gzip, crc32c, adler32, delta, fixedscaleoffset, bitround, quantize), in Zarr
//! versions 2 and 3: ncdump prints the values zarr-python reads back, `ncdump -hs`
//! shows the codecs in `_Codecs` and no `_Filter`, nccopy to netCDF-4 decodes them, and
//! a damaged checksum is refused with a message that says so.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::support::{ok, run, scratch, zarr_python, Test};

/// Writes, under `argv[1]`, one group store per codec and Zarr version (`v2-gzip.zarr`,
/// `v3-gzip.zarr`, ...) holding arrays `i` (int32) and/or `d` (float64) of 5 values in
/// chunks of 3 (the second partial), and prints for each array `STORE VAR` then the CDL
/// data line ncdump prints for the values zarr-python reads back.
const PY: &str = r#"
import sys, os, warnings
warnings.simplefilter("ignore")
import numpy as np, zarr
import numcodecs as nc
import zarr.codecs as zc
import zarr.codecs.numcodecs as znc

out = sys.argv[1]
ints = np.array([-3, 32000, -32000, 4, 25], dtype="<i4")
floats = np.array([-1.5, 0.1, 3.14159265358979, 250.75, -7.25], dtype="<f8")

# codec: (v2 filters, v2 compressor, v3 filters, v3 compressors, dtypes)
CODECS = {
    "gzip": (None, nc.GZip(4), None, zc.GzipCodec(level=4), "id"),
    "crc32c": (None, nc.CRC32C(), None, [zc.GzipCodec(level=1), zc.Crc32cCodec()], "id"),
    "adler32": (None, nc.Adler32(), None, znc.Adler32(), "id"),
    "delta-i": ([nc.Delta("<i4", "<i2")], nc.Zlib(1), [znc.Delta(dtype="<i4", astype="<i2")], None, "i"),
    "delta-d": ([nc.Delta("<f8")], None, [znc.Delta(dtype="<f8")], None, "d"),
    "fixedscaleoffset-i": ([nc.FixedScaleOffset(offset=3, scale=0.5, dtype="<i4", astype="<i4")], None,
                           [znc.FixedScaleOffset(offset=3, scale=0.5, dtype="<i4", astype="<i4")], None, "i"),
    "fixedscaleoffset-d": ([nc.FixedScaleOffset(offset=1, scale=100, dtype="<f8", astype="<i2")], None,
                           [znc.FixedScaleOffset(offset=1, scale=100, dtype="<f8", astype="<i2")], None, "d"),
    "bitround": ([nc.BitRound(10)], None, [znc.BitRound(keepbits=10)], None, "d"),
    "quantize": ([nc.Quantize(3, "<f8", "<f4")], None, [znc.Quantize(digits=3, dtype="<f8")], None, "d"),
}

def cdl(values):
    if values.dtype.kind == "f":
        return ", ".join("%.15g" % v for v in values)
    return ", ".join(str(int(v)) for v in values)

for fmt in (2, 3):
    for name, (f2, c2, f3, c3, kinds) in CODECS.items():
        store = f"v{fmt}-{name}.zarr"
        group = zarr.open_group(os.path.join(out, store), mode="w", zarr_format=fmt)
        for kind in kinds:
            data = ints if kind == "i" else floats
            filters, compressors = (f2, c2) if fmt == 2 else (f3, c3)
            extra = {"dimension_names": ["x"]} if fmt == 3 else {}
            array = group.create_array(kind, shape=data.shape, chunks=(3,), dtype=data.dtype,
                                       filters=filters, compressors=compressors, **extra)
            if fmt == 2:
                array.attrs["_ARRAY_DIMENSIONS"] = ["x"]
            array[:] = data
            back = zarr.open_array(os.path.join(out, store, kind), mode="r")[:]
            print(f"{store}\t{kind}\t {kind} = {cdl(back)} ;")
"#;

/// The stores the script made, each with its expected data lines.
fn make_stores(python: &Path, dir: &Path) -> BTreeMap<String, Vec<String>> {
    let made = run(Command::new(python).args(["-c", PY]).arg(dir));
    ok("zarr-python", &made);
    let mut stores: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in made.stdout.lines() {
        let mut fields = line.splitn(3, '\t');
        let (Some(store), Some(_), Some(expected)) = (fields.next(), fields.next(), fields.next())
        else {
            panic!("unexpected line from the script: {line:?}");
        };
        stores
            .entry(store.to_string())
            .or_default()
            .push(expected.to_string());
    }
    assert_eq!(stores.len(), 18, "{}", made.stdout);
    stores
}

fn ncdump(args: &[&str], target: &Path) -> String {
    let done = Test::ours("ncdump").args(args).arg(target).run();
    assert_eq!(
        done.code,
        Some(0),
        "ncdump {args:?} {}: {}",
        target.display(),
        done.stderr
    );
    done.stdout
}

#[test]
fn ncdump_prints_the_values_zarr_python_wrote_with_each_codec() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    for (store, lines) in make_stores(&python, dir.path()) {
        let path = dir.path().join(&store);
        let dump = ncdump(&[], &path);
        for line in &lines {
            assert!(
                dump.lines().any(|l| l == line),
                "{store}: expected the line {line:?} in\n{dump}"
            );
        }
        // The codecs are shown as stored, and no HDF5 filter is claimed for them.
        let header = ncdump(&["-hs"], &path);
        let codec = store[3..].trim_end_matches(".zarr");
        let id = codec.split('-').next().unwrap_or(codec);
        assert!(
            header
                .lines()
                .any(|l| l.contains(":_Codecs = ")
                    && l.contains(&format!("\\\"id\\\": \\\"{id}\\\""))),
            "{store}: no _Codecs for {id} in\n{header}"
        );
        if !header.contains("zlib") {
            assert!(!header.contains("_Filter"), "{store}:\n{header}");
        }
    }
}

#[test]
fn nccopy_decodes_each_codec_into_netcdf4_and_zarr() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    for (store, lines) in make_stores(&python, dir.path()) {
        let input = dir.path().join(&store);
        for output in [format!("{store}.nc"), format!("copy-{store}")] {
            let output = dir.path().join(output);
            let mut copy = Test::ours("nccopy");
            if output.extension().is_some_and(|e| e == "nc") {
                copy = copy.args(["-k", "nc4"]);
            }
            let done = copy.arg(&input).arg(&output).run();
            assert_eq!(done.code, Some(0), "nccopy {store}: {}", done.stderr);
            let dump = ncdump(&["-s"], &output);
            for line in &lines {
                assert!(
                    dump.lines().any(|l| l == line),
                    "{store}: {line:?} in\n{dump}"
                );
            }
            for id in [
                "gzip",
                "crc32c",
                "adler32",
                "delta",
                "fixedscaleoffset",
                "bitround",
            ] {
                assert!(
                    !dump.contains(&format!("\\\"{id}\\\"")),
                    "{store}: {id} kept:\n{dump}"
                );
            }
        }
    }
}

#[test]
fn a_damaged_checksum_is_refused_clearly() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    make_stores(&python, dir.path());
    for (store, chunk, codec) in [
        ("v2-crc32c.zarr", "i/0", "crc32c"),
        ("v3-crc32c.zarr", "i/c/0", "crc32c"),
        ("v2-adler32.zarr", "d/1", "adler32"),
        ("v3-adler32.zarr", "d/c/1", "adler32"),
    ] {
        let path = dir.path().join(store).join(chunk);
        let mut bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        let done = Test::ours("ncdump").arg(dir.path().join(store)).run();
        assert_ne!(
            done.code,
            Some(0),
            "{store}: damaged chunk read:\n{}",
            done.stdout
        );
        assert!(
            done.stderr.contains(&format!("{codec} checksum")),
            "{store}: {}",
            done.stderr
        );
        // Truncated below the checksum's size.
        fs::write(&path, [1u8, 2]).unwrap_or_else(|e| panic!("{e}"));
        let done = Test::ours("ncdump").arg(dir.path().join(store)).run();
        assert_eq!(done.code, Some(1), "{store}: truncated chunk read");
        assert!(
            done.stderr.contains(&format!(
                "codec {codec}: corrupt chunk: a chunk shorter than"
            )),
            "{store}: {}",
            done.stderr
        );
    }
}

/// A variable large enough to keep its chunks, through delta then zlib: its chunk files
/// are not zlib streams of its values, so nccopy decodes them rather than moving them
/// into the output as deflate chunks.
#[test]
fn chunks_through_a_codec_without_a_filter_are_never_moved_as_stored() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let store = dir.path().join("big.zarr");
    let program = r#"
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, zarr, numcodecs as nc
g = zarr.open_group(sys.argv[1], mode="w", zarr_format=2)
a = g.create_array("v", shape=(20000,), chunks=(10000,), dtype="<i4",
                   filters=[nc.Delta("<i4")], compressors=nc.Zlib(1))
a.attrs["_ARRAY_DIMENSIONS"] = ["x"]
a[:] = np.arange(20000) * 3 + 1
"#;
    let made = run(Command::new(&python).args(["-c", program]).arg(&store));
    ok("zarr-python", &made);
    for output in ["big.nc", "copy.zarr"] {
        let output = dir.path().join(output);
        let mut copy = Test::ours("nccopy");
        if output.extension().is_some_and(|e| e == "nc") {
            copy = copy.args(["-k", "nc4"]);
        }
        let done = copy.arg(&store).arg(&output).run();
        ok("nccopy", &done);
        let dump = ncdump(&["-v", "v"], &output);
        assert!(
            dump.contains(" v = 1, 4, 7, 10, 13,") && dump.contains(" 59995, 59998 ;"),
            "{}: {}",
            output.display(),
            &dump[dump.len().saturating_sub(400)..]
        );
    }
}

/// Array codecs may store values wider than they decode to (delta from int8 to int64,
/// quantize from float32 to float64): such chunk files are larger than the chunk, and
/// are read all the same.
#[test]
fn chunks_stored_wider_than_they_decode_are_read() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let store = dir.path().join("wide.zarr");
    let program = r#"
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, zarr, numcodecs as nc
g = zarr.open_group(sys.argv[1], mode="w", zarr_format=2)
d = g.create_array("d", shape=(2000,), chunks=(1000,), dtype="|i1",
                   filters=[nc.Delta("|i1", "<i8")], compressors=None)
d.attrs["_ARRAY_DIMENSIONS"] = ["x"]
d[:] = np.arange(2000) % 100 - 50
q = g.create_array("q", shape=(2000,), chunks=(1000,), dtype="<f4",
                   filters=[nc.Quantize(3, "<f4", "<f8")], compressors=None)
q.attrs["_ARRAY_DIMENSIONS"] = ["x"]
q[:] = np.arange(2000) / 8
print(", ".join(str(v) for v in d[-3:]), ", ".join("%.7g" % v for v in q[-3:]))
"#;
    let made = run(Command::new(&python).args(["-c", program]).arg(&store));
    ok("zarr-python", &made);
    assert_eq!(made.stdout.trim(), "47, 48, 49 249.625, 249.75, 249.875");
    let dump = ncdump(&[], &store);
    for tail in [" 47, 48, 49 ;", " 249.625, 249.75, 249.875 ;"] {
        assert!(
            dump.contains(tail),
            "{tail} in {}",
            &dump[dump.len() - 300..]
        );
    }
}
