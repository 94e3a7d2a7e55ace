//! NCZarr plugin pairs (the filter guide's "Pre-Processing Filter Libraries"): an HDF5
//! filter plugin nctools has no codec of, paired by its id with an NCZarr codec library
//! that translates between its HDF5 parameters and numcodecs JSON, used by all three
//! tools for NCZarr chunks, as netCDF-C uses them.
//!
//! - A third-party filter, hdf5plugin's bitshuffle (32008, a plugin nobody here wrote),
//!   with a codec-only library written for this test (`crates/test-plugin`'s example
//!   `bitshuffle_codec`): nccopy -F writes its chunks into NCZarr, our ncdump and
//!   netCDF-C 4.10 (netCDF4-python's) read them back, and the copy back to netCDF-4
//!   keeps the values.
//! - The test library's own filter (299) with its codec: ncgen's `_Filter` into NCZarr,
//!   and a filter that misbehaves on request: decoding to more than the chunk, crashing,
//!   failing. Each is an error that names the plugin, never a dead process.
//! - `--list-filters` names each pair's codec and codec library; without the plugins,
//!   `ncdump -hs` says which codec it cannot show as `_Filter`.
//!
//! netCDF-C's own test filter and codec (`H5Zmisc`/`NCZmisc`, `H5Zunknown`) are run by
//! `scripts/conformance netcdf-c` (its `run_filter`, `run_unknown`, `run_filter_misc`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{json, Value};

use crate::support::{ok, run, scratch, skip, Test};

/// The plugin directory of these tests: the test library, the bitshuffle codec
/// library (both built by cargo for this test run) and hdf5plugin's bitshuffle filter
/// plugin from the project's virtualenv. `None` after a skip when hdf5plugin is missing
/// (a failure in CI).
fn plugin_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let made = DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let bitshuffle = fs::read_dir(root.join(".venv/lib"))
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| {
                e.path()
                    .join("site-packages/hdf5plugin/plugins/libh5bshuf.so")
            })
            .find(|p| p.is_file())
            .ok_or_else(|| "hdf5plugin's bitshuffle plugin in .venv".to_string())?;
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "-p", "nctools_test_plugin", "--lib", "--examples"]);
        if !cfg!(debug_assertions) {
            build.arg("--release");
        }
        let built = run(build.current_dir(root));
        if built.code != Some(0) {
            panic!("cannot build the test plugins:\n{}", built.stderr);
        }
        let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .parent()
            .map(|t| {
                t.join(if cfg!(debug_assertions) {
                    "debug"
                } else {
                    "release"
                })
            })
            .ok_or("no target directory")?;
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-pairs");
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        for (from, name) in [
            (
                target.join("libnctools_test_plugin.so"),
                "libnctools_test_plugin.so",
            ),
            (
                target.join("examples/libbitshuffle_codec.so"),
                "libbitshuffle_codec.so",
            ),
            (bitshuffle, "libh5bshuf.so"),
        ] {
            fs::copy(&from, dir.join(name)).map_err(|e| format!("{}: {e}", from.display()))?;
        }
        Ok(dir)
    });
    match made {
        Ok(dir) => Some(dir),
        Err(what) => {
            skip(what);
            None
        }
    }
}

/// An NCZarr store's URL.
fn nczarr(store: &Path) -> String {
    format!("file://{}#mode=nczarr,file", store.display())
}

/// Our `tool` with HDF5_PLUGIN_PATH = `plugins`.
fn with_plugins(tool: &str, plugins: &Path) -> Test {
    Test::ours(tool).envs(&[("HDF5_PLUGIN_PATH", &plugins.to_string_lossy())])
}

/// Daily-file shaped data: `float v(time, x)` along an unlimited time, with a fill value,
/// and `int m(time, x)`, as DIR/in.nc made by our ncgen.
fn daily(dir: &Path) -> PathBuf {
    let cdl = "netcdf in {\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 6 ;\nvariables:\n\
               \tfloat v(time, x) ;\n\t\tv:_FillValue = -999.f ;\n\tint m(time, x) ;\ndata:\n\n \
               v = 1.5, 2, 3, -999, 5, 6, 7, 8, 9, 10, 11, 12.25 ;\n\n \
               m = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;\n}\n";
    let source = dir.join("in.cdl");
    fs::write(&source, cdl).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("in.nc");
    ok(
        "ncgen",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&out)
            .arg(&source)
            .run(),
    );
    out
}

/// The data section of a dump.
fn data_of(dump: &str) -> String {
    dump.split_once("data:")
        .map_or_else(String::new, |(_, d)| d.to_string())
}

/// The `.zarray` of the array `name` of a store.
fn zarray(store: &Path, name: &str) -> Value {
    let text = fs::read_to_string(store.join(name).join(".zarray"))
        .unwrap_or_else(|e| panic!("{}: {e}", store.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_third_party_filter_paired_with_a_codec_library_round_trips_through_nczarr() {
    let Some(plugins) = plugin_dir() else {
        return;
    };
    let dir = scratch();
    let input = daily(dir.path());
    let store = dir.path().join("v.zarr");
    // Before: "filter 32008 (bitshuffle) has no Zarr codec in nctools", exit 1.
    ok(
        "nccopy -F 32008 into NCZarr",
        with_plugins("nccopy", plugins)
            .args(["-F", "v,32008,0,0,4,0,2"])
            .arg(&input)
            .arg(nczarr(&store))
            .run(),
    );
    assert_eq!(
        zarray(&store, "v")["compressor"],
        json!({"id": "bitshuffle", "elementsize": 4, "blocksize": 0, "cname": "lz4"})
    );
    // The third-party filter encoded the chunk: bitshuffle's lz4 frame starts with the
    // decoded size, 8 bytes big-endian (one record of 6 floats).
    let chunk = fs::read(store.join("v/0.0")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(chunk.get(..8), Some(&24u64.to_be_bytes()[..]), "{chunk:?}");

    let original = Test::ours("ncdump").arg(&input).run();
    ok("ncdump in.nc", &original);
    let dumped = with_plugins("ncdump", plugins)
        .arg("-s")
        .arg(nczarr(&store))
        .run();
    ok("ncdump -s of the store", &dumped);
    assert!(
        dumped.stdout.contains("v:_Filter = \"32008,0,0,4,0,2\" ;")
            && dumped.stdout.contains(
                r#"v:_Codecs = "[{\"id\": \"bitshuffle\", \"elementsize\": 4, \"blocksize\": 0, \"cname\": \"lz4\"}]" ;"#
            ),
        "{}",
        dumped.stdout
    );
    let plain = Test::ours("ncdump").arg(nczarr(&store));
    let plain = plain
        .envs(&[("HDF5_PLUGIN_PATH", &plugins.to_string_lossy())])
        .run();
    assert_eq!(data_of(&plain.stdout), data_of(&original.stdout));

    // Without the pair: the data is refused naming the codec, and -hs says why _Filter
    // leaves it out (before: nothing said).
    let empty = dir.path().join("no-plugins");
    fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let refused = with_plugins("ncdump", &empty).arg(nczarr(&store)).run();
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("unsupported codec: (bitshuffle)"),
        "{}",
        refused.stderr
    );
    let header = with_plugins("ncdump", &empty)
        .arg("-hs")
        .arg(nczarr(&store))
        .run();
    ok("ncdump -hs without the pair", &header);
    assert!(!header.stdout.contains("v:_Filter"), "{}", header.stdout);
    assert!(
        header
            .stderr
            .contains("variable /v: codec \"bitshuffle\" is neither one of nctools' nor one a plugin pair provides"),
        "{}",
        header.stderr
    );

    // Back to netCDF-4: HDF5 loads the filter plugin itself; the values stay.
    let back = dir.path().join("back.nc");
    ok(
        "nccopy back to netCDF-4",
        with_plugins("nccopy", plugins)
            .arg(nczarr(&store))
            .arg(&back)
            .run(),
    );
    let again = with_plugins("ncdump", plugins).arg(&back).run();
    ok("ncdump back.nc", &again);
    assert_eq!(data_of(&again.stdout), data_of(&original.stdout));
}

#[test]
fn netcdf_c_reads_what_a_plugin_pair_wrote() {
    let Some(plugins) = plugin_dir() else {
        return;
    };
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    if run(Command::new(&python).args(["-c", "import netCDF4"])).code != Some(0) {
        skip("the project virtualenv .venv with netCDF4");
        return;
    }
    let dir = scratch();
    let input = daily(dir.path());
    let store = dir.path().join("both.zarr");
    ok(
        "nccopy -F 32008 and -F 299",
        with_plugins("nccopy", plugins)
            .args(["-F", "v,32008,0,0,4,0,2", "-F", "m,299,0"])
            .arg(&input)
            .arg(nczarr(&store))
            .run(),
    );
    // netCDF4-python's netCDF-C (4.10) pairs the same libraries and reads the values.
    let script = "import sys, netCDF4\n\
                  with netCDF4.Dataset(sys.argv[1]) as f:\n    \
                  print(netCDF4.__netcdf4libversion__)\n    \
                  print(f['v'][:].filled(-1).ravel().tolist())\n    \
                  print(f['m'][:].ravel().tolist())\n";
    let read = run(Command::new(&python)
        .args(["-c", script])
        .arg(nczarr(&store))
        .env("HDF5_PLUGIN_PATH", plugins));
    ok("netCDF4-python", &read);
    let lines: Vec<&str> = read.stdout.lines().collect();
    assert_eq!(
        lines.get(1..3),
        Some(
            &[
                "[1.5, 2.0, 3.0, -1.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.25]",
                "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"
            ][..]
        ),
        "{}",
        read.stdout
    );
}

#[test]
fn ncgen_writes_a_plugin_filter_into_nczarr() {
    let Some(plugins) = plugin_dir() else {
        return;
    };
    let dir = scratch();
    let cdl = dir.path().join("f.cdl");
    fs::write(
        &cdl,
        "netcdf f {\ndimensions:\n\tx = 4 ;\nvariables:\n\tint n(x) ;\n\t\tn:_Filter = \"299,0\" ;\n\
         data:\n\n n = 10, 20, 30, 40 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let store = dir.path().join("f.zarr");
    // Before: "a filter is not available", no store written.
    ok(
        "ncgen with _Filter 299 into NCZarr",
        with_plugins("ncgen", plugins)
            .arg("-o")
            .arg(nczarr(&store))
            .arg(&cdl)
            .run(),
    );
    assert_eq!(
        zarray(&store, "n")["compressor"],
        json!({"id": "nctools_test", "mode": 0})
    );
    let dumped = with_plugins("ncdump", plugins)
        .arg("-s")
        .arg(nczarr(&store))
        .run();
    ok("ncdump -s", &dumped);
    assert!(
        dumped.stdout.contains("n:_Filter = \"299,0\" ;")
            && dumped.stdout.contains(" n = 10, 20, 30, 40 ;"),
        "{}",
        dumped.stdout
    );
}

#[test]
fn a_plugin_that_misbehaves_is_an_error_not_a_dead_process() {
    let Some(plugins) = plugin_dir() else {
        return;
    };
    let dir = scratch();
    let input = daily(dir.path());
    let library = plugins.join("libnctools_test_plugin.so");
    // Mode 1 decodes a 24-byte chunk to 192 bytes, mode 2 crashes, mode 3 fails.
    for (mode, said) in [
        (
            "1",
            "the filter decoded the chunk to 192 bytes, more than its 24".to_string(),
        ),
        // A plugin that crashes decoding a chunk does so in the worker process that
        // runs plugin filters apart (since s32); it crashed the tool before.
        (
            "2",
            "decoding the chunk, it crashed (signal 11, SIGSEGV)".to_string(),
        ),
        ("3", "the filter failed on the chunk".to_string()),
    ] {
        let store = dir.path().join(format!("m{mode}.zarr"));
        ok(
            "nccopy -F 299",
            with_plugins("nccopy", plugins)
                .args(["-F", &format!("m,299,{mode}")])
                .arg(&input)
                .arg(nczarr(&store))
                .run(),
        );
        for tool in ["ncdump", "nccopy"] {
            let mut command = Command::new(crate::support::ours_path(tool));
            command.arg(nczarr(&store));
            if tool == "nccopy" {
                command.arg(dir.path().join(format!("out{mode}.nc")));
            }
            let done = run(command.env("HDF5_PLUGIN_PATH", plugins));
            assert_eq!(
                (done.code, done.signal),
                (Some(1), None),
                "{tool}, mode {mode}: {}",
                done.stderr
            );
            assert!(
                done.stderr.contains(&said) && done.stderr.contains(&*library.to_string_lossy()),
                "{tool}, mode {mode}: {}",
                done.stderr
            );
            assert!(
                !dir.path().join(format!("out{mode}.nc")).exists(),
                "{tool}, mode {mode}: an output was left"
            );
        }
    }
}

#[test]
fn list_filters_names_each_pair_and_its_codec_library() {
    let Some(plugins) = plugin_dir() else {
        return;
    };
    let listed = with_plugins("nccopy", plugins)
        .args(["--list-filters", "--json"])
        .run();
    ok("nccopy --list-filters --json", &listed);
    let entries: Vec<Value> =
        serde_json::from_str(&listed.stdout).unwrap_or_else(|e| panic!("{e}: {}", listed.stdout));
    let entry = |id: u32| {
        entries
            .iter()
            .find(|e| e["id"] == json!(id))
            .unwrap_or_else(|| panic!("no filter {id}: {}", listed.stdout))
    };
    let ends = |v: &Value, name: &str| v.as_str().is_some_and(|p| p.ends_with(name));
    let test = entry(299);
    assert_eq!(test["codec"], json!("nctools_test"));
    assert_eq!(test["zarr"], json!(true));
    assert!(
        ends(&test["codec_library"], "/libnctools_test_plugin.so"),
        "{test}"
    );
    let bitshuffle = entry(32008);
    assert_eq!(bitshuffle["codec"], json!("bitshuffle"));
    assert!(ends(&bitshuffle["path"], "/libh5bshuf.so"), "{bitshuffle}");
    assert!(
        ends(&bitshuffle["codec_library"], "/libbitshuffle_codec.so"),
        "{bitshuffle}"
    );
    let table = with_plugins("nccopy", plugins).arg("--list-filters").run();
    ok("nccopy --list-filters", &table);
    let line = table
        .stdout
        .lines()
        .find(|l| l.starts_with("32008 "))
        .unwrap_or_else(|| panic!("{}", table.stdout));
    assert!(
        line.contains("bitshuffle")
            && line.contains("NCZarr codec from")
            && line.contains("libbitshuffle_codec.so"),
        "{line}"
    );
}

#[test]
fn plugins_are_loaded_only_for_a_codec_nctools_lacks() {
    let Some(plugins) = plugin_dir() else {
        return;
    };
    let dir = scratch();
    let input = daily(dir.path());
    let zstd = dir.path().join("zstd.zarr");
    let test = dir.path().join("test.zarr");
    ok(
        "nccopy -F zstd",
        Test::ours("nccopy")
            .args(["-F", "*,32015,3"])
            .arg(&input)
            .arg(nczarr(&zstd))
            .run(),
    );
    ok(
        "nccopy -F 299",
        with_plugins("nccopy", plugins)
            .args(["-F", "m,299,0"])
            .arg(&input)
            .arg(nczarr(&test))
            .run(),
    );
    let mark = dir.path().join("loaded");
    let marked = |input: String| {
        let _ = fs::remove_file(&mark);
        let done = Test::ours("ncdump")
            .arg(input)
            .envs(&[
                ("HDF5_PLUGIN_PATH", &plugins.to_string_lossy()),
                ("NCTOOLS_TEST_PLUGIN_MARK", &mark.to_string_lossy()),
            ])
            .run();
        ok("ncdump", &done);
        mark.exists()
    };
    assert!(
        !marked(nczarr(&zstd)),
        "the plugins were loaded for a zstd store"
    );
    let file = input.to_string_lossy().into_owned();
    assert!(!marked(file), "the plugins were loaded for a netCDF-4 file");
    assert!(
        marked(nczarr(&test)),
        "the plugin was not loaded for its codec"
    );
}
