//! Every ncgen error a user can meet, as printed (standard error, exit code), pinned by
//! snapshots: syntax errors, special attributes, formats, data. Each case runs in a
//! scratch directory with a relative file name, so the messages are stable.

use crate::support::{scratch, Test};

/// Runs our `ncgen ARGS -o out.nc case.cdl` on `cdl`; returns exit code, stderr, and
/// whether an output file was left.
fn ncgen_error(args: &[&str], cdl: &str) -> String {
    let dir = scratch();
    if let Err(e) = std::fs::write(dir.path().join("case.cdl"), cdl) {
        panic!("writing the case: {e}");
    }
    let run = Test::ours("ncgen")
        .args(args)
        .args(["-o", "out.nc", "case.cdl"])
        .current_dir(dir.path())
        .run();
    let left = dir.path().join("out.nc").exists();
    format!(
        "exit: {:?}\noutput file left: {left}\n{}",
        run.code, run.stderr
    )
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
pin!(
    code_generation,
    ["-l", "c"],
    "netcdf x {\nvariables:\n  int v ;\n}\n"
);
