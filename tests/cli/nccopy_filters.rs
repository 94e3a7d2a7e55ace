//! nccopy's filters: every row of the spec's `-F none` precedence table, every `-F` form,
//! `-d`/`-s` after the table, variable-sized types and scalars (D4), netCDF-3 inputs and
//! outputs, missing plugins (D6) and untouched outputs (D7). Each copy is checked three
//! ways ([`check_copy`]): the `--dry-run` plan, the storage the reference `ncdump -hsF`
//! sees in the output, and the data, which must read back identical.

use std::fs;
use std::path::{Path, PathBuf};

use crate::nccopy::{check_copy, data_of, dump, have_reference, input, ours, storage_of};
use crate::support::{ok, scratch};

/// `precedence.nc`: /plain contiguous and unfiltered, /zipped deflated (2) and shuffled,
/// /bz bzip2 (9), /fl fletcher32.
fn precedence(dir: &Path) -> PathBuf {
    input(dir, "precedence", "netCDF-4")
}

#[test]
fn without_options_input_filters_are_kept_row_4_and_row_7() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    check_copy(
        &precedence(dir.path()),
        &[],
        &[
            "/plain\t-\ttable row 7",
            "/zipped\t2,4|1,2\ttable row 4",
            "/bz\t307,9\ttable row 4",
            "/fl\t3\ttable row 4",
        ],
        &[
            "/plain contiguous -",
            "/zipped chunked(4, 6) 2,4|1,2",
            // Input chunks under 8192 bytes are dropped; the filter needs chunks again.
            "/bz chunked(4, 6) 307,9",
            "/fl chunked(4) 3",
        ],
    );
}

#[test]
fn f_none_removes_every_filter_row_1() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    for none in ["none", "*,none"] {
        check_copy(
            &file,
            &["-F", none],
            &[
                "/plain\t-\ttable row 1",
                "/zipped\t-\ttable row 1",
                "/bz\t-\ttable row 1",
                "/fl\t-\ttable row 1",
            ],
            &[
                "/plain contiguous -",
                "/zipped contiguous -",
                "/bz contiguous -",
                "/fl contiguous -",
            ],
        );
    }
}

#[test]
fn f_none_with_var_none_row_2() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    check_copy(
        &precedence(dir.path()),
        &["-F", "none", "-F", "plain&zipped,none"],
        &[
            "/plain\t-\ttable row 2",
            "/zipped\t-\ttable row 2",
            "/bz\t-\ttable row 1",
            "/fl\t-\ttable row 1",
        ],
        &[
            "/plain contiguous -",
            "/zipped contiguous -",
            "/bz contiguous -",
            "/fl contiguous -",
        ],
    );
}

#[test]
fn f_none_with_var_spec_filters_that_var_row_3() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    let plan = [
        "/plain\t307,5\ttable row 3",
        "/zipped\t-\ttable row 1",
        "/bz\t307,5\ttable row 3",
        "/fl\t-\ttable row 1",
    ];
    let storage = [
        // Contiguous input that gets a filter becomes chunked (D4).
        "/plain chunked(4, 6) 307,5",
        "/zipped contiguous -",
        "/bz chunked(4, 6) 307,5",
        "/fl contiguous -",
    ];
    // The order of the options does not matter.
    check_copy(
        &file,
        &["-F", "none", "-F", "plain&bz,bzip2,5"],
        &plan,
        &storage,
    );
    check_copy(
        &file,
        &["-F", "plain&bz,bzip2,5", "-F", "none"],
        &plan,
        &storage,
    );
}

#[test]
fn var_none_unfilters_that_var_only_row_5() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    check_copy(
        &precedence(dir.path()),
        &["-F", "zipped&plain,none"],
        &[
            "/plain\t-\ttable row 5",
            "/zipped\t-\ttable row 5",
            "/bz\t307,9\ttable row 4",
            "/fl\t3\ttable row 4",
        ],
        &[
            "/plain contiguous -",
            "/zipped contiguous -",
            "/bz chunked(4, 6) 307,9",
            "/fl chunked(4) 3",
        ],
    );
}

#[test]
fn var_spec_on_an_unfiltered_var_row_6_in_stored_order() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    // HDF5 stores fletcher32 first, shuffle next (with the element size), then the rest.
    check_copy(
        &precedence(dir.path()),
        &["-F", "plain,307,9|shuffle|3"],
        &[
            "/plain\t3|2,4|307,9\ttable row 6",
            "/zipped\t2,4|1,2\ttable row 4",
            "/bz\t307,9\ttable row 4",
            "/fl\t3\ttable row 4",
        ],
        &[
            "/plain chunked(4, 6) 3|2,4|307,9",
            "/zipped chunked(4, 6) 2,4|1,2",
            "/bz chunked(4, 6) 307,9",
            "/fl chunked(4) 3",
        ],
    );
}

#[test]
fn var_spec_replaces_input_filters_row_8_never_merged() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    check_copy(
        &precedence(dir.path()),
        &["-F", "bz,1,4", "-F", "zipped,bzip2,9"],
        &[
            "/plain\t-\ttable row 7",
            "/zipped\t307,9\ttable row 8",
            "/bz\t1,4\ttable row 8",
            "/fl\t3\ttable row 4",
        ],
        &[
            "/plain contiguous -",
            "/zipped chunked(4, 6) 307,9",
            "/bz chunked(4, 6) 1,4",
            "/fl chunked(4) 3",
        ],
    );
}

#[test]
fn star_spec_is_defined_for_every_variable_and_names_override_it() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    check_copy(
        &file,
        &["-F", "*,lz4"],
        &[
            "/plain\t32004\ttable row 6",
            "/zipped\t32004\ttable row 8",
            "/bz\t32004\ttable row 8",
            "/fl\t32004\ttable row 8",
        ],
        &[
            "/plain chunked(4, 6) 32004",
            "/zipped chunked(4, 6) 32004",
            "/bz chunked(4, 6) 32004",
            "/fl chunked(4) 32004",
        ],
    );
    check_copy(
        &file,
        &["-F", "*,307,1", "-F", "fl,none"],
        &[
            "/plain\t307,1\ttable row 6",
            "/zipped\t307,1\ttable row 8",
            "/bz\t307,1\ttable row 8",
            "/fl\t-\ttable row 5",
        ],
        &[
            "/plain chunked(4, 6) 307,1",
            "/zipped chunked(4, 6) 307,1",
            "/bz chunked(4, 6) 307,1",
            "/fl contiguous -",
        ],
    );
}

#[test]
fn ampersand_lists_repeats_names_and_absolute_paths() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    check_copy(
        &precedence(dir.path()),
        &["-F", "plain&/fl,lz4", "-F", "bz,deflate,1|fletcher32"],
        &[
            "/plain\t32004\ttable row 6",
            "/zipped\t2,4|1,2\ttable row 4",
            "/bz\t3|1,1\ttable row 8",
            "/fl\t32004\ttable row 8",
        ],
        &[
            "/plain chunked(4, 6) 32004",
            "/zipped chunked(4, 6) 2,4|1,2",
            "/bz chunked(4, 6) 3|1,1",
            "/fl chunked(4) 32004",
        ],
    );
}

/// `kinds.nc`: /v float, /sc scalar, /str string, /vl vlen, /cs compound with a string,
/// /pairs compound of shorts, /a&b,c, and /g/v, /g/h/w in groups.
fn kinds(dir: &Path) -> PathBuf {
    input(dir, "kinds", "netCDF-4")
}

const KINDS_UNFILTERED: [&str; 9] = [
    "/v contiguous -",
    "/sc contiguous -",
    "/str contiguous -",
    "/vl contiguous -",
    "/cs contiguous -",
    "/pairs contiguous -",
    "/a\\&b\\,c contiguous -",
    "/g/v contiguous -",
    "/g/h/w contiguous -",
];

#[test]
fn relative_names_are_in_the_root_group_and_paths_reach_groups() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = kinds(dir.path());
    let row7 = |path: &str| format!("{path}\t-\ttable row 7");
    let mut plan: Vec<String> = ["/v", "/sc", "/str", "/vl", "/cs", "/pairs", "/a&b,c"]
        .iter()
        .map(|p| row7(p))
        .collect();
    plan.extend([
        "/g/v\t1,1\ttable row 6".into(),
        "/g/h/w\t1,1\ttable row 6".into(),
    ]);
    let plan: Vec<&str> = plan.iter().map(String::as_str).collect();
    let mut storage = KINDS_UNFILTERED.to_vec();
    storage[7] = "/g/v chunked(4) 1,1";
    storage[8] = "/g/h/w chunked(4) 1,1";
    check_copy(&file, &["-F", "g/v&/g/h/w,zlib,1"], &plan, &storage);

    // `v` is /v, not /g/v.
    let mut plan: Vec<String> = [
        "/sc", "/str", "/vl", "/cs", "/pairs", "/a&b,c", "/g/v", "/g/h/w",
    ]
    .iter()
    .map(|p| row7(p))
    .collect();
    plan.insert(0, "/v\t307,9\ttable row 6".into());
    let plan: Vec<&str> = plan.iter().map(String::as_str).collect();
    let mut storage = KINDS_UNFILTERED.to_vec();
    storage[0] = "/v chunked(4) 307,9";
    check_copy(&file, &["-F", "v,bz2,9"], &plan, &storage);
}

#[test]
fn backslash_escapes_special_characters_in_names() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let row7 = |path: &str| format!("{path}\t-\ttable row 7");
    let mut plan: Vec<String> = [
        "/v", "/sc", "/str", "/vl", "/cs", "/pairs", "/g/v", "/g/h/w",
    ]
    .iter()
    .map(|p| row7(p))
    .collect();
    plan.insert(6, "/a&b,c\t307,1\ttable row 6".into());
    let plan: Vec<&str> = plan.iter().map(String::as_str).collect();
    let mut storage = KINDS_UNFILTERED.to_vec();
    storage[6] = "/a\\&b\\,c chunked(4) 307,1";
    check_copy(
        &kinds(dir.path()),
        &["-F", "a\\&b\\,c,bzip2,1"],
        &plan,
        &storage,
    );
}

#[test]
fn variable_sized_types_and_scalars_are_left_unfiltered_under_star() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let (run, _) = check_copy(
        &kinds(dir.path()),
        &["-F", "*,bzip2,5"],
        &[
            "/v\t307,5\ttable row 6",
            "/sc\t-\tscalar",
            "/str\t-\tvariable-length type",
            "/vl\t-\tvariable-length type",
            "/cs\t-\tvariable-length type",
            "/pairs\t307,5\ttable row 6",
            "/a&b,c\t307,5\ttable row 6",
            "/g/v\t307,5\ttable row 6",
            "/g/h/w\t307,5\ttable row 6",
        ],
        &[
            "/v chunked(4) 307,5",
            "/sc contiguous -",
            "/str contiguous -",
            "/vl contiguous -",
            "/cs contiguous -",
            "/pairs chunked(4) 307,5",
            "/a\\&b\\,c chunked(4) 307,5",
            "/g/v chunked(4) 307,5",
            "/g/h/w chunked(4) 307,5",
        ],
    );
    // A warning per variable-sized variable, naming it and the filter; none for the
    // scalar under `*`.
    assert_eq!(
        run.stderr,
        "nccopy: warning: variable /str: filters are not applied to variable-length types \
         (307,5 suppressed)\n\
         nccopy: warning: variable /vl: filters are not applied to variable-length types \
         (307,5 suppressed)\n\
         nccopy: warning: variable /cs: filters are not applied to variable-length types \
         (307,5 suppressed)\n"
    );
}

#[test]
fn named_variable_sized_types_and_scalars_warn() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let mut storage = KINDS_UNFILTERED.to_vec();
    storage[5] = "/pairs chunked(4) 307,9";
    let (run, _) = check_copy(
        &kinds(dir.path()),
        &["-F", "str&vl&cs&sc&pairs,307,9"],
        &[
            "/v\t-\ttable row 7",
            "/sc\t-\tscalar",
            "/str\t-\tvariable-length type",
            "/vl\t-\tvariable-length type",
            "/cs\t-\tvariable-length type",
            "/pairs\t307,9\ttable row 6",
            "/a&b,c\t-\ttable row 7",
            "/g/v\t-\ttable row 7",
            "/g/h/w\t-\ttable row 7",
        ],
        &storage,
    );
    assert_eq!(
        run.stderr,
        "nccopy: warning: variable /sc: filters cannot apply to a scalar variable (307,9 \
         ignored)\n\
         nccopy: warning: variable /str: filters are not applied to variable-length types \
         (307,9 suppressed)\n\
         nccopy: warning: variable /vl: filters are not applied to variable-length types \
         (307,9 suppressed)\n\
         nccopy: warning: variable /cs: filters are not applied to variable-length types \
         (307,9 suppressed)\n"
    );
}

#[test]
fn deflate_on_variable_sized_types_warns_and_goes_on() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let (run, _) = check_copy(
        &kinds(dir.path()),
        &["-d", "1"],
        &[
            "/v\t1,1\ttable row 7, -d",
            "/sc\t-\tscalar",
            "/str\t-\tvariable-length type",
            "/vl\t-\tvariable-length type",
            "/cs\t-\tvariable-length type",
            "/pairs\t1,1\ttable row 7, -d",
            "/a&b,c\t1,1\ttable row 7, -d",
            "/g/v\t1,1\ttable row 7, -d",
            "/g/h/w\t1,1\ttable row 7, -d",
        ],
        &[
            "/v chunked(4) 1,1",
            "/sc contiguous -",
            "/str contiguous -",
            "/vl contiguous -",
            "/cs contiguous -",
            "/pairs chunked(4) 1,1",
            "/a\\&b\\,c chunked(4) 1,1",
            "/g/v chunked(4) 1,1",
            "/g/h/w chunked(4) 1,1",
        ],
    );
    for var in ["/str", "/vl", "/cs"] {
        assert!(
            run.stderr.contains(&format!(
                "variable {var}: filters are not applied to variable-length types (1,1 suppressed)"
            )),
            "{}",
            run.stderr
        );
    }
    assert!(!run.stderr.contains("/sc"), "{}", run.stderr);
}

#[test]
fn deflate_level_replaces_deflate_and_keeps_other_filters() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    check_copy(
        &precedence(dir.path()),
        &["-d", "3"],
        &[
            "/plain\t1,3\ttable row 7, -d",
            "/zipped\t2,4|1,3\ttable row 4, -d",
            "/bz\t307,9|1,3\ttable row 4, -d",
            "/fl\t3|1,3\ttable row 4, -d",
        ],
        &[
            "/plain chunked(4, 6) 1,3",
            "/zipped chunked(4, 6) 2,4|1,3",
            "/bz chunked(4, 6) 307,9|1,3",
            "/fl chunked(4) 3|1,3",
        ],
    );
}

#[test]
fn deflate_zero_removes_deflate_only() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    check_copy(
        &file,
        &["-d", "0"],
        &[
            "/plain\t-\ttable row 7",
            "/zipped\t2,4\ttable row 4, -d",
            "/bz\t307,9\ttable row 4",
            "/fl\t3\ttable row 4",
        ],
        &[
            "/plain contiguous -",
            "/zipped chunked(4, 6) 2,4",
            "/bz chunked(4, 6) 307,9",
            "/fl chunked(4) 3",
        ],
    );
    check_copy(
        &file,
        &["-d", "0", "-F", "zipped,bzip2,9|deflate,4"],
        &[
            "/plain\t-\ttable row 7",
            "/zipped\t307,9\ttable row 8, -d",
            "/bz\t307,9\ttable row 4",
            "/fl\t3\ttable row 4",
        ],
        &[
            "/plain contiguous -",
            "/zipped chunked(4, 6) 307,9",
            "/bz chunked(4, 6) 307,9",
            "/fl chunked(4) 3",
        ],
    );
}

#[test]
fn shuffle_is_added_in_its_stored_place() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    check_copy(
        &precedence(dir.path()),
        &["-s"],
        &[
            "/plain\t2,4\ttable row 7, -s",
            "/zipped\t2,4|1,2\ttable row 4",
            "/bz\t2,4|307,9\ttable row 4, -s",
            "/fl\t3|2,8\ttable row 4, -s",
        ],
        &[
            "/plain chunked(4, 6) 2,4",
            "/zipped chunked(4, 6) 2,4|1,2",
            "/bz chunked(4, 6) 2,4|307,9",
            "/fl chunked(4) 3|2,8",
        ],
    );
}

#[test]
fn deflate_never_drops_f_filters() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    check_copy(
        &file,
        &["-F", "bz,307,9", "-d", "1"],
        &[
            "/plain\t1,1\ttable row 7, -d",
            "/zipped\t2,4|1,1\ttable row 4, -d",
            "/bz\t307,9|1,1\ttable row 8, -d",
            "/fl\t3|1,1\ttable row 4, -d",
        ],
        &[
            "/plain chunked(4, 6) 1,1",
            "/zipped chunked(4, 6) 2,4|1,1",
            "/bz chunked(4, 6) 307,9|1,1",
            "/fl chunked(4) 3|1,1",
        ],
    );
    check_copy(
        &file,
        &["-F", "none", "-F", "plain,bzip2,5", "-d", "2", "-s"],
        &[
            "/plain\t2,4|307,5|1,2\ttable row 3, -d, -s",
            "/zipped\t2,4|1,2\ttable row 1, -d, -s",
            "/bz\t2,4|1,2\ttable row 1, -d, -s",
            "/fl\t2,8|1,2\ttable row 1, -d, -s",
        ],
        &[
            "/plain chunked(4, 6) 2,4|307,5|1,2",
            "/zipped chunked(4, 6) 2,4|1,2",
            "/bz chunked(4, 6) 2,4|1,2",
            "/fl chunked(4) 2,8|1,2",
        ],
    );
    check_copy(
        &file,
        &["-F", "*,none", "-d", "1"],
        &[
            "/plain\t1,1\ttable row 1, -d",
            "/zipped\t1,1\ttable row 1, -d",
            "/bz\t1,1\ttable row 1, -d",
            "/fl\t1,1\ttable row 1, -d",
        ],
        &[
            "/plain chunked(4, 6) 1,1",
            "/zipped chunked(4, 6) 1,1",
            "/bz chunked(4, 6) 1,1",
            "/fl chunked(4) 1,1",
        ],
    );
}

/// `shapes.cdl` as a classic file: /big(40, 60) float, /small(5) double, /sc, /rec(t, 5)
/// short, /t(t) int, /name(5) char.
fn shapes_classic(dir: &Path) -> PathBuf {
    input(dir, "shapes", "classic")
}

#[test]
fn filters_on_classic_input_make_netcdf4_output() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = shapes_classic(dir.path());
    let (_, out) = check_copy(
        &file,
        &["-F", "big,307,9"],
        &[
            "/big\t307,9\ttable row 6",
            "/small\t-\ttable row 7",
            "/sc\t-\ttable row 7",
            "/rec\t-\ttable row 7",
            "/t\t-\ttable row 7",
            "/name\t-\ttable row 7",
        ],
        &[
            "/big chunked(40, 60) 307,9",
            "/small contiguous -",
            "/sc contiguous -",
            "/rec chunked(1, 5) -",
            "/t chunked(1024) -",
            "/name contiguous -",
        ],
    );
    assert_eq!(dump(&["-k"], &out).trim(), "netCDF-4");
    // -k nc7 is HDF5 too: filters are fine there.
    let (_, out) = check_copy(
        &file,
        &["-k", "nc7", "-F", "big&small,307,9"],
        &[
            "/big\t307,9\ttable row 6",
            "/small\t307,9\ttable row 6",
            "/sc\t-\ttable row 7",
            "/rec\t-\ttable row 7",
            "/t\t-\ttable row 7",
            "/name\t-\ttable row 7",
        ],
        &[
            "/big chunked(40, 60) 307,9",
            "/small chunked(5) 307,9",
            "/sc contiguous -",
            "/rec chunked(1, 5) -",
            "/t chunked(1024) -",
            "/name contiguous -",
        ],
    );
    assert_eq!(dump(&["-k"], &out).trim(), "netCDF-4 classic model");
    // -d on classic input: netCDF-4 classic model, every non-scalar variable deflated.
    let (_, out) = check_copy(
        &file,
        &["-d", "1", "-F", "none"],
        &[
            "/big\t1,1\ttable row 1, -d",
            "/small\t1,1\ttable row 1, -d",
            "/sc\t-\tscalar",
            "/rec\t1,1\ttable row 1, -d",
            "/t\t1,1\ttable row 1, -d",
            "/name\t1,1\ttable row 1, -d",
        ],
        &[
            "/big chunked(40, 60) 1,1",
            "/small chunked(5) 1,1",
            "/sc contiguous -",
            "/rec chunked(1, 5) 1,1",
            "/t chunked(1024) 1,1",
            "/name chunked(5) 1,1",
        ],
    );
    assert_eq!(dump(&["-k"], &out).trim(), "netCDF-4 classic model");
}

#[test]
fn netcdf3_output_with_filters_is_a_usage_error_before_writing() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = shapes_classic(dir.path());
    let out = dir.path().join("out.nc");
    let cases: &[(&[&str], &str)] = &[
        (
            &["-k", "classic", "-F", "big,307,9"],
            "-F filters need netCDF-4 output, but -k asks for the classic format",
        ),
        (
            &["-F", "big,307,9", "-k", "nc6"],
            "-F filters need netCDF-4 output, but -k asks for the 64-bit offset format",
        ),
        (
            &["-k", "cdf5", "-d", "1"],
            "-d/-s compression needs netCDF-4 output, but -k asks for the cdf5 format",
        ),
        (
            &["-3", "-s"],
            "-d/-s compression needs netCDF-4 output, but -k asks for the classic format",
        ),
    ];
    for (args, message) in cases {
        let done = ours(args, &file, Some(&out));
        assert_eq!(done.code, Some(2), "{args:?}: {}", done.stderr);
        assert!(done.stderr.contains(message), "{args:?}: {}", done.stderr);
        assert!(!out.exists(), "{args:?}: an output file was written");
        // --dry-run says the same.
        let dry: Vec<&str> = args.iter().copied().chain(["--dry-run"]).collect();
        let planned = ours(&dry, &file, None);
        assert_eq!(planned.code, Some(2), "{args:?} --dry-run");
        assert_eq!(planned.stdout, "", "{args:?} --dry-run");
    }
    // -F none asks for no filter: classic output is fine.
    let done = ours(&["-k", "classic", "-F", "none"], &file, Some(&out));
    ok("done", &done);
    assert_eq!(dump(&["-k"], &out).trim(), "classic");
}

#[test]
fn an_unknown_variable_is_an_error_with_a_suggestion_and_no_output() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    let out = dir.path().join("out.nc");
    let done = ours(&["-F", "plian,307,9"], &file, Some(&out));
    assert_eq!(done.code, Some(1));
    assert_eq!(
        done.stderr,
        "nccopy: -F: the input has no variable /plian; did you mean /plain? (no output was \
         written)\n"
    );
    assert!(!out.exists());
    // Among others in an & list, and in --dry-run.
    let done = ours(&["-F", "plain&/g/plain,307,9", "--dry-run"], &file, None);
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr.contains("no variable /g/plain"),
        "{}",
        done.stderr
    );
    assert_eq!(done.stdout, "");
}

// DECISIONS D6: missing plugins.

/// Runs our nccopy with HDF5_PLUGIN_PATH set to an empty directory and the built-in
/// filters off (the case of a filter nctools does not carry).
fn without_plugins(
    empty: &Path,
    args: &[&str],
    input: &Path,
    output: Option<&Path>,
) -> crate::support::Run {
    let empty = empty.to_string_lossy().into_owned();
    let mut test = crate::support::Test::ours("nccopy")
        .envs(&[
            ("HDF5_PLUGIN_PATH", &empty),
            ("NCTOOLS_BUILTIN_FILTERS", "0"),
        ])
        .args(args)
        .arg(input);
    if let Some(output) = output {
        test = test.arg(output);
    }
    test.run()
}

#[test]
fn a_missing_plugin_stops_the_copy_and_names_variable_filter_and_path() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    let empty = dir.path().join("no-plugins");
    fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out.nc");
    let done = without_plugins(&empty, &[], &file, Some(&out));
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    for needle in [
        "cannot read variable /bz",
        "filter 307 (bzip2; built into nctools, turned off by NCTOOLS_BUILTIN_FILTERS=0) \
         is not available",
        &format!(
            "plugins were searched in {} (from HDF5_PLUGIN_PATH)",
            empty.display()
        ),
        "no output was written",
    ] {
        assert!(
            done.stderr.contains(needle),
            "no `{needle}` in: {}",
            done.stderr
        );
    }
    assert!(!out.exists(), "an output file was left");
    // D7: an existing output is untouched.
    fs::write(&out, "precious").unwrap_or_else(|e| panic!("{e}"));
    let done = without_plugins(&empty, &[], &file, Some(&out));
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert_eq!(fs::read_to_string(&out).unwrap_or_default(), "precious");
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    fs::remove_file(&out).unwrap_or_else(|e| panic!("{e}"));
    // Another variable copies fine, and --dry-run needs no plugin.
    let done = without_plugins(&empty, &["-V", "plain"], &file, Some(&out));
    ok("done", &done);
    assert_eq!(storage_of(&out), "/plain contiguous -\n");
    let done = without_plugins(&empty, &["--dry-run"], &file, None);
    ok("done", &done);
    assert_eq!(
        done.stdout,
        "/plain\t-\ttable row 7\n/zipped\t2,4|1,2\ttable row 4\n/bz\t307,9\ttable row 4\n\
         /fl\t3\ttable row 4\n"
    );
    let done = without_plugins(&empty, &["-F", "*,bzip2,9", "--dry-run"], &file, None);
    ok("done", &done);
    assert!(
        done.stdout.contains("/plain\t307,9\ttable row 6\n"),
        "{}",
        done.stdout
    );
    // An output filter that is missing fails the same way, and leaves nothing.
    fs::remove_file(&out).unwrap_or_else(|e| panic!("{e}"));
    let done = without_plugins(
        &empty,
        &["-V", "plain", "-F", "plain,307,9"],
        &file,
        Some(&out),
    );
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("cannot write variable /plain with filter 307 (bzip2; built into nctools"),
        "{}",
        done.stderr
    );
    assert!(!out.exists(), "an output file was left");
}

#[test]
fn a_variable_whose_filter_is_missing_is_declared_or_copied_as_stored() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = precedence(dir.path());
    let empty = dir.path().join("no-plugins");
    fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out.nc");
    // -v leaves /bz's data out; its definition keeps filter 307 (table row 4), which the
    // output declares without running it: no plugin is needed.
    let done = without_plugins(&empty, &["-v", "plain"], &file, Some(&out));
    assert_eq!((done.code, done.stderr.as_str()), (Some(0), ""));
    assert!(storage_of(&out).contains("/bz chunked(4, 6) 307,9\n"));
    // -F '/bz,none' writes it unfiltered instead.
    let done = without_plugins(
        &empty,
        &["-v", "plain", "-F", "/bz,none"],
        &file,
        Some(&out),
    );
    ok("done", &done);
    assert!(storage_of(&out).contains("/bz contiguous -\n"));
    // With its data: -M 0 keeps /bz's small chunks, so they are copied as stored, with no
    // plugin, and read back (through the plugin) as the input.
    let done = without_plugins(&empty, &["-M", "0"], &file, Some(&out));
    ok("done", &done);
    assert!(storage_of(&out).contains("/bz chunked(2, 6) 307,9\n"));
    assert_eq!(data_of(&out), data_of(&file));
    // Decoding them needs the filter (DECISIONS D6).
    fs::remove_file(&out).unwrap_or_else(|e| panic!("{e}"));
    let done = without_plugins(&empty, &["-M", "0", "--recode"], &file, Some(&out));
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(
        done.stderr.contains("cannot read variable /bz"),
        "{}",
        done.stderr
    );
    assert!(!out.exists(), "an output file was left");
}

#[test]
fn a_failed_copy_leaves_an_existing_output_untouched() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = kinds(dir.path());
    let out = dir.path().join("out.nc");
    fs::write(&out, "precious").unwrap_or_else(|e| panic!("{e}"));
    for args in [
        &["-k", "classic"][..],
        &["-F", "nosuch,307,9"],
        &["-c", "v:9"],
    ] {
        let done = ours(args, &file, Some(&out));
        assert_eq!(done.code, Some(1), "{args:?}: {}", done.stderr);
        assert_eq!(
            fs::read_to_string(&out).unwrap_or_default(),
            "precious",
            "{args:?}"
        );
    }
    let done = ours(&["-d", "12"], &file, Some(&out));
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert_eq!(fs::read_to_string(&out).unwrap_or_default(), "precious");
}

#[test]
fn chunks_encoded_here_read_back_like_those_hdf5_encodes() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let file = input(dir.path(), "shapes", "netCDF-4");
    // Filtered variables of fixed-size types take the direct chunk path (encoded on every core by
    // h5filters); NCTOOLS_DIRECT_CHUNKS=0 makes HDF5's own pipeline encode them.
    // (args, whether the files must have the same size: the chunks tile the variables
    // exactly, so every chunk is encoded from the same bytes as HDF5's, with the same
    // library. Where they do not, the edge chunks encoded here are padded with zeros,
    // HDF5 pads them otherwise; and deflate is zlib-rs here, zlib in HDF5: the sizes
    // differ, which shows the direct path was taken, not silently skipped.)
    for (args, exact) in [
        (&["-d", "1", "-s", "-c", "x/7,y/11"][..], false),
        (&["-d", "1", "-s", "-c", "x/20,y/30", "-V", "big"], false),
        (
            &["-F", "*,bzip2,9|shuffle", "-c", "x/40,y/6", "-V", "big"],
            true,
        ),
        (&["-F", "big&small,zlib,9"], false),
    ] {
        let (direct, pipeline) = direct_and_pipeline(dir.path(), &file, args);
        assert_eq!(data_of(&direct), data_of(&pipeline), "{args:?}");
        assert_eq!(storage_of(&direct), storage_of(&pipeline), "{args:?}");
        if !args.contains(&"-V") {
            assert_eq!(data_of(&direct), data_of(&file), "{args:?}");
        }
        let size = |p: &Path| fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        if exact {
            assert_eq!(size(&direct), size(&pipeline), "{args:?}");
        } else {
            assert_ne!(
                size(&direct),
                size(&pipeline),
                "{args:?}: no direct chunk write"
            );
        }
    }
    // A record variable (t is unlimited) takes the direct path too, grown to its length
    // first: the same data and storage as HDF5's pipeline writes. The files differ (HDF5's
    // pipeline grows the chunk index record by record), which shows the direct path was
    // taken: two runs through the pipeline write the same bytes.
    for chunks in ["t/1,d/5", "t/1,d/2", "t/2,d/3"] {
        let args = ["-F", "rec,bzip2,9|shuffle", "-V", "rec,t", "-c", chunks];
        let (direct, pipeline) = direct_and_pipeline(dir.path(), &file, &args);
        assert_eq!(data_of(&direct), data_of(&pipeline), "{args:?}");
        assert!(data_of(&direct).contains(" rec =\n  1, 2, 3, 4, 5,\n  6, 7, 8, 9, 10 ;"));
        assert_eq!(storage_of(&direct), storage_of(&pipeline), "{args:?}");
        let bytes = |p: &Path| fs::read(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        assert_ne!(
            bytes(&direct),
            bytes(&pipeline),
            "{args:?}: no direct chunk write"
        );
    }
}

/// Our nccopy with `args` from `file` twice, into `dir`: with the direct chunk path (as
/// by default) and with HDF5's pipeline only (`NCTOOLS_DIRECT_CHUNKS=0`); both outputs.
fn direct_and_pipeline(dir: &Path, file: &Path, args: &[&str]) -> (PathBuf, PathBuf) {
    let direct = dir.join("direct.nc");
    let pipeline = dir.join("pipeline.nc");
    let done = ours(args, file, Some(&direct));
    assert_eq!(done.code, Some(0), "{args:?}: {}", done.stderr);
    let done = crate::support::Test::ours("nccopy")
        .envs(&[("NCTOOLS_DIRECT_CHUNKS", "0")])
        .args(args)
        .arg(file)
        .arg(&pipeline)
        .run();
    assert_eq!(done.code, Some(0), "{args:?}: {}", done.stderr);
    (direct, pipeline)
}
