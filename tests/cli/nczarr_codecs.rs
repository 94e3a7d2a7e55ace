//! nctools' NCZarr codec library (`libnctools_nczcodecs.so`, installed by
//! `scripts/install-plugins` beside the HDF5 plugins), used by a netCDF-C that has NCZarr
//! filters: the one bundled in netCDF4-python's wheel (4.10), with HDF5_PLUGIN_PATH naming
//! only our installed directory (so neither the wheel's plugins nor its codec libraries
//! are on it).
//!
//! - the library exports the Codec API's `NCZ_codec_info_defaults` and links neither
//!   libhdf5 nor libnetcdf;
//! - netCDF4-python reads the NCZarr stores our nccopy wrote with `-F` zstd, bzip2 and
//!   blosc, the values equal to the netCDF-4 file's, and fails without our directory;
//! - netCDF4-python writes NCZarr stores with `compression='zstd'`, `'bzip2'` and
//!   `'blosc_lz4'` through them, with the numcodecs JSON in `.zarray`, and our ncdump
//!   reads them as it reads the same values unfiltered; blosc's chunks record the
//!   variable's 4-byte values (the working parameters the library computed).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::support::{first_difference, netcdf4_python, ok, run, scratch, Run, Test};

/// The directory `scripts/install-plugins --debug DIR` filled, once per test run.
fn installed() -> &'static Path {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let result = INSTALLED.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("installed-nczarr-codecs");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-plugins");
        let done = run(Command::new("bash")
            .arg(&script)
            .arg("--debug")
            .arg(&dir)
            .env_remove("HDF5_PLUGIN_PATH"));
        if done.code == Some(0) {
            Ok(dir)
        } else {
            Err(format!("{}{}", done.stdout, done.stderr))
        }
    });
    match result {
        Ok(dir) => dir,
        Err(why) => panic!("scripts/install-plugins failed:\n{why}"),
    }
}

/// A small netCDF-4 file DIR/data.nc, made by our ncgen: `float t(x, y)` and `int n(x)`.
fn plain(dir: &Path) -> PathBuf {
    let values: Vec<String> = (0..30)
        .map(|i| format!("{}.25", 270 + i * 3 % 17))
        .collect();
    let cdl = format!(
        "netcdf data {{\ndimensions:\n\tx = 6 ;\n\ty = 5 ;\nvariables:\n\tfloat t(x, y) ;\n\
         \tint n(x) ;\ndata:\n\n t = {} ;\n\n n = 1, 4, 9, 16, 25, 36 ;\n}}\n",
        values.join(", ")
    );
    let source = dir.join("data.cdl");
    fs::write(&source, cdl).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    let out = dir.join("data.nc");
    ok(
        "our ncgen",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&out)
            .arg(&source)
            .run(),
    );
    out
}

/// An NCZarr store's URL, as netCDF-C and our tools take it.
fn nczarr_url(store: &Path) -> String {
    format!("file://{}#mode=nczarr,file", store.display())
}

/// An empty directory DIR/no-plugins, for HDF5_PLUGIN_PATH.
fn no_plugins(dir: &Path) -> String {
    let empty = dir.join("no-plugins");
    fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{}: {e}", empty.display()));
    empty.to_string_lossy().into_owned()
}

/// `python -c SCRIPT ARGS` with HDF5_PLUGIN_PATH = `plugins`.
fn python_run(python: &Path, script: &str, plugins: &str, args: &[&str]) -> Run {
    run(Command::new(python)
        .args(["-c", script])
        .args(args)
        .env("HDF5_PLUGIN_PATH", plugins))
}

/// Compares the NCZarr stores ARGS[2..] with the netCDF-4 file ARGS[0] variable by
/// variable, after checking that HDF5_PLUGIN_PATH is ARGS[1] (the wheel's own plugin
/// directory is used only when it is unset); prints each store's filters.
const READ_STORES: &str = r#"
import os, sys
import netCDF4, numpy
assert os.environ["HDF5_PLUGIN_PATH"] == sys.argv[2], os.environ["HDF5_PLUGIN_PATH"]
with netCDF4.Dataset(sys.argv[1]) as plain:
    for store in sys.argv[3:]:
        with netCDF4.Dataset("file://%s#mode=nczarr,file" % store) as f:
            for name in ("t", "n"):
                numpy.testing.assert_array_equal(plain[name][...], f[name][...])
            print({k: v for k, v in f["t"].filters().items() if v and k != "complevel"})
print(netCDF4.__netcdf4libversion__)
"#;

#[test]
fn the_codec_library_exports_the_codec_api_and_links_no_hdf5_or_netcdf() {
    let library = installed().join("libnctools_nczcodecs.so");
    assert!(library.is_file(), "{} not installed", library.display());
    let symbols = run(Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&library));
    ok("nm -D", &symbols);
    assert!(
        symbols.stdout.contains(" T NCZ_codec_info_defaults"),
        "{}",
        symbols.stdout
    );
    let needed = run(Command::new("objdump").arg("-p").arg(&library));
    ok("objdump -p", &needed);
    let libraries: Vec<&str> = needed
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("NEEDED"))
        .collect();
    assert!(!libraries.is_empty(), "{}", needed.stdout);
    for line in libraries {
        assert!(
            !line.contains("libhdf5") && !line.contains("libnetcdf"),
            "the codec library links {line}"
        );
    }
}

#[test]
fn netcdf4_python_reads_nczarr_stores_our_nccopy_wrote_with_filters() {
    let Some(python) = netcdf4_python() else {
        return;
    };
    let dir = scratch();
    let input = plain(dir.path());
    let none = no_plugins(dir.path());
    let mut stores = Vec::new();
    for (label, spec) in [
        ("zstd", "*,32015,3"),
        ("bzip2", "*,307,9"),
        ("blosc", "*,32001,0,0,0,0,5,1,1"),
    ] {
        let store = dir.path().join(label).join("data.zarr");
        fs::create_dir_all(dir.path().join(label)).unwrap_or_else(|e| panic!("{label}: {e}"));
        let copied = Test::ours("nccopy")
            .args(["-F", spec])
            .arg(&input)
            .arg(nczarr_url(&store))
            .envs(&[("HDF5_PLUGIN_PATH", &none)])
            .run();
        ok(&format!("our nccopy -F {spec}"), &copied);
        stores.push(store.to_string_lossy().into_owned());
    }
    let plugins = installed().to_string_lossy().into_owned();
    let mut args = vec![input.to_str().unwrap_or_default(), plugins.as_str()];
    args.extend(stores.iter().map(String::as_str));
    let read = python_run(&python, READ_STORES, &plugins, &args);
    ok("netCDF4-python with our codec library", &read);
    let lines: Vec<&str> = read.stdout.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "{'zstd': True}",
            "{'bzip2': True}",
            "{'blosc': {'compressor': 'blosc_lz4', 'shuffle': 1}}",
        ],
        "{}",
        read.stdout
    );
    // NCZarr filters came with netCDF-C 4.8; the wheel's is 4.10.
    assert!(
        lines.get(3).is_some_and(|v| v.starts_with("4.")),
        "{}",
        read.stdout
    );

    // Without our directory, that netCDF-C has no codec for them.
    let mut args = vec![input.to_str().unwrap_or_default(), none.as_str()];
    args.extend(stores.iter().map(String::as_str));
    let refused = python_run(&python, READ_STORES, &none, &args);
    assert_ne!(
        refused.code,
        Some(0),
        "read without our plugins: {}",
        refused.stdout
    );
    assert!(
        refused
            .stderr
            .contains("Filter error: undefined filter encountered"),
        "without our plugins: {}",
        refused.stderr
    );
}

/// Writes DIR/LABEL/data.zarr for each LABEL of ARGS[1..] (a netCDF4-python compression,
/// `none` for none) with the same variable `v`.
const WRITE_STORES: &str = r#"
import sys
import netCDF4, numpy
for label in sys.argv[2:]:
    store = "file://%s/%s/data.zarr#mode=nczarr,file" % (sys.argv[1], label)
    with netCDF4.Dataset(store, "w") as f:
        f.createDimension("x", 40)
        f.createDimension("y", 3)
        v = f.createVariable("v", "i4", ("x", "y"), chunksizes=(10, 3),
                             compression=None if label == "none" else label, complevel=4)
        v[...] = (numpy.arange(120, dtype="i4").reshape(40, 3) * 37) % 1009
print("written")
"#;

#[test]
fn netcdf4_python_writes_nczarr_stores_through_our_codec_library_that_our_ncdump_reads() {
    let Some(python) = netcdf4_python() else {
        return;
    };
    let dir = scratch();
    let root = dir.path().to_string_lossy().into_owned();
    let plugins = installed().to_string_lossy().into_owned();
    let labels = [("zstd", "zstd"), ("bzip2", "bz2"), ("blosc_lz4", "blosc")];
    for (label, _) in labels {
        fs::create_dir_all(dir.path().join(label)).unwrap_or_else(|e| panic!("{label}: {e}"));
    }
    fs::create_dir_all(dir.path().join("none")).unwrap_or_else(|e| panic!("none: {e}"));
    let mut args = vec![root.as_str(), "none"];
    args.extend(labels.iter().map(|(label, _)| *label));
    let written = python_run(&python, WRITE_STORES, &plugins, &args);
    ok("netCDF4-python writing with our codec library", &written);

    let none = no_plugins(dir.path());
    let dump = |label: &str| {
        let store = dir.path().join(label).join("data.zarr");
        let run = Test::ours("ncdump")
            .arg(nczarr_url(&store))
            .envs(&[("HDF5_PLUGIN_PATH", &none)])
            .run();
        ok(&format!("our ncdump of the {label} store"), &run);
        run.stdout
    };
    let expected = dump("none");
    assert!(expected.contains(" v =\n  0, 37, 74,"), "{expected}");
    for (label, codec_id) in labels {
        let zarray = dir.path().join(label).join("data.zarr/v/.zarray");
        let metadata =
            fs::read_to_string(&zarray).unwrap_or_else(|e| panic!("{}: {e}", zarray.display()));
        assert!(
            metadata.contains(&format!("\"compressor\": {{\"id\": \"{codec_id}\"")),
            "{label}: {metadata}"
        );
        if codec_id == "blosc" {
            // The working parameters the library gave: blosc shuffled 4-byte values (the
            // type size is the fourth byte of blosc's header).
            let chunk = dir.path().join(label).join("data.zarr/v/0.0");
            let bytes = fs::read(&chunk).unwrap_or_else(|e| panic!("{}: {e}", chunk.display()));
            assert_eq!(
                bytes.get(3),
                Some(&4),
                "{label}: blosc header {:?}",
                &bytes[..bytes.len().min(16)]
            );
        }
        let got = dump(label);
        assert!(
            got == expected,
            "{label}: differs at {}",
            first_difference(&expected, &got)
        );
    }
}
