//! Our Zarr chunk bytes against numcodecs' own (golden files made by
//! `tests/data/numcodecs/gen.py` with numcodecs 0.16.6): every chunk numcodecs wrote
//! decodes to the input, and where numcodecs is deterministic and uses the same library
//! (bzip2, zstd, shuffle, fletcher32, c-blosc) our encoding is byte-identical.

use std::path::Path;

use codecs::numcodecs::{decode, encode};
use codecs::FilterSpec;

fn golden(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/numcodecs")
        .join(format!("{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cases() -> Vec<(&'static str, FilterSpec, bool)> {
    vec![
        // zlib-rs (our deflate, for speed) picks its own matches: valid zlib, other bytes.
        ("zlib5", FilterSpec::new(1, [5]), false),
        ("bz2_9", FilterSpec::new(307, [9]), true),
        ("zstd3", FilterSpec::new(32015, [3]), true),
        ("shuffle4", FilterSpec::new(2, []), true),
        ("fletcher32", FilterSpec::new(3, []), true),
        // lz4_flex picks its own matches: valid LZ4, not liblz4's bytes.
        ("lz4", FilterSpec::new(32004, []), false),
        (
            "blosc_lz4_5_shuffle",
            FilterSpec::new(32001, [0, 0, 0, 0, 5, 1, 1]),
            true,
        ),
        (
            "blosc_zstd_3_noshuffle",
            FilterSpec::new(32001, [0, 0, 0, 0, 3, 0, 5]),
            true,
        ),
    ]
}

#[test]
fn chunks_numcodecs_wrote_decode_to_the_input() {
    let input = golden("input");
    for (name, filter, _) in cases() {
        let decoded = decode(&filter, 4, &golden(name), input.len())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(decoded == input, "{name}: decoded data differ");
    }
}

#[test]
fn our_chunks_are_numcodecs_bytes() {
    let input = golden("input");
    for (name, filter, identical) in cases() {
        let ours = encode(&filter, 4, &input).unwrap_or_else(|e| panic!("{name}: {e}"));
        if identical {
            assert!(
                ours == golden(name),
                "{name}: our bytes differ from numcodecs'"
            );
        } else {
            let back = decode(&filter, 4, &ours, input.len());
            assert!(back.is_ok_and(|b| b == input), "{name}: no round trip");
        }
    }
}
