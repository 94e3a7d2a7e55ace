//! The recipes of docs/zarr.md on the files people make: four daily files written by
//! netCDF4-python with its defaults (an unlimited `time`, which netCDF-C chunks by 512,
//! and a deflated `tas(time, lat, lon)` in chunks of one record), six records each.
//! Appended one by one, or written by four region jobs at once after a plain
//! `--template`, they read in ncdump and in xarray as one copy of their concatenation.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{first_difference, ok, run, scratch, skip, Test};
use crate::xarray_masks::seen_by_xarray;
use crate::zarr_regions::{dump_body, nccopy_ok};

/// Makes `day0.nc` … `day3.nc` and `all.nc` (their 24 records) in `dir` with
/// netCDF4-python; `None` (after a skip) without it.
fn daily_files(dir: &Path) -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    let program = r#"
import netCDF4, numpy as np
def write(name, first, records):
    with netCDF4.Dataset(name, "w") as f:
        f.createDimension("time", None)
        f.createDimension("lat", 3)
        f.createDimension("lon", 4)
        t = f.createVariable("time", "f8", ("time",))
        t.units = "hours since 2000-01-01"
        f.createVariable("lat", "f4", ("lat",))[:] = [10, 20, 30]
        f.createVariable("lon", "f4", ("lon",))[:] = [0, 90, 180, 270]
        v = f.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True)
        v.units = "K"
        t[:] = np.arange(first, first + records)
        v[:] = (np.arange(first * 12, (first + records) * 12, dtype="f4") / 8).reshape(records, 3, 4)
for day in range(4):
    write(f"day{day}.nc", 6 * day, 6)
write("all.nc", 0, 24)
print(netCDF4.Dataset("day0.nc")["time"].chunking())
"#;
    if !python.is_file() {
        skip("the project virtualenv .venv with netCDF4");
        return None;
    }
    let made = run(Command::new(&python).args(["-c", program]).current_dir(dir));
    if made.code != Some(0) && made.stderr.contains("No module named") {
        skip("netCDF4-python in the project virtualenv");
        return None;
    }
    ok("netCDF4-python", &made);
    // The default the recipes must cope with: time chunked by 512.
    assert_eq!(made.stdout.trim(), "[512]", "{}", made.stdout);
    Some(python)
}

#[test]
fn appends_and_region_jobs_of_netcdf4_python_daily_files_make_one_copy() {
    let dir = scratch();
    let Some(python) = daily_files(dir.path()) else {
        return;
    };
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let single = path("single.zarr");
    nccopy_ok(&[&path("all.nc"), &single], &[]);
    let expected_dump = dump_body(&single, &[]);
    let expected_values = seen_by_xarray(&python, &dir.path().join("all.nc"));
    assert!(expected_values.contains("time [9466"), "{expected_values}");

    // docs/zarr.md's append recipe, as it is: no -c, no -F. Before: the first append
    // was refused ("variable /time is stored in chunks of 512 along time, and the
    // store's 6 records do not fill its last chunk").
    let appended = path("appended.zarr");
    nccopy_ok(&[&path("day0.nc"), &appended], &[]);
    for day in 1..4 {
        nccopy_ok(
            &[
                "--append",
                "time",
                &path(&format!("day{day}.nc")),
                &appended,
            ],
            &[],
        );
    }
    // The store's chunks decide, whatever the input's: a store made with -c time/6
    // takes appends of files chunked by 512 (before: refused the same way).
    let rechunked = path("rechunked.zarr");
    nccopy_ok(&["-c", "time/6", &path("day0.nc"), &rechunked], &[]);
    for day in 1..4 {
        nccopy_ok(
            &[
                "--append",
                "time",
                &path(&format!("day{day}.nc")),
                &rechunked,
            ],
            &[],
        );
    }

    // The region recipe: a plain template, then four jobs at once. Before: each job
    // was refused ("the aligned region that holds it is time=0:24").
    let regions = path("regions.zarr");
    nccopy_ok(&["--template", "time=24", &path("day0.nc"), &regions], &[]);
    std::thread::scope(|scope| {
        for day in 0..4 {
            let (input, store) = (path(&format!("day{day}.nc")), regions.clone());
            scope.spawn(move || {
                let region = format!("time={}:{}", day * 6, day * 6 + 6);
                nccopy_ok(&["--region", &region, &input, &store], &[]);
            });
        }
    });

    for store in [&appended, &rechunked, &regions] {
        let dump = dump_body(store, &[]);
        assert!(
            dump == expected_dump,
            "{store}: {}",
            first_difference(&expected_dump, &dump)
        );
        let values = seen_by_xarray(&python, Path::new(store));
        assert_eq!(values, expected_values, "{store}");
    }
    // The template chunked time by the file's 6 records, so each job wrote its own.
    let zarray = std::fs::read_to_string(dir.path().join("regions.zarr/time/.zarray"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(zarray.contains("\"chunks\": [6]"), "{zarray}");
    let header = Test::ours("ncdump").args(["-hs", &appended]).run();
    assert!(
        header.stdout.contains("time:_ChunkSizes = 512 ;"),
        "{}",
        header.stdout
    );
}

#[test]
fn daily_files_append_to_a_store_xarray_wrote() {
    // A store xarray made from the first day (`to_zarr`, version 2 and 3), then nccopy's
    // appends of the next three, its URL a plain path. Before: refused as NCZarr
    // ("_NCZARR_ARRAY is absent in the store"; "x3.zarr/lat/.zarray is missing").
    let dir = scratch();
    let Some(python) = daily_files(dir.path()) else {
        return;
    };
    let made = run(Command::new(&python)
        .args([
            "-W",
            "ignore",
            "-c",
            "import xarray as xr\n\
             for f in (2, 3):\n    \
             xr.open_dataset('day0.nc').to_zarr(f'x{f}.zarr', zarr_format=f, mode='w')\n",
        ])
        .current_dir(dir.path()));
    ok("xarray", &made);
    let expected = seen_by_xarray(&python, &dir.path().join("all.nc"));
    for store in ["x2.zarr", "x3.zarr"] {
        let target = dir.path().join(store).to_string_lossy().into_owned();
        for day in 1..4 {
            let input = dir.path().join(format!("day{day}.nc"));
            nccopy_ok(
                &["--append", "time", &input.to_string_lossy(), &target],
                &[],
            );
        }
        assert_eq!(
            seen_by_xarray(&python, &dir.path().join(store)),
            expected,
            "{store}"
        );
    }
}

#[test]
fn pure_zarr_says_it_keeps_no_unlimited_dimension_and_tensorstore_reads_what_it_can() {
    // Issue 36 item 3's decisions (docs/zarr.md, "What pure Zarr cannot carry"): pure
    // Zarr has no place for UNLIMITED or for the order of dimensions; netCDF-C 4.10 reads
    // a pure store's dimensions in name order, none unlimited (observed with its ncdump
    // on our store and on its own nccopy's), and so does nctools. nccopy says so when it
    // makes such a store; NCZarr, the default, keeps both. tensorstore reads no version 2
    // array with `filters` (netCDF4-python's zlib=True shuffles): a compressor alone
    // (blosc shuffles inside) or version 3 is what it reads.
    let dir = scratch();
    let Some(python) = daily_files(dir.path()) else {
        return;
    };
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let day0 = path("day0.nc");
    let says = "nccopy: warning: dimension /time is UNLIMITED, which pure Zarr has no place \
                for: the store can be appended to along it, but a copy back to netCDF makes \
                it a fixed dimension; write NCZarr version 2 (#mode=nczarr, the default) to \
                keep it";
    let pure = format!("file://{}#mode=zarr", path("pure.zarr"));
    let done = Test::ours("nccopy").args([&day0, &pure]).run();
    ok("done", &done);
    assert_eq!(done.stderr.trim_end(), says);
    let header = Test::ours("ncdump").args(["-h", &pure]).run();
    assert!(
        header
            .stdout
            .contains("dimensions:\n\tlat = 3 ;\n\tlon = 4 ;\n\ttime = 6 ;\n"),
        "{}",
        header.stdout
    );
    // An append into it says nothing new.
    let day1 = path("day1.nc");
    let appended = Test::ours("nccopy")
        .args(["--append", "time", &day1, &pure])
        .run();
    ok("appended", &appended);
    assert_eq!(appended.stderr, "");
    // The default form keeps UNLIMITED and the input's order, and says nothing.
    let nczarr = path("nczarr.zarr");
    let done = Test::ours("nccopy").args([&day0, &nczarr]).run();
    assert_eq!((done.code, done.stderr.as_str()), (Some(0), ""));
    let header = Test::ours("ncdump").args(["-h", &nczarr]).run();
    assert!(
        header.stdout.contains(
            "dimensions:\n\ttime = UNLIMITED ; // (6 currently)\n\tlat = 3 ;\n\tlon = 4 ;\n"
        ),
        "{}",
        header.stdout
    );

    let blosc = format!("file://{}#mode=zarr", path("blosc.zarr"));
    let v3 = format!("file://{}#mode=zarr,v3", path("v3.zarr"));
    for args in [
        vec!["-F", "tas,32001,0,0,0,0,5,1,4", &day0, &blosc],
        vec![&day0, &v3],
    ] {
        let done = Test::ours("nccopy").args(&args).run();
        assert_eq!(done.code, Some(0), "{args:?}: {}", done.stderr);
    }
    let program = r#"
import sys, netCDF4, tensorstore as ts
want = netCDF4.Dataset("day0.nc")["tas"][:].tolist()
for store, driver in [("pure.zarr", "zarr"), ("blosc.zarr", "zarr"), ("v3.zarr", "zarr3")]:
    try:
        got = ts.open({"driver": driver, "kvstore": {"driver": "file", "path": store + "/tas"}}).result().read().result().tolist()
        print(store, "read", got[:6] == want)
    except Exception as e:
        print(store, "refused", "filters are not supported" in str(e))
"#;
    let read = run(Command::new(&python)
        .args(["-c", program])
        .current_dir(dir.path()));
    ok("read", &read);
    assert_eq!(
        read.stdout,
        "pure.zarr refused True\nblosc.zarr read True\nv3.zarr read True\n"
    );
}
