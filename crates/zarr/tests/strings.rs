//! netCDF strings through ZarrWriter and ZarrReader: NCZarr, pure Zarr v2 and v3 (the
//! fixed-length form of netCDF-C 4.9.1+, `|S<maxstrlen>`), and the string forms other
//! writers use (netCDF-C 4.9.0's pure `<U1` char, zarr-python's `<Un`, vlen-utf8).

mod common;

use std::path::Path;

use ncmodel::{
    AtomicType as A, Attribute, Dataset, Dim, Format, GlobalSpecials, Group, TypeRef, Values, Var,
};
use serde_json::Value;
use store::{StoreReader, StoreWriter, VarPath, ZarrFlavor, ZarrVersion};
use zarr::{StringTruncation, ZarrReader, ZarrWriter};

fn strings(list: &[&str]) -> Values {
    Values::String(list.iter().map(|s| Some(s.as_bytes().to_vec())).collect())
}

fn att(name: &str, values: Values) -> Attribute {
    let t = match values {
        Values::Int(_) => A::Int,
        Values::Char(_) => A::Char,
        _ => A::String,
    };
    Attribute {
        name: name.into(),
        type_ref: TypeRef::Atomic(t),
        values,
    }
}

fn var(id: i32, name: &str, t: A, dims: Vec<i32>, atts: Vec<Attribute>) -> Var {
    Var {
        id,
        name: name.into(),
        type_ref: TypeRef::Atomic(t),
        dim_ids: dims,
        atts,
        storage: None,
    }
}

/// What each variable of [`dataset`] holds after a round trip (`|S` maxstrlen 6 by
/// default), and what is written: (name, written, read back).
const VALUES: [(&str, &[&str], &[&str]); 5] = [
    // "é日本" is 8 bytes: cut to 6 at the end of its last whole character ("é日", 5).
    (
        "grid",
        &[
            "",
            "abc",
            "h\u{e9}llo",
            "\u{e9}\u{65e5}\u{672c}",
            "0123456",
            "x",
        ],
        &["", "abc", "h\u{e9}llo", "\u{e9}\u{65e5}", "012345", "x"],
    ),
    ("scalar", &["0123456789"], &["0123"]),
    ("wide", &[LONG, "\u{3bb}"], &[LONG, "\u{3bb}"]),
    ("one", &["a", "bc"], &["a", "b"]),
    // Only the first element is written: the second is the fill value.
    ("filled", &["set"], &["set", "N/A"]),
];

const LONG: &str = "The quick brown fox jumps over the lazy dog, \
    and then runs on and on, well past the one hundred and twenty-eight bytes that \
    netCDF-C gives a string when nothing says otherwise.";

fn dataset() -> Dataset {
    let dim = |id, name: &str, len| Dim {
        id,
        name: name.into(),
        len,
        unlimited: false,
    };
    let maxstrlen = |n| att("_nczarr_maxstrlen", Values::Int(vec![n]));
    let root = Group {
        ncid: 0,
        name: "/".into(),
        dims: vec![dim(0, "x", 2), dim(1, "y", 3)],
        vars: vec![
            var(
                0,
                "grid",
                A::String,
                vec![0, 1],
                vec![att("comment", strings(&["one string attribute"]))],
            ),
            var(1, "scalar", A::String, vec![], vec![maxstrlen(4)]),
            var(2, "wide", A::String, vec![0], vec![maxstrlen(200)]),
            var(3, "one", A::String, vec![0], vec![maxstrlen(1)]),
            var(
                4,
                "filled",
                A::String,
                vec![0],
                vec![att("_FillValue", strings(&["N/A"]))],
            ),
            var(5, "c", A::Char, vec![1], vec![]),
        ],
        atts: vec![
            att("_nczarr_default_maxstrlen", Values::Int(vec![6])),
            att("names", strings(&["abc", "d\u{e9}f", ""])),
            att("units", strings(&["days since 2000-01-01 00:00:00"])),
            att("title", Values::Char(b"chars stay chars".to_vec())),
        ],
        groups: vec![],
        ..Group::default()
    };
    Dataset {
        format: Format::Netcdf4,
        is_nczarr: false,
        specials: GlobalSpecials::default(),
        types: vec![],
        root,
    }
}

fn write(root: &Path, flavor: ZarrFlavor, version: ZarrVersion) -> Vec<StringTruncation> {
    let loc = common::location(root, flavor, version);
    let mut w = ZarrWriter::create(&loc, Format::Netcdf4, &store::NoRemoteStores)
        .unwrap_or_else(|e| panic!("{e}"));
    w.define(&dataset()).unwrap_or_else(|e| panic!("{e}"));
    for (name, written, _) in VALUES {
        let count = match name {
            "grid" => vec![2, 3],
            "scalar" => vec![],
            _ => vec![written.len()],
        };
        let start = vec![0; count.len()];
        w.write(&VarPath::in_root(name), &start, &count, &strings(written))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    w.write(
        &VarPath::in_root("c"),
        &[0],
        &[3],
        &Values::Char(b"xyz".to_vec()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let cut = w.truncated_strings();
    Box::new(w).finish().unwrap_or_else(|e| panic!("{e}"));
    cut
}

fn read(root: &Path, flavor: ZarrFlavor, version: ZarrVersion) -> (ZarrReader, Dataset) {
    common::open(root, flavor, version)
}

fn data(r: &ZarrReader, ds: &Dataset, name: &str) -> Values {
    let v = ds
        .root
        .vars
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"));
    let count: Vec<usize> = v
        .dim_ids
        .iter()
        .map(|d| ds.dim(*d).map_or(0, |d| d.len))
        .collect();
    r.read_slab(
        ds,
        &ds.var_path(ds.root.ncid, v)
            .unwrap_or_else(|| panic!("not a variable of the schema")),
        &vec![0; count.len()],
        &count,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn round_trip(
    flavor: ZarrFlavor,
    version: ZarrVersion,
) -> (ZarrReader, Dataset, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("s.zarr");
    let cut = write(&root, flavor, version);
    assert_eq!(
        cut.iter()
            .map(|t| (t.path.as_str(), t.maxstrlen, t.count))
            .collect::<Vec<_>>(),
        vec![("/grid", 6, 2), ("/one", 1, 1), ("/scalar", 4, 1)]
    );
    let (r, ds) = read(&root, flavor, version);
    for (name, _, expected) in VALUES {
        let v = ds.root.vars.iter().find(|v| v.name == name);
        let is_char = v.is_some_and(|v| v.type_ref == TypeRef::Atomic(A::Char));
        if name == "one" && is_char {
            // Pure Zarr v2: |S1 is char (nctools' own char form there).
            assert_eq!(data(&r, &ds, name), Values::Char(b"ab".to_vec()));
            continue;
        }
        assert_eq!(data(&r, &ds, name), strings(expected), "{name}");
        assert_eq!(v.map(|v| v.type_ref), Some(TypeRef::Atomic(A::String)));
    }
    (r, ds, dir)
}

fn root_att<'a>(ds: &'a Dataset, name: &str) -> &'a Attribute {
    ds.root
        .atts
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no attribute {name}"))
}

#[test]
fn nczarr_strings_are_fixed_length_as_netcdf_c_writes_them() {
    let (r, ds, dir) = round_trip(ZarrFlavor::NcZarr, ZarrVersion::V2);
    let root = dir.path().join("s.zarr");
    let dtype = |name: &str| json(&root.join(name).join(".zarray"))["dtype"].clone();
    assert_eq!(dtype("grid"), "|S6");
    assert_eq!(dtype("scalar"), "|S4");
    assert_eq!(dtype("wide"), "|S200");
    assert_eq!(dtype("one"), "|S1");
    assert_eq!(dtype("c"), "<U1");
    // netCDF-C's fill_value of strings is the string itself.
    assert_eq!(json(&root.join("filled/.zarray"))["fill_value"], "N/A");
    let chunk = std::fs::read(root.join("scalar/0")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(chunk, b"0123");
    // String attributes: typed |S<maxstrlen> (the variable's, or the default), whole.
    let zattrs = json(&root.join(".zattrs"));
    assert_eq!(zattrs["names"], serde_json::json!(["abc", "d\u{e9}f", ""]));
    assert_eq!(zattrs["units"], "days since 2000-01-01 00:00:00");
    assert_eq!(zattrs["_NCZARR_ATTR"]["types"]["units"], "|S6");
    assert_eq!(zattrs["_NCZARR_ATTR"]["types"]["title"], "<U1");
    let grid = json(&root.join("grid/.zattrs"));
    assert_eq!(grid["_NCZARR_ATTR"]["types"]["comment"], "|S6");
    // They read back as the strings written, one-valued ones too.
    assert_eq!(
        root_att(&ds, "names").values,
        strings(&["abc", "d\u{e9}f", ""])
    );
    let units = root_att(&ds, "units");
    assert_eq!(units.type_ref, TypeRef::Atomic(A::String));
    assert_eq!(units.values, strings(&["days since 2000-01-01 00:00:00"]));
    assert_eq!(
        root_att(&ds, "title").values,
        Values::Char(b"chars stay chars".to_vec())
    );
    assert_eq!(data(&r, &ds, "c"), Values::Char(b"xyz".to_vec()));
    let maxstrlen = &ds.root.vars[1].atts[0];
    assert_eq!(
        (maxstrlen.name.as_str(), &maxstrlen.values),
        ("_nczarr_maxstrlen", &Values::Int(vec![4]))
    );
}

#[test]
fn pure_zarr_v2_strings_are_numpy_byte_strings() {
    let (r, ds, dir) = round_trip(ZarrFlavor::Xarray, ZarrVersion::V2);
    let root = dir.path().join("s.zarr");
    let zarray = json(&root.join("filled/.zarray"));
    assert_eq!(zarray["dtype"], "|S6");
    // zarr-python's fill_value of byte strings is base64.
    assert_eq!(zarray["fill_value"], "Ti9B");
    assert_eq!(json(&root.join("grid/.zarray"))["fill_value"], "");
    // Untyped JSON: a string reads as char, and so does a list of strings, as its JSON
    // text (as netCDF-C 4.10 reads them).
    assert_eq!(
        root_att(&ds, "names").values,
        Values::Char("[\"abc\",\"d\u{e9}f\",\"\"]".as_bytes().to_vec())
    );
    let units = root_att(&ds, "units");
    assert_eq!(units.type_ref, TypeRef::Atomic(A::Char));
    assert_eq!(
        units.values,
        Values::Char(b"days since 2000-01-01 00:00:00".to_vec())
    );
    // |S1 is a string of at most one byte in pure Zarr, as netCDF-C 4.10 reads it: a
    // char variable reads back as strings of one character.
    assert_eq!(
        data(&r, &ds, "c"),
        Values::String(vec![
            Some(b"x".to_vec()),
            Some(b"y".to_vec()),
            Some(b"z".to_vec())
        ])
    );
    assert_eq!(ds.root.vars[3].type_ref, TypeRef::Atomic(A::String));
}

#[test]
fn zarr_v3_strings_are_null_terminated_bytes() {
    let (_r, ds, dir) = round_trip(ZarrFlavor::Xarray, ZarrVersion::V3);
    let root = dir.path().join("s.zarr");
    let meta = json(&root.join("grid/zarr.json"));
    assert_eq!(
        meta["data_type"],
        serde_json::json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 6}})
    );
    assert_eq!(meta["codecs"], serde_json::json!([{"name": "bytes"}]));
    assert_eq!(json(&root.join("filled/zarr.json"))["fill_value"], "Ti9B");
    assert_eq!(
        root_att(&ds, "names").values,
        Values::Char("[\"abc\",\"d\u{e9}f\",\"\"]".as_bytes().to_vec())
    );
}

#[test]
fn strings_with_codecs_round_trip() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("z.zarr");
    let mut ds = dataset();
    for v in &mut ds.root.vars {
        v.storage = Some(ncmodel::Storage {
            layout: ncmodel::Layout::Chunked(if v.dim_ids.len() == 2 {
                vec![1, 2]
            } else {
                vec![1]
            }),
            filters: vec![
                filterspec::FilterSpec::new(2, []),
                filterspec::FilterSpec::new(32015, [3]),
            ],
            endianness: ncmodel::Endianness::Native,
            no_fill: false,
            quantize: None,
            codecs: None,
        });
    }
    let loc = common::location(&root, ZarrFlavor::NcZarr, ZarrVersion::V2);
    let mut w = ZarrWriter::create(&loc, Format::Netcdf4, &store::NoRemoteStores)
        .unwrap_or_else(|e| panic!("{e}"));
    w.define(&ds).unwrap_or_else(|e| panic!("{e}"));
    let (name, written, expected) = VALUES[0];
    w.write(&VarPath::in_root(name), &[0, 0], &[2, 3], &strings(written))
        .unwrap_or_else(|e| panic!("{e}"));
    // A slab across chunks, written over part of what is there.
    w.write(
        &VarPath::in_root(name),
        &[1, 1],
        &[1, 2],
        &strings(&["p", "q"]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    Box::new(w).finish().unwrap_or_else(|e| panic!("{e}"));
    let zarray = json(&root.join("grid/.zarray"));
    assert_eq!(
        zarray["filters"][0],
        serde_json::json!({"id": "shuffle", "elementsize": 6})
    );
    let (r, ds) = read(&root, ZarrFlavor::NcZarr, ZarrVersion::V2);
    let mut want: Vec<&str> = expected.to_vec();
    want[4] = "p";
    want[5] = "q";
    assert_eq!(data(&r, &ds, name), strings(&want));
    // Never written: the fill value, "" (an empty string, as the default fill).
    assert_eq!(data(&r, &ds, "wide"), strings(&["", ""]));
}

/// Writes the files of a store: (path under the root, contents).
fn put(root: &Path, files: &[(&str, &[u8])]) {
    for (name, bytes) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{e}"));
    }
}

fn zarray(dtype: &str, fill: &str, filters: &str) -> Vec<u8> {
    format!(
        r#"{{"zarr_format": 2, "shape": [3], "chunks": [2], "dtype": "{dtype}", "fill_value": {fill}, "order": "C", "filters": {filters}, "compressor": null}}"#
    )
    .into_bytes()
}

/// zarr-python's `vlen-utf8` chunk of `list`.
fn vlen(list: &[&str]) -> Vec<u8> {
    let mut out = (list.len() as u32).to_le_bytes().to_vec();
    for s in list {
        out.extend((s.len() as u32).to_le_bytes());
        out.extend(s.as_bytes());
    }
    out
}

#[test]
fn foreign_string_forms_read_as_strings_or_chars() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("f.zarr");
    let vlen_filter = r#"[{"id": "vlen-utf8"}]"#;
    put(
        &root,
        &[
            (".zgroup", br#"{"zarr_format": 2}"#),
            ("o/.zarray", &zarray("|O", r#""-""#, vlen_filter)),
            ("o/0", &vlen(&["x", "h\u{e9}llo"])),
            // The second chunk was never written: the fill value.
            ("u1/.zarray", &zarray("<U1", r#""""#, "null")),
            ("u1/0", &[0x61, 0, 0, 0, 0xe9, 0, 0, 0]),
            ("u1/1", &[0x7a, 0, 0, 0, 0, 0, 0, 0]),
            ("s/.zarray", &zarray("|S3", r#""YWI=""#, "null")),
            ("s/0", b"abcde\0"),
        ],
    );
    let (r, ds) = read(&root, ZarrFlavor::Detect, ZarrVersion::V2);
    assert_eq!(data(&r, &ds, "o"), strings(&["x", "h\u{e9}llo", "-"]));
    assert_eq!(data(&r, &ds, "u1"), strings(&["a", "\u{e9}", "z"]));
    // zarr-python's base64 fill value of a byte string.
    assert_eq!(data(&r, &ds, "s"), strings(&["abc", "de", "ab"]));
    let o = &ds.root.vars[0];
    let codecs = o.storage.as_ref().and_then(|s| s.codecs.clone());
    assert_eq!(codecs.as_deref(), Some(r#"[{"id": "vlen-utf8"}]"#));

    // netCDF-C 4.9.0's pure Zarr: `<U1` is one byte per char (its root has
    // _NCProperties).
    let c409 = dir.path().join("c409.zarr");
    put(
        &c409,
        &[
            (".zgroup", br#"{"zarr_format": 2}"#),
            (
                ".zattrs",
                br#"{"_NCProperties": "version=2,netcdf=4.9.0,nczarr=2.0.0"}"#,
            ),
            ("c/.zarray", &zarray("<U1", "null", "null")),
            ("c/0", b"ab"),
            ("c/1", b"c\0"),
        ],
    );
    let (r, ds) = read(&c409, ZarrFlavor::Detect, ZarrVersion::V2);
    assert_eq!(data(&r, &ds, "c"), Values::Char(b"abc".to_vec()));
}

#[test]
fn zarr_python_v3_strings_read_as_strings() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("v3.zarr");
    let array = |data_type: &str, codecs: &str| {
        format!(
            r#"{{"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": {data_type},
            "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": [2]}}}},
            "chunk_key_encoding": {{"name": "default", "configuration": {{"separator": "/"}}}},
            "fill_value": "", "codecs": {codecs}, "attributes": {{}}}}"#
        )
        .into_bytes()
    };
    let utf32: Vec<u8> = ["x\0", "h\u{e9}"]
        .iter()
        .flat_map(|s| s.chars().flat_map(|c| u32::from(c).to_le_bytes()))
        .collect();
    put(
        &root,
        &[
            (
                "zarr.json",
                br#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#,
            ),
            (
                "b/zarr.json",
                &array(
                    r#"{"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}"#,
                    r#"[{"name": "bytes"}]"#,
                ),
            ),
            ("b/c/0", b"ab\0\0\0cdefg"),
            (
                "s/zarr.json",
                &array(
                    r#""string""#,
                    r#"[{"name": "vlen-utf8", "configuration": {}}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}]"#,
                ),
            ),
            (
                "u/zarr.json",
                &array(
                    r#"{"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}"#,
                    r#"[{"name": "bytes", "configuration": {"endian": "little"}}]"#,
                ),
            ),
            ("u/c/0", &utf32),
        ],
    );
    let chunk = codecs::numcodecs::encode_pipeline(
        &[filterspec::FilterSpec::new(32015, [0])],
        1,
        vlen(&["x", "h\u{e9}llo"]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    put(&root, &[("s/c/0", &chunk)]);
    let (r, ds) = read(&root, ZarrFlavor::Detect, ZarrVersion::V3);
    assert_eq!(data(&r, &ds, "b"), strings(&["ab", "cdefg"]));
    assert_eq!(data(&r, &ds, "s"), strings(&["x", "h\u{e9}llo"]));
    assert_eq!(data(&r, &ds, "u"), strings(&["x", "h\u{e9}"]));
}

#[test]
fn object_arrays_of_other_codecs_are_left_out_by_name() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("j.zarr");
    put(
        &root,
        &[
            (".zgroup", br#"{"zarr_format": 2}"#),
            (
                "meta/.zarray",
                &zarray("|O", "null", r#"[{"id": "json2"}]"#),
            ),
        ],
    );
    // The array is left out of the schema, named with its codec; the store still opens.
    let reader = ZarrReader::open(
        &common::location(&root, ZarrFlavor::Detect, ZarrVersion::V2),
        &store::NoRemoteStores,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let left_out = reader.left_out().join("; ");
    assert!(
        left_out.contains("meta") && left_out.contains("\"json2\""),
        "{left_out}"
    );
    let schema = reader.schema().unwrap_or_else(|e| panic!("{e}"));
    assert!(schema.root.vars.iter().all(|v| v.name != "meta"));
}

#[test]
fn a_width_nobody_set_grows_to_the_data_and_chunks_written_before_follow() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let long = "L".repeat(300);
    for (version, name) in [(ZarrVersion::V2, "w2.zarr"), (ZarrVersion::V3, "w3.zarr")] {
        let root = dir.path().join(name);
        let mut ds = dataset();
        // No default width: 128 until the data says otherwise. Shuffle's element size is
        // the width, so the chunks written first must be encoded again.
        ds.root
            .atts
            .retain(|a| a.name != "_nczarr_default_maxstrlen");
        for v in &mut ds.root.vars {
            v.storage = Some(ncmodel::Storage {
                layout: ncmodel::Layout::Chunked(vec![1; v.dim_ids.len()]),
                filters: vec![
                    filterspec::FilterSpec::new(2, []),
                    filterspec::FilterSpec::new(32015, [3]),
                ],
                endianness: ncmodel::Endianness::Native,
                no_fill: false,
                quantize: None,
                codecs: None,
            });
        }
        let loc = common::location(&root, ZarrFlavor::Detect, version);
        let mut w = ZarrWriter::create(&loc, Format::Netcdf4, &store::NoRemoteStores)
            .unwrap_or_else(|e| panic!("{e}"));
        w.define(&ds).unwrap_or_else(|e| panic!("{e}"));
        w.write(
            &VarPath::in_root("filled"),
            &[0],
            &[1],
            &strings(&["first"]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        w.write(&VarPath::in_root("filled"), &[1], &[1], &strings(&[&long]))
            .unwrap_or_else(|e| panic!("{e}"));
        // A width the user set still cuts, and says so.
        w.write(&VarPath::in_root("one"), &[0], &[2], &strings(&["a", "bc"]))
            .unwrap_or_else(|e| panic!("{e}"));
        let cut = w.truncated_strings();
        Box::new(w).finish().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cut.len(), 1, "{cut:?}");
        let (r, read_ds) = read(&root, ZarrFlavor::Detect, version);
        assert_eq!(
            data(&r, &read_ds, "filled"),
            strings(&["first", &long]),
            "{name}"
        );
        assert_eq!(data(&r, &read_ds, "one"), strings(&["a", "b"]), "{name}");
        let filled = read_ds
            .root
            .vars
            .iter()
            .find(|v| v.name == "filled")
            .unwrap_or_else(|| panic!("no filled"));
        let width = filled.atts.iter().find(|a| a.name == "_nczarr_maxstrlen");
        // Version 3 is pure Zarr: its strings are of variable length, there is no width
        // to grow (before: |S300 there too).
        let want = (version == ZarrVersion::V2).then(|| Values::Int(vec![300]));
        assert_eq!(width.map(|a| a.values.clone()), want, "{name}");
    }
}
