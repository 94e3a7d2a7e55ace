//! `_Codecs` JSON both ways, for the codecs of REFERENCE.md's table, and its errors.

use codecs::nczarr::{codecs_to_filters, filters_to_codecs, CodecError};
use codecs::FilterSpec;

fn filters(json: &str) -> Vec<FilterSpec> {
    codecs_to_filters(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

fn error(json: &str) -> String {
    match codecs_to_filters(json) {
        Err(e) => e.to_string(),
        Ok(f) => panic!("{json} gave {f:?}"),
    }
}

#[test]
fn json_to_hdf5_for_every_codec() {
    let cases: [(&str, FilterSpec); 7] = [
        (
            r#"{"id": "shuffle", "elementsize": 4}"#,
            FilterSpec::new(2, []),
        ),
        (r#"{"id": "fletcher32"}"#, FilterSpec::new(3, [])),
        (r#"{"id": "zlib", "level": 2}"#, FilterSpec::new(1, [2])),
        (
            r#"{"id": "szip", "mask": 32, "pixels-per-block": 32}"#,
            FilterSpec::new(4, [32, 32]),
        ),
        (r#"{"id": "bz2", "level": 9}"#, FilterSpec::new(307, [9])),
        (
            r#"{"id": "zstd", "level": -5}"#,
            FilterSpec::new(32015, [(-5i32) as u32]),
        ),
        (
            r#"{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
            FilterSpec::new(32001, [0, 0, 0, 0, 5, 1, 5]),
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(filters(&format!("[{json}]")), [expected], "{json}");
    }
}

#[test]
fn blosc_defaults() {
    assert_eq!(
        filters(r#"[{"id": "blosc"}]"#),
        [FilterSpec::new(32001, [0, 0, 0, 1, 9, 0, 1])]
    );
}

#[test]
fn the_reference_example_chain() {
    assert_eq!(
        filters(r#"[{"id": "bz2","level": 9},{"id": "zlib","level": 2}]"#),
        [FilterSpec::new(307, [9]), FilterSpec::new(1, [2])]
    );
    assert_eq!(filters("[]"), []);
    // Quoted numbers are read too.
    assert_eq!(
        filters(r#"[{"id": "zlib","level": "4"}]"#),
        [FilterSpec::new(1, [4])]
    );
}

#[test]
fn hdf5_to_json_for_every_codec() {
    let chain = [
        FilterSpec::new(3, []),
        FilterSpec::new(2, [4]),
        FilterSpec::new(1, [2]),
        FilterSpec::new(4, [141, 32]),
        FilterSpec::new(307, [9]),
        FilterSpec::new(32015, [3]),
        FilterSpec::new(32001, [2, 2, 4, 800, 5, 1, 1]),
    ];
    let json = filters_to_codecs(&chain).unwrap_or_else(|e| panic!("{e}"));
    let expected = concat!(
        r#"[{"id": "fletcher32"},{"id": "shuffle","elementsize": 4},{"id": "zlib","level": 2},"#,
        r#"{"id": "szip","mask": 141,"pixels-per-block": 32},{"id": "bz2","level": 9},"#,
        r#"{"id": "zstd","level": 3},"#,
        r#"{"id": "blosc","clevel": 5,"blocksize": 800,"cname": "lz4","shuffle": 1}]"#
    );
    assert_eq!(json, expected);
    // And back: shuffle loses its element size (HDF5 sets it from the type), blosc keeps
    // what its codec carries.
    let back = filters(&json);
    assert_eq!(back[1], FilterSpec::new(2, []));
    assert_eq!(back[6], FilterSpec::new(32001, [0, 0, 0, 800, 5, 1, 1]));
    assert_eq!(back[..1], chain[..1]);
    assert_eq!(back[2..6], chain[2..6]);
}

#[test]
fn errors_name_the_codec_and_key() {
    assert_eq!(
        error(r#"[{"id": "lzma", "level": 3}]"#),
        "unknown codec id \"lzma\" in _Codecs; known: zlib, shuffle, fletcher32, szip, bz2, blosc, lz4, zstd, imagecodecs_lzf"
    );
    assert_eq!(
        error(r#"[{"id": "zlib"}]"#),
        "codec \"zlib\" in _Codecs is missing the key \"level\""
    );
    assert_eq!(
        error(r#"[{"id": "szip", "mask": 32}]"#),
        "codec \"szip\" in _Codecs is missing the key \"pixels-per-block\""
    );
    assert_eq!(
        error(r#"[{"id": "bz2", "level": 10}]"#),
        "codec \"bz2\" in _Codecs: \"level\" must be an integer 1 to 9"
    );
    assert_eq!(
        error(r#"[{"id": "blosc", "cname": "gzip"}]"#),
        "codec \"blosc\" in _Codecs: \"cname\" must be one of blosclz, lz4, lz4hc, snappy, zlib, zstd"
    );
    // numcodecs' lz4 translates (its acceleration has no HDF5 counterpart).
    assert_eq!(
        codecs_to_filters(r#"[{"id": "lz4", "acceleration": 1}]"#),
        Ok(vec![FilterSpec::new(32004, [])])
    );
    assert_eq!(
        error(r#"[{"level": 1}]"#),
        "codec 1 of _Codecs has no \"id\" string"
    );
    assert_eq!(error("[3]"), "codec 1 of _Codecs is not a JSON object");
    assert!(matches!(
        codecs_to_filters(r#"{"id": "zlib"}"#),
        Err(CodecError::NotAnArray)
    ));
    assert!(error("[{").starts_with("_Codecs is not valid JSON: "));
    assert_eq!(
        filters_to_codecs(&[FilterSpec::new(32013, [])]).err(),
        Some(CodecError::NoCodec { id: 32013 })
    );
}

proptest::proptest! {
    /// No `_Codecs` text makes the parser panic (moved here with it from the filter
    /// grammar's properties).
    #[test]
    fn the_codecs_parser_never_panics(text in "\\PC{0,40}") {
        let _ = codecs_to_filters(&text);
    }
}
