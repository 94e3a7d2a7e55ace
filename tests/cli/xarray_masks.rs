//! What xarray users see: stores written by xarray read with the same masked values in
//! xarray before and after `nccopy` to netCDF-4, and again after the netCDF-4 file is
//! copied back to Zarr (v2 and v3). xarray's v2 convention keeps a variable's
//! `_FillValue` in the array's `fill_value` only; it must become the netCDF
//! `_FillValue`, or missing values come back as data. kerchunk references to the
//! netCDF-4 copy are read by xarray with the same mask too.

use std::path::Path;
use std::process::Command;

use crate::support::{ok, run, scratch, zarr_python, Test};

/// Writes the stores with xarray: missing values in float64 (an explicit `_FillValue`),
/// float32 (xarray's NaN default), int16 packed with `scale_factor` and `_FillValue`,
/// each as Zarr v2 and v3, and a netCDF file with `_FillValue = 1e20f` sent through
/// xarray's v2 store.
const WRITE: &str = r#"
import warnings, numpy as np, xarray as xr
warnings.simplefilter("error")
ds = xr.Dataset(
    {
        "sst": ("x", np.array([1.0, np.nan, 3.0, 4.0])),
        "f32": ("x", np.array([1.5, np.nan, 2.5, 3.5], dtype="f4")),
        "packed": ("x", np.array([0.25, np.nan, 1.5, 2.0])),
    }
)
ds.sst.encoding["_FillValue"] = -999.0
ds.packed.encoding.update({"dtype": "i2", "scale_factor": 0.25, "_FillValue": -1})
for fmt in (2, 3):
    ds.to_zarr(f"xr-v{fmt}.zarr", zarr_format=fmt, mode="w", consolidated=False)
nc = xr.Dataset({"g": ("x", np.array([1.0, np.nan, 2.0, 5.0], dtype="f4"))})
nc.g.encoding["_FillValue"] = np.float32(1e20)
nc.to_netcdf("g.nc")
xr.open_dataset("g.nc").to_zarr("from-nc.zarr", zarr_format=2, mode="w", consolidated=False)
"#;

/// xarray's values of every variable of `target` (a netCDF file, kerchunk references in
/// `.json`, or a Zarr store), coordinates included, masked, unpacked and decoded as
/// xarray shows them, one line per variable with its `units`.
pub fn seen_by_xarray(python: &Path, target: &Path) -> String {
    let program = format!(
        "import os, warnings, xarray as xr\nwarnings.simplefilter('error')\np = {target:?}\n\
         root = os.path.join(p, 'zarr.json')\n\
         consolidated = os.path.exists(os.path.join(p, '.zmetadata')) or (\
         os.path.exists(root) and 'consolidated_metadata' in open(root).read())\n\
         if p.endswith('.nc'): ds = xr.open_dataset(p)\n\
         elif p.endswith('.json'): ds = xr.open_dataset('reference://', engine='zarr', \
         backend_kwargs={{'storage_options': {{'fo': p}}, 'consolidated': False}})\n\
         else: ds = xr.open_zarr(p, consolidated=consolidated)\n\
         for name in sorted(ds.variables):\n    \
         print(name, ds[name].values.tolist(), ds[name].attrs.get('units'))\n"
    );
    let read = run(Command::new(python).args(["-c", &program]));
    assert_eq!(
        read.code,
        Some(0),
        "xarray {}: {}",
        target.display(),
        read.stderr
    );
    read.stdout
}

#[test]
fn xarray_stores_keep_their_masked_values_through_netcdf4_and_back() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let made = run(Command::new(&python)
        .args(["-c", WRITE])
        .current_dir(dir.path()));
    ok("xarray", &made);
    for store in ["xr-v2.zarr", "xr-v3.zarr", "from-nc.zarr"] {
        let source = dir.path().join(store);
        let before = seen_by_xarray(&python, &source);
        assert!(before.contains("nan"), "{store}: {before}");
        let nc = dir.path().join(format!("{store}.nc"));
        let copied = Test::ours("nccopy").arg(&source).arg(&nc).run();
        assert_eq!(copied.code, Some(0), "nccopy {store}: {}", copied.stderr);
        // Before: `sst = 1, -999, 3, 4` in the netCDF file, no `_FillValue`.
        assert_eq!(seen_by_xarray(&python, &nc), before, "{store} → netCDF-4");
        // kerchunk's references to the netCDF-4 file, read by xarray through fsspec.
        let refs = dir.path().join(format!("{store}.json"));
        let made = Test::ours("nccopy")
            .arg("--kerchunk")
            .arg(&refs)
            .arg(&nc)
            .run();
        assert_eq!(
            made.code,
            Some(0),
            "nccopy --kerchunk {store}: {}",
            made.stderr
        );
        assert_eq!(seen_by_xarray(&python, &refs), before, "{store} → kerchunk");
        for fragment in ["#mode=zarr", "#mode=zarr,v3"] {
            let back = dir
                .path()
                .join(format!("{store}-back{}.zarr", fragment.len()));
            let target = format!("file://{}{fragment}", back.display());
            let copied = Test::ours("nccopy").arg(&nc).arg(&target).run();
            assert_eq!(copied.code, Some(0), "nccopy {target}: {}", copied.stderr);
            // Before: float32 fill values stayed data (`_FillValue` 1e20 compared as a
            // double, `fill_value: null`).
            assert_eq!(
                seen_by_xarray(&python, &back),
                before,
                "{store} → {fragment}"
            );
        }
    }
}

#[test]
fn float_packing_attributes_unpack_in_xarray_as_from_xarrays_own_store() {
    // Issue 36 item 1: `scale_factor = 0.01f` went into JSON as 0.01, which xarray reads
    // as a double: unpacked values differed from those of the store xarray writes from
    // the same file (and from kerchunk's references to it) in the 8th digit. A float
    // attribute is now written as the float's own value (0.009999999776482582), as both
    // write it.
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let made = run(Command::new(&python)
        .args([
            "-c",
            r#"
import warnings, netCDF4, numpy as np, xarray as xr
warnings.simplefilter("error")
with netCDF4.Dataset("packed.nc", "w") as f:
    f.createDimension("time", None)
    v = f.createVariable("t2m", "i2", ("time",), zlib=True, fill_value=-32767)
    v.scale_factor = np.float32(0.01)
    v.add_offset = np.float32(273.15)
    v.units = "K"
    v[:] = np.array([250.0, 273.16, 300.5, 310.01])
xr.open_dataset("packed.nc").to_zarr("xarray.zarr", zarr_format=2, mode="w", consolidated=False)
"#,
        ])
        .current_dir(dir.path()));
    assert_eq!(
        made.code,
        Some(0),
        "netCDF4-python, xarray: {}",
        made.stderr
    );
    let xarrays = seen_by_xarray(&python, &dir.path().join("xarray.zarr"));
    assert!(
        xarrays.contains("t2m [249.9999944139272, 273.15999389626086"),
        "{xarrays}"
    );
    let packed = dir.path().join("packed.nc");
    for (name, fragment) in [
        ("nczarr.zarr", ""),
        ("pure.zarr", "#mode=zarr"),
        ("v3.zarr", "#mode=zarr,v3"),
    ] {
        let store = dir.path().join(name);
        let target = if fragment.is_empty() {
            store.display().to_string()
        } else {
            format!("file://{}{fragment}", store.display())
        };
        let copied = Test::ours("nccopy").arg(&packed).arg(&target).run();
        assert_eq!(copied.code, Some(0), "nccopy {target}: {}", copied.stderr);
        assert_eq!(seen_by_xarray(&python, &store), xarrays, "{target}");
    }
    let refs = dir.path().join("refs.json");
    let made = Test::ours("nccopy")
        .arg("--kerchunk")
        .arg(&refs)
        .arg(&packed)
        .run();
    ok("made", &made);
    assert_eq!(
        seen_by_xarray(&python, &refs),
        xarrays,
        "kerchunk references"
    );
    // netCDF readers still see the float: the NCZarr store dumps as the file does.
    let dump = |target: &str| {
        let done = Test::ours("ncdump").args(["-h", target]).run();
        ok("done", &done);
        done.stdout.lines().skip(1).collect::<Vec<_>>().join("\n")
    };
    let nczarr = dir.path().join("nczarr.zarr");
    assert_eq!(
        dump(&nczarr.to_string_lossy()),
        dump(&packed.to_string_lossy())
    );
}
