//! Every codec of the registry, its forms against each other: the HDF5 filter and its
//! parameters, the numcodecs JSON of a Zarr store, NCZarr's `_Codecs` text and the Zarr
//! version 3 codec all translate into each other; its chunks round-trip; and its HDF5
//! and Zarr chunk bytes are the same exactly when the registry says they are.
//!
//! A codec added to the registry needs a sample configuration here (the test fails
//! without one).

use codecs::registry::{self, CodecEntry};
use codecs::{nczarr, numcodecs, zarr_codec, ChunkDecoder, ChunkEncoder, FilterSpec};
use serde_json::{json, Value};

/// Values of four bytes with some structure, so that every codec has work to do.
fn data() -> Vec<u8> {
    (0..4096i32)
        .flat_map(|i| ((i * 7) % 301 - 150).to_le_bytes())
        .collect()
}

/// A configuration of each numcodecs codec that is no HDF5 filter, for int32 values.
fn sample(id: &str) -> Value {
    match id {
        "gzip" => json!({"id": "gzip", "level": 5}),
        "crc32" | "crc32c" | "adler32" => json!({ "id": id }),
        "delta" => json!({"id": "delta", "dtype": "<i4"}),
        "fixedscaleoffset" => {
            json!({"id": "fixedscaleoffset", "offset": 0, "scale": 1, "dtype": "<i4"})
        }
        "bitround" => json!({"id": "bitround", "keepbits": 10}),
        "quantize" => json!({"id": "quantize", "digits": 3, "dtype": "<f4"}),
        other => panic!("no sample configuration of the codec {other}: add one here"),
    }
}

/// The HDF5 filter of a registry codec with parameters a user would give.
fn filter(codec: &CodecEntry) -> FilterSpec {
    let id = codec.hdf5_id.unwrap_or_default();
    let params: Vec<u32> = match codec.numcodecs_id {
        "zlib" => vec![4],
        "bz2" => vec![9],
        "zstd" => vec![3],
        "szip" => vec![32, 16],
        "blosc" => vec![0, 0, 0, 0, 5, 1, 1],
        // As HDF5 stores it: the element size set from the type.
        "shuffle" => vec![4],
        _ => Vec::new(),
    };
    FilterSpec::new(id, params)
}

#[test]
fn hdf5_filters_translate_to_every_form_and_back() {
    for codec in registry::hdf5_codecs() {
        let filter = filter(codec);
        let label = codec.name();
        // NCZarr's `_Codecs` text, both ways.
        let text = nczarr::filters_to_codecs(std::slice::from_ref(&filter))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let back = nczarr::codecs_to_filters(&text).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(back.len(), 1, "{label}");
        assert_eq!(back[0].id, filter.id, "{label}: {text}");
        if codec.implemented {
            // The numcodecs JSON of a store, both ways, with the registry's id.
            let json =
                zarr_codec::zarr_codec(&filter, 4).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(json["id"], codec.numcodecs_id, "{label}");
            let back =
                zarr_codec::filter_of_codec(&json).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(back.id, filter.id, "{label}");
            // Version 3, both ways, under the registry's name.
            let v3 =
                zarr_codec::zarr_v3_codec(&filter, 4).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(v3["name"], codec.v3_name(), "{label}");
            let back =
                zarr_codec::filter_of_v3_codec(&v3).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(back.id, filter.id, "{label}");
        } else {
            assert!(zarr_codec::zarr_codec(&filter, 4).is_err(), "{label}");
        }
    }
}

/// The filter of [`filter`] as HDF5 stores it for the chunks of [`data`] (one
/// dimension of 4096 values): szip's four words, after HDF5's set-local step.
fn stored(codec: &CodecEntry) -> FilterSpec {
    let filter = filter(codec);
    match codec.numcodecs_id {
        "szip" => {
            let words = codecs::szip_hdf5_words(&filter.params, 4, false, 4096, 4096);
            FilterSpec::new(filter.id, words.unwrap_or_default())
        }
        _ => filter,
    }
}

/// The Zarr array whose chunks are [`data`]: 64 x 64 chunks of 64 x 100 int32 values
/// (szip's scanline is the array's last dimension in NCZarr, the chunk's in HDF5).
fn array() -> zarr_codec::ZarrArray<'static> {
    zarr_codec::ZarrArray {
        element_size: 4,
        shape: &[64, 100],
        chunks: &[64, 64],
        big_endian: false,
    }
}

#[test]
fn hdf5_chunks_round_trip_and_are_zarr_chunks_when_the_registry_says_so() {
    let data = data();
    for codec in registry::hdf5_codecs().filter(|c| c.implemented) {
        let label = codec.name();
        let filters = [stored(codec)];
        let encoder = ChunkEncoder::new(&filters, 4, data.len())
            .unwrap_or_else(|| panic!("{label}: no HDF5 encoder"));
        let hdf5 = encoder
            .encode(&data)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let decoder =
            ChunkDecoder::new(&filters, 4).unwrap_or_else(|| panic!("{label}: no HDF5 decoder"));
        let decoded = decoder
            .decode(&hdf5, 0, data.len())
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert!(decoded == data, "{label}: HDF5 round trip");
        // Zarr's chunks, through the codec's numcodecs JSON as a store declares it.
        let json = zarr_codec::zarr_codec(&filters[0], 4).unwrap_or_else(|e| panic!("{e}"));
        let declared = zarr_codec::filter_of_codec(&json).unwrap_or_else(|e| panic!("{e}"));
        let stored = zarr_codec::local_filter(&declared, &array())
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let zarr = numcodecs::encode(&stored, 4, &data).unwrap_or_else(|e| panic!("{label}: {e}"));
        let decoded =
            numcodecs::decode(&stored, 4, &zarr, data.len()).unwrap_or_else(|e| panic!("{e}"));
        assert!(decoded == data, "{label}: Zarr round trip");
        // A chunk moves between the two as it is exactly when the bytes are the same.
        assert_eq!(
            codec.passthrough,
            hdf5 == zarr,
            "{label}: the registry says passthrough = {}",
            codec.passthrough
        );
        if codec.passthrough {
            let decoded = numcodecs::decode(&stored, 4, &hdf5, data.len())
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(decoded == data, "{label}: an HDF5 chunk read as Zarr");
        }
    }
}

#[test]
fn numcodecs_codecs_read_their_json_and_round_trip() {
    let data = data();
    for codec in registry::numcodecs_only() {
        let id = codec.numcodecs_id;
        let config = sample(id);
        let chunk_codec = match numcodecs::Codec::from_config(&config) {
            Some(Ok(c)) => c,
            other => panic!("{id}: {other:?}"),
        };
        assert_eq!(chunk_codec.id(), id);
        assert_eq!(chunk_codec.is_lossless(), codec.encodes, "{id}");
        if codec.encodes {
            let encoded = chunk_codec
                .encode(&data)
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            let decoded = chunk_codec
                .decode(&encoded, data.len())
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(decoded == data, "{id}");
        } else {
            assert!(chunk_codec.encode(&data).is_err(), "{id} encodes");
        }
        // Version 3, both ways, under the registry's name.
        let v3 = zarr_codec::v3_codec_of_numcodecs(&config, 4);
        assert_eq!(v3["name"], codec.v3_name(), "{id}");
        let name = v3["name"].as_str().unwrap_or_default();
        let back = zarr_codec::numcodecs_of_v3_codec(name, v3.get("configuration"));
        assert_eq!(back, config, "{id}");
        // No HDF5 filter: no `_Codecs` form.
        assert!(
            nczarr::codecs_to_filters(&format!("[{config}]")).is_err(),
            "{id}"
        );
    }
}

#[test]
fn the_registry_and_the_known_filter_table_agree() {
    for codec in registry::CODECS {
        // A codec carried into HDF5 has the plugin's chunk format; a numcodecs codec
        // with no HDF5 filter has none.
        let entry = codec.entry();
        if entry.carried_into_hdf5 {
            assert!(codec.wire().is_some(), "{}", entry.name());
        }
        if entry.hdf5_id.is_none() {
            assert!(codec.wire().is_none(), "{}", entry.name());
        }
    }
    for codec in registry::entries() {
        assert_eq!(registry::by_numcodecs_id(codec.numcodecs_id), Some(codec));
        if let Some(id) = codec.hdf5_id {
            let known = codecs::known::by_id(id).unwrap_or_else(|| panic!("{id} unknown"));
            assert_eq!(codecs::known::codec_of(known.id), Some(codec.numcodecs_id));
            assert_eq!(registry::is_passthrough(id), codec.passthrough);
            assert_eq!(numcodecs::has_codec(id), codec.implemented);
        }
    }
}

/// Szip's HDF5 chunks through libaec, with the four words HDF5 stores (mask 141:
/// ALLOW_K13, EC, LSB, RAW; 32 pixels per block; 32 bits per pixel; 1024 pixels per
/// scanline): round trip, the size header, the bound, and parameters short of four.
#[test]
fn szip_chunks_round_trip_with_hdf5s_parameters() {
    // Small unsigned values: what szip (without its nearest-neighbour preprocessor)
    // compresses.
    let data: Vec<u8> = (0..4096u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
    let params = [141, 32, 32, 1024];
    let encoded = codecs::wire::encode(4, &params, &data).unwrap_or_else(|e| panic!("{e}"));
    assert!(encoded.len() < data.len());
    assert_eq!(&encoded[..4], &(data.len() as u32).to_le_bytes());
    let decoded = codecs::wire::decode_with(4, &params, &encoded, data.len())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(decoded == data);
    assert!(codecs::wire::decode_with(4, &params, &encoded, data.len() - 1).is_err());
    assert!(codecs::wire::decode_with(4, &params[..2], &encoded, data.len()).is_err());
    // Words from a hostile file: a block size of 0 (libaec would divide by it), odd, or
    // too large; bits per pixel past 32; are refused before libaec runs.
    for words in [
        [141, 0, 32, 1024],
        [141, 7, 32, 1024],
        [141, 64, 32, 1024],
        [141, 32, 40, 1024],
        [141, 32, 32, 0],
    ] {
        assert!(
            codecs::wire::decode_with(4, &words, &encoded, data.len()).is_err(),
            "{words:?}"
        );
    }
    let decoder = ChunkDecoder::new(&[FilterSpec::new(4, params.to_vec())], 4)
        .unwrap_or_else(|| panic!("no szip decoder"));
    let decoded = decoder
        .decode(&encoded, 0, data.len())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(decoded == data);
    // The two words netCDF reports are not enough: HDF5 decodes those chunks itself.
    assert!(ChunkDecoder::new(&[FilterSpec::new(4, vec![32, 32])], 4).is_none());
    // HDF5's four words encode HDF5's chunks: those that do not shrink are stored without
    // szip, its bit set in the chunk's filter mask, as HDF5 skips an optional filter.
    let encoder = ChunkEncoder::new(&[FilterSpec::new(4, params.to_vec())], 4, data.len())
        .unwrap_or_else(|| panic!("no szip encoder"));
    let masked = encoder
        .encode_masked(&data)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(masked, (0, encoded));
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let masked = encoder
        .encode_masked(&noise)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(masked, (1, noise.clone()));
    assert!(matches!(
        encoder.encode(&noise),
        Err(codecs::EncodeError::Skipped)
    ));
}

/// HDF5's szip words (`H5Pset_szip`, then its set-local step), as libhdf5 stored them in
/// files the reference nccopy wrote with `-F '*,4,32,32'` (h5py's `get_filter`): mask 169
/// (ALLOW_K13, LSB, NN, RAW), bits per pixel from the type, the scanline from the chunk's
/// fastest dimension, or the chunk's values where that is shorter than a block; and the
/// types and chunks HDF5 refuses.
#[test]
fn szip_words_are_hdf5s() {
    let words = |element, scanline, values| {
        codecs::szip_hdf5_words(&[32, 32], element, false, scanline, values)
    };
    assert_eq!(words(4, 37, 370), Some(vec![169, 32, 32, 37]));
    assert_eq!(words(8, 37, 370), Some(vec![169, 32, 64, 37]));
    assert_eq!(words(1, 37, 370), Some(vec![169, 32, 8, 37]));
    assert_eq!(words(2, 13, 91), Some(vec![169, 32, 16, 91]));
    assert_eq!(words(4, 26, 364), Some(vec![169, 32, 32, 364]));
    // At most 128 blocks to a scanline.
    assert_eq!(words(4, 5000, 50_000), Some(vec![169, 32, 32, 4096]));
    assert_eq!(
        codecs::szip_hdf5_words(&[4, 8], 4, false, 3000, 30_000),
        Some(vec![141, 8, 32, 1024])
    );
    // Big-endian values: MSB instead of LSB.
    assert_eq!(
        codecs::szip_hdf5_words(&[32, 32], 4, true, 37, 370),
        Some(vec![177, 32, 32, 37])
    );
    // Values of 16 bytes; a chunk smaller than a block; an odd block.
    assert_eq!(words(16, 37, 370), None);
    assert_eq!(words(4, 10, 20), None);
    assert_eq!(codecs::szip_hdf5_words(&[32, 7], 4, false, 37, 370), None);
}
