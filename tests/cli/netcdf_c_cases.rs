//! Cases from netCDF-C's own test scripts (netCDF-C 4.10.0's `ncdump/`, `nczarr_test/`,
//! `nc_test4/`), each reduced to what the script checks, run with our tools and judged
//! against the reference tools or the script's expected output.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{first_difference, ok, reference, run, scratch, Test};

/// The reference ncdump of `file` (which must succeed).
fn reference_dump(file: &Path) -> String {
    let ncdump = reference("ncdump").unwrap_or_else(|| panic!("reference ncdump is missing"));
    let done = run(Command::new(ncdump).arg(file));
    assert_eq!(
        done.code,
        Some(0),
        "reference ncdump {file:?}: {}",
        done.stderr
    );
    done.stdout
}

/// Runs `script` with the project's Python (zarr, xarray, h5py) in `dir`, which must
/// succeed; false after a skip (a failure in CI) when there is no such Python.
fn made_by_python(dir: &Path, script: &str) -> bool {
    let Some(python) = crate::support::zarr_python() else {
        return false;
    };
    let made = run(Command::new(&python).arg("-c").arg(script).current_dir(dir));
    ok("python", &made);
    true
}

/// Writes `text` as the CDL file `name` in `dir`.
fn cdl_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
    path
}

/// The JSON document at `path` (which must be one).
fn json_document(path: &Path) -> serde_json::Value {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// `tst_bom`: a CDL file that starts with a UTF-8 byte-order mark is read as if the mark
/// were not there (before: "expected `netcdf`, found name `\u{feff}netcdf`", exit 1).
#[test]
fn a_cdl_file_starting_with_a_byte_order_mark_is_read() {
    let dir = scratch();
    let text =
        "netcdf bom {\ndimensions:\n\td = 2 ;\nvariables:\n\tint v(d) ;\ndata:\n\n v = 1, 2 ;\n}\n";
    let with_mark = dir.path().join("bom.cdl");
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend_from_slice(text.as_bytes());
    fs::write(&with_mark, &bytes).unwrap_or_else(|e| panic!("cannot write: {e}"));
    let plain = dir.path().join("plain.cdl");
    fs::write(&plain, text).unwrap_or_else(|e| panic!("cannot write: {e}"));

    for kind in ["classic", "nc4"] {
        // Same file name on both sides: ncdump names the dataset after it.
        let ours_dir = dir.path().join(format!("ours-{kind}"));
        let plain_dir = dir.path().join(format!("plain-{kind}"));
        for d in [&ours_dir, &plain_dir] {
            fs::create_dir(d).unwrap_or_else(|e| panic!("cannot create {d:?}: {e}"));
        }
        let ours = ours_dir.join("bom.nc");
        let done = Test::ours("ncgen")
            .args(["-k", kind, "-o"])
            .arg(&ours)
            .arg(&with_mark)
            .run();
        assert_eq!(
            done.code,
            Some(0),
            "ncgen -k {kind} of a CDL with a BOM: {}",
            done.stderr
        );
        let expected = plain_dir.join("bom.nc");
        let done = Test::ours("ncgen")
            .args(["-k", kind, "-o"])
            .arg(&expected)
            .arg(&plain)
            .run();
        ok("done", &done);
        assert_eq!(reference_dump(&ours), reference_dump(&expected));
    }
    // The data pass seeks to each data entry by its offset: an error there would show
    // as wrong values, so check them too.
    let done = Test::ours("ncdump")
        .arg(dir.path().join("ours-nc4/bom.nc"))
        .run();
    assert!(done.stdout.contains(" v = 1, 2 ;"), "{}", done.stdout);
}

/// The header of a classic-format file (`version` 1, 2 or 5) holding one dimension,
/// `testdim`, of length `len`, and nothing else: what `tst_dimsizes.c` writes.
fn one_dimension_header(version: u8, len: u64) -> Vec<u8> {
    let wide = version == 5;
    let count = |n: u64, out: &mut Vec<u8>| {
        if wide {
            out.extend_from_slice(&n.to_be_bytes());
        } else {
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
    };
    let mut h = vec![b'C', b'D', b'F', version];
    count(0, &mut h); // records
    h.extend_from_slice(&10u32.to_be_bytes()); // NC_DIMENSION
    count(1, &mut h);
    count(7, &mut h);
    h.extend_from_slice(b"testdim\0");
    count(len, &mut h);
    for _ in 0..2 {
        // no attributes, no variables
        h.extend_from_slice(&0u32.to_be_bytes());
        count(0, &mut h);
    }
    h
}

/// `tst_dimsizes`: the largest dimension each classic format allows (2^31 - 4, 2^32 - 4
/// and, in CDF-5, 2^64 - 4, which libnetcdf writes and reads unsigned) are shown as the
/// reference shows them (before: CDF-5's was "negative (-4)", exit 1).
#[test]
fn the_largest_dimension_of_each_classic_format_is_read() {
    let dir = scratch();
    let cases = [
        ("tst_dimsize_classic", 1u8, (1u64 << 31) - 4),
        ("tst_dimsize_64offset", 2, (1u64 << 32) - 4),
        ("tst_dimsize_64data", 5, u64::MAX - 3),
    ];
    for (name, version, len) in cases {
        let file = dir.path().join(format!("{name}.nc"));
        fs::write(&file, one_dimension_header(version, len))
            .unwrap_or_else(|e| panic!("cannot write {file:?}: {e}"));
        let ncdump = reference("ncdump").unwrap_or_else(|| panic!("reference ncdump is missing"));
        let theirs = run(Command::new(ncdump).arg("-h").arg(&file));
        ok("reference", &theirs);
        assert!(theirs.stdout.contains(&format!("testdim = {len} ;")));
        let ours = Test::ours("ncdump").arg("-h").arg(&file).run();
        assert_eq!(ours.code, Some(0), "{name}: {}", ours.stderr);
        assert_eq!(ours.stdout, theirs.stdout, "{name}");
    }
}

/// `tst_netcdf4`'s groups file (`tst_group_data.c`): a variable `var` in the root and in
/// three nested groups.
const GROUP_DATA: &str = r#"netcdf tst_group_data {
dimensions:
	dim = 4 ;
variables:
	float var(dim) ;
		var:units = "m/s" ;
		:title = "for testing groups" ;
data:
 var = 1, 2, 3, 4 ;
group: g1 {
  dimensions:
  	dim = 1 ;
  variables:
  	float var(dim) ;
  data:
   var = 1 ;
  }
group: g2 {
  dimensions:
  	dim = 2 ;
  variables:
  	float var(dim) ;
  data:
   var = 1, 2 ;
  group: g3 {
    dimensions:
    	dim = 3 ;
    variables:
    	float var(dim) ;
    	float var2(/dim, /g2/dim, dim) ;
    data:
     var = 1, 2, 3 ;
     var2 = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24 ;
    }
  }
}
"#;

/// `tst_netcdf4`: `ncdump -v g2/g3/var` prints the data of that variable (before: no data
/// at all), `-v g3/var` selects it too (before: refused), and every other form of `-v`
/// selects what the reference selects. `/var` is the one intended difference: netCDF-C
/// refuses it ("No such variable"), we select the root's `var`.
#[test]
fn variables_in_groups_are_selected_by_path_as_the_reference_selects_them() {
    let dir = scratch();
    let cdl = cdl_file(dir.path(), "tst_group_data.cdl", GROUP_DATA);
    let file = dir.path().join("tst_group_data.nc");
    let ncgen = reference("ncgen").unwrap_or_else(|| panic!("reference ncgen is missing"));
    let made = run(Command::new(ncgen)
        .args(["-k", "nc4", "-o"])
        .arg(&file)
        .arg(&cdl));
    ok("made", &made);
    let ncdump = reference("ncdump").unwrap_or_else(|| panic!("reference ncdump is missing"));
    for selector in [
        "g2/g3/var",
        "/g2/g3/var",
        "g3/var",
        "3/var",
        "var",
        "g2/g3/var2",
        "g1/var,g3/var",
        "/g3/var",
        "g9/var",
    ] {
        let theirs = run(Command::new(&ncdump).args(["-v", selector]).arg(&file));
        let ours = Test::ours("ncdump").args(["-v", selector]).arg(&file).run();
        assert_eq!(ours.code, theirs.code, "-v {selector}: {}", ours.stderr);
        assert_eq!(ours.stdout, theirs.stdout, "-v {selector}");
    }
    let theirs = run(Command::new(&ncdump).args(["-v", "/var"]).arg(&file));
    assert_eq!(theirs.code, Some(1), "the reference refuses -v /var");
    let ours = Test::ours("ncdump").args(["-v", "/var"]).arg(&file).run();
    ok("ours", &ours);
    assert!(
        ours.stdout.contains(" var = 1, 2, 3, 4 ;"),
        "{}",
        ours.stdout
    );
    assert_eq!(ours.stdout.matches(" var = ").count(), 1, "{}", ours.stdout);
}

/// `run_interop`: a Zarr version 2 store without a root `.zgroup` (netCDF-C's fixture
/// `ref_power_901_constants`, written by xarray, has only its arrays' `.zarray` and
/// `.zattrs`) is read as a group of those arrays, through netCDF-C's URL and as a plain
/// path; before: "is not a Zarr store: it has no .zgroup, .zmetadata or zarr.json". The
/// dataset of `file:///...#mode=zarr,file` is named after the path's last segment
/// without the fragment, as netCDF-C names it (before: `name\#mode\=zarr\,file`).
#[test]
fn a_zarr_store_without_a_root_group_document_is_read_as_netcdf_c_reads_it() {
    let dir = scratch();
    let script = r#"
import os, numpy as np, xarray as xr
ds = xr.Dataset(
    {"FRLAKE": (("lat", "lon"), np.arange(6, dtype="f4").reshape(2, 3), {"long_name": "fraction_of_lake"}),
     "FROCEAN": (("lat", "lon"), np.ones((2, 3), dtype="f4"))})
ds.to_zarr("power", zarr_format=2, consolidated=False)
for name in (".zgroup", ".zattrs"):
    if os.path.exists(os.path.join("power", name)):
        os.remove(os.path.join("power", name))
"#;
    if !made_by_python(dir.path(), script) {
        return;
    }
    let store = dir.path().join("power");
    assert!(!store.join(".zgroup").exists());
    let url = format!("file://{}#mode=zarr,file", store.display());
    for input in [url.as_str(), &store.display().to_string()] {
        let done = Test::ours("ncdump").arg(input).run();
        assert_eq!(done.code, Some(0), "ncdump {input}: {}", done.stderr);
        assert!(
            done.stdout.starts_with("netcdf power {\n"),
            "{}",
            done.stdout
        );
        assert!(
            done.stdout.contains("\tfloat FRLAKE(lat, lon) ;"),
            "{}",
            done.stdout
        );
        assert!(
            done.stdout.contains(" FRLAKE =\n  0, 1, 2,\n  3, 4, 5 ;"),
            "{}",
            done.stdout
        );
        assert!(
            done.stdout.contains("\tfloat FROCEAN(lat, lon) ;"),
            "{}",
            done.stdout
        );
    }
    // A directory with nothing of Zarr in it or below it is still refused.
    let plain = dir.path().join("plain");
    fs::create_dir_all(plain.join("sub")).unwrap_or_else(|e| panic!("{e}"));
    let done = Test::ours("ncdump").arg(&plain).run();
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr
            .contains("neither a netCDF file nor a Zarr store"),
        "{}",
        done.stderr
    );
}

/// `run_specific_filters`: beside `_Filter`, `_Codecs` only has to name the same filters
/// (netCDF-C's ncgen ignores it when writing; the script gives shuffle an
/// `"elementsize": "0"`; before: "elementsize must be an integer 1 to 65536", exit 1),
/// and blosc's block size (`32001,0,0,0,256,5,1,1`) goes into NCZarr as 256, with the
/// codec's members in netCDF-C's order, which its ncdump shows as stored (before:
/// `"blocksize": 0`).
#[test]
fn nczarr_filters_are_written_as_netcdf_c_writes_them() {
    let dir = scratch();
    let cdl = dir.path().join("f.cdl");
    let text = r#"netcdf f {
dimensions:
	d = 40 ;
variables:
	float s(d) ;
		s:_Filter = "2" ;
		s:_Codecs = "[{\"id\": \"shuffle\",\"elementsize\": \"0\"}]" ;
	float b(d) ;
		b:_Filter = "32001,0,0,0,256,5,1,1" ;
		b:_Codecs = "[{\"id\": \"blosc\",\"clevel\": 5,\"blocksize\": 256,\"cname\": \"lz4\",\"shuffle\": 1}]" ;
data:
 s = 1 ;
 b = 2 ;
}
"#;
    fs::write(&cdl, text).unwrap_or_else(|e| panic!("cannot write: {e}"));
    let store = dir.path().join("f.file");
    let url = format!("file://{}#mode=nczarr,file", store.display());
    let made = Test::ours("ncgen")
        .args(["-4", "-lb", "-o", &url])
        .arg(&cdl)
        .run();
    ok("made", &made);
    let dumped = Test::ours("ncdump").args(["-hsF", &url]).run();
    ok("dumped", &dumped);
    assert!(
        dumped.stdout.contains("\t\ts:_Filter = \"2\" ;"),
        "{}",
        dumped.stdout
    );
    assert!(
        dumped
            .stdout
            .contains("\t\tb:_Filter = \"32001,0,0,0,256,5,1,1\" ;"),
        "{}",
        dumped.stdout
    );
    assert!(
        dumped.stdout.contains(
            r#"b:_Codecs = "[{\"id\": \"blosc\",\"clevel\": 5,\"blocksize\": 256,\"cname\": \"lz4\",\"shuffle\": 1}]" ;"#
        ) || dumped.stdout.contains(
            r#"b:_Codecs = "[{\"id\": \"blosc\", \"clevel\": 5, \"blocksize\": 256, \"cname\": \"lz4\", \"shuffle\": 1}]" ;"#
        ),
        "{}",
        dumped.stdout
    );
    // `_Codecs` that name other filters than `_Filter` are still an error.
    let other = dir.path().join("o.cdl");
    fs::write(
        &other,
        text.replace(r#"\"id\": \"shuffle\""#, r#"\"id\": \"zlib\""#),
    )
    .unwrap_or_else(|e| panic!("cannot write: {e}"));
    let refused = Test::ours("ncgen")
        .args(["-4", "-lb", "-o"])
        .arg(dir.path().join("o.nc"))
        .arg(&other)
        .run();
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("disagrees with _Filter"),
        "{}",
        refused.stderr
    );
}

/// `tst_netcdf4` (`tst_enum_undef`): an enum value of 0 that names no member, HDF5's
/// default fill of an enum, is shown as netCDF-C 4.10 shows it, `_UNDEFINED` (before: its
/// number, which ncgen cannot read back; netCDF-C 4.9.0 fails). The file is written by
/// h5py, which does not check enum values.
#[test]
fn an_enum_value_of_zero_that_names_no_member_is_undefined() {
    let dir = scratch();
    let script = r#"
import h5py, numpy as np
f = h5py.File("undef.nc", "w")
f["cloud_class_t"] = h5py.enum_dtype({"Cumulonimbus": 1, "Stratus": 2, "Missing": 255}, basetype="u1")
f.create_dataset("primary_cloud", data=np.array([0, 2, 0, 1, 255], dtype=np.uint8), dtype=f["cloud_class_t"])
f.close()
"#;
    if !made_by_python(dir.path(), script) {
        return;
    }
    let done = Test::ours("ncdump").arg(dir.path().join("undef.nc")).run();
    ok("done", &done);
    assert!(
        done.stdout
            .contains(" primary_cloud = _UNDEFINED, Stratus, _UNDEFINED, Cumulonimbus, Missing ;"),
        "{}",
        done.stdout
    );
}

/// `tst_mud` (NCZarr): variables along several unlimited dimensions get default chunks
/// that fit (before: 1024 along each unlimited dimension made an 8 GiB chunk, refused),
/// and the store reads back as the netCDF-4 file does.
#[test]
fn several_unlimited_dimensions_go_into_nczarr_with_default_chunks() {
    let dir = scratch();
    let cdl = dir.path().join("mud.cdl");
    let text = "netcdf mud {\ndimensions:\n\tF1 = 2 ;\n\tU0 = UNLIMITED ;\n\tU1 = UNLIMITED ;\n\tU2 = UNLIMITED ;\n\tU3 = UNLIMITED ;\nvariables:\n\tint ufuu(U0, F1, U2, U3) ;\n\tint uuuu(U0, U1, U2, U3) ;\n}\n";
    fs::write(&cdl, text).unwrap_or_else(|e| panic!("cannot write: {e}"));
    let mut dumps = Vec::new();
    for (label, target) in [
        ("nc4", dir.path().join("nc4/mud.nc").display().to_string()),
        (
            "nczarr",
            format!(
                "file://{}#mode=nczarr,file",
                dir.path().join("zarr/mud.file").display()
            ),
        ),
    ] {
        let subdir = dir.path().join(if label == "nc4" { "nc4" } else { "zarr" });
        fs::create_dir_all(&subdir).unwrap_or_else(|e| panic!("{e}"));
        let made = Test::ours("ncgen")
            .args(["-4", "-b", "-o", &target])
            .arg(&cdl)
            .run();
        assert_eq!(made.code, Some(0), "{label}: {}", made.stderr);
        let dumped = Test::ours("ncdump").args(["-n", "mud", &target]).run();
        assert_eq!(dumped.code, Some(0), "{label}: {}", dumped.stderr);
        dumps.push(dumped.stdout);
    }
    assert_eq!(dumps[0], dumps[1]);
}

/// `run_scalar`, `run_nulls`: a scalar goes into pure Zarr as an array of one value named
/// `_scalar_`, as netCDF-C 4.10 writes it (before: `_ARRAY_DIMENSIONS: []` for a shape of
/// `[1]`, which xarray refuses, and read back along `_Anonymous_Dim_1`); our ncdump and
/// xarray (warnings as errors) read one value along `_scalar_`, as 4.10 does; NCZarr keeps
/// the scalar. Char attributes stay strings in pure Zarr, also those whose text is JSON
/// (4.10 writes `"0"` as the number 0; xarray would read `units = "1"` as an int).
#[test]
fn scalars_go_into_pure_zarr_as_netcdf_c_4_10_writes_them() {
    let dir = scratch();
    let cdl = cdl_file(
        dir.path(),
        "scalar.cdl",
        "netcdf scalar {\nvariables:\n\tint v ;\n\t\tv:_FillValue = -1 ;\n\t\tv:units = \"1\" ;\n\
         \t\tv:zero_sng = \"0\" ;\n\t\tv:j = \"{\\\"a\\\": 1}\" ;\ndata:\n\n v = 17 ;\n}\n",
    );
    let pure = dir.path().join("pure.zarr");
    let nczarr = dir.path().join("nczarr.zarr");
    for (store, mode) in [(&pure, "zarr"), (&nczarr, "nczarr")] {
        let url = format!("file://{}#mode={mode},file", store.display());
        let done = Test::ours("ncgen")
            .args(["-4", "-b", "-o", &url])
            .arg(&cdl)
            .run();
        assert_eq!(done.code, Some(0), "ncgen {mode}: {}", done.stderr);
        let zattrs = json_document(&store.join("v/.zattrs"));
        assert_eq!(
            zattrs["_ARRAY_DIMENSIONS"],
            serde_json::json!(["_scalar_"]),
            "{mode}"
        );
        assert_eq!(zattrs["units"], "1", "{mode}");
        assert_eq!(zattrs["zero_sng"], "0", "{mode}");
        // A char attribute holding a JSON object is written as the object (netCDF-C's
        // convention) and read back as its text.
        assert_eq!(zattrs["j"], serde_json::json!({"a": 1}), "{mode}");
    }
    let dump = |store: &Path, mode: &str| {
        let url = format!("file://{}#mode={mode},file", store.display());
        let done = Test::ours("ncdump").args(["-n", "s", &url]).run();
        assert_eq!(done.code, Some(0), "ncdump {mode}: {}", done.stderr);
        done.stdout
    };
    assert_eq!(
        dump(&pure, "zarr"),
        "netcdf s {\ndimensions:\n\t_scalar_ = 1 ;\nvariables:\n\tint v(_scalar_) ;\n\
         \t\tv:_FillValue = -1 ;\n\t\tv:units = \"1\" ;\n\t\tv:zero_sng = \"0\" ;\n\
         \t\tv:j = \"{\\\"a\\\": 1}\" ;\ndata:\n\n v = 17 ;\n}\n"
    );
    assert_eq!(
        dump(&nczarr, "nczarr"),
        "netcdf s {\nvariables:\n\tint v ;\n\t\tv:_FillValue = -1 ;\n\t\tv:units = \"1\" ;\n\
         \t\tv:zero_sng = \"0\" ;\n\t\tv:j = \"{\\\"a\\\": 1}\" ;\ndata:\n\n v = 17 ;\n}\n"
    );
    made_by_python(
        dir.path(),
        "import warnings; warnings.simplefilter('error')\n\
         import xarray as xr\n\
         ds = xr.open_zarr('pure.zarr', consolidated=True)\n\
         v = ds['v']\n\
         assert v.dims == ('_scalar_',), v.dims\n\
         assert int(v.values[0]) == 17, v.values\n\
         assert v.attrs['units'] == '1' and v.attrs['zero_sng'] == '0', v.attrs\n",
    );
}

/// `run_nczarr_fill` (GitHub issue 2059): a name in `_ARRAY_DIMENSIONS` is a dimension of
/// the array's own group, as netCDF-C 4.10 defines it and xarray sees it (before: every
/// name went into the root group, so two groups' `x` of lengths 3 and 5 were refused as
/// "dimension x has length 5 here but 3 elsewhere"). The expected text is what netCDF-C
/// 4.10.0's ncdump prints for the same store (checked with a build of its source).
#[test]
fn dimensions_named_in_a_subgroup_are_defined_in_that_group() {
    let dir = scratch();
    let cdl = cdl_file(dir.path(), "g.cdl", SUBGROUP_DIMENSIONS_CDL);
    let url = format!("file://{}#mode=zarr", dir.path().join("g.zarr").display());
    let done = Test::ours("ncgen").args(["-o", &url]).arg(&cdl).run();
    ok("ncgen", &done);
    let done = Test::ours("ncdump").args(["-h", &url]).run();
    ok("ncdump", &done);
    assert_eq!(done.stdout, SUBGROUP_DIMENSIONS_DUMP);
    made_by_python(
        dir.path(),
        "import xarray as xr\n\
         sizes = {g: dict(xr.open_zarr('g.zarr', group=g).sizes) for g in ['A', 'A/B', 'C']}\n\
         assert sizes == {'A': {'x': 3, 't': 4}, 'A/B': {'y': 2}, 'C': {'x': 5}}, sizes\n",
    );
}

/// Groups whose arrays name dimensions of their own, of the root and of other groups.
const SUBGROUP_DIMENSIONS_CDL: &str = r#"netcdf g {
dimensions:
	t = 4 ;
variables:
	int r(t) ;
group: A {
  dimensions:
  	x = 3 ;
  variables:
  	int v(x) ;
  	int z(t) ;
  group: B {
    dimensions:
    	y = 2 ;
    variables:
    	int w(y) ;
    } // group B
  } // group A
group: C {
  dimensions:
  	x = 5 ;
  variables:
  	int u(x) ;
  } // group C
}
"#;

/// netCDF-C 4.10.0's `ncdump -h` of [`SUBGROUP_DIMENSIONS_CDL`] written as pure Zarr.
const SUBGROUP_DIMENSIONS_DUMP: &str = r#"netcdf g {
dimensions:
	t = 4 ;
variables:
	int r(t) ;

group: A {
  dimensions:
  	x = 3 ;
  	t = 4 ;
  variables:
  	int v(x) ;
  	int z(t) ;

  group: B {
    dimensions:
    	y = 2 ;
    variables:
    	int w(y) ;
    } // group B
  } // group A

group: C {
  dimensions:
  	x = 5 ;
  variables:
  	int u(x) ;
  } // group C
}
"#;

/// `run_interop`: a zip archive holding a store under a directory named after the
/// archive (netCDF-C's layout) whose root has no `.zgroup`, only arrays below it (xarray
/// wrote it), is read as netCDF-C reads it (before: "is not a Zarr store: it has no
/// .zgroup, .zmetadata or zarr.json").
#[test]
fn a_zipped_store_under_a_directory_without_a_root_group_document_is_read() {
    let dir = scratch();
    let written = made_by_python(
        dir.path(),
        "import zipfile, json\n\
         z = zipfile.ZipFile('power.zip', 'w')\n\
         z.writestr('power/', '')\n\
         for name in ['FROCEAN', 'FRLAND']:\n\
         \x20   z.writestr(f'power/{name}/.zarray', json.dumps({'zarr_format': 2, 'shape': [2], 'chunks': [2], 'dtype': '<f4', 'compressor': None, 'fill_value': None, 'filters': None, 'order': 'C'}))\n\
         \x20   z.writestr(f'power/{name}/.zattrs', json.dumps({'_ARRAY_DIMENSIONS': ['lon'], 'units': '1'}))\n\
         \x20   z.writestr(f'power/{name}/0', bytes(8))\n\
         z.close()\n",
    );
    if !written {
        return;
    }
    let url = format!(
        "file://{}#mode=xarray,zip",
        dir.path().join("power.zip").display()
    );
    let done = Test::ours("ncdump").args(["-h", &url]).run();
    ok("ncdump", &done);
    assert_eq!(
        done.stdout,
        "netcdf power {\ndimensions:\n\tlon = 2 ;\nvariables:\n\tfloat FRLAND(lon) ;\n\
         \t\tFRLAND:units = \"1\" ;\n\tfloat FROCEAN(lon) ;\n\t\tFROCEAN:units = \"1\" ;\n}\n"
    );
}

/// `tst_calendars_nc4`: `ncdump -t` reads `units` and `calendar` stored as `string`
/// attributes, as netCDF-C 4.10 does (before: the values were printed as numbers, as
/// 4.9.0 prints them). The dates are those of 4.10's `ref_times_nc4.cdl`.
#[test]
fn times_with_string_units_and_calendar_are_printed_as_dates() {
    let dir = scratch();
    let cdl = cdl_file(
        dir.path(),
        "t.cdl",
        "netcdf t {\ndimensions:\n\ttime = 1 ;\nvariables:\n\tdouble t2_days(time) ;\n\
         \t\tstring t2_days:units = \"days since 2000-6-15 12:00\" ;\n\
         \tdouble t2_365_days(time) ;\n\t\tstring t2_365_days:calendar = \"365_day\" ;\n\
         \t\tstring t2_365_days:units = \"days since 2000-06-15 12:00:00\" ;\n\
         data:\n t2_days = 3121.5 ;\n t2_365_days = 3119.5 ;\n}\n",
    );
    let nc = dir.path().join("t.nc");
    let done = Test::ours("ncgen")
        .args(["-b", "-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&cdl)
        .run();
    ok("ncgen", &done);
    let done = Test::ours("ncdump")
        .args(["-t", "-v", "t2_days,t2_365_days"])
        .arg(&nc)
        .run();
    ok("ncdump", &done);
    assert!(
        done.stdout.contains(" t2_days = \"2009-01-01\" ;\n")
            && done.stdout.contains(" t2_365_days = \"2009-01-01\" ;\n"),
        "{}",
        done.stdout
    );
}

/// `tst_fixedstring`: HDF5 fixed-length strings (as h5py writes `S4` data) are read right
/// whatever libnetcdf's version (before, through Debian's libnetcdf 4.9.0: `vn = "abcdefgh
/// ijklmnop", NIL, NIL, NIL` and a scalar with bytes from elsewhere in memory, changing
/// from run to run). nccopy copies the same values. A declared width of a gigabyte, with
/// nothing written, is refused before it is allocated.
#[test]
fn hdf5_fixed_length_strings_are_read_right() {
    let dir = scratch();
    let written = made_by_python(
        dir.path(),
        "import h5py, numpy as np\n\
         with h5py.File('fixed.h5', 'w') as f:\n\
         \x20   f.create_dataset('v1', data=np.bytes_('abcd'), dtype='S4')\n\
         \x20   f.create_dataset('vn', data=np.array([b'abcd', b'efgh', b'ij', b''], dtype='S4'))\n\
         \x20   f.create_dataset('grid', data=np.array([[b'a', b'bb'], [b'ccc', b'dddd']], dtype='S4'))\n\
         with h5py.File('wide.h5', 'w') as f:\n\
         \x20   f.create_dataset('w', shape=(4,), dtype='S1000000000')\n",
    );
    if !written {
        return;
    }
    let fixed = dir.path().join("fixed.h5");
    let expected =
        "data:\n\n grid =\n  \"a\", \"bb\",\n  \"ccc\", \"dddd\" ;\n\n v1 = \"abcd\" ;\n\n \
                    vn = \"abcd\", \"efgh\", \"ij\", _ ;\n}\n";
    for _ in 0..3 {
        let done = Test::ours("ncdump").arg(&fixed).run();
        ok("ncdump", &done);
        assert!(done.stdout.ends_with(expected), "{}", done.stdout);
    }
    let copy = dir.path().join("copy.nc");
    let done = Test::ours("nccopy").arg(&fixed).arg(&copy).run();
    ok("nccopy", &done);
    let done = Test::ours("ncdump").arg(&copy).run();
    assert!(done.stdout.ends_with(expected), "{}", done.stdout);

    let bounded = crate::bounded::run_ours("ncdump", [dir.path().join("wide.h5")]);
    let run = bounded.assert_within(300, 60);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    // Refused before HDF5 reads anything (s32: its type is larger than a chunk may be).
    assert!(
        run.stderr.contains("values of 1000000000 bytes each"),
        "{}",
        run.stderr
    );
}

/// netCDF-C 4.9.0 opens an NCZarr store of ours holding char variables (before: the
/// `<U1` array's `fill_value` was the number 0, and the reference ncdump failed with
/// "NetCDF: internal library error"); char fills are their text, `""` for NUL, as
/// netCDF-C writes them, and both ncdumps print the same.
#[test]
fn the_reference_reads_our_nczarr_char_variables() {
    let dir = scratch();
    let cdl = cdl_file(
        dir.path(),
        "c.cdl",
        "netcdf c {\ndimensions:\n\td = 2 ;\n\tn = 3 ;\nvariables:\n\tchar c(d, n) ;\n\
         \t\tc:units = \"m\" ;\n\tchar x(n) ;\n\t\tx:_FillValue = \"x\" ;\n\tfloat f(d) ;\n\
         data:\n c = \"ab\", \"cde\" ;\n x = \"a\" ;\n f = 1, 2 ;\n}\n",
    );
    let store = dir.path().join("c.zarr");
    let url = format!("file://{}#mode=nczarr,file", store.display());
    let done = Test::ours("ncgen").args(["-o", &url]).arg(&cdl).run();
    ok("ncgen", &done);
    let zarray = json_document(&store.join("c/.zarray"));
    assert_eq!(zarray["fill_value"], "");
    let ncdump = reference("ncdump").unwrap_or_else(|| panic!("reference ncdump is missing"));
    let theirs = run(Command::new(ncdump).arg(&url));
    ok("reference ncdump", &theirs);
    let ours = Test::ours("ncdump").arg(&url).run();
    ok("ncdump", &ours);
    assert_eq!(ours.stdout, theirs.stdout);
    assert!(
        theirs.stdout.contains(" x = \"axx\" ;"),
        "{}",
        theirs.stdout
    );
}

/// netCDF-C 4.9.0 reads an NCZarr store of ours with an unlimited dimension, before and
/// after an append, seeing the dimension as fixed at its current length (before: its
/// ncdump died with SIGSEGV on netCDF-C 4.10's `{"size": N, "unlimited": 1}`, the only
/// form written). The group holds `dims` as plain lengths, which 4.9.0 reads, and
/// `dimensions` in the later form, which nctools reads first. 4.9.0 takes a chunk longer
/// than a fixed dimension as an error: with the default chunks (1,024 records) it refuses
/// such a store cleanly, without a crash.
#[test]
fn the_reference_reads_our_nczarr_unlimited_dimensions_as_fixed_ones() {
    let dir = scratch();
    let day = |name: &str, first: u32, chunks: [&str; 2]| {
        let text = format!(
            "netcdf {name} {{\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 2 ;\nvariables:\n\
             \tdouble time(time) ;\n{}\tfloat v(time, x) ;\n{}data:\n time = {first}, {} ;\n\
             v = 1, 2, 3, 4 ;\n}}\n",
            chunks[0],
            chunks[1],
            first + 1
        );
        cdl_file(dir.path(), &format!("{name}.cdl"), &text)
    };
    let two = [
        "\t\ttime:_ChunkSizes = 2 ;\n",
        "\t\tv:_ChunkSizes = 2, 2 ;\n",
    ];
    let store = dir.path().join("u.zarr");
    let url = format!("file://{}#mode=nczarr,file", store.display());
    ok(
        "ncgen",
        Test::ours("ncgen")
            .args(["-o", &url])
            .arg(day("day0", 0, two))
            .run(),
    );
    let day1 = dir.path().join("day1.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&day1)
        .arg(day("day1", 2, two))
        .run();
    ok("ncgen", &made);
    let ncdump = reference("ncdump").unwrap_or_else(|| panic!("reference ncdump is missing"));
    for (records, append) in [(2, false), (4, true)] {
        if append {
            let done = Test::ours("nccopy")
                .args(["--append", "time"])
                .arg(&day1)
                .arg(&url)
                .run();
            ok("nccopy --append", &done);
        }
        let zgroup = json_document(&store.join(".zgroup"));
        let group = &zgroup["_NCZARR_GROUP"];
        assert_eq!(group["dims"]["time"], records, "{zgroup}");
        assert_eq!(group["dimensions"]["time"]["size"], records, "{zgroup}");
        assert_eq!(group["dimensions"]["time"]["unlimited"], 1, "{zgroup}");
        assert_eq!(group["dimensions"]["x"]["unlimited"], 0, "{zgroup}");
        let theirs = run(Command::new(&ncdump).arg(&url));
        ok("reference ncdump", &theirs);
        let ours = Test::ours("ncdump").arg(&url).run();
        ok("ncdump", &ours);
        let unlimited = format!("time = UNLIMITED ; // ({records} currently)");
        assert!(ours.stdout.contains(&unlimited), "{}", ours.stdout);
        let fixed = ours
            .stdout
            .replace(&unlimited, &format!("time = {records} ;"));
        assert_eq!(
            theirs.stdout,
            fixed,
            "{}",
            first_difference(&fixed, &theirs.stdout)
        );
    }
    // The default chunks: 1,024 records, more than 4.9.0's fixed dimension holds.
    let default = dir.path().join("d.zarr");
    let default_url = format!("file://{}#mode=nczarr,file", default.display());
    ok(
        "ncgen",
        Test::ours("ncgen")
            .args(["-o", &default_url])
            .arg(day("d", 0, ["", ""]))
            .run(),
    );
    let theirs = run(Command::new(&ncdump).arg(&default_url));
    assert_eq!(
        (theirs.code, theirs.signal),
        (Some(1), None),
        "{}",
        theirs.stderr
    );
    assert!(theirs.stderr.contains("NCZarr error"), "{}", theirs.stderr);
}

/// NCZarr char variables copy to netCDF-4, from our stores and from the reference's
/// (before: "defining variable /c: NetCDF: Invalid argument": a `<U1` array's byte order
/// was passed to libnetcdf, which refuses one for char; then a NUL `_FillValue` written
/// as `""` by netCDF-C was an empty fill). Char attributes lose their trailing NULs in
/// Zarr, as netCDF-C and kerchunk write them (before: `"degrees_north\u0000"`, which
/// xarray shows with the NUL and netCDF-C 4.9.0 as `u0000`).
#[test]
fn nczarr_char_variables_copy_to_netcdf4_and_char_attributes_lose_trailing_nuls() {
    let dir = scratch();
    let cdl = cdl_file(
        dir.path(),
        "q.cdl",
        "netcdf q {\ndimensions:\n\td = 2 ;\nvariables:\n\tchar c(d) ;\n\t\tc:_FillValue = \"x\" ;\n\
         \tchar e(d) ;\n\t\te:_FillValue = \"\\000\" ;\n\tfloat lat(d) ;\n\
         \t\tlat:units = \"degrees_north\\000\\000\" ;\ndata:\n c = \"a\" ;\n lat = 1, 2 ;\n}\n",
    );
    let ncgen = reference("ncgen").unwrap_or_else(|| panic!("reference ncgen is missing"));
    let theirs = dir.path().join("theirs.zarr");
    let theirs_url = format!("file://{}#mode=nczarr,file", theirs.display());
    let made = run(Command::new(&ncgen).args(["-o", &theirs_url]).arg(&cdl));
    ok("reference ncgen", &made);
    let ours = dir.path().join("ours.zarr");
    let ours_url = format!("file://{}#mode=nczarr,file", ours.display());
    let made = Test::ours("ncgen").args(["-o", &ours_url]).arg(&cdl).run();
    ok("ncgen", &made);
    let zattrs = fs::read_to_string(ours.join("lat/.zattrs")).unwrap_or_else(|e| panic!("{e}"));
    assert!(zattrs.contains(r#""units": "degrees_north","#), "{zattrs}");
    for (name, url) in [("ours", &ours_url), ("theirs", &theirs_url)] {
        let copy = dir.path().join(format!("{name}.nc"));
        let done = Test::ours("nccopy").arg(url).arg(&copy).run();
        assert_eq!(done.code, Some(0), "nccopy {name}: {}", done.stderr);
        let dump = reference_dump(&copy);
        assert!(
            dump.contains("\t\tc:_FillValue = \"x\" ;\n")
                && dump.contains(" c = \"ax\" ;\n")
                && dump.contains("\t\tlat:units = \"degrees_north\" ;\n"),
            "{name}: {dump}"
        );
    }
}
