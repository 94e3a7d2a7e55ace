//! Every ncgen error a user can meet, as printed (standard error, exit code), pinned by
//! snapshots: syntax errors, special attributes, formats, data, compound values and chunk
//! sizes. Each case runs in a scratch directory with a relative file name, so the messages
//! are stable, and must leave nothing there (no output, no temporary file). The CDLs the
//! reference accepts with values it drops or converts are built by both tools and must
//! dump the same (ours warns where values are dropped).

use std::path::Path;

use crate::support::{first_difference, ok, reference, run_reference, scratch, Test};

/// The names in `dir` other than `case.cdl`: what a run left behind.
fn leftovers(dir: &Path) -> Vec<String> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("listing {dir:?}: {e}"));
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "case.cdl")
        .collect();
    names.sort();
    names
}

/// Writes `cdl` as `case.cdl` in `dir`.
fn write_case(dir: &Path, cdl: &str) {
    if let Err(e) = std::fs::write(dir.join("case.cdl"), cdl) {
        panic!("writing the case: {e}");
    }
}

/// Runs our `ncgen ARGS -o out.nc case.cdl` on `cdl`; returns exit code, stderr, and
/// whether an output file was left. A failed run must leave nothing at all behind.
fn ncgen_error(args: &[&str], cdl: &str) -> String {
    let dir = scratch();
    write_case(dir.path(), cdl);
    let run = Test::ours("ncgen")
        .args(args)
        .args(["-o", "out.nc", "case.cdl"])
        .current_dir(dir.path())
        .run();
    let left = dir.path().join("out.nc").exists();
    if run.code != Some(0) {
        assert_eq!(
            leftovers(dir.path()),
            Vec::<String>::new(),
            "a failed run left files behind: {}",
            run.stderr
        );
    }
    format!(
        "exit: {:?}\noutput file left: {left}\n{}",
        run.code, run.stderr
    )
}

/// Whether the reference ncgen and ncdump are there (else a visible SKIPPED; in CI a
/// failure).
fn have_reference() -> bool {
    reference("ncgen").is_some() && reference("ncdump").is_some()
}

/// The reference `ncdump ARGS file`, which must succeed.
fn reference_dump(args: &[&str], file: &Path) -> String {
    let done = run_reference(
        "ncdump",
        args.iter().map(|a| a.as_ref()).chain([file.as_os_str()]),
    );
    assert_eq!(
        done.code,
        Some(0),
        "ncdump {args:?} {file:?}: {}",
        done.stderr
    );
    done.stdout
}

/// Builds `cdl` (netCDF-4) with our ncgen, which must succeed, and returns its exit code
/// and stderr for a snapshot; when the reference tools are there, the reference ncgen
/// must accept it too and the reference `ncdump` and `ncdump -hs` of both files must be
/// the same.
fn same_file_as_the_reference(cdl: &str) -> String {
    let dir = scratch();
    write_case(dir.path(), cdl);
    for sub in ["ours", "theirs"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap_or_else(|e| panic!("{sub}: {e}"));
    }
    let run = Test::ours("ncgen")
        .args(["-k", "nc4", "-o", "ours/case.nc", "case.cdl"])
        .current_dir(dir.path())
        .run();
    ok("ours rejected it", &run);
    if have_reference() {
        let theirs = dir.path().join("theirs/case.nc");
        let made = run_reference(
            "ncgen",
            [
                "-k".as_ref(),
                "nc4".as_ref(),
                "-o".as_ref(),
                theirs.as_os_str(),
                dir.path().join("case.cdl").as_os_str(),
            ],
        );
        assert_eq!(
            made.code,
            Some(0),
            "the reference rejected it: {}",
            made.stderr
        );
        let ours = dir.path().join("ours/case.nc");
        for args in [&[][..], &["-hs"]] {
            let expected = reference_dump(args, &theirs);
            let got = reference_dump(args, &ours);
            assert!(
                expected == got,
                "ncdump {args:?} differs from the reference's file at {}",
                first_difference(&expected, &got)
            );
        }
    }
    format!("exit: {:?}\n{}", run.code, run.stderr)
}

/// Pins the messages of our ncgen on a CDL the reference accepts, and checks that both
/// make the same file.
macro_rules! same_as_reference {
    ($name:ident, $cdl:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), same_file_as_the_reference($cdl));
        }
    };
}

macro_rules! pin {
    ($name:ident, $args:expr, $cdl:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), ncgen_error(&$args, $cdl));
        }
    };
}

const NO_ARGS: [&str; 0] = [];

pin!(
    syntax_error,
    NO_ARGS,
    "netcdf x {\nvariables:\n  float v ;;\n}\n"
);
pin!(
    unknown_dimension,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  time = 2 ;\nvariables:\n  int v(tmie) ;\n}\n"
);
pin!(
    bad_filter_spec,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_Filter = \"307,9,5x\" ;\n}\n"
);
pin!(
    unknown_filter_name,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_Filter = \"bzip,9\" ;\n}\n"
);
pin!(
    codecs_disagree_with_filter,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_Filter = \"307,9\" ;\n    v:_Codecs = \"[{\\\"id\\\": \\\"zstd\\\", \\\"level\\\": 3}]\" ;\n}\n"
);
pin!(
    unknown_codec,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_Codecs = \"[{\\\"id\\\": \\\"lzma\\\"}]\" ;\n}\n"
);
pin!(
    bad_storage,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_Storage = \"chunky\" ;\n}\n"
);
pin!(
    bad_deflate_level,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_DeflateLevel = 12 ;\n}\n"
);
pin!(
    bad_format_attribute,
    NO_ARGS,
    "netcdf x {\nvariables:\n  int v ;\n\n// global attributes:\n  :_Format = \"netCDF-5\" ;\n}\n"
);
pin!(
    filter_with_classic_output,
    ["-k", "nc3"],
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_Filter = \"307,9\" ;\n}\n"
);
pin!(
    groups_with_classic_output,
    ["-k", "nc3"],
    "netcdf x {\ngroup: g {\nvariables:\n  int v ;\n}\n}\n"
);
pin!(
    unavailable_filter,
    ["-k", "nc4"],
    "netcdf x {\ndimensions:\n  d = 4 ;\nvariables:\n  float v(d) ;\n    v:_Filter = \"40000,1\" ;\n}\n"
);
pin!(
    too_many_chars,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 2 ;\n  e = 3 ;\nvariables:\n  char c(d, e) ;\ndata:\n  c = \"abc\", \"defg\" ;\n}\n"
);
pin!(
    string_in_int_data,
    ["-k", "nc4"],
    "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int v(d) ;\ndata:\n  v = 1, {2} ;\n}\n"
);
pin!(
    unbraced_array_field,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  compound c_t { int a(3) ; int b ; } ;\nvariables:\n  c_t v ;\ndata:\n  v = {1, 2, 3, 4} ;\n}\n"
);
pin!(
    enum_fill_without_fill_value,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  byte enum e_t { off = 0, on = 1 } ;\ndimensions:\n  d = 2 ;\nvariables:\n  e_t v(d) ;\ndata:\n  v = on, _ ;\n}\n"
);
pin!(
    missing_semicolon_in_data,
    ["-k", "nc4"],
    "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int v(d) ;\ndata:\n  v = 1 2 ;\n}\n"
);
// A `;` missing at the end of a line: the error points there and says so.
pin!(
    missing_semicolon_after_a_dimension,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 2\n  e = 3 ;\nvariables:\n  int v(d) ;\n}\n"
);
pin!(
    missing_semicolon_after_a_variable,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int v(d)\n  float w ;\n}\n"
);
pin!(
    missing_semicolon_after_an_attribute,
    NO_ARGS,
    "netcdf x {\nvariables:\n  int v ;\n    v:units = \"m\"\n  float w ;\n}\n"
);
pin!(
    missing_semicolon_after_data,
    ["-k", "nc4"],
    "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int v(d) ;\n  int w(d) ;\ndata:\n  v = 1, 2\n  w = 3, 4 ;\n}\n"
);
pin!(
    unknown_output_language,
    ["-l", "cobol"],
    "netcdf x {\nvariables:\n  int v ;\n}\n"
);

// Compound values. The CDL: more ints than the array field holds (they spilled
// into the string pointers: a segfault in strdup) and fewer strings (read past the
// values). The reference drops the extra ints and pads the strings with ""; so do we,
// with a warning.
same_as_reference!(
    compound_attribute_with_too_many_and_too_few_values,
    "netcdf case {\ntypes:\n  compound pair_t { int a(2) ; string s(2) ; } ;\nvariables:\n  int v ;\n    pair_t v:att = {{1, 2, 3, 4, 5, 6}, {\"x\"}} ;\n}\n"
);
// A value of the wrong type for a field: a string in an int field is its leading number
// (0 for "x"), a number in a string field is its text, as in the reference.
same_as_reference!(
    compound_attribute_values_of_the_other_type,
    "netcdf case {\ntypes:\n  compound pair_t { int a(2) ; string s(2) ; } ;\nvariables:\n  int v ;\n    pair_t v:att = {{\"x\", \"12abc\"}, {4.5, 123456789.123}} ;\n}\n"
);
// The same values as variable data go through the same check.
same_as_reference!(
    compound_data_with_too_many_and_too_few_values,
    "netcdf case {\ntypes:\n  compound pair_t { int a(2) ; string s(2) ; } ;\nvariables:\n  pair_t v ;\ndata:\n  v = {{1, 2, 3, 4, 5, 6}, {\"x\"}} ;\n}\n"
);
// Nested compounds, vlen, opaque and enum fields: extras dropped, missing elements and
// fields filled (short and string fills, a vlen of one fill, a zero opaque).
same_as_reference!(
    nested_compound_attribute_fitted_as_the_reference,
    "netcdf case {\ntypes:\n  compound inner_t { short x ; string t ; } ;\n  int(*) vlen_t ;\n  opaque(2) op_t ;\n  byte enum e_t { A = 1, B = 2 } ;\n  compound outer_t { inner_t in(2) ; vlen_t vl(2) ; op_t o(2) ; e_t e(2) ; char c(3) ; } ;\n  compound short_t { inner_t in(2) ; vlen_t vl(2) ; op_t o(2) ; char c(3) ; } ;\nvariables:\n  int v ;\n    outer_t v:extra = {{{1, \"a\"}, {2, \"b\"}, {3, \"c\"}}, {{1}, {2}, {3}}, {0x0102, 0x0304, 0x0506}, {A, B, A}, {\"ab\", 'c'}} ;\n    short_t v:few = {{{1, \"a\"}}, {{1}}, {0x0102}} ;\n}\n"
);
// A number among the strings of a char field is ignored, with a warning (as the
// reference warns).
same_as_reference!(
    number_in_a_char_field_is_ignored,
    "netcdf case {\ntypes:\n  compound c_t { char c ; char d(2) ; } ;\nvariables:\n  c_t v ;\n    c_t v:att = {\"x\", {\"a\", 66}} ;\ndata:\n  v = {\"y\", {66, \"b\"}} ;\n}\n"
);
// Valid compound attributes and data of every kind still make the reference's file.
same_as_reference!(
    valid_compound_values_make_the_reference_file,
    "netcdf case {\ntypes:\n  compound inner_t { short x ; string t ; } ;\n  int(*) vlen_t ;\n  opaque(2) op_t ;\n  byte enum e_t { A = 1, B = 2 } ;\n  compound outer_t { inner_t in(2) ; vlen_t vl ; op_t o ; e_t e(2) ; char c(3) ; double d(2, 2) ; } ;\ndimensions:\n  n = 2 ;\nvariables:\n  outer_t v(n) ;\n    outer_t v:att = {{{1, \"a\"}, {2, \"b\"}}, {1, 2, 3}, 0x0102, {A, B}, {\"abc\"}, {1.5, 2.5, 3.5, 4.5}}, {{{-1, \"\"}, {7, \"long text\"}}, {}, 0xffff, {B, B}, {\"\"}, {0, 0, 0, 0}} ;\n    outer_t v:_FillValue = {{{0, \"f\"}, {0, \"f\"}}, {0}, 0x0000, {A, A}, {\"f\"}, {0, 0, 0, 0}} ;\ndata:\n  v = {{{1, \"a\"}, {2, \"b\"}}, {1, 2, 3}, 0x0102, {A, B}, {\"abc\"}, {1, 2, 3, 4}}, _ ;\n}\n"
);

// Where the reference crashes or writes what ncdump cannot read, ours stops with an error.
pin!(
    compound_attribute_string_too_long_for_char_field,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  compound c_t { int i ; char c(3) ; } ;\nvariables:\n  int v ;\n    c_t v:att = {1, {\"abcdef\"}} ;\n}\n"
);
pin!(
    compound_data_strings_too_long_for_char_field,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  compound c_t { int i ; char c(3) ; } ;\nvariables:\n  c_t v ;\ndata:\n  v = {1, {\"ab\", \"cd\"}} ;\n}\n"
);
pin!(
    compound_attribute_enum_field_cannot_be_filled,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  byte enum e_t { A = 1, B = 2 } ;\n  compound c_t { int i ; e_t e(2) ; } ;\nvariables:\n  int v ;\n    c_t v:att = {1, {A}} ;\n}\n"
);
pin!(
    compound_data_enum_field_left_out,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  byte enum e_t { A = 1, B = 2 } ;\n  compound c_t { int i ; e_t e(2) ; } ;\nvariables:\n  c_t v ;\ndata:\n  v = {1} ;\n}\n"
);
pin!(
    compound_attribute_enum_number_not_a_member,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  byte enum e_t { A = 1, B = 2 } ;\n  compound c_t { int i ; e_t e(2) ; } ;\nvariables:\n  int v ;\n    c_t v:att = {1, {1, 7}} ;\n}\n"
);
// Where the reference rejects the CDL, so does ours, pointing at the value.
pin!(
    compound_attribute_unbraced_array_field,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  compound pair_t { int a(2) ; string s(2) ; } ;\nvariables:\n  int v ;\n    pair_t v:att = {{1, 2}, \"x\"} ;\n}\n"
);
pin!(
    compound_attribute_braces_for_a_scalar_field,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  compound c_t { short x ; string s ; } ;\nvariables:\n  int v ;\n    c_t v:att = {{1, 2}, \"s\"} ;\n}\n"
);
pin!(
    nested_compound_attribute_with_more_values_than_fields,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  compound inner_t { short x ; string t ; } ;\n  compound outer_t { inner_t in(2) ; int n ; } ;\nvariables:\n  int v ;\n    outer_t v:att = {{{1, \"a\", 5}, {2, \"b\"}}, 3} ;\n}\n"
);
pin!(
    compound_attribute_unbraced_vlen_field,
    ["-k", "nc4"],
    "netcdf x {\ntypes:\n  int(*) vlen_t ;\n  compound c_t { vlen_t vl ; int n ; } ;\nvariables:\n  int v ;\n    c_t v:att = {5, 3} ;\n}\n"
);

// _ChunkSizes: one positive size per dimension, none larger than a fixed dimension. With
// one size for five dimensions libnetcdf read past the sizes.
pin!(
    chunk_sizes_fewer_than_dimensions,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  a = 2 ; b = 3 ; c = 4 ; d = 5 ; e = 6 ;\nvariables:\n  float v(a, b, c, d, e) ;\n    v:_ChunkSizes = 1 ;\n}\n"
);
pin!(
    chunk_sizes_zero,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  a = 2 ; b = 3 ;\nvariables:\n  float v(a, b) ;\n    v:_ChunkSizes = 2, 0 ;\n}\n"
);
pin!(
    chunk_sizes_negative,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  a = 2 ; t = UNLIMITED ;\nvariables:\n  float v(t, a) ;\n    v:_ChunkSizes = -1, 2 ;\n}\n"
);
pin!(
    chunk_sizes_larger_than_a_dimension,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  a = 2 ; b = 3 ;\nvariables:\n  float v(a, b) ;\n    v:_ChunkSizes = 2, 30 ;\n}\n"
);
pin!(
    chunk_sizes_on_a_scalar,
    NO_ARGS,
    "netcdf x {\nvariables:\n  float v ;\n    v:_ChunkSizes = 1 ;\n}\n"
);
pin!(
    chunk_sizes_as_text,
    NO_ARGS,
    "netcdf x {\ndimensions:\n  a = 2 ; b = 3 ;\nvariables:\n  float v(a, b) ;\n    v:_ChunkSizes = \"1, 2\" ;\n}\n"
);
// More sizes than dimensions: the reference ignores the extra ones; so do we, warning.
same_as_reference!(
    chunk_sizes_beyond_the_rank_are_ignored,
    "netcdf case {\ndimensions:\n  a = 2 ; b = 3 ;\nvariables:\n  float v(a, b) ;\n    v:_ChunkSizes = 1, 3, 7, 0 ;\n}\n"
);
// The last of _Storage and _ChunkSizes decides, as in the reference: a contiguous
// _Storage after it makes _ChunkSizes moot, whatever it holds; _ChunkSizes after a
// contiguous _Storage makes the variable chunked.
same_as_reference!(
    chunk_sizes_before_contiguous_storage_are_ignored,
    "netcdf case {\ndimensions:\n  a = 2 ; b = 3 ;\nvariables:\n  float v(a, b) ;\n    v:_ChunkSizes = 1 ;\n    v:_Storage = \"contiguous\" ;\n}\n"
);
same_as_reference!(
    chunk_sizes_after_contiguous_storage_make_it_chunked,
    "netcdf case {\ndimensions:\n  a = 2 ; b = 3 ;\nvariables:\n  float v(a, b) ;\n    v:_Storage = \"contiguous\" ;\n    v:_ChunkSizes = 2, 3 ;\n}\n"
);
// An opaque constant longer than its type is cut, as in the reference, with a warning.
same_as_reference!(
    opaque_constant_longer_than_its_type_is_cut,
    "netcdf case {\ntypes:\n  opaque(2) op_t ;\n  compound c_t { op_t o ; } ;\nvariables:\n  op_t v ;\n    op_t v:a = 0x010203 ;\n    c_t v:c = {0x0a0b0c0d} ;\ndata:\n  v = 0x0a0b0c ;\n}\n"
);
