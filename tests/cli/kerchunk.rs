//! `nccopy --kerchunk`: virtual references to the chunks of netCDF-4 files, read by
//! xarray through fsspec's reference file system, and compared chunk for chunk with
//! kerchunk's own (`SingleHdf5ToZarr`, `MultiZarrToZarr`). Python runs from the
//! project's .venv (scripts/setup: xarray, netCDF4, kerchunk); a missing .venv fails the
//! tests in CI and is a visible skip elsewhere.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{ok, run, scratch, skip, Test};

/// The Python side: `python -c PY read REFS FILE...` opens the references with xarray
/// and checks every variable against the files (combined along `time`);
/// `python -c PY kerchunk REFS FILE...` makes kerchunk's references of the files and
/// prints every chunk key whose file, offset or length differs from ours, or that only
/// one side has. Both print `ok` last when all is well.
const PY: &str = r#"
import json, sys
import numpy as np, xarray as xr
mode, refs_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
ours = json.load(open(refs_path))
if mode == "read":
    ds = xr.open_dataset("reference://", engine="zarr", backend_kwargs={"storage_options": {"fo": ours}, "consolidated": False})
    parts = [xr.open_dataset(f) for f in files]
    for name in ds.variables:
        if "time" in parts[0][name].dims and len(parts) > 1:
            want = np.concatenate([p[name].values for p in parts], axis=parts[0][name].dims.index("time"))
        else:
            want = parts[0][name].values
        got = ds[name].values
        assert got.shape == want.shape, (name, got.shape, want.shape)
        assert np.array_equal(got, want, equal_nan=True), (name, got, want)
    print(sorted(ds.variables))
else:
    from kerchunk.hdf import SingleHdf5ToZarr
    from kerchunk.combine import MultiZarrToZarr
    singles = [SingleHdf5ToZarr(f, f, inline_threshold=0).translate() for f in files]
    theirs = singles[0] if len(singles) == 1 else MultiZarrToZarr(singles, concat_dims=["time"], identical_dims=["lat", "lon", "n"], inline_threshold=0).translate()
    a = {k: v for k, v in ours["refs"].items() if isinstance(v, list)}
    b = {k: v for k, v in theirs["refs"].items() if isinstance(v, list)}
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("differs", k, a.get(k), b.get(k))
    print(len(a), "chunks")
    if "z/.zarray" in theirs["refs"] and not any(k.startswith("z/0") for k in theirs["refs"]):
        print("kerchunk references no chunk of the compact z")
print("ok")
"#;

/// The project virtualenv's python with xarray, netCDF4 and kerchunk, or `None` after a
/// skip (a failure in CI).
fn kerchunk_python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    let check = "import xarray, netCDF4, kerchunk.hdf, kerchunk.combine, fsspec";
    if python.is_file() && run(Command::new(&python).args(["-c", check])).code == Some(0) {
        Some(python)
    } else {
        skip("the project virtualenv .venv with xarray, netCDF4 and kerchunk");
        None
    }
}

/// A netCDF-4 file of 4 time steps from `first`: a shuffled, deflated 3-d variable
/// chunked 2 along time, coordinates, a contiguous variable and a compact one.
fn input(dir: &Path, name: &str, first: i32) -> PathBuf {
    input_of(dir, name, first, 4)
}

/// [`input`] with `steps` time steps.
fn input_of(dir: &Path, name: &str, first: i32, steps: i32) -> PathBuf {
    let times: Vec<String> = (first..first + steps).map(|t| t.to_string()).collect();
    let values: Vec<String> = (0..steps * 6 * 8)
        .map(|i| (i + first * 100).to_string())
        .collect();
    let cdl = format!(
        "netcdf {name} {{\n\
         dimensions:\n  time = UNLIMITED ;\n  lat = 6 ;\n  lon = 8 ;\n\
         variables:\n\
         \x20 double time(time) ;\n    time:units = \"days since 2000-01-01\" ;\n\
         \x20 float lat(lat) ;\n  float lon(lon) ;\n\
         \x20 float t(time, lat, lon) ;\n    t:_FillValue = -999.f ;\n    t:long_name = \"temperature\" ;\n\
         \x20   t:_ChunkSizes = 2, 3, 4 ;\n    t:_DeflateLevel = 4 ;\n    t:_Shuffle = \"true\" ;\n\
         \x20 int n(lat) ;\n    n:_Storage = \"contiguous\" ;\n\
         \x20 short z(lat) ;\n    z:_Storage = \"compact\" ;\n\
         \x20 :title = \"kerchunk test\" ;\n\
         data:\n  time = {} ;\n  lat = 0, 1, 2, 3, 4, 5 ;\n  lon = 0, 1, 2, 3, 4, 5, 6, 7 ;\n\
         \x20 t = {} ;\n  n = 1, 2, 3, 4, 5, 6 ;\n  z = 1, 2, 3, 4, 5, 6 ;\n}}\n",
        times.join(", "),
        values.join(", "),
    );
    let cdl_path = dir.join(format!("{name}.cdl"));
    let nc = dir.join(format!("{name}.nc"));
    std::fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("cannot write {cdl_path:?}: {e}"));
    let made = Test::ours("ncgen")
        .arg("-4")
        .arg("-o")
        .arg(&nc)
        .arg(&cdl_path)
        .run();
    ok("ncgen", &made);
    nc
}

fn python(python: &Path, mode: &str, refs: &Path, files: &[&Path]) -> String {
    let done = run(Command::new(python)
        .arg("-c")
        .arg(PY)
        .arg(mode)
        .arg(refs)
        .args(files));
    assert_eq!(
        done.code,
        Some(0),
        "python {mode}: {}\n{}",
        done.stdout,
        done.stderr
    );
    done.stdout
}

#[test]
fn xarray_reads_our_references_to_one_file_and_they_equal_kerchunks() {
    let Some(py) = kerchunk_python() else {
        return;
    };
    let dir = scratch();
    let nc = input(dir.path(), "one", 0);
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .arg(&nc)
        .run();
    ok("nccopy --kerchunk", &done);
    assert!(
        done.stderr.contains(
            "not referenced: /z: compact layout: its data lies in the object header; its \
             values are inlined instead"
        ),
        "the compact variable is named: {}",
        done.stderr
    );
    let read = python(&py, "read", &refs, &[&nc]);
    assert!(
        read.contains("'n'") && read.contains("'t'") && read.contains("'z'"),
        "{read}"
    );
    let compared = python(&py, "kerchunk", &refs, &[&nc]);
    assert!(!compared.contains("differs"), "{compared}");
    assert!(compared.contains("12 chunks"), "{compared}");
    // What docs/nccopy.md says of kerchunk: the compact variable has no chunk there.
    assert!(
        compared.contains("kerchunk references no chunk of the compact z"),
        "{compared}"
    );
}

#[test]
fn references_combine_several_files_in_time_order_as_kerchunk_does() {
    // The files are named out of order: they are combined in the order of their time
    // coordinate, as MultiZarrToZarr combines them. Before: exit 0 with time 0…3, 8…11,
    // 4…7 (the order the files were named in).
    let Some(py) = kerchunk_python() else {
        return;
    };
    let dir = scratch();
    let files: Vec<PathBuf> = (0..3)
        .map(|k| input(dir.path(), &format!("part{k}"), k * 4))
        .collect();
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .args(["--concat", "time"])
        .args([&files[0], &files[2], &files[1]])
        .run();
    assert_eq!(
        done.code,
        Some(0),
        "nccopy --kerchunk --concat: {}",
        done.stderr
    );
    // Read back against the parts in time order, and against kerchunk's combination.
    let in_order: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    python(&py, "read", &refs, &in_order);
    let compared = python(&py, "kerchunk", &refs, &in_order);
    assert!(!compared.contains("differs"), "{compared}");
}

#[test]
fn files_whose_times_overlap_are_refused_naming_both() {
    let dir = scratch();
    let files = [input(dir.path(), "part0", 0)];
    let overlapping = input(dir.path(), "overlap", 2);
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(dir.path().join("overlap.json"))
        .args(["--concat", "time"])
        .args([&files[0], &overlapping])
        .run();
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("overlap along time (0 to 3, and 2 to 5)")
            && done.stderr.contains("overlap.nc"),
        "{}",
        done.stderr
    );
}

#[test]
fn a_remote_input_is_refused_saying_only_local_files_are_read() {
    // Before: "No such file or directory" for an object that exists.
    for url in ["https://user:secret@127.0.0.1:9/x.nc", "s3://bucket/x.nc"] {
        let done = Test::ours("nccopy")
            .args(["--kerchunk", "refs.json", url])
            .run();
        assert_eq!(done.code, Some(2), "{url}: {}", done.stderr);
        assert!(
            done.stderr
                .contains("--kerchunk reads local netCDF-4 files only")
                && !done.stderr.contains("secret"),
            "{url}: {}",
            done.stderr
        );
    }
}

#[test]
fn several_inputs_without_a_dimension_to_combine_along_are_refused() {
    let dir = scratch();
    let a = input(dir.path(), "a", 0);
    let b = input(dir.path(), "b", 4);
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .arg(&a)
        .arg(&b)
        .run();
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stderr.contains("--concat DIM"), "{}", done.stderr);
    assert!(!refs.exists());
}

#[test]
fn files_whose_chunks_do_not_line_up_along_the_combined_dimension_are_refused() {
    let dir = scratch();
    let a = input_of(dir.path(), "a", 0, 3);
    let b = input_of(dir.path(), "b", 3, 3);
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .args(["--concat", "time"])
        .arg(&a)
        .arg(&b)
        .run();
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("b.nc: variable /t: the file starts at 3")
            && done.stderr.contains("chunk length 2"),
        "{}",
        done.stderr
    );
    assert!(!refs.exists());
}

#[test]
fn variables_without_a_zarr_codec_for_their_bytes_are_named_and_inlined_or_left_out() {
    let dir = scratch();
    let cdl = dir.path().join("s.cdl");
    std::fs::write(
        &cdl,
        "netcdf s {\ndimensions:\n  x = 4 ;\nvariables:\n  int a(x) ;\n    a:_ChunkSizes = 2 ;\n\
         \x20 int b(x) ;\n    b:_ChunkSizes = 2 ;\n  string s(x) ;\n\
         data:\n  a = 1, 2, 3, 4 ;\n  b = 5, 6, 7, 8 ;\n  s = \"p\", \"q\", \"r\", \"s\" ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("cannot write {cdl:?}: {e}"));
    let plain = dir.path().join("plain.nc");
    let made = Test::ours("ncgen")
        .arg("-4")
        .arg("-o")
        .arg(&plain)
        .arg(&cdl)
        .run();
    ok("ncgen", &made);
    // lz4 (32004) frames its chunks differently in HDF5 and in Zarr.
    let nc = dir.path().join("lz4.nc");
    let copied = Test::ours("nccopy")
        .args(["-F", "b,32004"])
        .arg(&plain)
        .arg(&nc)
        .run();
    ok("nccopy -F b,32004", &copied);
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .arg(&nc)
        .run();
    ok("done", &done);
    assert!(
        done.stderr
            .contains("not referenced: /b: filter 32004 (lz4)"),
        "{}",
        done.stderr
    );
    assert!(
        done.stderr
            .contains("not referenced: /s: variable-length strings"),
        "{}",
        done.stderr
    );
    let text = std::fs::read_to_string(&refs).unwrap_or_else(|e| panic!("{refs:?}: {e}"));
    assert!(text.contains("\"a/0\""), "{text}");
    // 5, 6, 7, 8 as little-endian 32-bit integers.
    assert!(
        text.contains("\"b/0\":\"base64:BQAAAAYAAAAHAAAACAAAAA==\""),
        "{text}"
    );
    assert!(!text.contains("\"s/"), "{text}");
}

#[test]
fn a_variable_stored_differently_in_one_file_is_named_and_left_out() {
    let dir = scratch();
    let a = input(dir.path(), "a", 0);
    let b = input(dir.path(), "b", 4);
    let rechunked = dir.path().join("b2.nc");
    let copied = Test::ours("nccopy")
        .args(["-c", "time/2,lat/2,lon/4"])
        .arg(&b)
        .arg(&rechunked)
        .run();
    ok("nccopy -c", &copied);
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .args(["--concat", "time"])
        .arg(&a)
        .arg(&rechunked)
        .run();
    ok("done", &done);
    assert!(
        done.stderr.contains("not referenced: /t: ")
            && done
                .stderr
                .contains("b2.nc: its chunks differ from the first file's"),
        "{}",
        done.stderr
    );
    let text = std::fs::read_to_string(&refs).unwrap_or_else(|e| panic!("{refs:?}: {e}"));
    assert!(!text.contains("\"t/"), "{text}");
}

#[test]
fn options_that_shape_a_copy_are_refused_with_kerchunk() {
    let dir = scratch();
    let a = input(dir.path(), "a", 0);
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .args(["-d", "1"])
        .arg(&a)
        .run();
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("-d changes a copy; --kerchunk copies nothing"),
        "{}",
        done.stderr
    );
    assert!(!refs.exists());
}

/// A netCDF-4 file of a few hundred bytes declaring `time = 400000000` (nothing written):
/// `--concat time` inlines the coordinate's values, so a declared length past the cap
/// (`MAX_INLINED`, 16 MiB of values) is refused, naming the variable, before
/// anything is read. Before: 6.27 GB resident and exit 0 (the bounded helper kills it at
/// 2 GiB).
#[test]
fn a_huge_declared_concat_coordinate_is_refused_before_it_is_read() {
    let dir = scratch();
    let cdl = dir.path().join("big.cdl");
    std::fs::write(
        &cdl,
        "netcdf big {\ndimensions:\n  time = 400000000 ;\nvariables:\n  double time(time) ;\n    \
         time:_ChunkSizes = 1000000 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("big.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&file)
        .arg(&cdl)
        .run();
    ok("made", &made);
    let refs = dir.path().join("refs.json");
    let bounded = crate::bounded::run_ours(
        "nccopy",
        [
            "--kerchunk".as_ref(),
            refs.as_os_str(),
            "--concat".as_ref(),
            "time".as_ref(),
            file.as_os_str(),
            file.as_os_str(),
        ],
    );
    let run = bounded.assert_within(300, 60);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("variable /time"), "{}", run.stderr);
    assert!(run.stderr.contains("16 MiB"), "{}", run.stderr);
    assert!(!refs.exists(), "references written");
}

/// A netCDF-4 file of about 60 KB: 100 variables of 2000×1950 one-element chunks, two
/// chunks written in all. The chunk index is asked how many chunks are stored first
/// (none: nothing to walk), and the cheaper of the two walks (each place of the grid, or
/// each stored chunk by index) is taken. Before: 3.9 million lookups per variable, 42 to
/// 57 s (a plain copy: 1.2 s); beyond the limit here.
#[test]
fn chunk_grids_of_millions_of_places_with_nothing_written_are_not_walked() {
    let dir = scratch();
    let mut cdl =
        String::from("netcdf many {\ndimensions:\n  y = 2000 ;\n  x = 1950 ;\nvariables:\n");
    for i in 0..100 {
        cdl.push_str(&format!(
            "  byte v{i}(y, x) ;\n    v{i}:_ChunkSizes = 1, 1 ;\n"
        ));
    }
    cdl.push_str("data:\n  v0 = 1, 2 ;\n}\n");
    let cdl_path = dir.path().join("many.cdl");
    std::fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("many.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&file)
        .arg(&cdl_path)
        .run();
    ok("made", &made);
    let refs = dir.path().join("refs.json");
    let bounded = crate::bounded::run_ours(
        "nccopy",
        ["--kerchunk".as_ref(), refs.as_os_str(), file.as_os_str()],
    );
    let run = bounded.assert_within(300, 20);
    ok("run", run);
    let text = std::fs::read_to_string(&refs).unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let Some(refs) = json["refs"].as_object() else {
        panic!("no refs: {text}");
    };
    let mut chunks: Vec<&str> = refs
        .keys()
        .map(String::as_str)
        .filter(|k| !k.rsplit('/').next().unwrap_or_default().starts_with('.'))
        .collect();
    chunks.sort_unstable();
    assert_eq!(chunks, ["v0/0.0", "v0/0.1"]);
    for i in 0..100 {
        assert!(
            refs.contains_key(&format!("v{i}/.zarray")),
            "no v{i}/.zarray"
        );
    }
}

#[test]
fn a_file_with_a_user_block_is_referenced_where_its_chunks_are() {
    // Red team s33 MG1: HDF5 1.10 gives chunk addresses from the file's base, after its
    // user block; the references pointed 1,024 bytes early (at zeros), the contiguous
    // variable's (from the file's start) were right. Read back through fsspec by
    // xarray, both equal what h5py reads from the file.
    let Some(python) = kerchunk_python() else {
        return;
    };
    let dir = scratch();
    let program = r#"
import sys, warnings, h5py, numpy as np, xarray as xr
warnings.simplefilter("ignore")
if sys.argv[1] == "make":
    with h5py.File("ub.nc", "w", userblock_size=1024, libver="earliest") as f:
        f.create_dataset("c", data=np.arange(1000, dtype="i4"), chunks=(100,))
        f.create_dataset("g", data=np.arange(1000, dtype="i4") + 5000)
else:
    refs = xr.open_dataset("reference://", engine="zarr",
        backend_kwargs={"storage_options": {"fo": "ub.json"}, "consolidated": False})
    f = h5py.File("ub.nc")
    print(bool((refs.c.values == f["c"][:]).all()), bool((refs.g.values == f["g"][:]).all()))
"#;
    let made = run(Command::new(&python)
        .args(["-c", program, "make"])
        .current_dir(dir.path()));
    ok("made", &made);
    let refs = Test::ours("nccopy")
        .args(["--kerchunk", "ub.json", "ub.nc"])
        .current_dir(dir.path())
        .run();
    ok("refs", &refs);
    let read = run(Command::new(&python)
        .args(["-c", program, "read"])
        .current_dir(dir.path()));
    ok("read", &read);
    assert_eq!(read.stdout, "True True\n");
}

/// Red team s35 RA3: variables whose filter no Zarr codec reads are inlined (decoded, in
/// base64) when each holds at most 64 KiB, but nothing bounded them together: a 1.46 MB
/// file of 4,000 such variables, nothing written, took 1.8 GB and wrote 350 MB of
/// references. Now all inlined values share one budget (16 MiB, the `--concat`
/// coordinate's included): those past it are left out, each named with why.
#[test]
fn inlined_variables_share_one_budget() {
    let dir = scratch();
    let count = 300;
    let mut cdl = String::from("netcdf many {\ndimensions:\n  x = 16384 ;\nvariables:\n");
    for i in 0..count {
        cdl.push_str(&format!(
            "  int v{i}(x) ;\n    v{i}:_Filter = \"lz4\" ;\n    v{i}:_ChunkSizes = 16384 ;\n"
        ));
    }
    cdl.push_str("}\n");
    let cdl_path = dir.path().join("many.cdl");
    std::fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("many.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&file)
        .arg(&cdl_path)
        .run();
    ok("ncgen", &made);
    let refs = dir.path().join("refs.json");
    let bounded = crate::bounded::run_ours(
        "nccopy",
        ["--kerchunk".as_ref(), refs.as_os_str(), file.as_os_str()],
    );
    let run = bounded.assert_within(300, 120);
    ok("nccopy --kerchunk", run);
    let over = run
        .stderr
        .lines()
        .filter(|l| l.contains("would pass the 16 MiB that inlined values may take together"))
        .count();
    let inlined = run
        .stderr
        .lines()
        .filter(|l| l.contains("its values are inlined instead"))
        .count();
    // 65,536 bytes each: 256 fit in 16 MiB.
    assert_eq!((inlined, over), (256, count - 256), "{}", run.stderr);
    let size = std::fs::metadata(&refs)
        .map(|m| m.len())
        .unwrap_or_default();
    assert!(size < 30 << 20, "references of {size} bytes");
}

/// Red team s35 RA9: HDF5 files may name a dataset `.zattrs` or a group `.zgroup`
/// (libnetcdf reads them); `--kerchunk` referenced them as `.zattrs/0` beside the group's
/// own `.zattrs`, exit 0, and xarray saw an empty dataset. Such variables and groups are
/// left out, each named; the others are referenced.
#[test]
fn variables_and_groups_named_as_zarr_documents_are_left_out() {
    let Some(python) = kerchunk_python() else {
        return;
    };
    let dir = scratch();
    let file = dir.path().join("names.nc");
    let made = run(Command::new(&python)
        .arg("-c")
        .arg(
            "import sys, h5py, numpy as np\n\
         with h5py.File(sys.argv[1], 'w', libver='earliest') as f:\n\
         \x20   f['.zattrs'] = np.arange(4, dtype='i4')\n\
         \x20   f.create_group('.zgroup')['x'] = np.arange(3, dtype='i4')\n\
         \x20   f['ok'] = np.arange(5, dtype='i4')\n",
        )
        .arg(&file));
    ok("h5py", &made);
    let refs = dir.path().join("refs.json");
    let done = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .arg(&file)
        .run();
    ok("nccopy --kerchunk", &done);
    assert!(
        done.stderr
            .contains("/.zattrs: its name is one of Zarr's metadata documents"),
        "{}",
        done.stderr
    );
    assert!(
        done.stderr
            .contains("group /.zgroup: its name is one of Zarr's"),
        "{}",
        done.stderr
    );
    let text = std::fs::read_to_string(&refs).unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let keys: Vec<&String> = json["refs"]
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert!(
        keys.iter()
            .all(|k| !k.starts_with(".zattrs/") && !k.starts_with(".zgroup/")),
        "{keys:?}"
    );
    assert!(keys.iter().any(|k| k.as_str() == "ok/.zarray"), "{keys:?}");
}

/// Red team s36 RD12: a variable whose fill value or CF packing differs in a later file is
/// named and left out, as a variable stored differently is: references take the first
/// file's attributes, under which the later file's values would mean something else.
/// Before: exit 0 without a word; xarray through the references read a later file's
/// `_FillValue = 5` as the value 5 (NaN in the file itself), and its `scale_factor = 10`
/// was dropped (values ten times too small).
#[test]
fn a_variable_whose_fill_or_packing_differs_in_one_file_is_named_and_left_out() {
    let dir = scratch();
    let cdl = "netcdf a { dimensions: time = UNLIMITED ; x = 3 ; variables: double time(time) ; \
               float v(time, x) ; v:_ChunkSizes = 1, 3 ; data: time = 0, 1 ; v = 1,2,3,4,5,6 ; }";
    let make = |name: &str, text: &str| {
        let source = dir.path().join(format!("{name}.cdl"));
        std::fs::write(&source, text).unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join(format!("{name}.nc"));
        ok(
            "ncgen",
            Test::ours("ncgen")
                .args(["-k", "nc4", "-o"])
                .arg(&file)
                .arg(&source)
                .run(),
        );
        file
    };
    let a = make("a", cdl);
    let later = cdl.replace("time = 0, 1", "time = 2, 3");
    for (name, attribute) in [
        ("fill", "v:_FillValue = 5.f ;"),
        ("packed", "v:scale_factor = 10.f ;"),
    ] {
        let b = make(
            name,
            &later.replace(
                "float v(time, x) ;",
                &format!("float v(time, x) ; {attribute}"),
            ),
        );
        let refs = dir.path().join(format!("{name}.json"));
        let done = Test::ours("nccopy")
            .arg("--kerchunk")
            .arg(&refs)
            .args(["--concat", "time"])
            .arg(&a)
            .arg(&b)
            .run();
        ok("nccopy --kerchunk", &done);
        assert!(
            done.stderr.contains("not referenced: /v: ")
                && done
                    .stderr
                    .contains("its _FillValue, missing_value, scale_factor or add_offset differ"),
            "{name}: {}",
            done.stderr
        );
        let text = std::fs::read_to_string(&refs).unwrap_or_else(|e| panic!("{refs:?}: {e}"));
        assert!(!text.contains("\"v/"), "{name}: {text}");
        assert!(text.contains("\"time/"), "{name}: {text}");
    }
}
