//! `nccopy --try-filters`: which filter suits the user's data, measured on a sample of
//! its chunks; the ratios it reports are those a real copy gets, and it writes nothing.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{ok, scratch, Run, Test};

/// A netCDF-4 file with `wave(t=64, x=4096)`, float, chunks of 1 x 4096 (64 chunks of
/// 16 KiB, which a copy keeps; only some are sampled), smooth values with a little noise,
/// and `count(c)`, int.
fn wavy(dir: &Path) -> PathBuf {
    let mut values = Vec::new();
    for t in 0..64 {
        for x in 0..4096 {
            let v = (f64::from(x) / 9.0 + f64::from(t) / 5.0).sin() * 20.0
                + f64::from((7 * x + 3 * t) % 11) / 100.0;
            values.push(format!("{v:.3}"));
        }
    }
    let counts: Vec<String> = (0..100).map(|i| (i % 7).to_string()).collect();
    let cdl = format!(
        "netcdf wavy {{\ndimensions:\n\tt = 64 ;\n\tx = 4096 ;\n\tc = 100 ;\nvariables:\n\
         \tfloat wave(t, x) ;\n\t\twave:_ChunkSizes = 1, 4096 ;\n\tint count(c) ;\n\
         data:\n wave = {} ;\n count = {} ;\n}}\n",
        values.join(", "),
        counts.join(", ")
    );
    let cdl_path = dir.join("wavy.cdl");
    fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("wavy.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&out)
        .arg(&cdl_path)
        .run();
    ok("made", &made);
    out
}

fn try_filters(args: &[&str], file: &Path) -> Run {
    Test::ours("nccopy").args(args).arg(file).run()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn every_default_candidate_is_tried_one_suggested_and_nothing_written() {
    let dir = scratch();
    let file = wavy(dir.path());
    let before = files(dir.path());
    let run = try_filters(&["--try-filters"], &file);
    ok("run", &run);
    assert!(
        run.stdout.starts_with(
            "/wave  float(t=64, x=4096)  8 of 64 chunks sampled (128.0 KiB)\n    pipeline"
        ),
        "{}",
        run.stdout
    );
    for pipeline in [
        "deflate,1",
        "shuffle|deflate,9",
        "zstd,19",
        "shuffle|zstd,3",
        "bzip2,9",
        "blosc,0,0,0,0,5,1,1",
        "blosc,0,0,0,0,5,1,5",
        "lz4",
    ] {
        assert!(
            run.stdout.contains(&format!(" {pipeline} ")),
            "{pipeline} missing:\n{}",
            run.stdout
        );
    }
    assert!(
        run.stdout.contains("\n  suggested: -F '/wave,"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("/count  int(c=100)  1 of 1 chunks sampled"));
    assert!(
        run.stdout.contains("\n  * "),
        "no pipeline marked: {}",
        run.stdout
    );
    assert_eq!(files(dir.path()), before, "something was written");
}

#[test]
fn the_sampled_ratio_is_the_ratio_of_a_real_copy() {
    let dir = scratch();
    let file = wavy(dir.path());
    let pipelines = ["shuffle|zstd,3", "bzip2,9", "shuffle|deflate,4"];
    let run = try_filters(&["--json", "--try-filters", &pipelines.join(";")], &file);
    ok("run", &run);
    let report = json(&run.stdout);
    let wave = &report[0];
    assert_eq!(wave["variable"], "/wave");
    assert_eq!(wave["sampled_chunks"], 8);
    assert_eq!(wave["total_chunks"], 64);
    for (i, pipeline) in pipelines.iter().enumerate() {
        let row = &wave["candidates"][i];
        assert_eq!(row["pipeline"], *pipeline);
        let sampled = row["ratio"].as_f64().unwrap_or(0.0);
        let out = dir.path().join("copy.nc");
        let _ = fs::remove_file(&out);
        let copied = Test::ours("nccopy")
            .args(["-F", &format!("wave,{pipeline}")])
            .arg(&file)
            .arg(&out)
            .run();
        ok("copied", &copied);
        let inspected = Test::ours("ncdump")
            .args(["--filters", "--json"])
            .arg(&out)
            .run();
        let real = json(&inspected.stdout)[0]["compression_ratio"]
            .as_f64()
            .unwrap_or(0.0);
        assert!(
            (sampled / real - 1.0).abs() < 0.10,
            "{pipeline}: sampled {sampled}, real copy {real}"
        );
    }
}

#[test]
fn quantize_candidates_report_their_largest_errors() {
    let dir = scratch();
    let file = wavy(dir.path());
    let run = try_filters(
        &["--try-filters", "zstd,3", "--quantize", "bitround,8"],
        &file,
    );
    ok("run", &run);
    assert!(
        run.stdout.contains("max abs err  max rel err"),
        "{}",
        run.stdout
    );
    let lossy = run
        .stdout
        .lines()
        .find(|l| l.contains("bitround=8 + zstd,3"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    // 8 significant bits: errors below 2^-8 of the value, relative.
    let rel: f64 = lossy
        .split_whitespace()
        .last()
        .and_then(|w| w.parse().ok())
        .unwrap_or(1.0);
    assert!(rel > 0.0 && rel < 1.0 / 256.0, "{lossy}");
    assert!(
        run.stdout
            .contains("not run: quantize applies to float and double only"),
        "{}",
        run.stdout
    );
}

#[test]
fn bad_lists_and_outputs_are_usage_errors() {
    let dir = scratch();
    let file = wavy(dir.path());
    let bad = try_filters(&["--try-filters", "zstd,3;nosuch,1"], &file);
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert!(
        bad.stderr.contains("`nosuch,1` is not a filter pipeline"),
        "{}",
        bad.stderr
    );
    let out = dir.path().join("out.nc");
    let with_output = Test::ours("nccopy")
        .args(["--try-filters", "zstd,3"])
        .arg(&file)
        .arg(&out)
        .run();
    assert_eq!(with_output.code, Some(2), "{}", with_output.stderr);
    assert!(
        with_output.stderr.contains("writes nothing"),
        "{}",
        with_output.stderr
    );
    assert!(!out.exists());
}

#[test]
fn the_same_file_gets_the_same_suggestion_and_a_line_to_paste_that_works() {
    // Before: the suggestion moved from run to run with the machine's load (a speed
    // threshold decided it), -V was ignored, and no line gathered the -F arguments.
    let dir = scratch();
    let file = wavy(dir.path());
    let runs: Vec<Run> = (0..3)
        .map(|_| try_filters(&["--try-filters"], &file))
        .collect();
    let suggestions = |run: &Run| -> Vec<String> {
        run.stdout
            .lines()
            .filter(|l| l.contains("suggested"))
            .map(str::to_string)
            .collect()
    };
    for run in &runs {
        ok("run", run);
        assert_eq!(suggestions(run), suggestions(&runs[0]), "{}", run.stdout);
    }
    let paste = runs[0]
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("all suggested, to paste: nccopy "))
        .unwrap_or_else(|| panic!("no line to paste: {}", runs[0].stdout));
    // The line's -F arguments, unquoted as a shell would, given to nccopy.
    let args: Vec<String> = paste
        .trim_end_matches(" IN OUT")
        .split(" -F ")
        .map(|a| a.trim_start_matches("-F ").trim_matches('\'').to_string())
        .flat_map(|a| ["-F".to_string(), a])
        .collect();
    let out = dir.path().join("suggested.nc");
    let copied = Test::ours("nccopy").args(&args).arg(&file).arg(&out).run();
    assert_eq!(copied.code, Some(0), "{args:?}: {}", copied.stderr);
    // -V: only the variables named.
    let one = try_filters(&["--try-filters", "-V", "count"], &file);
    ok("one", &one);
    assert!(
        one.stdout.contains("/count") && !one.stdout.contains("/wave"),
        "{}",
        one.stdout
    );
    let none = try_filters(&["--try-filters", "-V", "nope"], &file);
    assert_eq!(none.code, Some(1), "{}", none.stderr);
    assert!(none.stderr.contains("no variable nope"), "{}", none.stderr);
}

/// hdf5plugin's plugin directory in the project's virtualenv, or `None` after a skip (a
/// failure in CI).
fn hdf5plugin_dir() -> Option<PathBuf> {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/lib");
    let found = fs::read_dir(lib)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("site-packages/hdf5plugin/plugins"))
        .find(|p| p.join("libh5bshuf.so").is_file());
    if found.is_none() {
        crate::support::skip("hdf5plugin's plugins in .venv");
    }
    found
}

#[test]
fn a_plugin_filter_hdf5_loads_is_measured_through_hdf5() {
    let Some(plugins) = hdf5plugin_dir() else {
        return;
    };
    let dir = scratch();
    let file = wavy(dir.path());
    // hdf5plugin's bitshuffle with lz4, which nctools does not carry: before, "not run".
    let pipeline = "32008,0,2";
    let tmp = dir.path().join("tmp");
    fs::create_dir_all(&tmp).unwrap_or_else(|e| panic!("{e}"));
    let run = Test::ours("nccopy")
        .args(["--json", "-V", "wave", "--try-filters", pipeline])
        .arg(&file)
        .envs(&[
            ("HDF5_PLUGIN_PATH", &plugins.to_string_lossy()),
            ("TMPDIR", &tmp.to_string_lossy()),
        ])
        .run();
    ok("run", &run);
    // The file HDF5 measured in is gone with its directory.
    assert_eq!(files(&tmp), Vec::<String>::new());
    let row = &json(&run.stdout)[0]["candidates"][0];
    assert_eq!(row["pipeline"], pipeline, "{row}");
    assert_eq!(row["ran"], true, "{row} {}", plugins.display());
    let sampled = row["ratio"].as_f64().unwrap_or(0.0);
    // The ratio is what a real copy through the plugin stores.
    let out = dir.path().join("copy.nc");
    let copied = Test::ours("nccopy")
        .args(["-F", &format!("wave,{pipeline}")])
        .arg(&file)
        .arg(&out)
        .envs(&[("HDF5_PLUGIN_PATH", &plugins.to_string_lossy())])
        .run();
    ok("copied", &copied);
    let inspected = Test::ours("ncdump")
        .args(["--filters", "--json"])
        .arg(&out)
        .envs(&[("HDF5_PLUGIN_PATH", &plugins.to_string_lossy())])
        .run();
    let real = json(&inspected.stdout)[0]["compression_ratio"]
        .as_f64()
        .unwrap_or(0.0);
    assert!(
        sampled > 1.0 && (sampled / real - 1.0).abs() < 0.10,
        "sampled {sampled}, real copy {real}"
    );
    // Without the plugin, the row says why it did not run.
    let empty = dir.path().join("no-plugins");
    fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let without = Test::ours("nccopy")
        .args(["--json", "-V", "wave", "--try-filters", pipeline])
        .arg(&file)
        .envs(&[("HDF5_PLUGIN_PATH", &empty.to_string_lossy())])
        .run();
    ok("without", &without);
    let row = &json(&without.stdout)[0]["candidates"][0];
    assert_eq!(row["ran"], false, "{row}");
    assert!(row["why_not"].is_string(), "{row}");
}
