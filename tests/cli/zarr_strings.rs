//! netCDF strings in Zarr stores, against zarr-python and as netCDF-C 4.9.1+ reads them:
//!
//! - our ncgen's NCZarr store of strings dumps as netCDF-C 4.9.3's own test baseline
//!   (`nczarr_test/ref_string_nczarr.baseline`: `|S<maxstrlen>`, the value cut to
//!   `_nczarr_maxstrlen`, string attributes typed `|S<n>`);
//! - zarr-python reads the string arrays of our pure Zarr v2 (`|S<n>`), v3
//!   (`null_terminated_bytes`) and NCZarr stores as the strings written, cut to the
//!   maximum length (pure Zarr is fixed-width here because the CDL sets a width; without
//!   one it is `vlen-utf8`, see zarr_string_bounds.rs);
//! - our ncdump reads zarr-python's strings: v2 object arrays (`vlen-utf8`, compressed),
//!   `<U3` and `|S4`, v3 `string` and `|S5`.
//!
//! Python runs from the project's .venv, as in zarr_interop.rs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use std::ffi::OsStr;

use crate::support::{from_line, ok, reference, run, run_reference, scratch, zarr_python, Test};

/// The Python side: `read STORE NAME...` prints {NAME: {dtype, data}, "attrs": {...}},
/// byte strings decoded as UTF-8 (`read-documents` the same without the consolidated
/// metadata); `write DIR` writes DIR/w2.zarr and DIR/w3.zarr.
const PY: &str = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np, numcodecs, zarr

def text(x):
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)

if sys.argv[1] in ("read", "read-documents"):
    g = zarr.open_group(sys.argv[2], mode="r", use_consolidated=sys.argv[1] == "read")
    out = {n: {"dtype": str(g[n].dtype), "data": [text(x) for x in np.asarray(g[n][...]).ravel().tolist()]}
           for n in sys.argv[3:]}
    out["attrs"] = dict(g.attrs)
    print(json.dumps(out))
else:
    d = sys.argv[2]
    g = zarr.open_group(d + "/w2.zarr", mode="w", zarr_format=2)
    o = g.create_array("o", shape=(3,), chunks=(2,), dtype=str, compressors=numcodecs.Zstd(level=3))
    o[:] = np.array(["x", "h\u00e9llo", ""], dtype=object)
    u = g.create_array("u", shape=(3,), dtype="<U3", compressors=numcodecs.Zlib(level=1))
    u[:] = np.array(["ab", "c\u00e9d", ""])
    s = g.create_array("s", shape=(3,), dtype="|S4", compressors=None)
    s[:] = np.array([b"ab", b"cdef", b""])
    for a in (o, u, s):
        a.attrs["_ARRAY_DIMENSIONS"] = ["n"]
    g = zarr.open_group(d + "/w3.zarr", mode="w", zarr_format=3)
    o = g.create_array("o", shape=(3,), chunks=(2,), dtype=str, dimension_names=["n"])
    o[:] = np.array(["x", "h\u00e9llo", ""], dtype=object)
    s = g.create_array("s", shape=(3,), dtype="|S5", dimension_names=["n"])
    s[:] = np.array([b"ab", b"cdefg", b""])
"#;

fn py(python: &Path, args: &[&str]) -> String {
    let done = run(Command::new(python).arg("-c").arg(PY).args(args));
    assert_eq!(
        done.code,
        Some(0),
        "python {args:?} failed:\n{}",
        done.stderr
    );
    done.stdout
}

/// Strings of several lengths (maximum 6 by default, filtered), a scalar cut to 4, a
/// fill value, and a char variable beside them.
const CDL: &str = r#"netcdf s {
dimensions:
	x = 2 ;
	y = 3 ;
variables:
	string grid(x, y) ;
		string grid:comment = "strings" ;
		grid:_Filter = "307,9" ;
		grid:_Shuffle = "true" ;
	string truncated ;
		truncated:_nczarr_maxstrlen = 4 ;
	string filled(x) ;
		string filled:_FillValue = "N/A" ;
	char c(y) ;

// global attributes:
		string :names = "abc", "déf" ;
		:_nczarr_default_maxstrlen = 6 ;
data:

 grid =
  "", "abc", "héllo",
  "é日本", "0123456", "x" ;

 truncated = "0123456789" ;

 filled = "set", _ ;

 c = "xyz" ;
}
"#;

/// What zarr-python reads of `grid`, `truncated` and `filled` (cut to 6 and 4 bytes,
/// "é日本" at the end of its last whole character), and of the char variable `c`.
fn expected_strings() -> Value {
    json!({
        "grid": ["", "abc", "h\u{e9}llo", "\u{e9}\u{65e5}", "012345", "x"],
        "truncated": ["0123"],
        "filled": ["set", "N/A"],
        "c": ["x", "y", "z"],
    })
}

/// Our ncgen's stores of [`CDL`] in DIR: NCZarr, pure Zarr v2, Zarr v3.
fn our_stores(dir: &Path) -> [PathBuf; 3] {
    let cdl = dir.join("s.cdl");
    fs::write(&cdl, CDL).unwrap_or_else(|e| panic!("{e}"));
    let stores = ["nczarr", "v2", "v3"].map(|k| dir.join(k).join("s.zarr"));
    for (store, mode) in stores.iter().zip(["nczarr,file", "zarr,file", "zarr,v3"]) {
        let parent = store.parent().unwrap_or(dir);
        fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        let url = format!("file://{}#mode={mode}", store.display());
        ok(
            &format!("our ncgen to {mode}"),
            Test::ours("ncgen").arg("-o").arg(&url).arg(&cdl).run(),
        );
    }
    stores
}

#[test]
fn nczarr_strings_dump_as_netcdf_c_4_9_3_reads_them() {
    let dir = scratch();
    let [nczarr, _, _] = our_stores(dir.path());
    let dump = ok("our ncdump", Test::ours("ncdump").arg(&nczarr).run());
    let expected = "netcdf s {
dimensions:
	x = 2 ;
	y = 3 ;
variables:
	string grid(x, y) ;
		string grid:comment = \"strings\" ;
	string truncated ;
		truncated:_nczarr_maxstrlen = 4 ;
	string filled(x) ;
		string filled:_FillValue = \"N/A\" ;
	char c(y) ;

// global attributes:
		string :names = \"abc\", \"déf\" ;
		:_nczarr_default_maxstrlen = 6 ;
data:

 grid =
  _, \"abc\", \"héllo\",
  \"é日\", \"012345\", \"x\" ;

 truncated = \"0123\" ;

 filled = \"set\", _ ;

 c = \"xyz\" ;
}
";
    assert_eq!(dump, expected);
    let zarray = |name: &str| -> Value {
        let text = fs::read_to_string(nczarr.join(name).join(".zarray"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert_eq!(zarray("grid")["dtype"], "|S6");
    // Strings are fixed-length in Zarr, so their filters apply (shuffle by the width).
    assert_eq!(
        (&zarray("grid")["filters"], &zarray("grid")["compressor"]),
        (
            &json!([{"id": "shuffle", "elementsize": 6}]),
            &json!({"id": "bz2", "level": 9})
        )
    );
    assert_eq!(zarray("truncated")["dtype"], "|S4");
    assert_eq!(zarray("filled")["fill_value"], "N/A");
}

#[test]
fn zarr_python_reads_our_strings() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let [nczarr, v2, v3] = our_stores(dir.path());
    for (store, dtype, names) in [
        // Char is |S1 in pure Zarr v2, its fill value base64 as zarr-python needs.
        (&v2, "|S", &["grid", "truncated", "filled", "c"][..]),
        (&v3, "|S", &["grid", "truncated", "filled"][..]),
        // netCDF-C's fill value of strings is the string, not base64: zarr-python reads
        // NCZarr string arrays whose fill value is empty. It parses every array of the
        // consolidated metadata as it opens the group, and fails on the others: the
        // arrays are opened from their own documents.
        (&nczarr, "|S", &["grid", "truncated"][..]),
    ] {
        let read = if store == &nczarr {
            let whole = run(Command::new(&python).arg("-c").arg(PY).args([
                "read",
                store.to_str().unwrap_or_default(),
                "grid",
            ]));
            assert_ne!(
                whole.code,
                Some(0),
                "zarr-python read {store:?} consolidated"
            );
            "read-documents"
        } else {
            "read"
        };
        let mut args = vec![read, store.to_str().unwrap_or_default()];
        args.extend(names);
        let got: Value = serde_json::from_str(&py(&python, &args))
            .unwrap_or_else(|e| panic!("{}: {e}", store.display()));
        let want = expected_strings();
        for name in names {
            assert_eq!(got[name]["data"], want[name], "{}: {name}", store.display());
            let t = got[name]["dtype"].as_str().unwrap_or_default();
            assert!(t.starts_with(dtype), "{}: {name} is {t}", store.display());
        }
        assert_eq!(
            got["attrs"]["names"],
            json!(["abc", "d\u{e9}f"]),
            "{}",
            store.display()
        );
    }
}

#[test]
fn our_ncdump_reads_zarr_python_strings() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    py(&python, &["write", dir.path().to_str().unwrap_or_default()]);
    let dump = |name: &str| {
        let store = dir.path().join(name);
        from_line(&ok(name, Test::ours("ncdump").arg(&store).run()), "data:").to_string()
    };
    assert_eq!(
        dump("w2.zarr"),
        "data:\n\n o = \"x\", \"héllo\", _ ;\n\n s = \"ab\", \"cdef\", _ ;\n\n u = \"ab\", \"céd\", _ ;\n}\n"
    );
    assert_eq!(
        dump("w3.zarr"),
        "data:\n\n o = \"x\", \"héllo\", _ ;\n\n s = \"ab\", \"cdefg\", _ ;\n}\n"
    );
}

/// Strings longer than their variable's maximum are cut (as netCDF-C does), but never
/// silently: ncgen and nccopy name each variable, its maximum and how many were cut.
#[test]
fn cut_strings_are_reported() {
    let dir = scratch();
    let cdl = dir.path().join("s.cdl");
    fs::write(&cdl, CDL).unwrap_or_else(|e| panic!("{e}"));
    let store = dir.path().join("g.zarr");
    let url = format!("file://{}#mode=nczarr,file", store.display());
    let generated = Test::ours("ncgen").arg("-o").arg(&url).arg(&cdl).run();
    ok("generated", &generated);
    insta::assert_snapshot!("cut_strings_ncgen", generated.stderr);

    let nc = dir.path().join("s.nc");
    ok(
        "our ncgen to netCDF-4",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&nc)
            .arg(&cdl)
            .run(),
    );
    let copied = Test::ours("nccopy")
        .arg(&nc)
        .arg(dir.path().join("c.zarr"))
        .run();
    ok("copied", &copied);
    insta::assert_snapshot!("cut_strings_nccopy", copied.stderr);

    // A netCDF-4 output holds strings of any length: nothing is cut, nothing is said.
    let whole = Test::ours("nccopy")
        .arg(&nc)
        .arg(dir.path().join("c.nc"))
        .run();
    assert_eq!((whole.code, whole.stderr.as_str()), (Some(0), ""));
}

/// Strings longer than the default width (HDF-EOS5's metadata strings run to thousands
/// of bytes) are kept whole by nccopy and ncgen when no width is set: the store's width
/// grows to the longest value (chunks written before are written again at it).
#[test]
fn string_widths_grow_to_the_data_when_none_is_set() {
    let dir = scratch();
    let long = "L".repeat(5917);
    let cdl = format!(
        "netcdf m {{\ndimensions:\n\tn = 2 ;\nvariables:\n\tstring meta(n) ;\n\tstring one ;\ndata:\n\n meta = \"short\", \"{long}\" ;\n\n one = \"{long}x\" ;\n}}\n"
    );
    let cdl_path = dir.path().join("m.cdl");
    fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.path().join("m.nc");
    ok(
        "our ncgen to netCDF-4",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&nc)
            .arg(&cdl_path)
            .run(),
    );
    let store = dir.path().join("m.zarr");
    let copied = Test::ours("nccopy").arg(&nc).arg(&store).run();
    assert_eq!((copied.code, copied.stderr.as_str()), (Some(0), ""));
    let dumped = ok("our ncdump", Test::ours("ncdump").arg(&store).run());
    let original = ok("our ncdump", Test::ours("ncdump").arg(&nc).run());
    assert_eq!(from_line(&dumped, "data:"), from_line(&original, "data:"));
    assert!(dumped.contains(&format!("\"{long}x\"")));
    assert!(
        dumped.contains("\t\tmeta:_nczarr_maxstrlen = 5917 ;"),
        "{dumped}"
    );
    assert!(
        dumped.contains("\t\tone:_nczarr_maxstrlen = 5918 ;"),
        "{dumped}"
    );
    // ncgen straight to Zarr, version 2 and 3.
    for (name, mode) in [
        ("g2.zarr", "#mode=nczarr,file"),
        ("g3.zarr", "#mode=zarr,v3"),
    ] {
        let target = format!("file://{}{mode}", dir.path().join(name).display());
        let generated = Test::ours("ncgen")
            .args(["-o", &target])
            .arg(&cdl_path)
            .run();
        assert_eq!((generated.code, generated.stderr.as_str()), (Some(0), ""));
        let dumped = ok(
            "our ncdump",
            Test::ours("ncdump").arg(dir.path().join(name)).run(),
        );
        assert_eq!(
            from_line(&dumped, "data:"),
            from_line(&original, "data:"),
            "{name}"
        );
    }
}

/// A Zarr store keeps strings fixed-length, so `-F` and `-s` apply to string variables
/// there; a netCDF-4 file keeps them variable-length, so the filters are suppressed with
/// a warning (as netCDF-C does).
#[test]
fn filters_apply_to_strings_in_zarr_only() {
    let dir = scratch();
    let cdl = dir.path().join("s.cdl");
    fs::write(
        &cdl,
        CDL.replace(
            "\t\tgrid:_Filter = \"307,9\" ;\n\t\tgrid:_Shuffle = \"true\" ;\n",
            "",
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.path().join("s.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&cdl)
        .run();
    assert_eq!((made.code, made.stderr.as_str()), (Some(0), ""));
    let options = ["-s", "-F", "grid,32015,5"];
    let store = dir.path().join("c.zarr");
    let copied = Test::ours("nccopy")
        .args(options)
        .arg(&nc)
        .arg(&store)
        .run();
    ok("copied", &copied);
    assert!(!copied.stderr.contains("suppressed"), "{}", copied.stderr);
    let header = ok(
        "our ncdump -hs",
        Test::ours("ncdump").arg("-hs").arg(&store).run(),
    );
    let codecs = "grid:_Codecs = \"[{\\\"id\\\": \\\"shuffle\\\", \\\"elementsize\\\": 6},{\\\"id\\\": \\\"zstd\\\", \\\"level\\\": 5}]\" ;";
    assert!(header.contains(codecs), "{header}");
    let data = |path: &Path| {
        let dump = ok("our ncdump", Test::ours("ncdump").arg(path).run());
        from_line(&dump, "data:").to_string()
    };
    // The same values as an unfiltered copy (cut to their maximum alike).
    let plain = dir.path().join("plain.zarr");
    ok(
        "our nccopy unfiltered",
        Test::ours("nccopy").arg(&nc).arg(&plain).run(),
    );
    assert_eq!(data(&store), data(&plain));

    let copied = Test::ours("nccopy")
        .args(options)
        .arg(&nc)
        .arg(dir.path().join("c.nc"))
        .run();
    ok("copied", &copied);
    assert_eq!(
        copied.stderr,
        "nccopy: warning: variable /grid: filters are not applied to variable-length types \
         (2|32015,5 suppressed)\nnccopy: warning: variable /filled: filters are not \
         applied to variable-length types (2 suppressed)\n"
    );
}

/// Char attributes whose bytes are not UTF-8 (Latin-1 text from older files, made here by
/// the reference ncgen): NCZarr keeps every byte (the text is written as Latin-1, and
/// `_nczarr_attr` names the attributes so that reading gives the bytes back); a pure Zarr
/// store holds the same text, readable by zarr-python, with a warning that the bytes
/// cannot be marked there. UTF-8 attributes beside them are untouched.
#[test]
fn char_attributes_keep_every_byte() {
    let Some(_) = reference("ncgen") else { return };
    let dir = scratch();
    let cdl = dir.path().join("l.cdl");
    let text: &[u8] = b"netcdf l {\ndimensions:\n\tx = 2 ;\nvariables:\n\tfloat t(x) ;\n\t\tt:units = \"deg\xb0C\" ;\n\t\tt:ok = \"caf\xc3\xa9\" ;\n\n// global attributes:\n\t\t:title = \"\xe9t\xe9\" ;\ndata:\n t = 1, 2 ;\n}\n";
    fs::write(&cdl, text).unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.path().join("l.nc");
    let made = run_reference(
        "ncgen",
        [
            OsStr::new("-k"),
            OsStr::new("nc4"),
            OsStr::new("-o"),
            nc.as_os_str(),
            cdl.as_os_str(),
        ],
    );
    ok("reference ncgen", &made);
    let original = run_reference("ncdump", [&nc]);

    // NCZarr: valid JSON, the Latin-1 text, the marks; back to netCDF-4 byte for byte.
    let store = dir.path().join("n.zarr");
    let target = format!("file://{}#mode=nczarr,file", store.display());
    let copied = Test::ours("nccopy").arg(&nc).arg(&target).run();
    assert_eq!((copied.code, copied.stderr.as_str()), (Some(0), ""));
    let zattrs: Value =
        serde_json::from_slice(&fs::read(store.join("t/.zattrs")).unwrap_or_default())
            .unwrap_or_else(|e| panic!("t/.zattrs is not JSON: {e}"));
    assert_eq!(zattrs["units"], "deg\u{b0}C");
    assert_eq!(zattrs["ok"], "caf\u{e9}");
    assert_eq!(zattrs["_NCZARR_ATTR"]["nctools_latin1"], json!(["units"]));
    let back = dir.path().join("back.nc");
    let copied = Test::ours("nccopy").arg(&target).arg(&back).run();
    assert_eq!((copied.code, copied.stderr.as_str()), (Some(0), ""));
    let round_trip = run_reference("ncdump", [&back]);
    assert_eq!(
        round_trip.stdout.replacen("netcdf back {", "netcdf l {", 1),
        original.stdout
    );
    let ours = Test::ours("ncdump").arg(&nc).run();
    let from_store = Test::ours("ncdump").arg(&store).run();
    // (Run's text is lossy, so a byte 0xB0 shows as U+FFFD on both sides; the UTF-8 of
    // "°" would not.)
    assert_eq!(
        from_line(&from_store.stdout, "dimensions:"),
        from_line(&ours.stdout, "dimensions:")
    );

    // netCDF-C writes the bytes themselves into `.zattrs` (not UTF-8, so not strictly
    // JSON): its store reads, and copies back to the original bytes.
    let theirs = dir.path().join("ref.zarr");
    let theirs_url = format!("file://{}#mode=nczarr,file", theirs.display());
    let made = run_reference("nccopy", [nc.as_os_str(), OsStr::new(&theirs_url)]);
    ok("reference nccopy", &made);
    let zattrs = fs::read(theirs.join("t/.zattrs")).unwrap_or_default();
    assert!(
        std::str::from_utf8(&zattrs).is_err(),
        "netCDF-C now writes UTF-8"
    );
    let from_theirs = Test::ours("ncdump").arg(&theirs).run();
    ok("from_theirs", &from_theirs);
    assert_eq!(
        from_line(&from_theirs.stdout, "dimensions:"),
        from_line(&ours.stdout, "dimensions:")
    );
    let back = dir.path().join("back-theirs.nc");
    let copied = Test::ours("nccopy").arg(&theirs).arg(&back).run();
    assert_eq!((copied.code, copied.stderr.as_str()), (Some(0), ""));
    assert_eq!(
        run_reference("ncdump", [&back])
            .stdout
            .replacen("netcdf back-theirs {", "netcdf l {", 1),
        original.stdout
    );

    // Pure Zarr: the same text, a warning per attribute, and zarr-python reads it.
    let pure = dir.path().join("p.zarr");
    let pure_target = format!("file://{}#mode=zarr,file", pure.display());
    let copied = Test::ours("nccopy").arg(&nc).arg(&pure_target).run();
    ok("copied", &copied);
    let warnings: Vec<&str> = copied.stderr.lines().collect();
    assert_eq!(warnings.len(), 2, "{}", copied.stderr);
    assert!(
        warnings.iter().any(|w| w.contains("/t:units is not UTF-8")),
        "{}",
        copied.stderr
    );
    assert!(
        warnings.iter().any(|w| w.contains("/:title is not UTF-8")),
        "{}",
        copied.stderr
    );
    let Some(python) = zarr_python() else { return };
    let read: Value = serde_json::from_str(&py(&python, &["read", &pure.display().to_string()]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read["attrs"]["title"], "\u{e9}t\u{e9}");
}

#[test]
fn zarr_python_opens_a_version_3_store_with_a_char_variable() {
    let Some(python) = zarr_python() else { return };
    let dir = scratch();
    let cdl = dir.path().join("c.cdl");
    fs::write(
        &cdl,
        "netcdf c {\ndimensions:\n n = 2 ;\n len = 4 ;\nvariables:\n char name(n, len) ;\n \
         int v(n) ;\ndata:\n name = \"abcd\", \"ef\" ;\n v = 1, 2 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("writing the CDL: {e}"));
    let nc = dir.path().join("c.nc");
    ok(
        "ncgen",
        Test::ours("ncgen")
            .arg("-4")
            .arg("-o")
            .arg(&nc)
            .arg(&cdl)
            .run(),
    );
    let store = dir.path().join("c.zarr");
    let url = format!("file://{}#mode=zarr,v3", store.display());
    ok("nccopy", Test::ours("nccopy").arg(&nc).arg(&url).run());
    // Char is stored as uint8, its fill value a number (a string is not a uint8).
    let script = "import sys, zarr\n\
                  g = zarr.open_group(sys.argv[1], mode='r')\n\
                  a = g['name']\n\
                  print(a.dtype, a.fill_value, a[...].tobytes())";
    let read = run(Command::new(&python).args(["-c", script]).arg(&store));
    ok("zarr-python", &read);
    assert_eq!(read.stdout.trim(), "uint8 0 b'abcdef\\x00\\x00'");
}

/// zarr-python's byte strings of variable length (v2: an object array of the `vlen-bytes`
/// codec; v3: the data type `variable_length_bytes`) read as netCDF strings, with their
/// bytes as stored (up to a NUL, as every netCDF string), and copy to netCDF-4; `ncdump -s`
/// shows the codec in `_Codecs` and warns of no codec (the vlen codecs frame values, they
/// are no filter).
/// Before: both were refused ("nctools reads object arrays of strings (codec
/// \"vlen-utf8\") only", "Zarr v3 data type \"variable_length_bytes\" is not supported"),
/// and `ncdump -s` of any zarr-python string array warned that "vlen-utf8" was a codec
/// whose data could not be read.
#[test]
fn zarr_python_byte_strings_of_any_length_read_as_strings() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let program = format!(
        "import warnings\nwarnings.simplefilter('ignore')\n\
         import numpy as np, zarr\n\
         values = np.array([b'a', b'caf\\xc3\\xa9', b'', b'x\\x00y'], dtype=object)\n\
         for fmt in (2, 3):\n    \
         g = zarr.open_group({dir:?} + f'/b{{fmt}}.zarr', mode='w', zarr_format=fmt)\n    \
         names = lambda n: {{'dimension_names': [n]}} if fmt == 3 else {{}}\n    \
         a = g.create_array('b', shape=(4,), chunks=(3,), \
         dtype=zarr.dtype.VariableLengthBytes(), **names('n'))\n    \
         a[:] = values\n    \
         s = g.create_array('s', shape=(2,), dtype=str, **names('m'))\n    \
         s[:] = np.array(['ab', 'c'], dtype=object)\n    \
         if fmt == 2:\n        \
         a.attrs['_ARRAY_DIMENSIONS'] = ['n']\n        \
         s.attrs['_ARRAY_DIMENSIONS'] = ['m']\n",
        dir = dir.path()
    );
    ok(
        "zarr-python",
        run(Command::new(&python).args(["-c", &program])),
    );
    for fmt in [2, 3] {
        let store = dir.path().join(format!("b{fmt}.zarr"));
        let dumped = ok("ncdump", Test::ours("ncdump").arg(&store).run());
        assert!(dumped.contains("\tstring b(n) ;"), "{dumped}");
        // The empty string is the fill value zarr-python writes ("").
        assert!(
            dumped.contains(" b = \"a\", \"café\", _, \"x\" ;"),
            "v{fmt}: {dumped}"
        );
        let specials = Test::ours("ncdump").args(["-s", "-h"]).arg(&store).run();
        let shown = ok("ncdump -s", &specials);
        assert!(
            shown.contains("{\\\"id\\\": \\\"vlen-bytes\\\"}"),
            "{shown}"
        );
        assert!(!specials.stderr.contains("warning"), "{}", specials.stderr);
        let copy = dir.path().join(format!("b{fmt}.nc"));
        ok("nccopy", Test::ours("nccopy").arg(&store).arg(&copy).run());
        let copied = ok("ncdump", Test::ours("ncdump").arg(&copy).run());
        assert_eq!(from_line(&copied, "data:"), from_line(&dumped, "data:"));
    }
}
