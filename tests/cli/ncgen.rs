//! ncgen against the reference: every CDL case (tests/data/ncdump and tests/data/ncgen) built
//! by both ncgen tools and dumped by the reference ncdump; the intended differences (D4, D5),
//! errors (D7), standard input and round trips.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{
    assert_no_crash, assert_rejected, first_difference, ok, reference, run, scratch,
};
use crate::support::{Run, Test};

const NCDUMP_CASES: &[&str] = &[
    "cformat", "classic", "filters", "groups", "names",
    "types",
    // "unlimited" is below: ours does not write it yet.
];

const NCGEN_CASES: &[&str] = &[
    "atomic",
    "chars",
    "records",
    "scoped",
    "specials",
    "strings",
    "usertypes",
    "utf8",
];

/// A CDL case: `dir` is `ncdump` or `ncgen` under tests/data.
pub fn case(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir)
        .join(format!("{name}.cdl"))
}

/// Writes `text` as `name.cdl` in `dir`.
pub fn write_cdl(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(format!("{name}.cdl"));
    fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
    path
}

fn reference_ncgen(args: &[&str], out: &Path, cdl: &Path) -> Run {
    let Some(ncgen) = reference("ncgen") else {
        panic!("reference ncgen vanished");
    };
    run(Command::new(ncgen).args(args).arg("-o").arg(out).arg(cdl))
}

fn our_ncgen(args: &[&str], out: &Path, cdl: &Path) -> Run {
    Test::ours("ncgen")
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(cdl)
        .run()
}

/// The reference ncdump of `file` with `args`; it must succeed.
fn dump(args: &[&str], file: &Path) -> String {
    let Some(ncdump) = reference("ncdump") else {
        panic!("reference ncdump vanished");
    };
    let done = run(Command::new(ncdump).args(args).arg(file));
    assert_eq!(
        done.code,
        Some(0),
        "reference ncdump {args:?} {file:?}: {}",
        done.stderr
    );
    done.stdout
}

/// Whether both reference tools are there (else a visible SKIPPED, or a failure in CI).
pub fn have_reference() -> bool {
    reference("ncgen").is_some() && reference("ncdump").is_some()
}

/// Drops the data lines of variable `var` (from ` var = ` to the line ending in `;`).
fn without_data_of(text: &str, var: &str) -> String {
    let start = format!(" {var} = ");
    let mut out = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        if line.starts_with(&start) {
            skipping = true;
        }
        if !skipping {
            out.push(line);
        }
        if skipping && line.trim_end().ends_with(';') {
            skipping = false;
        }
    }
    out.join("\n")
}

/// Builds `cdl` with both tools (same base name in two directories, since ncdump prints it)
/// and compares the reference `ncdump` and `ncdump -hs` of both. Where the reference makes
/// no file, ours must reject it (exit 1 or 2, no crash) and make none either.
fn differential(dir: &Path, label: &str, cdl: &Path, kind: &str, masked: &[&str]) {
    let ours = crate::support::ours_path("ncgen");
    differential_with(ours, dir, label, cdl, kind, masked);
}

/// [`differential`] with `ncgen` in place of ours (the self-tests give it broken
/// stand-ins, which must fail it).
pub fn differential_with(
    ncgen: &Path,
    dir: &Path,
    label: &str,
    cdl: &Path,
    kind: &str,
    masked: &[&str],
) {
    let theirs_dir = dir.join(format!("ref-{kind}"));
    let ours_dir = dir.join(format!("ours-{kind}"));
    for d in [&theirs_dir, &ours_dir] {
        fs::create_dir_all(d).unwrap_or_else(|e| panic!("cannot make {d:?}: {e}"));
    }
    let name = format!("{label}.nc");
    let (theirs, ours) = (theirs_dir.join(&name), ours_dir.join(&name));
    let made = reference_ncgen(&["-k", kind], &theirs, cdl);
    // Test::run fails on a crash of ours (a signal, a panic).
    let ours_run = Test::program(ncgen)
        .args(["-k", kind, "-o"])
        .arg(&ours)
        .arg(cdl)
        .run();
    if let Some(why) = made.crash() {
        panic!("{label} -k {kind}: the reference ncgen crashed ({why}): nothing to compare with");
    }
    if made.code != Some(0) || !theirs.exists() {
        // The reference rejects it (some rejections exit 0 without a file); ours must
        // reject it too: exit 1 or 2.
        assert_rejected(
            &ours_run,
            &format!(
                "{label} -k {kind}: the reference rejects it ({})",
                made.stderr.trim()
            ),
        );
        assert!(!ours.exists(), "{label} -k {kind}: ours left a file behind");
        return;
    }
    assert_eq!(
        ours_run.code,
        Some(0),
        "{label} -k {kind}: the reference accepts it, ours said {}",
        ours_run.stderr
    );
    for args in [&[][..], &["-hs"]] {
        let mut expected = dump(args, &theirs);
        let mut got = dump(args, &ours);
        for var in masked {
            expected = without_data_of(&expected, var);
            got = without_data_of(&got, var);
        }
        if expected != got {
            let diff = first_difference(&expected, &got);
            panic!("{label} -k {kind} ncdump {args:?}: differs from the reference at {diff}");
        }
    }
}

#[test]
fn every_cdl_case_makes_the_same_file_as_the_reference() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    for name in NCDUMP_CASES {
        // The reference ncgen ignores the quantize attribute when writing data; ours
        // quantizes (see quantize_attributes_quantize_the_data).
        let masked: &[&str] = if *name == "filters" {
            &["quantized"]
        } else {
            &[]
        };
        for kind in ["nc4", "nc3"] {
            differential(dir.path(), name, &case("ncdump", name), kind, masked);
        }
    }
    for name in NCGEN_CASES {
        for kind in ["nc4", "nc3"] {
            differential(dir.path(), name, &case("ncgen", name), kind, &[]);
        }
    }
}

#[test]
fn a_second_unlimited_dimension_is_written_as_the_reference() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    differential(
        dir.path(),
        "unlimited",
        &case("ncdump", "unlimited"),
        "nc4",
        &[],
    );
}

/// DECISIONS D5: the spec's quantize attributes are honoured, so the data is quantized
/// when written (the reference keeps the attribute but writes the values as given).
/// BitGroom with 3 significant digits keeps each value within the spec's error margin
/// (4.9e-4 relative) and changes the ones that need more digits.
#[test]
#[allow(clippy::approx_constant)] // the values of tests/data/ncdump/filters.cdl
fn quantize_attributes_quantize_the_data() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let out = dir.path().join("filters.nc");
    let made = our_ncgen(&["-k", "nc4"], &out, &case("ncdump", "filters"));
    ok("ours", &made);
    let given = [
        3.14159, 2.71828, 1.41421, 1.73205, 0.5, 0.25, 0.125, 100.123456,
    ];
    assert_quantized(&written_values(&out, "quantized"), &given, 4.9e-4);
}

/// The data of the numeric variable `var` of `file`, as the reference ncdump prints it.
fn written_values(file: &Path, var: &str) -> Vec<f64> {
    let text = dump(&["-v", var], file);
    let data = text
        .split(&format!(" {var} ="))
        .nth(1)
        .and_then(|t| t.split(';').next())
        .unwrap_or_else(|| panic!("no data for {var} in:\n{text}"));
    data.split(',')
        .map(|v| v.trim().parse().unwrap_or_else(|e| panic!("{v}: {e}")))
        .collect()
}

/// Each written value is within `margin` (relative) of the given one, and at least one
/// changed: the data was quantized, not copied.
fn assert_quantized(written: &[f64], given: &[f64], margin: f64) {
    assert_eq!(written.len(), given.len());
    for (w, g) in written.iter().zip(given) {
        assert!(((w - g) / g).abs() <= margin, "{g} written as {w}");
    }
    assert!(
        written.iter().zip(given).any(|(w, g)| w != g),
        "no value was quantized: {written:?}"
    );
}

#[test]
fn a_fill_in_vlen_data_is_the_reference_one() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = write_cdl(
        dir.path(),
        "vlen_fill",
        "netcdf vlen_fill {\ntypes:\n  int(*) ragged ;\ndimensions:\n\tn = 2 ;\n\
         variables:\n\tragged rag(n) ;\ndata:\n\n rag = {1, 2}, _ ;\n}\n",
    );
    differential(dir.path(), "vlen_fill", &cdl, "nc4", &[]);
}

#[test]
fn a_fill_in_enum_data_without_fill_value_is_rejected_as_the_reference_does() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = write_cdl(
        dir.path(),
        "enum_fill",
        "netcdf enum_fill {\ntypes:\n  byte enum flag {off = 0, on = 1} ;\ndimensions:\n\
         \tn = 2 ;\nvariables:\n\tflag f(n) ;\ndata:\n\n f = on, _ ;\n}\n",
    );
    differential(dir.path(), "enum_fill", &cdl, "nc4", &[]);
}

/// A one-variable CDL with `attributes` on the float variable `v(x)`.
fn float_var(dir: &Path, name: &str, attributes: &str) -> PathBuf {
    write_cdl(
        dir,
        name,
        &format!(
            "netcdf {name} {{\ndimensions:\n\tx = 4 ;\nvariables:\n\tfloat v(x) ;\n\
             {attributes}\ndata:\n v = 1, 2, 3, 4 ;\n}}\n"
        ),
    )
}

/// Our ncgen `args` on `cdl` into `name.nc`; must succeed; returns the file.
fn ours_ok(dir: &Path, name: &str, args: &[&str], cdl: &Path) -> PathBuf {
    let out = dir.join(format!("{name}.nc"));
    let done = our_ncgen(args, &out, cdl);
    assert_eq!(done.code, Some(0), "ncgen {name}: {}", done.stderr);
    out
}

#[test]
fn repeated_filters_append_in_order() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = float_var(
        dir.path(),
        "repeated",
        "\t\tv:_Filter = \"32004\" ;\n\t\tv:_Filter = \"307,9\" ;",
    );
    let file = ours_ok(dir.path(), "repeated", &["-k", "nc4"], &cdl);
    // The reference keeps only the last (`_Filter = "307,9"`); the spec appends (D5).
    assert!(
        dump(&["-hs"], &file).contains("\t\tv:_Filter = \"32004|307,9\" ;\n"),
        "{}",
        dump(&["-hs"], &file)
    );
}

#[test]
fn filter_names_and_codecs_become_filter_ids() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let named = float_var(dir.path(), "named", "\t\tv:_Filter = \"bzip2,9\" ;");
    let file = ours_ok(dir.path(), "named", &["-k", "nc4"], &named);
    assert!(dump(&["-hs"], &file).contains("\t\tv:_Filter = \"307,9\" ;\n"));

    let codecs = float_var(
        dir.path(),
        "codecs",
        "\t\tv:_Codecs = \"[{\\\"id\\\": \\\"bz2\\\", \\\"level\\\": 5}]\" ;",
    );
    let file = ours_ok(dir.path(), "codecs", &[], &codecs);
    let header = dump(&["-hs"], &file);
    assert!(header.contains("\t\tv:_Filter = \"307,5\" ;\n"), "{header}");
}

#[test]
fn codecs_that_disagree_or_are_unknown_are_errors() {
    let dir = scratch();
    let disagree = float_var(
        dir.path(),
        "disagree",
        "\t\tv:_Codecs = \"[{\\\"id\\\": \\\"zstd\\\", \\\"level\\\": 5}]\" ;\n\
         \t\tv:_Filter = \"307,9\" ;",
    );
    let out = dir.path().join("disagree.nc");
    let done = our_ncgen(&[], &out, &disagree);
    assert_eq!(done.code, Some(1));
    assert!(done.stderr.contains("_Codecs"), "{}", done.stderr);
    assert!(!out.exists());

    let unknown = float_var(
        dir.path(),
        "unknown",
        "\t\tv:_Codecs = \"[{\\\"id\\\": \\\"nosuchcodec\\\"}]\" ;",
    );
    let out = dir.path().join("unknown.nc");
    let done = our_ncgen(&[], &out, &unknown);
    assert_eq!(done.code, Some(1));
    assert!(done.stderr.contains("nosuchcodec"), "{}", done.stderr);
    assert!(!out.exists());
}

#[test]
#[allow(clippy::approx_constant)] // data values, not the constants
fn quantize_attributes_under_their_spec_names_are_kept() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let given = [3.14159, 2.71828, 100.123456];
    // The spec's error margins: BitGroom and Granular BitRound at 3 significant digits,
    // BitRound at 5 bits (0.5 * 2^-5).
    for (i, (attribute, margin)) in [
        ("_QuantizeBitGroomNumberOfSignificantDigits = 3", 4.9e-4),
        (
            "_QuantizeGranularBitRoundNumberOfSignificantDigits = 3",
            2.2e-3,
        ),
        ("_QuantizeBitRoundNumberOfSignificantBits = 5", 0.5 / 32.0),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("quantize{i}");
        let cdl = write_cdl(
            dir.path(),
            &name,
            &format!(
                "netcdf {name} {{\ndimensions:\n\tx = 3 ;\nvariables:\n\tfloat v(x) ;\n\
                 \t\tv:{attribute} ;\ndata:\n v = 3.14159, 2.71828, 100.123456 ;\n}}\n"
            ),
        );
        let file = ours_ok(dir.path(), &name, &[], &cdl);
        let header = dump(&["-hs"], &file);
        assert!(
            header.contains(&format!("\t\tv:{attribute} ;\n")),
            "{header}"
        );
        assert_eq!(dump(&["-k"], &file), "netCDF-4\n");
        assert_quantized(&written_values(&file, "v"), &given, *margin);
    }
}

#[test]
fn read_only_global_attributes_are_accepted_and_ignored() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = write_cdl(
        dir.path(),
        "globals",
        "netcdf globals {\nvariables:\n\tint v ;\n\n// global attributes:\n\
         \t\t:_NCProperties = \"version=2,netcdf=4.9.2\" ;\n\t\t:_IsNetcdf4 = 1 ;\n\
         \t\t:_SuperblockVersion = 2 ;\n\t\t:title = \"t\" ;\ndata:\n v = 1 ;\n}\n",
    );
    let file = ours_ok(dir.path(), "globals", &[], &cdl);
    let header = dump(&["-h"], &file);
    assert!(header.contains("\t\t:title = \"t\" ;\n"), "{header}");
    assert!(!header.contains("_IsNetcdf4"), "{header}");
    assert!(!header.contains("_SuperblockVersion"), "{header}");
}

#[test]
fn a_filter_on_a_string_variable_is_dropped_with_a_warning() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = write_cdl(
        dir.path(),
        "strfilter",
        "netcdf strfilter {\ndimensions:\n\tx = 2 ;\nvariables:\n\tstring sv(x) ;\n\
         \t\tsv:_Filter = \"307,9\" ;\ndata:\n sv = \"a\", \"b\" ;\n}\n",
    );
    let out = dir.path().join("strfilter.nc");
    let done = our_ncgen(&[], &out, &cdl);
    ok("done", &done);
    assert!(done.stderr.contains("warning"), "{}", done.stderr);
    assert!(done.stderr.contains("sv"), "{}", done.stderr);
    assert!(done.stderr.contains("307,9"), "{}", done.stderr);
    let header = dump(&["-hs"], &out);
    assert!(!header.contains("_Filter"), "{header}");
    assert!(dump(&[], &out).contains(" sv = \"a\", \"b\" ;"));
}

#[test]
fn a_filter_in_a_classic_file_is_an_error_and_leaves_no_file() {
    let dir = scratch();
    let cdl = float_var(dir.path(), "classicfilter", "\t\tv:_Filter = \"307,9\" ;");
    let out = dir.path().join("classicfilter.nc");
    let done = our_ncgen(&["-k", "nc3"], &out, &cdl);
    assert_eq!(done.code, Some(1));
    assert!(done.stderr.contains("_Filter"), "{}", done.stderr);
    assert!(!out.exists());
}

#[test]
fn special_attributes_alone_make_netcdf4_output() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = float_var(dir.path(), "deflated", "\t\tv:_DeflateLevel = 1 ;");
    let file = ours_ok(dir.path(), "deflated", &[], &cdl);
    assert_eq!(dump(&["-k"], &file), "netCDF-4\n");
    // and the same CDL without the attribute makes a classic file, as the reference does
    let plain = float_var(dir.path(), "plain", "");
    let file = ours_ok(dir.path(), "plain", &[], &plain);
    assert_eq!(dump(&["-k"], &file), "classic\n");
}

pub const SYNTAX_ERROR: &str =
    "netcdf e {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) \n\tint w ;\n}\n";

#[test]
fn a_syntax_error_points_at_the_place_and_writes_nothing() {
    let dir = scratch();
    let cdl = write_cdl(dir.path(), "bad", SYNTAX_ERROR);
    let out = dir.path().join("bad.nc");
    let done = our_ncgen(&[], &out, &cdl);
    assert_eq!(done.code, Some(1));
    // The `;` missing at the end of line 5: the caret after its last token.
    assert!(done.stderr.contains("bad.cdl:5:10"), "{}", done.stderr);
    assert!(
        done.stderr.contains("5 |  int v(x)\n  |          ^\n"),
        "{}",
        done.stderr
    );
    assert!(
        done.stderr.contains("hint: add `;` here"),
        "{}",
        done.stderr
    );
    assert!(!out.exists());

    // an existing output file is left as it was
    fs::write(&out, b"precious").unwrap_or_else(|e| panic!("{e}"));
    let done = our_ncgen(&[], &out, &cdl);
    assert_eq!(done.code, Some(1));
    assert_eq!(fs::read(&out).unwrap_or_default(), b"precious");
}

#[test]
fn a_missing_input_is_one_clear_line() {
    let dir = scratch();
    let missing = dir.path().join("nothere.cdl");
    let done = our_ncgen(&[], &dir.path().join("x.nc"), &missing);
    assert_eq!(done.code, Some(1));
    assert_eq!(done.stderr.lines().count(), 1, "{}", done.stderr);
    assert!(
        done.stderr.contains("nothere.cdl: no such file"),
        "{}",
        done.stderr
    );
}

#[test]
fn unknown_languages_and_bad_kinds_are_usage_errors() {
    let dir = scratch();
    let cdl = float_var(dir.path(), "code", "");
    let done = Test::ours("ncgen").args(["-l", "cobol"]).arg(&cdl).run();
    assert_eq!(done.code, Some(2));
    assert!(done.stderr.contains("cobol"), "{}", done.stderr);
    let done = our_ncgen(&["-k", "bogus"], &dir.path().join("x.nc"), &cdl);
    assert_eq!(done.code, Some(2));
    assert!(done.stderr.contains("bogus"), "{}", done.stderr);
}

#[test]
fn version_names_the_tool_and_the_project() {
    let done = Test::ours("ncgen").arg("--version").run();
    assert_eq!(done.code, Some(0));
    assert_eq!(
        done.stdout,
        format!("ncgen (nctools) {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn standard_input_is_read_with_a_dash_or_no_file() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = fs::read(case("ncgen", "records")).unwrap_or_default();
    let expected_file = dir.path().join("records.nc");
    let Some(ncgen) = reference("ncgen") else {
        return;
    };
    let made = run(Command::new(ncgen)
        .arg("-o")
        .arg(&expected_file)
        .arg(case("ncgen", "records")));
    assert_eq!(made.code, Some(0));
    let expected = dump(&[], &expected_file);
    for dash in [true, false] {
        let sub = dir.path().join(if dash { "dash" } else { "none" });
        fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{e}"));
        let out = sub.join("records.nc");
        let mut child = Command::new(crate::support::ours_path("ncgen"))
            .arg("-o")
            .arg(&out)
            .args(if dash { &["-"][..] } else { &[] })
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, &cdl).unwrap_or_else(|e| panic!("{e}"));
        }
        let done: Run = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("{e}"))
            .into();
        ok("done", &done);
        assert_eq!(dump(&[], &out), expected);
    }
}

#[test]
fn without_an_output_option_only_the_syntax_is_checked() {
    let Some(ncgen) = reference("ncgen") else {
        return;
    };
    let dir = scratch();
    let good = case("ncgen", "records");
    let bad = write_cdl(dir.path(), "bad", SYNTAX_ERROR);
    for (cdl, code) in [(&good, 0), (&bad, 1)] {
        let theirs = run(Command::new(&ncgen).arg(cdl).current_dir(dir.path()));
        let ours = run(Command::new(crate::support::ours_path("ncgen"))
            .arg(cdl)
            .current_dir(dir.path()));
        assert_eq!(theirs.code, Some(code));
        assert_eq!(ours.code, Some(code), "{}", ours.stderr);
    }
    let left: Vec<_> = fs::read_dir(dir.path())
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(left, vec![std::ffi::OsString::from("bad.cdl")]);
}

#[test]
fn a_round_trip_through_ncdump_gives_the_same_cdl() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    // types.cdl is left out: ncdump prints the enum member `ultra violet` unescaped.
    for (dir_name, name) in [
        ("ncdump", "groups"),
        ("ncgen", "usertypes"),
        ("ncgen", "utf8"),
    ] {
        let first = ours_ok(dir.path(), name, &["-k", "nc4"], &case(dir_name, name));
        let cdl_text = dump(&[], &first);
        let again = dir.path().join("again");
        fs::create_dir_all(&again).unwrap_or_else(|e| panic!("{e}"));
        let cdl = write_cdl(&again, name, &cdl_text);
        let second = ours_ok(&again, name, &["-k", "nc4"], &cdl);
        let text = dump(&[], &second);
        if text != cdl_text {
            panic!(
                "{name}: round trip differs at {}",
                first_difference(&cdl_text, &text)
            );
        }
    }
}

/// As in the reference, netCDF-4 type names are plain names with a classic-model `-k`
/// (`int string(string)`), reserved words with `-k nc4`, and only `string` is a name with
/// CDF5; both tools agree on each kind.
#[test]
fn type_names_are_names_in_the_classic_model() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = write_cdl(
        dir.path(),
        "keywords",
        "netcdf keywords {\ndimensions:\n\tstring = 3 ;\n\tint64 = 2 ;\nvariables:\n\
         \tint string(string) ;\n\t\tstring:uint = 7 ;\n\tint int64(int64) ;\ndata:\n\
         \tstring = 1, 2, 3 ;\n}\n",
    );
    for (kind, accepted) in [
        ("nc3", true),
        ("nc6", true),
        ("nc7", true),
        ("nc5", false),
        ("nc4", false),
    ] {
        let ours = dir.path().join(format!("ours-{kind}.nc"));
        let theirs = dir.path().join(format!("ref-{kind}.nc"));
        let ran = our_ncgen(&["-k", kind], &ours, &cdl);
        let reference = reference_ncgen(&["-k", kind], &theirs, &cdl);
        if accepted {
            assert_eq!(ran.code, Some(0), "ours -k {kind}: {}", ran.stderr);
            assert_eq!(reference.code, Some(0), "reference -k {kind}");
        } else {
            assert_no_crash(&ran);
            assert_eq!(ran.code, Some(1), "ours -k {kind}: {}", ran.stderr);
            assert_rejected(&reference, &format!("reference -k {kind}"));
        }
        if accepted {
            let ours_text = dump(&[], &ours).replacen(&format!("ours-{kind}"), "x", 1);
            let ref_text = dump(&[], &theirs).replacen(&format!("ref-{kind}"), "x", 1);
            assert_eq!(ours_text, ref_text, "-k {kind}");
            assert!(
                ours_text.contains("\tint string(string) ;\n"),
                "{ours_text}"
            );
        } else {
            assert!(!ours.exists(), "-k {kind}: no file on error");
        }
    }
}

/// CDF5 holds the unsigned and 64-bit types: ours writes them as declared (netCDF-C 4.9's
/// ncgen writes an `int64` variable as `int`, and 9223372036854775807 reads back as -1).
#[test]
fn cdf5_keeps_64_bit_and_unsigned_types() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = write_cdl(
        dir.path(),
        "wide",
        "netcdf wide {\ndimensions:\n\td = 2 ;\nvariables:\n\tint64 i(d) ;\n\tuint64 u(d) ;\n\
         \tubyte b(d) ;\ndata:\n i = 9223372036854775807, -9223372036854775807 ;\n\
         u = 18446744073709551615, 1 ;\n b = 255, 0 ;\n}\n",
    );
    let file = ours_ok(dir.path(), "wide", &["-k", "nc5"], &cdl);
    assert_eq!(dump(&["-k"], &file), "cdf5\n");
    let text = dump(&[], &file);
    for line in [
        "\tint64 i(d) ;\n",
        "\tuint64 u(d) ;\n",
        "\tubyte b(d) ;\n",
        " i = 9223372036854775807, -9223372036854775807 ;\n",
        " u = 18446744073709551615, 1 ;\n",
        " b = 255, 0 ;\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    // A string variable still needs netCDF-4.
    let strings = write_cdl(
        dir.path(),
        "strings",
        "netcdf strings {\nvariables:\n\tstring s ;\n}\n",
    );
    let out = dir.path().join("strings.nc");
    let done = our_ncgen(&["-k", "nc5"], &out, &strings);
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(done.stderr.contains("use -k nc4"), "{}", done.stderr);
    assert!(!out.exists());
}

/// Several batches of values (2^16 each) of a filtered and an unfiltered variable, and a
/// bad value past the first batches.
/// 300,000 values of two variables, 8 to a line as ncdump writes them (with a comment,
/// a blank line and a fill marker on the way), `bad` standing in for value `at`.
fn batches_cdl(bad: Option<(usize, &str)>) -> String {
    let mut text = String::new();
    for i in 0..300_000usize {
        match bad {
            Some((at, bad)) if at == i => text.push_str(bad),
            _ if i == 1_000 => text.push('_'),
            _ => text.push_str(&format!("{}", i as f64 * 0.5)),
        }
        if i + 1 < 300_000 {
            text.push_str(if i % 8 == 7 { ", \n    " } else { ", " });
        }
        if i == 50_007 {
            text.push_str("// a comment\n\n    ");
        }
    }
    format!(
        "netcdf batches {{\ndimensions:\n\tx = 300000 ;\nvariables:\n\tfloat f(x) ;\n\
         \t\tf:_Filter = \"zstd,3\" ;\n\tdouble d(x) ;\ndata:\n f =\n    {text} ;\n d = {text} ;\n}}\n"
    )
}

#[test]
fn the_file_does_not_depend_on_threads_and_errors_stop_it_the_same() {
    if !have_reference() {
        return;
    }
    let dir = scratch();
    let cdl = write_cdl(dir.path(), "batches", &batches_cdl(None));
    let files: Vec<Vec<u8>> = ["1", "2", "4"]
        .iter()
        .map(|jobs| {
            let out = dir.path().join(format!("j{jobs}.nc"));
            let done = our_ncgen(&["-k", "nc4", "-j", jobs], &out, &cdl);
            assert_eq!(done.code, Some(0), "-j {jobs}: {}", done.stderr);
            fs::read(&out).unwrap_or_default()
        })
        .collect();
    assert!(
        files[0] == files[1] && files[1] == files[2],
        "the bytes depend on -j"
    );
    // The reference has no zstd: the same data without the filter.
    let plain = batches_cdl(None).replace("\t\tf:_Filter = \"zstd,3\" ;\n", "");
    let theirs = dir.path().join("theirs.nc");
    let made = reference_ncgen(
        &["-k", "nc4"],
        &theirs,
        &write_cdl(dir.path(), "plain", &plain),
    );
    ok("made", &made);
    let ours = Test::ours("ncdump")
        .args(["-n", "x"])
        .arg(dir.path().join("j2.nc"))
        .run();
    assert_eq!(ours.stdout, dump(&["-n", "x"], &theirs));
    // Bad values in a late batch: the same message for one thread and more, no file.
    for (at, bad, says) in [
        (200_000, "oops", "line 25012, column 5: expected a number"),
        (200_003, "1.5x", "bad number"),
        (200_005, "7 8", "expected `,`"),
        (200_006, ",", "two commas"),
        (299_999, "12abc", "line 37511, column "),
    ] {
        let cdl = write_cdl(dir.path(), "bad", &batches_cdl(Some((at, bad))));
        let messages: Vec<String> = ["1", "2", "3"]
            .iter()
            .map(|jobs| {
                let out = dir.path().join(format!("bad{jobs}.nc"));
                let done = our_ncgen(&["-k", "nc4", "-j", jobs], &out, &cdl);
                assert_eq!(done.code, Some(1), "`{bad}`, -j {jobs}: {}", done.stderr);
                assert!(!out.exists(), "`{bad}`, -j {jobs} left a file");
                done.stderr
            })
            .collect();
        assert!(
            messages[0].contains("variable /f: line ") && messages[0].contains(says),
            "`{bad}`: {}",
            messages[0]
        );
        assert_eq!(messages[0], messages[1], "`{bad}`");
        assert_eq!(messages[0], messages[2], "`{bad}`");
    }
}

#[test]
fn a_pipe_is_read_like_a_file() {
    let dir = scratch();
    let cdl = float_var(dir.path(), "piped", "");
    let text = fs::read(&cdl).unwrap_or_default();
    let out = dir.path().join("piped.nc");
    // /dev/stdin is a pipe here: it cannot be read twice, so it is spooled like `-`.
    let mut child = Command::new(crate::support::ours_path("ncgen"))
        .args(["-k", "nc4", "-o"])
        .arg(&out)
        .arg("/dev/stdin")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin.write_all(&text).unwrap_or_else(|e| panic!("{e}"));
    }
    let done = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let from_file = ours_ok(dir.path(), "file", &["-k", "nc4"], &cdl);
    assert_eq!(dump(&["-n", "x"], &out), dump(&["-n", "x"], &from_file));
}

/// Escapes every `/` of `path` for a CDL name (`netcdf \/tmp\/x {`).
fn cdl_escaped(path: &str) -> String {
    path.replace('/', "\\/").replace('.', "\\.")
}

/// Without `-o` the output is named after the CDL file, in the working directory, as the
/// reference names it; the CDL's dataset name (input) never chooses a path, nor the file a
/// generated program creates. Before: `netcdf \.\.\/\.\.\/X {` wrote `../../X.nc`, an
/// absolute dataset name replaced the file it named (exit 0), and `-l c` created the same.
#[test]
fn the_output_is_named_after_the_cdl_file_never_the_dataset_name() {
    let dir = scratch();
    let work = dir.path().join("a/b");
    let cdl_dir = dir.path().join("cdl.d");
    fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{e}"));
    fs::create_dir_all(&cdl_dir).unwrap_or_else(|e| panic!("{e}"));
    let victim = dir.path().join("victim");
    fs::write(format!("{}.nc", victim.display()), b"keep").unwrap_or_else(|e| panic!("{e}"));
    let body = "dimensions:\n  d = 2 ;\nvariables:\n  int v(d) ;\ndata:\n  v = 1, 2 ;\n}\n";
    let names = [
        "\\.\\.\\/\\.\\.\\/X".to_owned(),
        cdl_escaped(&victim.display().to_string()),
    ];
    for (i, name) in names.iter().enumerate() {
        let cdl = cdl_dir.join(format!("in{i}.cdl"));
        fs::write(&cdl, format!("netcdf {name} {{\n{body}")).unwrap_or_else(|e| panic!("{e}"));
        for flags in [&["-b"][..], &["-k", "nc4"], &["-n"]] {
            let done = Test::ours("ncgen")
                .args(flags)
                .arg(&cdl)
                .current_dir(&work)
                .run();
            assert_eq!(done.code, Some(0), "{flags:?} {name}: {}", done.stderr);
        }
        assert!(work.join(format!("in{i}.nc")).is_file(), "{name}");
        assert!(work.join(format!("in{i}.cdf")).is_file(), "{name}");
        let c = Test::ours("ncgen")
            .args(["-l", "c"])
            .arg(&cdl)
            .current_dir(&work)
            .run();
        ok("c", &c);
        assert!(
            c.stdout.contains(&format!("nc_create(\"in{i}.nc\"")),
            "{}",
            c.stdout
        );
        let python = Test::ours("ncgen")
            .args(["-l", "python"])
            .arg(&cdl)
            .current_dir(&work)
            .run();
        ok("python", &python);
        assert!(
            python.stdout.contains(&format!("in{i}.nc")),
            "{}",
            python.stdout
        );
        assert!(!python.stdout.contains("X.nc") && !python.stdout.contains("victim.nc"));
    }
    assert!(
        !dir.path().join("X.nc").exists(),
        "wrote where the dataset name points"
    );
    assert_eq!(
        fs::read(format!("{}.nc", victim.display())).unwrap_or_default(),
        b"keep",
        "replaced the file the dataset name names"
    );
    // From standard input the dataset name names the file, only as a plain file name.
    for (name, accepted) in [
        ("plain", true),
        ("\\.\\.\\/\\.\\.\\/X", false),
        (names[1].as_str(), false),
    ] {
        let mut child = Command::new(crate::support::ours_path("ncgen"))
            .args(["-b", "-"])
            .current_dir(&work)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, format!("netcdf {name} {{\n{body}").as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let done: Run = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("{e}"))
            .into();
        if accepted {
            ok("done", &done);
            assert!(work.join("plain.nc").is_file());
        } else {
            assert_rejected(&done, "a dataset name that is a path, from standard input");
            assert!(done.stderr.contains("-o"), "{}", done.stderr);
        }
    }
    assert!(!dir.path().join("X.nc").exists());
    assert_eq!(
        fs::read(format!("{}.nc", victim.display())).unwrap_or_default(),
        b"keep"
    );
    // The reference's rule, where it is there: `dir/foo.cdl` gives `./foo.nc`.
    if let Some(ncgen) = reference("ncgen") {
        let theirs = dir.path().join("theirs");
        fs::create_dir_all(&theirs).unwrap_or_else(|e| panic!("{e}"));
        let cdl = cdl_dir.join("in0.cdl");
        let done = run(Command::new(ncgen).arg("-b").arg(&cdl).current_dir(&theirs));
        ok("done", &done);
        assert!(
            theirs.join("in0.nc").is_file(),
            "the reference's rule changed"
        );
    }
}
