//! The table between HDF5 filters and Zarr codecs, both ways, in both Zarr versions. The
//! version 2 objects are what numcodecs 0.16's `get_config()` returns for the same
//! settings (observed: `Zstd(level=3)` gives `{'id': 'zstd', 'level': 3, 'checksum':
//! False}`, `LZ4()` `{'id': 'lz4', 'acceleration': 1}`, `Blosc(cname='lz4', clevel=5,
//! shuffle=1)` `{'id': 'blosc', 'cname': 'lz4', 'clevel': 5, 'shuffle': 1, 'blocksize':
//! 0}`).

use codecs::nczarr::CodecError;
use codecs::zarr_codec::{
    codecs_attribute, filter_of_codec, filter_of_v3_codec, numcodecs_of_v3_codec,
    v3_codec_of_numcodecs, zarr_codec, zarr_v3_codec,
};
use codecs::FilterSpec;
use serde_json::{json, Value};

fn v2(filter: FilterSpec, element: usize) -> Value {
    zarr_codec(&filter, element).unwrap_or_else(|e| panic!("{filter:?}: {e}"))
}

fn back(codec: Value) -> FilterSpec {
    filter_of_codec(&codec).unwrap_or_else(|e| panic!("{codec}: {e}"))
}

#[test]
fn every_filter_as_its_numcodecs_codec_and_back() {
    let rows = [
        (
            FilterSpec::new(1, [5]),
            json!({"id": "zlib", "level": 5}),
            vec![5],
        ),
        (
            FilterSpec::new(2, [4]),
            json!({"id": "shuffle", "elementsize": 4}),
            vec![4],
        ),
        (FilterSpec::new(3, []), json!({"id": "fletcher32"}), vec![]),
        (
            FilterSpec::new(307, [9]),
            json!({"id": "bz2", "level": 9}),
            vec![9],
        ),
        (
            FilterSpec::new(32015, [3]),
            json!({"id": "zstd", "level": 3}),
            vec![3],
        ),
        (
            FilterSpec::new(32004, []),
            json!({"id": "lz4", "acceleration": 1}),
            vec![],
        ),
    ];
    for (filter, codec, params) in rows {
        assert_eq!(v2(filter.clone(), 4), codec);
        assert_eq!(back(codec), FilterSpec::new(filter.id, params));
    }
}

#[test]
fn blosc_keeps_level_shuffle_and_compressor() {
    let filter = FilterSpec::new(32001, [2, 2, 4, 4000, 5, 1, 1]);
    let codec = v2(filter, 4);
    assert_eq!(
        codec,
        json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0})
    );
    assert_eq!(back(codec), FilterSpec::new(32001, [0, 0, 0, 0, 5, 1, 1]));
}

#[test]
fn negative_zstd_levels_are_numbers() {
    assert_eq!(
        v2(FilterSpec::new(32015, [(-5i32) as u32]), 8),
        json!({"id": "zstd", "level": -5})
    );
    assert_eq!(
        back(json!({"id": "zstd", "level": -5, "checksum": false})),
        FilterSpec::new(32015, [(-5i32) as u32])
    );
}

#[test]
fn numbers_written_as_strings_are_read() {
    assert_eq!(
        back(json!({"id": "bz2", "level": "9"})),
        FilterSpec::new(307, [9])
    );
    assert_eq!(
        back(json!({"id": "zlib", "level": "5"})),
        FilterSpec::new(1, [5])
    );
    assert_eq!(
        back(json!({"id": "shuffle", "elementsize": "4"})),
        FilterSpec::new(2, [4])
    );
}

#[test]
fn a_shuffle_keeps_its_element_size_within_bounds() {
    // zarr-python's Shuffle(elementsize=2) on int32 data: the chunks are shuffled over 2.
    assert_eq!(
        back(json!({"id": "shuffle", "elementsize": 2})),
        FilterSpec::new(2, [2])
    );
    assert_eq!(back(json!({"id": "shuffle"})), FilterSpec::new(2, []));
    assert_eq!(
        v2(FilterSpec::new(2, [2]), 4),
        json!({"id": "shuffle", "elementsize": 2})
    );
    for bad in [json!(0), json!(-1), json!(65537u64), json!(1u64 << 40)] {
        assert_eq!(
            filter_of_codec(&json!({"id": "shuffle", "elementsize": bad})),
            Err(CodecError::BadValue {
                codec: "shuffle",
                key: "elementsize",
                expected: "an integer 1 to 65536"
            }),
            "{bad}"
        );
    }
}

#[test]
fn szip_has_netcdf_cs_codec_and_unknown_codecs_are_named() {
    // netCDF-C's NCZarr codec: the mask and pixels per block as given.
    assert_eq!(
        zarr_codec(&FilterSpec::new(4, [4, 32]), 4),
        Ok(json!({"id": "szip", "mask": 4, "pixels-per-block": 32}))
    );
    assert_eq!(
        filter_of_codec(&json!({"id": "szip", "mask": 32, "pixels-per-block": 8})),
        Ok(FilterSpec::new(4, [32, 8]))
    );
    assert_eq!(
        zarr_codec(&FilterSpec::new(32017, [1]), 4),
        Err(CodecError::NoCodec { id: 32017 })
    );
    let Err(error) = filter_of_codec(&json!({"id": "zfpy", "mode": 4})) else {
        panic!("zfpy translated");
    };
    assert_eq!(error, CodecError::UnknownCodec { id: "zfpy".into() });
}

#[test]
fn version_3_codecs_and_back() {
    let rows = [
        (
            FilterSpec::new(32015, [3]),
            json!({"name": "zstd", "configuration": {"level": 3, "checksum": false}}),
        ),
        (
            FilterSpec::new(307, [9]),
            json!({"name": "numcodecs.bz2", "configuration": {"level": 9}}),
        ),
        (
            FilterSpec::new(1, [4]),
            json!({"name": "numcodecs.zlib", "configuration": {"level": 4}}),
        ),
        (
            FilterSpec::new(3, []),
            json!({"name": "numcodecs.fletcher32", "configuration": {}}),
        ),
        (
            FilterSpec::new(32004, []),
            json!({"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}),
        ),
    ];
    for (filter, codec) in rows {
        assert_eq!(zarr_v3_codec(&filter, 4), Ok(codec.clone()));
        assert_eq!(filter_of_v3_codec(&codec), Ok(filter));
    }
    let blosc = zarr_v3_codec(&FilterSpec::new(32001, [0, 0, 0, 0, 5, 2, 5]), 8);
    let expected = json!({"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5,
        "shuffle": "bitshuffle", "blocksize": 0, "typesize": 8}});
    assert_eq!(blosc, Ok(expected.clone()));
    assert_eq!(
        filter_of_v3_codec(&expected),
        Ok(FilterSpec::new(32001, [0, 0, 0, 0, 5, 2, 5]))
    );
    assert!(filter_of_v3_codec(&json!({"name": "gzip", "configuration": {"level": 5}})).is_err());
}

#[test]
fn the_codecs_attribute_is_printed_as_netcdf_c_prints_json() {
    let codecs = [
        json!({"id": "shuffle", "elementsize": 4}),
        json!({"id": "zlib", "level": 5}),
    ];
    assert_eq!(
        codecs_attribute(&codecs),
        r#"[{"id": "shuffle", "elementsize": 4},{"id": "zlib", "level": 5}]"#
    );
    assert_eq!(
        codecs_attribute(&[json!({"id": "bz2", "level": "9", "x": [1, 2]})]),
        r#"[{"id": "bz2", "level": "9", "x": [1,2]}]"#
    );
}

#[test]
fn a_v3_codec_nctools_lacks_is_translated_verbatim_both_ways() {
    let v3 = json!({"name": "numcodecs.zfpy", "configuration": {"mode": 4, "tolerance": 0.5}});
    let v2 = numcodecs_of_v3_codec("numcodecs.zfpy", v3.get("configuration"));
    assert_eq!(v2, json!({"id": "zfpy", "mode": 4, "tolerance": 0.5}));
    assert_eq!(v3_codec_of_numcodecs(&v2, 4), v3);
    // Blosc's shuffle travels as a name in v3 and a number in v2; its typesize is v3's.
    let blosc = json!({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
        "shuffle": "shuffle", "blocksize": 0, "typesize": 2}});
    let v2 = numcodecs_of_v3_codec("blosc", blosc.get("configuration"));
    assert_eq!(
        v2,
        json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0})
    );
    assert_eq!(v3_codec_of_numcodecs(&v2, 2), blosc);
}

#[test]
fn gzip_and_crc32c_keep_their_v3_core_names() {
    // As zarr-python 3.1 writes them.
    let gzip = json!({"name": "gzip", "configuration": {"level": 4}});
    let v2 = numcodecs_of_v3_codec("gzip", gzip.get("configuration"));
    assert_eq!(v2, json!({"id": "gzip", "level": 4}));
    assert_eq!(v3_codec_of_numcodecs(&v2, 4), gzip);
    let v2 = numcodecs_of_v3_codec("crc32c", None);
    assert_eq!(v2, json!({"id": "crc32c"}));
    assert_eq!(
        v3_codec_of_numcodecs(&v2, 4),
        json!({"name": "crc32c", "configuration": {}})
    );
    // numcodecs' crc32c with its checksum first is not v3's crc32c.
    let start = json!({"id": "crc32c", "location": "start"});
    assert_eq!(
        v3_codec_of_numcodecs(&start, 4),
        json!({"name": "numcodecs.crc32c", "configuration": {"location": "start"}})
    );
    let adler = numcodecs_of_v3_codec("numcodecs.adler32", Some(&json!({})));
    assert_eq!(adler, json!({"id": "adler32"}));
    assert!(
        filter_of_codec(&adler).is_err(),
        "adler32 has no HDF5 filter"
    );
}
