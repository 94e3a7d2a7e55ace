//! Filter options on Zarr outputs work exactly as on netCDF-4 outputs: each nccopy option
//! set (`-d`, `-s`, `-F` by the spec's precedence table, `--quantize`) and each ncgen
//! special attribute (`_Filter`, `_Codecs`, `_DeflateLevel`, `_Shuffle`, `_Fletcher32`,
//! quantize) gives a Zarr store whose filters, as `ncdump -hs` shows them, and whose data
//! are those of the netCDF-4 file made the same way. The netCDF-4 side goes through
//! libnetcdf; the Zarr side through our own Rust backend.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{ok, scratch, Test};

/// The input: a fixed and an unlimited dimension, variables of several types, some
/// already filtered, with values that quantization changes.
const INPUT: &str = r#"netcdf in {
dimensions:
	t = UNLIMITED ;
	x = 3000 ;
variables:
	float a(x) ;
		a:_ChunkSizes = 1000 ;
	double b(t, x) ;
		b:_Filter = "307,9" ;
		b:_ChunkSizes = 1, 3000 ;
	int c(x) ;
		c:_DeflateLevel = 2 ;
		c:_Shuffle = "true" ;
		c:_ChunkSizes = 3000 ;
	short d(t) ;
	float e(x) ;
		e:_Fletcher32 = "true" ;
		e:_ChunkSizes = 1500 ;
data:
"#;

/// The input's CDL with its data section (values from simple formulas).
fn input_cdl() -> String {
    let series = |n: usize, f: &dyn Fn(usize) -> String| -> String {
        (0..n).map(f).collect::<Vec<_>>().join(", ")
    };
    let mut cdl = INPUT.to_string();
    let a = series(3000, &|i| {
        format!("{}", (i as f64 * 0.37).sin() * 1000.0 / 7.0)
    });
    let b = series(6000, &|i| {
        format!("{}", (i as f64).sqrt() * std::f64::consts::PI)
    });
    let c = series(3000, &|i| format!("{}", (i * 7919) % 100_003));
    let e = series(3000, &|i| format!("{}", i as f64 / 3.0));
    cdl.push_str(&format!(
        " a = {a} ;\n b = {b} ;\n c = {c} ;\n d = 1, -2 ;\n e = {e} ;\n}}\n"
    ));
    cdl
}

/// The lines of `ncdump -hs` that say how a variable is filtered, and the data section.
/// (Chunk shapes are left out: Zarr has no contiguous storage, so a variable netCDF-4
/// stores contiguous is one chunk there, and where the library chooses chunks, ours
/// choose their own; see docs/zarr.md.)
fn filters_and_data(dump: &str) -> (Vec<String>, String) {
    let specials = [
        "_Filter",
        "_DeflateLevel",
        "_Shuffle",
        "_Fletcher32",
        "_Quantize",
    ];
    let lines = dump
        .lines()
        .filter(|l| specials.iter().any(|s| l.contains(&format!(":{s}"))))
        .map(str::to_string)
        .collect();
    let data = dump.find("data:").map_or("", |at| &dump[at..]);
    (lines, data.to_string())
}

/// `ncdump -s` of `path` (header with special attributes, and data).
fn dump(path: &Path) -> String {
    let done = Test::ours("ncdump").arg("-s").arg(path).run();
    assert_eq!(done.code, Some(0), "ncdump -s {path:?}: {}", done.stderr);
    done.stdout
}

/// The input netCDF-4 file, made by our ncgen in `dir`.
fn input(dir: &Path) -> PathBuf {
    let cdl = dir.join("in.cdl");
    fs::write(&cdl, input_cdl()).unwrap_or_else(|e| panic!("{cdl:?}: {e}"));
    let nc = dir.join("in.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&cdl)
        .run();
    ok("ncgen", &made);
    nc
}

/// Asserts that the netCDF-4 file and the Zarr store show the same filters and data.
#[track_caller]
fn assert_same(label: &str, nc: &Path, zarr: &Path) {
    let (nc_filters, nc_data) = filters_and_data(&dump(nc));
    let (zarr_filters, zarr_data) = filters_and_data(&dump(zarr));
    assert_eq!(nc_filters, zarr_filters, "{label}: the filters differ");
    assert!(
        nc_data == zarr_data,
        "{label}: the data differ: {}",
        crate::support::first_difference(&nc_data, &zarr_data)
    );
}

#[test]
fn nccopy_filter_options_give_zarr_the_filters_and_data_they_give_netcdf4() {
    let dir = scratch();
    let input = input(dir.path());
    let option_sets: &[&[&str]] = &[
        &[],
        &["-d", "1"],
        &["-d", "5", "-s"],
        &["-d", "0"],
        &["-F", "a,307,9"],
        &["-F", "*,32015,3|shuffle"],
        &["-F", "a&e,bzip2,5", "-d", "2"],
        &["-F", "b,none", "-F", "*,zstd,1"],
        &["-F", "none"],
        &["-F", "c,32004", "-s"],
        &["--quantize", "a&b,bitround,9", "-d", "1"],
        &["--quantize", "*,bitgroom,3", "-F", "*,zstd,3"],
        &["--quantize", "e,granularbr,4"],
    ];
    for (i, options) in option_sets.iter().enumerate() {
        let label = format!("nccopy {}", options.join(" "));
        let nc = dir.path().join(format!("out{i}.nc"));
        let zarr = dir.path().join(format!("out{i}.zarr"));
        for target in [&nc, &zarr] {
            let done = Test::ours("nccopy")
                .args(*options)
                .arg(&input)
                .arg(target)
                .run();
            assert_eq!(done.code, Some(0), "{label} {target:?}: {}", done.stderr);
        }
        assert_same(&label, &nc, &zarr);
        // The plan is the same whichever the target, but for stored chunks copied as
        // they are, which happens between netCDF-4 files only.
        let plan = |target: &Path| {
            let done = Test::ours("nccopy")
                .args(*options)
                .arg("--dry-run")
                .arg(&input)
                .arg(target)
                .run();
            assert_eq!(done.code, Some(0), "{label} --dry-run: {}", done.stderr);
            done.stdout.replace(", stored chunks copied", "")
        };
        assert_eq!(
            plan(&nc),
            plan(&dir.path().join("plan.zarr")),
            "{label}: --dry-run"
        );
    }
}

#[test]
fn ncgen_special_attributes_give_zarr_the_filters_and_data_they_give_netcdf4() {
    let dir = scratch();
    let extra = [
        ("_DeflateLevel and _Shuffle", "\t\ta:_DeflateLevel = 4 ;\n\t\ta:_Shuffle = \"true\" ;\n"),
        ("_Filter pipeline", "\t\ta:_Filter = \"307,9|32015,3\" ;\n"),
        ("repeated _Filter", "\t\ta:_Filter = \"2\" ;\n\t\ta:_Filter = \"zstd,4\" ;\n"),
        (
            "_Codecs",
            "\t\ta:_Codecs = \"[{\\\"id\\\": \\\"shuffle\\\", \\\"elementsize\\\": 4}, {\\\"id\\\": \\\"zlib\\\", \\\"level\\\": 6}]\" ;\n",
        ),
        (
            "_Codecs agreeing with _Filter",
            "\t\ta:_Filter = \"307,9\" ;\n\t\ta:_Codecs = \"[{\\\"id\\\": \\\"bz2\\\", \\\"level\\\": 9}]\" ;\n",
        ),
        ("_Fletcher32", "\t\ta:_Fletcher32 = \"true\" ;\n"),
        (
            "BitRound",
            "\t\ta:_QuantizeBitRoundNumberOfSignificantBits = 7 ;\n\t\ta:_DeflateLevel = 1 ;\n",
        ),
        ("BitGroom", "\t\ta:_QuantizeBitGroomNumberOfSignificantDigits = 2 ;\n"),
        (
            "Granular BitRound",
            "\t\ta:_QuantizeGranularBitRoundNumberOfSignificantDigits = 3 ;\n",
        ),
    ];
    for (i, (label, attributes)) in extra.iter().enumerate() {
        let cdl = input_cdl().replacen(
            "\t\ta:_ChunkSizes = 1000 ;\n",
            &format!("\t\ta:_ChunkSizes = 1000 ;\n{attributes}"),
            1,
        );
        let source = dir.path().join(format!("gen{i}.cdl"));
        fs::write(&source, cdl).unwrap_or_else(|e| panic!("{source:?}: {e}"));
        let nc = dir.path().join(format!("gen{i}.nc"));
        let zarr = dir.path().join(format!("gen{i}.zarr"));
        for target in [&nc, &zarr] {
            let done = Test::ours("ncgen")
                .args(["-k", "nc4", "-o"])
                .arg(target)
                .arg(&source)
                .run();
            assert_eq!(
                done.code,
                Some(0),
                "ncgen {label} {target:?}: {}",
                done.stderr
            );
        }
        assert_same(&format!("ncgen with {label}"), &nc, &zarr);
    }
}

#[test]
fn user_defined_types_are_refused_naming_each_type() {
    let dir = scratch();
    let cdl = dir.path().join("types.cdl");
    fs::write(
        &cdl,
        "netcdf types {\ntypes:\n  compound obs_t {\n    int a ;\n    float b ;\n  } ;\n\
         dimensions:\n\tx = 2 ;\nvariables:\n\tobs_t v(x) ;\n\
         group: g {\ntypes:\n  byte enum mood_t {happy = 1, sad = 2} ;\nvariables:\n\
         \tmood_t m(x) ;\n}\n}\n",
    )
    .unwrap_or_else(|e| panic!("{cdl:?}: {e}"));
    let done = Test::ours("ncgen")
        .args(["-k", "nc4", "-o", "types.zarr", "types.cdl"])
        .current_dir(dir.path())
        .run();
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    insta::assert_snapshot!("user_defined_types_to_zarr", done.stderr);
    assert!(!dir.path().join("types.zarr").exists());
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["types.cdl"], "ncgen left something");
}

#[test]
fn a_file_with_an_enum_converts_to_zarr_once_its_enum_variable_is_left_out() {
    // Before: refused whatever -V said ("the user-defined type cloud_t (enum) cannot be
    // stored in Zarr"), since the type was still defined.
    let dir = scratch();
    let cdl = dir.path().join("e.cdl");
    fs::write(
        &cdl,
        "netcdf e {\ntypes:\n  byte enum cloud_t {Clear = 0, Cumulus = 1} ;\n\
         dimensions:\n\tx = 2 ;\nvariables:\n\tcloud_t c(x) ;\n\tfloat t(x) ;\n\
         \t\tt:units = \"K\" ;\ndata:\n c = Clear, Cumulus ;\n t = 1, 2 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{cdl:?}: {e}"));
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o", "e.nc", "e.cdl"])
        .current_dir(dir.path())
        .run();
    ok("made", &made);
    let whole = Test::ours("nccopy")
        .args(["e.nc", "whole.zarr"])
        .current_dir(dir.path())
        .run();
    assert_eq!(whole.code, Some(1), "{}", whole.stderr);
    assert!(
        whole
            .stderr
            .contains("and /c uses it; copy the other variables only (nccopy -V)"),
        "{}",
        whole.stderr
    );
    for target in [
        "t.zarr",
        "file://t2.zarr#mode=zarr",
        "file://t3.zarr#mode=zarr,v3",
    ] {
        let done = Test::ours("nccopy")
            .args(["-V", "t", "e.nc", target])
            .current_dir(dir.path())
            .run();
        assert_eq!(done.code, Some(0), "{target}: {}", done.stderr);
    }
    let dump = Test::ours("ncdump")
        .arg("t.zarr")
        .current_dir(dir.path())
        .run();
    assert!(
        dump.stdout.contains("float t(x) ;") && dump.stdout.contains(" t = 1, 2 ;"),
        "{}",
        dump.stdout
    );
    assert!(!dump.stdout.contains("cloud_t"), "{}", dump.stdout);
}

#[test]
fn ncdump_filters_reports_zarr_codecs_and_the_ones_nctools_lacks() {
    let dir = scratch();
    let store = dir.path().join("u.zarr");
    fs::create_dir_all(store.join("v")).unwrap_or_else(|e| panic!("{e}"));
    fs::create_dir_all(store.join("w")).unwrap_or_else(|e| panic!("{e}"));
    let put = |name: &str, text: &[u8]| {
        fs::write(store.join(name), text).unwrap_or_else(|e| panic!("{name}: {e}"));
    };
    put(".zgroup", br#"{"zarr_format": 2}"#);
    put(
        "v/.zarray",
        br#"{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4", "fill_value": 0, "order": "C", "filters": [{"id": "astype", "encode_dtype": "<i2", "decode_dtype": "<i4"}], "compressor": {"id": "zfpy", "mode": 4}}"#,
    );
    put("v/0", &[0; 16]);
    put(
        "w/.zarray",
        br#"{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4", "fill_value": 0, "order": "C", "filters": [{"id": "shuffle", "elementsize": 4}], "compressor": {"id": "bz2", "level": "9"}}"#,
    );
    let report = Test::ours("ncdump")
        .args(["--filters", "u.zarr"])
        .current_dir(dir.path())
        .run();
    ok("report", &report);
    insta::assert_snapshot!("filters_of_zarr_codecs", report.stdout);
    let json = Test::ours("ncdump")
        .args(["--filters", "--json", "u.zarr"])
        .current_dir(dir.path())
        .run();
    let all: serde_json::Value =
        serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
    let v = &all[0]["filters"];
    assert_eq!(v[0]["codec"], "astype");
    assert_eq!(v[0]["available"], false);
    assert_eq!(v[1]["codec"], "zfpy");
    let w = &all[1]["filters"];
    assert_eq!(w[1]["id"], 307);
    assert_eq!(w[1]["codec"], "bz2");
    assert_eq!(w[1]["available"], true);
}

#[test]
fn ncgen_writes_a_classic_cdl_into_a_zarr_store_without_being_told_k_nc4() {
    let dir = scratch();
    let cdl = dir.path().join("t.cdl");
    fs::write(
        &cdl,
        "netcdf t {\ndimensions:\n x = 3 ;\nvariables:\n int v(x) ;\ndata:\n v = 1, 2, 3 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("writing the CDL: {e}"));
    let store = dir.path().join("out.zarr");
    let made = Test::ours("ncgen").arg("-o").arg(&store).arg(&cdl).run();
    ok("made", &made);
    let dump = Test::ours("ncdump").arg(&store).run();
    ok("dump", &dump);
    assert!(dump.stdout.contains(" v = 1, 2, 3 ;"), "{}", dump.stdout);
    // Asked for a classic format, it is still refused, saying why.
    let classic = dir.path().join("classic.zarr");
    let refused = Test::ours("ncgen")
        .args(["-k", "nc3", "-o"])
        .arg(&classic)
        .arg(&cdl)
        .run();
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("Zarr stores hold the netCDF-4 model"),
        "{}",
        refused.stderr
    );
    assert!(!classic.exists());
}

#[test]
fn version_3_outputs_take_core_codecs_that_zarr_python_and_tensorstore_read() {
    // Before: `numcodecs.shuffle` and `numcodecs.zlib`, which zarr-python reads only with
    // an UnstableSpecificationWarning and tensorstore refuses.
    let Some(python) = crate::support::zarr_python() else {
        return;
    };
    let dir = scratch();
    fs::write(
        dir.path().join("c.cdl"),
        "netcdf c {\ndimensions:\n\tx = 6 ;\nvariables:\n\tfloat t(x) ;\n\
         \t\tt:_DeflateLevel = 1 ;\n\t\tt:_Shuffle = \"true\" ;\n\tint i(x) ;\n\
         \t\ti:_DeflateLevel = 4 ;\n\tshort z(x) ;\n\t\tz:_Filter = \"32015,3\" ;\n\
         \t\tz:_Shuffle = \"true\" ;\n\tdouble f(x) ;\n\t\tf:_Fletcher32 = \"true\" ;\n\
         data:\n t = 1, 2, 3, 4, 5, 6 ;\n i = 1, 2, 3, 4, 5, 6 ;\n z = 1, 2, 3, 4, 5, 6 ;\n\
         f = 1, 2, 3, 4, 5, 6 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o", "c.nc", "c.cdl"])
        .current_dir(dir.path())
        .run();
    ok("made", &made);
    for (target, core) in [
        ("file://core.zarr#mode=zarr,v3", true),
        ("file://kept.zarr#mode=zarr,v3,numcodecs", false),
    ] {
        let done = Test::ours("nccopy")
            .args(["c.nc", target])
            .current_dir(dir.path())
            .run();
        assert_eq!(done.code, Some(0), "{target}: {}", done.stderr);
        let store = if core { "core.zarr" } else { "kept.zarr" };
        let names = |var: &str| -> Vec<String> {
            let text = fs::read_to_string(dir.path().join(store).join(var).join("zarr.json"))
                .unwrap_or_else(|e| panic!("{e}"));
            let json: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
            json["codecs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        };
        if core {
            assert_eq!(names("t"), ["bytes", "blosc"]);
            assert_eq!(names("i"), ["bytes", "gzip"]);
            assert_eq!(names("z"), ["bytes", "blosc"]);
            assert_eq!(names("f"), ["bytes", "crc32c"]);
        } else {
            assert_eq!(names("t"), ["bytes", "numcodecs.shuffle", "numcodecs.zlib"]);
        }
    }
    let program = r#"
import warnings, zarr, tensorstore as ts
warnings.simplefilter("error")
for v in "tizf":
    a = zarr.open_array(f"core.zarr/{v}", mode="r")[:].tolist()
    b = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"core.zarr/{v}"}}).result().read().result().tolist()
    print(v, a, b == a)
"#;
    let read = crate::support::run(
        std::process::Command::new(&python)
            .args(["-c", program])
            .current_dir(dir.path()),
    );
    ok("read", &read);
    for v in ["t", "i", "z", "f"] {
        assert!(
            read.stdout.contains(&format!("{v} [1")) && !read.stdout.contains("False"),
            "{}",
            read.stdout
        );
    }
    // Read back by ours, values and all.
    let dump = Test::ours("ncdump")
        .arg("file://core.zarr#mode=zarr,v3")
        .current_dir(dir.path())
        .run();
    assert!(
        dump.stdout.contains(" t = 1, 2, 3, 4, 5, 6 ;"),
        "{}",
        dump.stdout
    );
}

/// Total bytes of the files under `path` (a file, or a directory's tree).
fn disk_bytes(path: &Path) -> u64 {
    if path.is_file() {
        return fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    }
    fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| disk_bytes(&e.path()))
        .sum()
}

/// Red team s36 RD1: a copy into a new Zarr store writes no slab that holds nothing but
/// the fill value (what every reader takes a chunk never written for), so a variable
/// declared large and never written costs no disk; values written keep their chunks, and
/// the copy reads back as the input.
/// Before: a 6 KB netCDF-4 file declaring `int v(2000000000)`, nothing written, became
/// 7.8 GB of chunks of zeros, in a directory store and in a `.zarr.zip`.
#[test]
fn a_variable_declared_large_and_never_written_costs_no_disk_in_zarr() {
    let dir = scratch();
    let cdl = dir.path().join("empty.cdl");
    fs::write(
        &cdl,
        "netcdf e {\ndimensions:\n\tm = 200000000 ;\n\tn = 8 ;\nvariables:\n\tint v(m) ;\n\
         \tint w(n) ;\n\t\tw:_FillValue = -1 ;\ndata:\n\n w = 1, _, _, 4, _, _, _, _ ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.path().join("empty.nc");
    ok(
        "ncgen",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&nc)
            .arg(&cdl)
            .run(),
    );
    assert!(disk_bytes(&nc) < 100_000);
    let expected = dump(&nc);
    for out in ["out.zarr", "out.zarr.zip"] {
        let store = dir.path().join(out);
        ok(out, Test::ours("nccopy").arg(&nc).arg(&store).run());
        let bytes = disk_bytes(&store);
        assert!(bytes < 100_000, "{out}: {bytes} bytes");
        let head = Test::ours("ncdump").args(["-v", "w"]).arg(&store).run();
        assert!(ok(out, head).contains(" w = 1, _, _, 4, _, _, _, _ ;"));
    }
    assert!(expected.contains("int v(m) ;"));
}
