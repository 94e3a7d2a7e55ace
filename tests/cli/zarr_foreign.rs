//! Stores written by zarr-python and xarray (made in the test, with the project's
//! virtualenv), read by our ncdump: root arrays, Fortran order, half floats, times,
//! sharding, xarray's v3 `_FillValue`. Each store's values come from numpy, so "right"
//! means what zarr-python itself reads.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{ok, run, scratch, zarr_python, Test};

/// Runs `script` with the virtualenv's python in `dir`; fails the test if it fails.
fn python(python: &Path, dir: &Path, script: &str) -> String {
    let done = run(Command::new(python).arg("-c").arg(script).current_dir(dir));
    assert_eq!(done.code, Some(0), "python failed:\n{}", done.stderr);
    done.stdout
}

/// A scratch directory in which `script` (Python with zarr, numpy and xarray) has made
/// its stores, and the python that ran it; `None` after a skip (a failure in CI).
fn stores_made_by(script: &str) -> Option<(PathBuf, tempfile::TempDir)> {
    let py = zarr_python()?;
    let dir = scratch();
    python(&py, dir.path(), script);
    Some((py, dir))
}

/// Our nccopy of `source` to `target` (a path or URL), with `options` first, which must
/// succeed.
fn copy(options: &[&str], source: &Path, target: impl AsRef<std::ffi::OsStr>) {
    let run = Test::ours("nccopy")
        .args(options)
        .arg(source)
        .arg(target)
        .run();
    assert_eq!(run.code, Some(0), "nccopy {source:?}: {}", run.stderr);
}

/// Our ncdump of `store`, which must succeed.
fn dump(store: &Path) -> String {
    let run = Test::ours("ncdump").arg(store).run();
    assert_eq!(run.code, Some(0), "ncdump {store:?}: {}", run.stderr);
    run.stdout
}

#[test]
fn a_store_whose_root_is_an_array_is_one_variable_named_after_the_store() {
    let Some((_, dir)) = stores_made_by(
        r#"
import zarr, numpy as np
for fmt in (2, 3):
    a = zarr.open_array(f"temps{fmt}.zarr", mode="w", shape=(5,), chunks=(2,), dtype="i4", zarr_format=fmt)
    a[:] = np.arange(5) * 10
    a.attrs["units"] = "K"
zarr.save("saved.zarr", np.arange(3, dtype="f8"))
"#,
    ) else {
        return;
    };
    for (store, name) in [("temps2.zarr", "temps2"), ("temps3.zarr", "temps3")] {
        let out = dump(&dir.path().join(store));
        assert!(
            out.contains(&format!("\tint {name}(_Anonymous_Dim_5) ;")),
            "{out}"
        );
        assert!(
            out.contains(&format!("\t\t{name}:units = \"K\" ;")),
            "{out}"
        );
        assert!(
            out.contains(&format!(" {name} = 0, 10, 20, 30, 40 ;")),
            "{out}"
        );
        // The array's attributes are the variable's, not global ones.
        assert!(!out.contains("// global attributes"), "{out}");
    }
    let out = dump(&dir.path().join("saved.zarr"));
    assert!(out.contains(" saved = 0, 1, 2 ;"), "{out}");
    // nccopy makes a file with that variable.
    let target = dir.path().join("temps.nc");
    let source = dir.path().join("temps3.zarr");
    copy(&[], &source, &target);
    assert!(dump(&target).contains(" temps3 = 0, 10, 20, 30, 40 ;"));
}

#[test]
fn fortran_order_half_floats_and_times_read_as_zarr_python_reads_them() {
    let Some((_, dir)) = stores_made_by(
        r#"
import zarr, numpy as np
f = zarr.create_array("f.zarr", shape=(3, 5), chunks=(2, 2), dtype="i4", order="F", zarr_format=2)
f[:] = np.arange(15).reshape(3, 5)
for fmt in (2, 3):
    h = zarr.create_array(f"h{fmt}.zarr", shape=(4,), chunks=(3,), dtype="f2", zarr_format=fmt)
    h[:] = [0.5, -2, 65504, 0.333]
    t = zarr.create_array(f"t{fmt}.zarr", shape=(3,), chunks=(2,), dtype="M8[s]", zarr_format=fmt)
    t[:] = np.array(["2020-01-01", "NaT", "2021-01-01T00:00:01"], dtype="M8[s]")
    d = zarr.create_array(f"d{fmt}.zarr", shape=(2,), chunks=(2,), dtype="m8[ms]", zarr_format=fmt)
    d[:] = np.array([1500, -3], dtype="m8[ms]")
"#,
    ) else {
        return;
    };
    let out = dump(&dir.path().join("f.zarr"));
    assert!(
        out.contains(" f =\n  0, 1, 2, 3, 4,\n  5, 6, 7, 8, 9,\n  10, 11, 12, 13, 14 ;"),
        "{out}"
    );
    for fmt in [2, 3] {
        let store = dir.path().join(format!("h{fmt}.zarr"));
        let run = Test::ours("ncdump").arg(&store).run();
        ok("run", &run);
        assert!(
            run.stdout
                .contains(&format!("\tfloat h{fmt}(_Anonymous_Dim_4) ;")),
            "{}",
            run.stdout
        );
        // 0.333 as a half is 0.33300781.
        assert!(
            run.stdout
                .contains(&format!(" h{fmt} = 0.5, -2, 65504, 0.3330078 ;")),
            "{}",
            run.stdout
        );
        assert!(
            run.stderr.contains("float16) are read as float"),
            "{}",
            run.stderr
        );

        let out = dump(&dir.path().join(format!("t{fmt}.zarr")));
        assert!(
            out.contains(&format!(
                "\t\tt{fmt}:units = \"seconds since 1970-01-01 00:00:00\" ;"
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!(" t{fmt} = 1577836800, _, 1609459201 ;")),
            "{out}"
        );
        let out = dump(&dir.path().join(format!("d{fmt}.zarr")));
        assert!(
            out.contains(&format!("\t\td{fmt}:units = \"milliseconds\" ;")),
            "{out}"
        );
        assert!(out.contains(&format!(" d{fmt} = 1500, -3 ;")), "{out}");
    }
}

#[test]
fn xarray_v3_fill_values_are_read_and_written_as_xarray_does() {
    let Some((py, dir)) = stores_made_by(
        r#"
import xarray as xr, numpy as np, warnings
warnings.simplefilter("ignore")
ds = xr.Dataset({"t": (("time", "x"), np.array([[1.5, np.nan], [2.5, -7.0]], dtype="f4"))})
ds.t.encoding["_FillValue"] = -7.0
ds.to_zarr("xa.zarr", mode="w", zarr_format=3)
"#,
    ) else {
        return;
    };
    let out = dump(&dir.path().join("xa.zarr"));
    assert!(out.contains("\t\tt:_FillValue = -7.f ;"), "{out}");
    // xarray stores NaN as the fill value.
    assert!(out.contains("  1.5, _,\n  2.5, _ ;"), "{out}");
    // Ours, as Zarr v3, opened by xarray with the same values and fill value.
    let target = dir.path().join("ours.zarr");
    let url = format!("file://{}#mode=zarr,v3", target.display());
    let source = dir.path().join("xa.zarr");
    copy(&[], &source, &url);
    let read = python(
        &py,
        dir.path(),
        r#"
import xarray as xr, warnings
warnings.simplefilter("ignore")
ds = xr.open_zarr("ours.zarr", consolidated=False)
print(ds.t.values.tolist(), ds.t.encoding["_FillValue"])
"#,
    );
    assert_eq!(read.trim(), "[[1.5, nan], [2.5, nan]] -7.0");
}

#[test]
fn a_store_in_the_layout_of_a_zarr_v3_pre_release_is_refused() {
    let dir = scratch();
    let store = dir.path().join("old.zr3");
    let meta = store.join("meta/root");
    std::fs::create_dir_all(&meta).unwrap_or_else(|e| panic!("{e}"));
    let root = r#"{"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
                   "metadata_encoding": "application/json", "extensions": []}"#;
    std::fs::write(store.join("zarr.json"), root).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(meta.join("a.array.json"), "{}").unwrap_or_else(|e| panic!("{e}"));
    let run = Test::ours("ncdump").arg(&store).run();
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stderr.contains("pre-release of Zarr version 3"),
        "{}",
        run.stderr
    );
}

#[test]
fn sharded_arrays_read_as_zarr_python_reads_them() {
    let Some((_, dir)) = stores_made_by(
        r#"
import zarr, numpy as np
g = zarr.open_group("s.zarr", mode="w")
a = g.create_array("a", shape=(6, 5), chunks=(2, 5), shards=(4, 5), dtype="i4", fill_value=-1)
a[:2] = np.arange(10).reshape(2, 5)
a[4:] = np.arange(10).reshape(2, 5) + 100
b = g.create_array("b", shape=(3, 4), chunks=(1, 2), shards=(3, 4), dtype="f8",
                   compressors=zarr.codecs.GzipCodec(level=5))
b[:] = np.arange(12).reshape(3, 4) / 4
"#,
    ) else {
        return;
    };
    let out = dump(&dir.path().join("s.zarr"));
    assert!(
        out.contains(
            " a =\n  0, 1, 2, 3, 4,\n  5, 6, 7, 8, 9,\n  -1, -1, -1, -1, -1,\n  -1, -1, -1, -1, -1,\n  100, 101, 102, 103, 104,\n  105, 106, 107, 108, 109 ;"
        ),
        "{out}"
    );
    assert!(
        out.contains(" b =\n  0, 0.25, 0.5, 0.75,\n  1, 1.25, 1.5, 1.75,\n  2, 2.25, 2.5, 2.75 ;"),
        "{out}"
    );
    // nccopy decodes the shards into a netCDF-4 file.
    let nc = dir.path().join("s.nc");
    copy(&[], &dir.path().join("s.zarr"), &nc);
    assert!(dump(&nc).contains("  100, 101, 102, 103, 104,"));
}

#[test]
fn an_array_of_a_type_netcdf_cannot_hold_is_left_out_and_said() {
    let Some((_, dir)) = stores_made_by(
        r#"
import zarr, numpy as np
for fmt in (2, 3):
    g = zarr.open_group(f"m{fmt}.zarr", mode="w", zarr_format=fmt)
    c = g.create_array("c", shape=(2,), dtype="c16")
    c[:] = [1 + 2j, 3 - 4j]
    i = g.create_array("i", shape=(3,), dtype="i2")
    i[:] = [5, 6, 7]
"#,
    ) else {
        return;
    };
    for fmt in [2, 3] {
        let store = dir.path().join(format!("m{fmt}.zarr"));
        // The rest is dumped; the array left out is named, with why, and the exit is 1.
        let run = Test::ours("ncdump").arg(&store).run();
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(run.stdout.contains(" i = 5, 6, 7 ;"), "{}", run.stdout);
        assert!(!run.stdout.contains(" c("), "{}", run.stdout);
        assert!(
            run.stderr.contains("variable /c: ")
                && run
                    .stderr
                    .contains("complex numbers, which netCDF cannot hold")
                && run.stderr.contains("left out of the dump above"),
            "{}",
            run.stderr
        );
        let header = Test::ours("ncdump").arg("-h").arg(&store).run();
        assert_eq!(header.code, Some(1), "{}", header.stderr);
        assert!(header.stdout.contains("\tshort i("), "{}", header.stdout);
        // Choosing the other variables is a success.
        let chosen = Test::ours("ncdump").args(["-v", "i"]).arg(&store).run();
        ok("chosen", &chosen);

        // nccopy never writes a copy that silently lacks it: refused, or -V.
        let target = dir.path().join(format!("m{fmt}.nc"));
        let refused = Test::ours("nccopy").arg(&store).arg(&target).run();
        assert_eq!(refused.code, Some(1), "{}", refused.stderr);
        assert!(
            refused
                .stderr
                .contains("to copy the other variables, name them with -V"),
            "{}",
            refused.stderr
        );
        assert!(!target.exists());
        copy(&["-V", "i"], &store, &target);
        assert!(dump(&target).contains(" i = 5, 6, 7 ;"));
    }
}
