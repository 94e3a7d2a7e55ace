//! nccopy changing the filters of chunked variables, into netCDF-4 files and Zarr stores
//! (version 2 and 3). Where the input's chunks have the output's shape, each input chunk
//! is decoded and handed to the writer whole (no slab in between), which encodes it;
//! where they differ, slabs are cut into the output's chunks. Either way the output holds
//! the input's values: edge chunks (chunks that do not tile the variable), a variable
//! along the unlimited dimension (which the output grows), and fill values included.
//! With `NCTOOLS_DIRECT_CHUNKS=0`, HDF5's pipeline encodes them instead, with the same
//! result; the reference ncdump and h5dump read the netCDF-4 outputs.

use std::fs;
use std::path::{Path, PathBuf};

use crate::nccopy::{data_of, have_reference, storage_of};
use crate::support::{from_line, ok, run_reference, scratch, Test};

/// The filters the outputs are written with, and whether Zarr stores (other than
/// NCZarr) can hold them (szip's codec is netCDF-C's own).
const SPECS: [(&str, bool); 4] = [
    ("*,zstd,3", true),
    ("*,bzip2,9", true),
    ("*,deflate,4|shuffle", true),
    ("*,szip,32,32", false),
];

/// The input: deflated netCDF-4 variables whose chunks do not tile them, two along the
/// unlimited `time` (5 records, chunks of 2), one of them with fill values in its data.
fn input(dir: &Path) -> PathBuf {
    let temp: Vec<String> = (0..5 * 7 * 9)
        .map(|i| format!("{}", f64::from(i) * 0.5))
        .collect();
    let count: Vec<String> = (0..5 * 7 * 9)
        .map(|i| {
            if i % 7 == 3 {
                "_".to_string()
            } else {
                (i * 3).to_string()
            }
        })
        .collect();
    let grid: Vec<String> = (0..7 * 9).map(|i| format!("{}", 1000 - i)).collect();
    let cdl = format!(
        "netcdf chunked {{\n\
         dimensions:\n\ttime = UNLIMITED ;\n\tlat = 7 ;\n\tlon = 9 ;\n\
         variables:\n\
         \tfloat temp(time, lat, lon) ;\n\
         \t\ttemp:_ChunkSizes = 2, 4, 5 ;\n\t\ttemp:_DeflateLevel = 1 ;\n\
         \tint count(time, lat, lon) ;\n\t\tcount:_FillValue = -7 ;\n\
         \t\tcount:_ChunkSizes = 2, 4, 5 ;\n\t\tcount:_DeflateLevel = 1 ;\n\
         \t\tcount:_Shuffle = \"true\" ;\n\
         \tdouble grid(lat, lon) ;\n\
         \t\tgrid:_ChunkSizes = 3, 4 ;\n\t\tgrid:_DeflateLevel = 2 ;\n\
         data:\n temp = {} ;\n count = {} ;\n grid = {} ;\n}}\n",
        temp.join(", "),
        count.join(", "),
        grid.join(", ")
    );
    let source = dir.join("chunked.cdl");
    let nc = dir.join("chunked.nc");
    fs::write(&source, cdl).unwrap_or_else(|e| panic!("{source:?}: {e}"));
    let made = run_reference(
        "ncgen",
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            nc.as_os_str(),
            source.as_os_str(),
        ],
    );
    ok("reference ncgen", &made);
    nc
}

/// Our nccopy with `args` from `input` to `output` (a path or a Zarr URL), with `env`;
/// it must succeed.
fn copy(env: &[(&str, &str)], args: &[&str], input: &Path, output: &str) {
    let done = Test::ours("nccopy")
        .envs(env)
        .args(args)
        .arg(input)
        .arg(output)
        .run();
    assert_eq!(
        done.code,
        Some(0),
        "nccopy {args:?} {output}: {}",
        done.stderr
    );
}

/// The data of `target` as our ncdump prints it, from the `data:` line on.
fn our_data(target: &str) -> String {
    let done = Test::ours("ncdump").arg(target).run();
    assert_eq!(done.code, Some(0), "ncdump {target}: {}", done.stderr);
    from_line(&done.stdout, "data:").to_string()
}

/// The values of each variable of a `data:` section, by name.
fn by_variable(data: &str) -> std::collections::BTreeMap<String, String> {
    data.split("\n\n")
        .skip(1)
        .map(|block| {
            let name = block.split_whitespace().next().unwrap_or_default();
            (
                name.to_string(),
                block
                    .trim_end()
                    .trim_end_matches('}')
                    .trim_end()
                    .to_string(),
            )
        })
        .collect()
}

/// Copies `input` with `args` (each spec of [`SPECS`] added) into a netCDF-4 file (with
/// and without `NCTOOLS_DIRECT_CHUNKS=0`) and Zarr stores, and checks that each holds
/// the input's values.
fn check_copies(dir: &Path, input: &Path, args: &[&str]) {
    let expected = data_of(input);
    for (spec, in_zarr) in SPECS {
        let mut all = vec!["-F", spec];
        all.extend_from_slice(args);
        let here = dir.join("here.nc");
        let hdf5 = dir.join("hdf5.nc");
        copy(&[], &all, input, &here.to_string_lossy());
        copy(
            &[("NCTOOLS_DIRECT_CHUNKS", "0")],
            &all,
            input,
            &hdf5.to_string_lossy(),
        );
        assert_eq!(our_data(&here.to_string_lossy()), expected, "{all:?}");
        assert_eq!(our_data(&hdf5.to_string_lossy()), expected, "{all:?}");
        assert_eq!(storage_of(&here), storage_of(&hdf5), "{all:?}");
        // The reference tools read zstd only with a plugin (see filters_interop.rs).
        if !spec.contains("zstd") {
            assert_eq!(data_of(&here), expected, "{all:?}: the reference ncdump");
            let dumped = run_reference(
                "h5dump",
                ["-d".as_ref(), "/count".as_ref(), here.as_os_str()],
            );
            assert_eq!(dumped.code, Some(0), "h5dump {all:?}: {}", dumped.stderr);
        }
        if !in_zarr {
            continue;
        }
        for mode in ["zarr", "zarr,v3"] {
            let store = dir.join("out.zarr");
            let url = format!("file://{}#mode={mode}", store.display());
            copy(&[], &all, input, &url);
            // A Zarr store lists its variables by name.
            assert_eq!(
                by_variable(&our_data(&url)),
                by_variable(&expected),
                "{all:?} {url}"
            );
            fs::remove_dir_all(&store).unwrap_or_else(|e| panic!("{store:?}: {e}"));
        }
    }
}

#[test]
fn chunks_of_the_inputs_shape_are_recoded_with_the_inputs_values() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let input = input(dir.path());
    check_copies(dir.path(), &input, &[]);
}

#[test]
fn chunks_of_another_shape_are_recoded_with_the_inputs_values() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let input = input(dir.path());
    check_copies(
        dir.path(),
        &input,
        &["-c", "time/3,lat/5,lon/4", "-m", "200"],
    );
}

#[test]
fn chunks_of_a_zarr_input_are_recoded_with_its_values() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let input = input(dir.path());
    let expected = by_variable(&data_of(&input));
    for mode in ["zarr", "zarr,v3"] {
        let store = dir
            .path()
            .join(format!("in-{}.zarr", mode.replace(',', "-")));
        let url = format!("file://{}#mode={mode}", store.display());
        copy(&[], &[], &input, &url);
        for spec in ["*,zstd,3", "*,bzip2,9"] {
            // Into netCDF-4, each Zarr chunk decoded and encoded whole (same shapes) ...
            let nc = dir.path().join("from-zarr.nc");
            copy(&[], &["-F", spec], &store_path(&url), &nc.to_string_lossy());
            assert_eq!(
                by_variable(&our_data(&nc.to_string_lossy())),
                expected,
                "{url} -F {spec} into netCDF-4"
            );
            // ... and into another Zarr store.
            let out = dir.path().join("recoded.zarr");
            copy(
                &[],
                &["-F", spec],
                &store_path(&url),
                &out.to_string_lossy(),
            );
            assert_eq!(
                by_variable(&our_data(&out.to_string_lossy())),
                expected,
                "{url} -F {spec} into Zarr"
            );
            fs::remove_dir_all(&out).unwrap_or_else(|e| panic!("{out:?}: {e}"));
        }
    }
}

/// A URL as the input path [`copy`] takes.
fn store_path(url: &str) -> PathBuf {
    PathBuf::from(url)
}

/// zarr-python's side of [`chunks_of_stores_zarr_python_wrote_are_recoded_with_their_values`]:
/// `write STORE FORMAT` makes a store of two arrays whose chunks do not tile them;
/// `values STORE` prints every array's values, as JSON.
const ZARR_PYTHON: &str = r#"
import json, sys
import numpy as np, zarr
if sys.argv[1] == "write":
    g = zarr.open_group(sys.argv[2], mode="w", zarr_format=int(sys.argv[3]))
    a = g.create_array("temp", shape=(5, 7), chunks=(2, 3), dtype="f4",
                       dimension_names=["time", "x"] if sys.argv[3] == "3" else None)
    a[:] = np.arange(35, dtype="f4").reshape(5, 7) * 0.5
    b = g.create_array("count", shape=(9,), chunks=(4,), dtype="i8",
                       dimension_names=["n"] if sys.argv[3] == "3" else None)
    b[:] = np.arange(9) * 3
    if sys.argv[3] == "2":
        a.attrs["_ARRAY_DIMENSIONS"] = ["time", "x"]
        b.attrs["_ARRAY_DIMENSIONS"] = ["n"]
else:
    g = zarr.open_group(sys.argv[2], mode="r")
    print(json.dumps({k: np.asarray(v[...]).ravel().tolist() for k, v in sorted(g.arrays())}))
"#;

#[test]
fn chunks_of_stores_zarr_python_wrote_are_recoded_with_their_values() {
    let Some(python) = crate::support::zarr_python() else {
        return;
    };
    let dir = scratch();
    let py = |args: &[&str]| {
        let done = crate::support::run(
            std::process::Command::new(&python)
                .arg("-c")
                .arg(ZARR_PYTHON)
                .args(args),
        );
        assert_eq!(done.code, Some(0), "zarr-python {args:?}: {}", done.stderr);
        done.stdout
    };
    for format in ["2", "3"] {
        let store = dir.path().join(format!("theirs-v{format}.zarr"));
        let store_text = store.to_string_lossy().into_owned();
        py(&["write", &store_text, format]);
        let expected = py(&["values", &store_text]);
        for spec in ["*,zstd,3", "*,bzip2,9"] {
            // Their chunks, decoded and encoded whole into a Zarr store of ours ...
            let out = dir.path().join("recoded.zarr");
            copy(&[], &["-F", spec], &store, &out.to_string_lossy());
            assert_eq!(
                py(&["values", &out.to_string_lossy()]),
                expected,
                "v{format} -F {spec} into Zarr"
            );
            fs::remove_dir_all(&out).unwrap_or_else(|e| panic!("{out:?}: {e}"));
            // ... and into netCDF-4, read back through a store of ours.
            let nc = dir.path().join("recoded.nc");
            copy(&[], &["-F", spec], &store, &nc.to_string_lossy());
            let back = dir.path().join("back.zarr");
            copy(&[], &[], &nc, &back.to_string_lossy());
            assert_eq!(
                py(&["values", &back.to_string_lossy()]),
                expected,
                "v{format} -F {spec} into netCDF-4"
            );
            fs::remove_dir_all(&back).unwrap_or_else(|e| panic!("{back:?}: {e}"));
        }
    }
}
