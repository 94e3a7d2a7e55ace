//! Define + write + read back, for every flavor and version.

mod common;

use filterspec::FilterSpec;
use ncmodel::{
    AtomicType as A, Attribute, Dataset, Dim, Endianness, Format, GlobalSpecials, Group, Layout,
    Storage, TypeRef, Values, Var,
};
use store::{StoreReader, StoreWriter, VarPath, ZarrFlavor, ZarrVersion};
use zarr::{ZarrReader, ZarrWriter};

fn storage(chunks: Vec<usize>, filters: Vec<FilterSpec>) -> Option<Storage> {
    Some(Storage {
        layout: Layout::Chunked(chunks),
        filters,
        endianness: Endianness::Native,
        no_fill: false,
        quantize: None,
        codecs: None,
    })
}

fn var(
    id: i32,
    name: &str,
    t: A,
    dims: Vec<i32>,
    st: Option<Storage>,
    atts: Vec<Attribute>,
) -> Var {
    Var {
        id,
        name: name.into(),
        type_ref: TypeRef::Atomic(t),
        dim_ids: dims,
        atts,
        storage: st,
    }
}

fn att(name: &str, t: A, values: Values) -> Attribute {
    Attribute {
        name: name.into(),
        type_ref: TypeRef::Atomic(t),
        values,
    }
}

fn dataset() -> Dataset {
    let dim = |id, name: &str, len, unlimited| Dim {
        id,
        name: name.into(),
        len,
        unlimited,
    };
    let root = Group {
        ncid: 0,
        name: "/".into(),
        dims: vec![
            dim(0, "t", 0, true),
            dim(1, "x", 5, false),
            dim(2, "y", 7, false),
        ],
        vars: vec![
            var(
                0,
                "d",
                A::Double,
                vec![1, 2],
                storage(
                    vec![2, 3],
                    vec![FilterSpec::new(2, []), FilterSpec::new(1, [5])],
                ),
                vec![],
            ),
            var(
                1,
                "rec",
                A::Int,
                vec![0, 1],
                storage(vec![2, 2], vec![]),
                vec![att("_FillValue", A::Int, Values::Int(vec![-9]))],
            ),
            var(2, "c", A::Char, vec![1, 2], None, vec![]),
            var(
                3,
                "s",
                A::Float,
                vec![],
                None,
                vec![att("f", A::Float, Values::Float(vec![f32::NAN, 1.5]))],
            ),
            var(
                4,
                "z",
                A::UShort,
                vec![1],
                storage(vec![2], vec![FilterSpec::new(32015, [3])]),
                vec![],
            ),
            var(
                5,
                "b",
                A::Int64,
                vec![1],
                storage(vec![5], vec![FilterSpec::new(307, [9])]),
                vec![],
            ),
        ],
        atts: vec![
            att("title", A::Char, Values::Char(b"rt".to_vec())),
            att("u64", A::UInt64, Values::UInt64(vec![u64::MAX])),
            att("i8", A::Byte, Values::Byte(vec![-1, 2])),
        ],
        groups: vec![Group {
            ncid: 1,
            name: "g".into(),
            dims: vec![dim(3, "w", 3, false)],
            vars: vec![var(
                0,
                "v",
                A::UByte,
                vec![3, 1],
                storage(
                    vec![2, 2],
                    vec![FilterSpec::new(32001, [0, 0, 0, 0, 5, 1, 1])],
                ),
                vec![],
            )],
            atts: vec![att("ga", A::Short, Values::Short(vec![3]))],
            ..Group::default()
        }],
        ..Group::default()
    };
    Dataset {
        format: Format::Netcdf4,
        is_nczarr: true,
        specials: GlobalSpecials::default(),
        types: vec![],
        root,
    }
}

fn round_trip(flavor: ZarrFlavor, version: ZarrVersion) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("rt.zarr");
    let loc = common::location(&root, flavor, version);
    let mut w = Box::new(
        ZarrWriter::create(&loc, Format::Netcdf4, &store::NoRemoteStores)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    w.define(&dataset()).unwrap_or_else(|e| panic!("{e}"));
    let ok = |r: Result<(), store::StoreError>| r.unwrap_or_else(|e| panic!("{e}"));
    let d: Vec<f64> = (0..35).map(f64::from).collect();
    // Unaligned slabs: rows 0-2 then 3-4, each crossing chunk boundaries.
    ok(w.write(
        &VarPath::in_root("d"),
        &[0, 0],
        &[3, 7],
        &Values::Double(d[..21].to_vec()),
    ));
    ok(w.write(
        &VarPath::in_root("d"),
        &[3, 0],
        &[2, 7],
        &Values::Double(d[21..].to_vec()),
    ));
    // Records grow the unlimited dimension; record 1 is left unwritten.
    ok(w.write(
        &VarPath::in_root("rec"),
        &[0, 0],
        &[1, 5],
        &Values::Int(vec![1, 2, 3, 4, 5]),
    ));
    ok(w.write(
        &VarPath::in_root("rec"),
        &[2, 1],
        &[1, 3],
        &Values::Int(vec![7, 8, 9]),
    ));
    ok(w.write(
        &VarPath::in_root("c"),
        &[0, 0],
        &[1, 7],
        &Values::Char(b"abcdefg".to_vec()),
    ));
    ok(w.write(&VarPath::in_root("s"), &[], &[], &Values::Float(vec![2.5])));
    ok(w.write(
        &VarPath::in_root("z"),
        &[1],
        &[3],
        &Values::UShort(vec![10, 20, 30]),
    ));
    ok(w.write(
        &VarPath::in_root("b"),
        &[0],
        &[5],
        &Values::Int64(vec![-1, i64::MAX, 3, 4, 5]),
    ));
    let v: Vec<u8> = (0..15).collect();
    ok(w.write(
        &VarPath::new(["g"], "v"),
        &[0, 0],
        &[3, 5],
        &Values::UByte(v.clone()),
    ));
    ok(w.finish());
    assert!(!dir
        .path()
        .read_dir()
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .any(|e| e.file_name().to_string_lossy().contains("nctools-")));

    let r = ZarrReader::open(&loc, &store::NoRemoteStores).unwrap_or_else(|e| panic!("{e}"));
    let ds = r.schema().unwrap_or_else(|e| panic!("{e}"));
    let read = |g: &Group, name: &str, start: &[usize], count: &[usize]| {
        let var = g.var(name).unwrap_or_else(|| panic!("no {name}"));
        r.read_slab(
            &ds,
            &ds.var_path(g.ncid, var)
                .unwrap_or_else(|| panic!("not a variable of the schema")),
            start,
            count,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert_eq!(
        read(&ds.root, "d", &[0, 0], &[5, 7]),
        Values::Double(d.clone())
    );
    assert_eq!(
        read(&ds.root, "d", &[1, 2], &[2, 2]),
        Values::Double(vec![9.0, 10.0, 16.0, 17.0])
    );
    assert_eq!(
        read(&ds.root, "rec", &[0, 0], &[3, 5]),
        Values::Int(vec![1, 2, 3, 4, 5, -9, -9, -9, -9, -9, -9, 7, 8, 9, -9])
    );
    // Zarr v3 has no char type: chars are stored as uint8 and read back as ubyte. In
    // pure Zarr v2 they are `|S1`, read back as strings of one character, as netCDF-C
    // 4.10 reads them.
    let cde = if version == ZarrVersion::V3 {
        Values::UByte(b"cde".to_vec())
    } else if flavor == ZarrFlavor::NcZarr {
        Values::Char(b"cde".to_vec())
    } else {
        Values::String(vec![
            Some(b"c".to_vec()),
            Some(b"d".to_vec()),
            Some(b"e".to_vec()),
        ])
    };
    assert_eq!(read(&ds.root, "c", &[0, 2], &[1, 3]), cde);
    let s = ds.root.var("s").unwrap_or_else(|| panic!("s"));
    let scalar_count: &[usize] = if s.dim_ids.is_empty() { &[] } else { &[1] };
    assert_eq!(
        read(&ds.root, "s", &[], scalar_count),
        Values::Float(vec![2.5])
    );
    let fill = 65535;
    assert_eq!(
        read(&ds.root, "z", &[0], &[5]),
        Values::UShort(vec![fill, 10, 20, 30, fill])
    );
    assert_eq!(
        read(&ds.root, "b", &[1], &[1]),
        Values::Int64(vec![i64::MAX])
    );
    assert_eq!(
        read(&ds.root.groups[0], "v", &[0, 0], &[3, 5]),
        Values::UByte(v)
    );
    let rec_dim = ds
        .root
        .var("rec")
        .map(|v| v.dim_ids[0])
        .and_then(|id| ds.dim(id))
        .cloned();
    assert_eq!(rec_dim.map(|d| d.len), Some(3));
    let codecs = ds
        .root
        .var("d")
        .and_then(|v| v.storage.clone())
        .and_then(|s| s.codecs);
    let filters = ds
        .root
        .var("d")
        .and_then(|v| v.storage.clone())
        .map(|s| s.filters);
    if version == ZarrVersion::V3 {
        // Version 3 takes core codecs: shuffle then zlib is blosc with both.
        assert_eq!(
            codecs.as_deref(),
            Some(
                r#"[{"id": "blosc", "cname": "zlib", "clevel": 5, "shuffle": 1, "blocksize": 0}]"#
            )
        );
        assert_eq!(
            filters.map(|f| f.iter().map(|f| f.id).collect::<Vec<_>>()),
            Some(vec![32001])
        );
    } else {
        assert_eq!(
            codecs.as_deref(),
            Some(r#"[{"id": "shuffle", "elementsize": 8},{"id": "zlib", "level": 5}]"#)
        );
        assert_eq!(
            filters,
            Some(vec![FilterSpec::new(2, []), FilterSpec::new(1, [5])])
        );
    }
    if flavor == ZarrFlavor::NcZarr && version == ZarrVersion::V2 {
        assert!(rec_dim_unlimited(&ds));
        let atts = &ds.root.atts;
        assert_eq!(atts[1].values, Values::UInt64(vec![u64::MAX]));
        assert_eq!(atts[2].values, Values::Byte(vec![-1, 2]));
        assert_eq!(ds.root.groups[0].atts[0].values, Values::Short(vec![3]));
    }
}

fn rec_dim_unlimited(ds: &Dataset) -> bool {
    ds.root.dims.iter().any(|d| d.name == "t" && d.unlimited)
}

#[test]
fn nczarr_v2() {
    round_trip(ZarrFlavor::NcZarr, ZarrVersion::V2);
}

#[test]
fn xarray_v2() {
    round_trip(ZarrFlavor::Xarray, ZarrVersion::V2);
}

#[test]
fn zarr_v3() {
    round_trip(ZarrFlavor::Xarray, ZarrVersion::V3);
}

#[test]
fn filters_without_codec_fail_before_writing() {
    // A filter nctools has no Zarr codec of (32017, SZ3), in any store; szip, whose codec
    // is NCZarr's only, in pure Zarr version 2 and version 3 stores.
    for (flavor, version, filter, what) in [
        (
            ZarrFlavor::NcZarr,
            ZarrVersion::V2,
            FilterSpec::new(32017, [1]),
            "no Zarr codec",
        ),
        (
            ZarrFlavor::Xarray,
            ZarrVersion::V2,
            FilterSpec::new(4, [32, 32]),
            "szip codec",
        ),
        (
            ZarrFlavor::Xarray,
            ZarrVersion::V3,
            FilterSpec::new(4, [32, 32]),
            "szip codec",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("bad.zarr");
        let loc = common::location(&root, flavor, version);
        let mut ds = dataset();
        ds.root.vars[0].storage = storage(vec![5, 7], vec![filter.clone()]);
        let name = format!("variable /{}:", ds.root.vars[0].name);
        let mut w = ZarrWriter::create(&loc, Format::Netcdf4, &store::NoRemoteStores)
            .unwrap_or_else(|e| panic!("{e}"));
        let err = w
            .define(&ds)
            .err()
            .unwrap_or_else(|| panic!("{filter:?} accepted"));
        assert!(
            err.message.contains(what) && err.message.contains(&name),
            "{err}"
        );
        drop(w);
        assert!(!root.exists());
    }
}

#[test]
fn unknown_codec_is_named_and_never_returned_as_data() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("u.zarr");
    std::fs::create_dir_all(root.join("v")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("v/.zarray"),
        r#"{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4", "fill_value": 0, "order": "C", "filters": null, "compressor": {"id": "zfpy", "mode": 4}}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("v/0"), [0u8; 16]).unwrap_or_else(|e| panic!("{e}"));
    let (r, ds) = common::open(&root, ZarrFlavor::Detect, ZarrVersion::V2);
    let v = &ds.root.vars[0];
    assert_eq!(ds.root.dims[0].name, "_Anonymous_Dim_4");
    assert_eq!(
        v.storage.as_ref().and_then(|s| s.codecs.as_deref()),
        Some(r#"[{"id": "zfpy", "mode": 4}]"#)
    );
    let err = r
        .read_slab(
            &ds,
            &ds.var_path(ds.root.ncid, v)
                .unwrap_or_else(|| panic!("not a variable of the schema")),
            &[0],
            &[4],
        )
        .err()
        .unwrap_or_else(|| panic!("read"));
    assert_eq!(err.kind, store::ErrorKind::CodecMissing);
    assert!(
        err.to_string()
            .contains("reading variable /v: unsupported codec: (zfpy); nctools reads"),
        "{err}"
    );
}

/// A v2 store holding one `<i4` array `v` of shape [4] in one chunk of `chunk` bytes
/// compressed with zstd, opened.
fn zstd_store(dir: &std::path::Path, chunk: &[u8]) -> (ZarrReader, Dataset) {
    let root = dir.join("z.zarr");
    let write = |path: std::path::PathBuf, bytes: &[u8]| {
        std::fs::create_dir_all(path.parent().unwrap_or(dir)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{e}"));
    };
    write(root.join(".zgroup"), br#"{"zarr_format": 2}"#);
    write(
        root.join("v/.zarray"),
        br#"{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4", "fill_value": 0, "order": "C", "filters": null, "compressor": {"id": "zstd", "level": 3}}"#,
    );
    write(root.join("v/0"), chunk);
    common::open(&root, ZarrFlavor::Detect, ZarrVersion::V2)
}

#[test]
fn a_damaged_chunk_is_an_error_never_data() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // Not a zstd frame at all: 16 bytes of what would be the raw data.
    let (r, ds) = zstd_store(
        dir.path(),
        &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0],
    );
    let err = r
        .read_slab(
            &ds,
            &ds.var_path(ds.root.ncid, &ds.root.vars[0])
                .unwrap_or_else(|| panic!("not a variable of the schema")),
            &[0],
            &[4],
        )
        .err()
        .unwrap_or_else(|| panic!("a damaged chunk was read as data"));
    let text = err.to_string();
    assert!(text.contains("reading variable /v: chunk "), "{text}");
    assert!(text.contains("cannot be decoded"), "{text}");
    assert!(text.contains("the store is probably damaged"), "{text}");
}

#[test]
fn a_slab_beyond_the_shape_is_an_error_not_fill() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let chunk = codecs::numcodecs::encode(
        &FilterSpec::new(filterspec::known::ZSTD, [3]),
        4,
        &[0u8; 16],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (r, ds) = zstd_store(dir.path(), &chunk);
    let v = &ds.root.vars[0];
    let whole = r.read_slab(
        &ds,
        &ds.var_path(ds.root.ncid, v)
            .unwrap_or_else(|| panic!("not a variable of the schema")),
        &[0],
        &[4],
    );
    assert_eq!(whole, Ok(Values::Int(vec![0; 4])));
    for (start, count) in [(2, 3), (4, 1), (usize::MAX, 2)] {
        let err = r
            .read_slab(
                &ds,
                &ds.var_path(ds.root.ncid, v)
                    .unwrap_or_else(|| panic!("not a variable of the schema")),
                &[start],
                &[count],
            )
            .err()
            .unwrap_or_else(|| panic!("{start}+{count} was read"));
        assert!(
            err.message.contains("goes beyond the variable's shape [4]"),
            "{err}"
        );
    }
}

/// zarr-python's fixed-length strings read as netCDF strings: `|S4` (bytes, NUL padded)
/// and `<U3` (UTF-32, NUL padded), as zarr-python 3 writes them uncompressed.
#[test]
fn zarr_python_fixed_length_strings_read_as_strings() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("s.zarr");
    let put = |name: &str, bytes: &[u8]| {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap_or(&root)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{e}"));
    };
    put(".zgroup", br#"{"zarr_format": 2}"#);
    for (name, dtype) in [("s", "|S4"), ("u", "<U3")] {
        put(
            &format!("{name}/.zarray"),
            format!(
                r#"{{"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "{dtype}", "fill_value": "", "order": "C", "filters": null, "compressor": null}}"#
            )
            .as_bytes(),
        );
        put(
            &format!("{name}/.zattrs"),
            br#"{"_ARRAY_DIMENSIONS": ["n"]}"#,
        );
    }
    put("s/0", b"ab\0\0cdefx\0\0\0");
    let utf32: Vec<u8> = ["ab\0", "c\u{e9}d", "x\0\0"]
        .iter()
        .flat_map(|s| s.chars().flat_map(|c| (c as u32).to_le_bytes()))
        .collect();
    put("u/0", &utf32);
    let (r, ds) = common::open(&root, ZarrFlavor::Detect, ZarrVersion::V2);
    let read = |i: usize| {
        let v = &ds.root.vars[i];
        assert_eq!(v.type_ref, TypeRef::Atomic(A::String), "{}", v.name);
        r.read_slab(
            &ds,
            &ds.var_path(ds.root.ncid, v)
                .unwrap_or_else(|| panic!("not a variable of the schema")),
            &[0],
            &[3],
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let strings =
        |list: &[&str]| Values::String(list.iter().map(|s| Some(s.as_bytes().to_vec())).collect());
    assert_eq!(read(0), strings(&["ab", "cdef", "x"]));
    assert_eq!(read(1), strings(&["ab", "c\u{e9}d", "x"]));
}

/// Chunks beyond 4 GiB (HDF5's limit) are refused with a message, both in a store being
/// read (a damaged or hostile `.zarray`) and in one being written (a huge maximum string
/// length), rather than asked of the allocator.
#[test]
fn chunks_beyond_4_gib_are_refused_both_ways() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("r.zarr");
    std::fs::create_dir_all(root.join("a")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join(".zgroup"), br#"{"zarr_format": 2}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("a/.zarray"),
        br#"{"zarr_format": 2, "shape": [1000], "chunks": [1000], "dtype": "|S2000000000", "fill_value": "", "order": "C", "filters": null, "compressor": null}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let location = common::location(&root, ZarrFlavor::Detect, ZarrVersion::V2);
    let err = ZarrReader::open(&location, &store::NoRemoteStores)
        .and_then(|r| r.schema())
        .err()
        .unwrap_or_else(|| panic!("a 2 TB chunk was accepted"));
    assert!(
        err.to_string().contains(
            "its chunks of [1000] elements of 2000000000 bytes are 2000000000000 bytes, more \
             than nctools handles (at most 4294967295, HDF5's limit)"
        ),
        "{err}"
    );

    let mut ds = dataset();
    ds.root.vars[1].type_ref = TypeRef::Atomic(A::String);
    ds.root.vars[1].atts = vec![att(
        "_nczarr_maxstrlen",
        A::Int,
        Values::Int(vec![i32::MAX]),
    )];
    let out = dir.path().join("w.zarr");
    let mut w = ZarrWriter::create(
        &common::location(&out, ZarrFlavor::NcZarr, ZarrVersion::V2),
        Format::Netcdf4,
        &store::NoRemoteStores,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let err = w
        .define(&ds)
        .err()
        .unwrap_or_else(|| panic!("an 8 GiB string chunk was accepted"));
    // The width alone is refused first: one value may take at most the value limit (red
    // team s34 RB8: a width of 2e9 aborted ncgen allocating the fill value that wide).
    assert!(
        err.to_string().contains(
            "variable /rec: its strings' width of 2147483647 bytes (_nczarr_maxstrlen or \
             _nczarr_default_maxstrlen) is more than the value limit of 16777216 bytes"
        ),
        "{err}"
    );
    assert!(!out.exists(), "a refused store was left behind");
}
