//! `--list-filters` (all three tools) and `ncdump --filters FILE`: what filters this
//! machine has and where each comes from, and what a file's filters are. Outputs are
//! pinned by snapshots taken with HDF5_PLUGIN_PATH set to an empty directory, so they do
//! not depend on the plugins installed; the plugin cases use Debian's plugin directory
//! (installed by scripts/setup) and skip outside CI when it is missing.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{ok, scratch, test_data, Run, Test};

/// Debian's HDF5 plugin directory (hdf5-filter-plugin).
const DEBIAN_PLUGINS: &str = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins";

const TOOLS: [&str; 3] = ["ncdump", "nccopy", "ncgen"];

/// An empty plugin directory inside `dir`.
fn empty_plugins(dir: &Path) -> PathBuf {
    let empty = dir.join("no-plugins");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{}: {e}", empty.display()));
    empty
}

/// Runs `tool ARGS` in `dir` with the environment `env`.
fn run_in(dir: &Path, tool: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    Test::ours(tool).args(args).envs(env).current_dir(dir).run()
}

/// `tests/data/filters/CASE.cdl` built by our ncgen as `CASE.nc` (netCDF-4) in `dir`.
fn build(dir: &Path, case: &str) -> String {
    let name = format!("{case}.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o", &name])
        .arg(test_data(&format!("filters/{case}.cdl")))
        .current_dir(dir)
        .run();
    assert_eq!(made.code, Some(0), "ncgen {case}: {}", made.stderr);
    name
}

fn parse_json(text: &str) -> Vec<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => items,
        Ok(other) => panic!("not a JSON array: {other}"),
        Err(e) => panic!("not JSON ({e}):\n{text}"),
    }
}

/// The `--list-filters --json` entry of filter `id`.
fn entry(entries: &[Value], id: u32) -> &Value {
    entries
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("filter {id} is not listed"))
}

fn list_json(dir: &Path, env: &[(&str, &str)]) -> Vec<Value> {
    let run = run_in(dir, "ncdump", &["--list-filters", "--json"], env);
    ok("run", &run);
    parse_json(&run.stdout)
}

/// Whether Debian's plugins are installed; in CI they must be (scripts/setup).
fn have_debian_plugins() -> bool {
    let found = Path::new(DEBIAN_PLUGINS).join("libh5bz2.so").is_file();
    if !found {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !ci,
            "Debian's HDF5 plugins are missing and CI=true: run scripts/setup"
        );
        eprintln!("SKIPPED: Debian's HDF5 plugins are not installed (run scripts/setup)");
    }
    found
}

#[test]
fn list_filters_table() {
    let dir = scratch();
    let empty = empty_plugins(dir.path());
    let env = [("HDF5_PLUGIN_PATH", empty.to_str().unwrap_or_default())];
    let run = run_in(dir.path(), "ncdump", &["--list-filters"], &env);
    ok("run", &run);
    let shown = run
        .stdout
        .replace(empty.to_str().unwrap_or_default(), "EMPTY");
    insta::assert_snapshot!("list_filters_table", shown);
}

#[test]
fn list_filters_table_with_builtins_turned_off() {
    let dir = scratch();
    let empty = empty_plugins(dir.path());
    let env = [
        ("HDF5_PLUGIN_PATH", empty.to_str().unwrap_or_default()),
        ("NCTOOLS_BUILTIN_FILTERS", "0"),
    ];
    let run = run_in(dir.path(), "nccopy", &["--list-filters"], &env);
    ok("run", &run);
    let shown = run
        .stdout
        .replace(empty.to_str().unwrap_or_default(), "EMPTY");
    insta::assert_snapshot!("list_filters_table_builtins_off", shown);
}

#[test]
fn list_filters_json_has_every_field_and_the_builtins() {
    let dir = scratch();
    let empty = empty_plugins(dir.path());
    let entries = list_json(
        dir.path(),
        &[("HDF5_PLUGIN_PATH", empty.to_str().unwrap_or_default())],
    );
    for e in &entries {
        let keys: Vec<&str> = e
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "id",
                "names",
                "codec",
                "source",
                "path",
                "available",
                "zarr",
                "note",
                "codec_library"
            ],
            "{e}"
        );
    }
    for known in filterspec::known::KNOWN_FILTERS {
        let e = entry(&entries, known.id);
        assert_eq!(e["names"][0], Value::from(known.name()), "{e}");
        assert_eq!(
            e["codec"],
            Value::from(codecs::known::codec_of(known.id)),
            "{e}"
        );
    }
    for builtin in codecs::registry::carried_into_hdf5() {
        let e = entry(&entries, builtin);
        assert_eq!(e["source"], "builtin", "{e}");
        assert_eq!(e["available"], true, "{e}");
    }
    for native in [1, 2, 3, 5, 6] {
        assert_eq!(entry(&entries, native)["source"], "hdf5");
    }
    let bzip2 = entry(&entries, 307);
    assert_eq!(bzip2["names"], serde_json::json!(["bzip2", "bz2"]));
    assert_eq!(bzip2["codec"], "bz2");
    assert_eq!(entry(&entries, 32028)["source"], "none");
    assert_eq!(entry(&entries, 32028)["available"], false);
    // Zarr codecs are ours, in-process (szip's, netCDF-C's NCZarr codec, too).
    for id in [1, 2, 3, 4, 307, 32001, 32004, 32015] {
        assert_eq!(entry(&entries, id)["zarr"], true, "{id}");
    }
    assert_eq!(entry(&entries, 5)["zarr"], false);
}

#[test]
fn builtins_turned_off_are_said_to_be() {
    let dir = scratch();
    let empty = empty_plugins(dir.path());
    let entries = list_json(
        dir.path(),
        &[
            ("HDF5_PLUGIN_PATH", empty.to_str().unwrap_or_default()),
            ("NCTOOLS_BUILTIN_FILTERS", "0"),
        ],
    );
    let bzip2 = entry(&entries, 307);
    assert_eq!(bzip2["source"], "none");
    assert_eq!(bzip2["available"], false);
    assert_eq!(
        bzip2["note"],
        "built into nctools, turned off by NCTOOLS_BUILTIN_FILTERS=0"
    );
}

#[test]
fn plugins_of_the_search_path_are_found_with_their_files() {
    if !have_debian_plugins() {
        return;
    }
    let dir = scratch();
    let entries = list_json(
        dir.path(),
        &[
            ("HDF5_PLUGIN_PATH", DEBIAN_PLUGINS),
            ("NCTOOLS_BUILTIN_FILTERS", "0"),
        ],
    );
    for (id, file) in [(307, "libh5bz2.so"), (32004, "libh5lz4.so")] {
        let e = entry(&entries, id);
        assert_eq!(e["source"], "plugin", "{e}");
        assert_eq!(e["available"], true, "{e}");
        assert_eq!(e["path"], format!("{DEBIAN_PLUGINS}/{file}"), "{e}");
    }
    // With the built-ins on, they take precedence and the plugin is said to be unused.
    let on = list_json(dir.path(), &[("HDF5_PLUGIN_PATH", DEBIAN_PLUGINS)]);
    let bzip2 = entry(&on, 307);
    assert_eq!(bzip2["source"], "builtin", "{bzip2}");
    assert_eq!(
        bzip2["note"],
        format!("plugin {DEBIAN_PLUGINS}/libh5bz2.so not used")
    );
}

#[test]
fn a_plugin_file_that_does_not_load_is_listed_with_its_error() {
    let dir = scratch();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap_or_else(|e| panic!("{e}"));
    let broken = plugins.join("libbroken.so");
    std::fs::write(&broken, b"not a shared object").unwrap_or_else(|e| panic!("{e}"));
    let entries = list_json(
        dir.path(),
        &[("HDF5_PLUGIN_PATH", plugins.to_str().unwrap_or_default())],
    );
    let Some(last) = entries.last() else {
        panic!("nothing listed");
    };
    assert_eq!(last["id"], Value::Null, "{last}");
    assert_eq!(last["path"], broken.to_str().unwrap_or_default(), "{last}");
    assert_eq!(last["available"], false, "{last}");
    let note = last["note"].as_str().unwrap_or_default();
    assert!(note.starts_with("does not load: "), "{note}");
}

#[test]
fn all_three_tools_give_the_same_list() {
    let dir = scratch();
    for args in [&["--list-filters"][..], &["--list-filters", "--json"]] {
        let outputs: Vec<Run> = TOOLS
            .iter()
            .map(|tool| run_in(dir.path(), tool, args, &[]))
            .collect();
        for (tool, run) in TOOLS.iter().zip(&outputs) {
            assert_eq!(run.code, Some(0), "{tool} {args:?}: {}", run.stderr);
            assert_eq!(run.stdout, outputs[0].stdout, "{tool} {args:?}");
        }
    }
}

#[test]
fn json_alone_is_a_usage_error() {
    let dir = scratch();
    for tool in TOOLS {
        let run = run_in(dir.path(), tool, &["--json"], &[]);
        assert_eq!(run.code, Some(2), "{tool}: {}", run.stderr);
    }
}

/// `ncdump --filters ARGS inspect.nc` with no plugins and the environment `env`.
fn inspect(args: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = scratch();
    let file = build(dir.path(), "inspect");
    let empty = empty_plugins(dir.path());
    let mut all_env = vec![("HDF5_PLUGIN_PATH", empty.to_str().unwrap_or_default())];
    all_env.extend_from_slice(env);
    let mut all_args = vec!["--filters"];
    all_args.extend_from_slice(args);
    all_args.push(&file);
    run_in(dir.path(), "ncdump", &all_args, &all_env)
}

#[test]
fn filters_report() {
    let run = inspect(&[], &[]);
    ok("run", &run);
    insta::assert_snapshot!("filters_report", run.stdout);
}

#[test]
fn filters_report_when_filters_are_missing() {
    let run = inspect(&[], &[("NCTOOLS_BUILTIN_FILTERS", "0")]);
    ok("run", &run);
    insta::assert_snapshot!("filters_report_missing", run.stdout);
}

#[test]
fn filters_report_json() {
    let run = inspect(&["--json"], &[]);
    ok("run", &run);
    let vars = parse_json(&run.stdout);
    let paths: Vec<&str> = vars.iter().filter_map(|v| v["variable"].as_str()).collect();
    assert_eq!(
        paths,
        [
            "/temp",
            "/counts",
            "/pressure",
            "/checked",
            "/packed",
            "/never_written",
            "/g/rh"
        ]
    );
    let temp = &vars[0];
    assert_eq!(temp["uncompressed_bytes"], 768);
    assert_eq!(temp["chunks"], serde_json::json!([1, 6, 8]));
    let ids: Vec<u64> = temp["filters"]
        .as_array()
        .map(|f| f.iter().filter_map(|f| f["id"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(ids, [2, 307]);
    assert_eq!(temp["filters"][1]["decoded"]["block_size"], 9);
    assert_eq!(temp["filters"][1]["source"], "builtin");
    assert_eq!(vars[5]["stored_bytes"], 0);
    assert_eq!(vars[5]["ratio"], Value::Null);
    insta::assert_snapshot!("filters_report_json", run.stdout);
}

#[test]
fn filters_report_json_when_filters_are_missing() {
    let run = inspect(&["--json"], &[("NCTOOLS_BUILTIN_FILTERS", "0")]);
    ok("run", &run);
    let vars = parse_json(&run.stdout);
    let bzip2 = &vars[0]["filters"][1];
    assert_eq!(bzip2["available"], false, "{bzip2}");
    assert_eq!(bzip2["source"], "none", "{bzip2}");
    assert!(vars[0]["stored_bytes"].as_u64().is_some_and(|s| s > 0));
}

#[test]
fn a_file_without_filters_says_so() {
    let dir = scratch();
    let made = Test::ours("ncgen")
        .args(["-o", "plain.nc"])
        .arg(test_data("nccopy/shapes.cdl"))
        .current_dir(dir.path())
        .run();
    ok("made", &made);
    let run = run_in(dir.path(), "ncdump", &["--filters", "plain.nc"], &[]);
    ok("run", &run);
    assert_eq!(run.stdout, "plain.nc: no variable has filters\n");
    let json = run_in(
        dir.path(),
        "ncdump",
        &["--filters", "--json", "plain.nc"],
        &[],
    );
    assert_eq!(json.stdout.trim(), "[]");
}
