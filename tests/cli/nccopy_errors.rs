//! Every nccopy error a user can meet, as printed (standard error, exit code, whether an
//! output file was left), pinned by snapshots: usage errors (exit 2) and runtime errors
//! (exit 1). Each case runs in a scratch directory with relative file names, so the
//! messages are stable; the inputs are built by our ncgen (no reference tool needed).

use crate::support::{scratch, test_data, Test};

/// Builds `tests/data/nccopy/CASE.cdl` as `CASE.nc` (format `kind`) in a scratch
/// directory, runs our `nccopy ARGS CASE.nc out.nc` there, and describes the outcome.
fn nccopy_error(case: &str, kind: &str, args: &[&str]) -> String {
    let dir = scratch();
    let made = Test::ours("ncgen")
        .args(["-k", kind, "-o", &format!("{case}.nc")])
        .arg(test_data(&format!("nccopy/{case}.cdl")))
        .current_dir(dir.path())
        .run();
    assert_eq!(made.code, Some(0), "ncgen {case}: {}", made.stderr);
    let run = Test::ours("nccopy")
        .args(args)
        .args([format!("{case}.nc").as_str(), "out.nc"])
        .current_dir(dir.path())
        .run();
    let left = dir.path().join("out.nc").exists();
    format!(
        "exit: {:?}\noutput file left: {left}\n{}",
        run.code, run.stderr
    )
}

macro_rules! pin {
    ($name:ident, $case:expr, $kind:expr, $args:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), nccopy_error($case, $kind, &$args));
        }
    };
}

// Usage errors: exit 2, nothing written.
pin!(deflate_level_too_high, "shapes", "classic", ["-d", "10"]);
// A filter name where the variables go, as in the README's `zstd,3`.
pin!(
    filter_name_in_place_of_variables,
    "shapes",
    "netCDF-4",
    ["-F", "zstd,3"]
);
pin!(
    filter_id_in_place_of_variables,
    "shapes",
    "netCDF-4",
    ["-F", "307,9"]
);
pin!(
    deflate_level_not_a_number,
    "shapes",
    "classic",
    ["-d", "abc"]
);
pin!(unknown_kind, "shapes", "classic", ["-k", "foo"]);
pin!(
    chunk_spec_without_slash_or_colon,
    "shapes",
    "classic",
    ["-c", "x"]
);
pin!(
    chunk_length_not_a_number,
    "shapes",
    "classic",
    ["-c", "x/abc"]
);
pin!(chunk_length_zero, "shapes", "classic", ["-c", "x/0"]);
pin!(
    var_chunk_length_not_a_number,
    "shapes",
    "classic",
    ["-c", "big:abc"]
);
pin!(
    filter_var_named_twice,
    "shapes",
    "classic",
    ["-F", "big,307,9", "-F", "big,1,1"]
);
pin!(
    filter_bad_parameter,
    "shapes",
    "classic",
    ["-F", "big,307,9x"]
);
pin!(
    filter_unknown_name,
    "shapes",
    "classic",
    ["-F", "big,bzip,9"]
);
pin!(filter_spec_missing, "shapes", "classic", ["-F", "big"]);
pin!(
    filters_with_classic_output,
    "shapes",
    "classic",
    ["-k", "classic", "-F", "big,307,9"]
);
pin!(
    deflate_with_cdf5_output,
    "shapes",
    "classic",
    ["-k", "cdf5", "-d", "1"]
);
pin!(
    quantize_with_classic_output,
    "shapes",
    "classic",
    ["-3", "--quantize", "big,bitround,3"]
);
pin!(
    quantize_unknown_algorithm,
    "quantize",
    "nc4",
    ["--quantize", "temp,fast,3"]
);
pin!(
    quantize_zero_digits,
    "quantize",
    "nc4",
    ["--quantize", "temp,bitgroom,0"]
);
pin!(bad_buffer_size, "shapes", "classic", ["-m", "1X"]);
pin!(unknown_option, "shapes", "classic", ["-Z"]);

// Runtime errors: exit 1, nothing written.
pin!(
    filter_unknown_variable,
    "shapes",
    "classic",
    ["-F", "bgi,307,9"]
);
pin!(
    filter_unknown_variable_no_close_match,
    "shapes",
    "classic",
    ["-F", "zzzzzz,307,9"]
);
pin!(chunk_spec_wrong_rank, "shapes", "classic", ["-c", "big:10"]);
pin!(
    chunk_longer_than_dimension,
    "shapes",
    "classic",
    ["-c", "x/5000"]
);
pin!(
    chunk_unknown_dimension,
    "shapes",
    "classic",
    ["-c", "nosuch/4"]
);
pin!(
    chunk_unknown_variable,
    "shapes",
    "classic",
    ["-c", "nosuch:4"]
);
pin!(unknown_variable_in_list, "shapes", "classic", ["-V", "bgi"]);
pin!(unknown_group_in_list, "kinds", "nc4", ["-G", "nosuch"]);
pin!(group_without_its_parent, "kinds", "nc4", ["-G", "h"]);
pin!(groups_into_classic, "kinds", "nc4", ["-k", "classic"]);
pin!(
    quantize_too_many_digits,
    "quantize",
    "nc4",
    ["--quantize", "temp,bitgroom,8"]
);
pin!(
    quantize_unknown_variable,
    "quantize",
    "nc4",
    ["--quantize", "tmp,bitgroom,3"]
);

#[test]
fn missing_input_file() {
    let dir = scratch();
    let run = Test::ours("nccopy")
        .args(["nosuch.nc", "out.nc"])
        .current_dir(dir.path())
        .run();
    assert_eq!(run.code, Some(1));
    assert_eq!(run.stderr, "nccopy: nosuch.nc: no such file\n");
    assert!(!dir.path().join("out.nc").exists());
}

#[test]
fn missing_output_file_is_a_usage_error() {
    let dir = scratch();
    let run = Test::ours("nccopy")
        .args(["in.nc"])
        .current_dir(dir.path())
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("<OUTPUT>") || run.stderr.contains("required"),
        "{}",
        run.stderr
    );
}

/// `--dry-run` warns about each filter a real run would stop on, in the same words, and
/// still exits 0.
#[test]
fn dry_run_warns_about_unavailable_filters_in_a_real_runs_words() {
    let real = nccopy_error("shapes", "netCDF-4", &["-F", "big&small,40000,1"]);
    let dry = nccopy_error(
        "shapes",
        "netCDF-4",
        &["--dry-run", "-F", "big&small,40000,1"],
    );
    let Some(error) = real.lines().nth(2) else {
        panic!("no error: {real}");
    };
    assert!(real.starts_with("exit: Some(1)\n"), "{real}");
    let Some(stopped_on) = error
        .strip_prefix("nccopy: ")
        .and_then(|e| e.strip_suffix("; no output was written"))
    else {
        panic!("{error}");
    };
    let warnings: Vec<&str> = dry.lines().skip(2).collect();
    assert!(
        dry.starts_with("exit: Some(0)\noutput file left: false\n"),
        "{dry}"
    );
    assert_eq!(warnings.len(), 2, "{dry}");
    assert_eq!(warnings[0], format!("nccopy: warning: {stopped_on}"));
    assert_eq!(warnings[1], warnings[0].replace("/big", "/small"));
}
