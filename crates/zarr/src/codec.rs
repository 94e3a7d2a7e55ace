//! numcodecs codecs through the shared table (`filterspec::zarr_codec`,
//! `filterspec::filter_of_codec`) and chunk bytes (`h5filters::numcodecs`): the
//! crate's only door to them.

use filterspec::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, ZSTD};
use filterspec::FilterSpec;
use serde_json::Value;

/// The numcodecs ids whose chunks nctools reads and writes.
pub const AVAILABLE: [&str; 7] = [
    "bz2",
    "zstd",
    "blosc",
    "lz4",
    "zlib",
    "shuffle",
    "fletcher32",
];

/// The filter ids that have a codec here.
pub const AVAILABLE_FILTERS: [u32; 7] = [BZIP2, ZSTD, BLOSC, LZ4, DEFLATE, SHUFFLE, FLETCHER32];

/// Why a chunk could not be encoded or decoded.
#[derive(Debug)]
pub enum CodecFail {
    /// The codec is not one nctools has.
    Unavailable(String),
    /// The codec failed on these bytes.
    Failed(String),
}

/// A codec's id (`"zlib"`), or `"?"`.
pub fn codec_id(codec: &Value) -> &str {
    codec.get("id").and_then(Value::as_str).unwrap_or("?")
}

/// The HDF5 filter equivalent of a codec, when it has one (a shuffle without its element
/// size, which HDF5 takes from the type; the chunks are decoded with it, see
/// `filters_of`).
pub fn filter_of_codec(codec: &Value) -> Option<FilterSpec> {
    filterspec::filter_of_codec(codec).ok().map(|f| match f.id {
        SHUFFLE => FilterSpec::new(SHUFFLE, []),
        _ => f,
    })
}

/// The numcodecs JSON of an HDF5 filter for elements of `element_size` bytes.
pub fn codec_of_filter(filter: &FilterSpec, element_size: usize) -> Result<Value, String> {
    filterspec::zarr_codec(filter, element_size).map_err(|e| {
        let name = filterspec::known::name_of(filter.id).unwrap_or("unknown");
        format!(
            "filter {} ({name}) has no Zarr codec in nctools ({e}); Zarr stores can use \
             bzip2, zstd, blosc, lz4, deflate (zlib), shuffle and fletcher32 (choose one of \
             them with -F, or -F none)",
            filter.id
        )
    })
}

fn filters_of(codecs: &[Value]) -> Result<Vec<FilterSpec>, CodecFail> {
    codecs
        .iter()
        .map(|c| match filterspec::filter_of_codec(c) {
            Ok(f) if h5filters::numcodecs::has_codec(f.id) => Ok(f),
            // A codec we have, with a parameter out of its range (shuffle's elementsize 0).
            Err(e @ filterspec::CodecError::BadValue { .. }) => {
                Err(CodecFail::Failed(format!("{c}: {e}")))
            }
            _ => Err(CodecFail::Unavailable(codec_id(c).to_string())),
        })
        .collect()
}

/// Encodes one chunk through `codecs` (filters, then the compressor).
pub fn encode_chain(
    codecs: &[Value],
    element_size: usize,
    input: Vec<u8>,
) -> Result<Vec<u8>, CodecFail> {
    if codecs.is_empty() {
        return Ok(input);
    }
    let filters = filters_of(codecs)?;
    h5filters::numcodecs::encode_pipeline(&filters, element_size, &input)
        .map_err(|e| CodecFail::Failed(e.to_string()))
}

/// Decodes one chunk through `codecs` (the compressor first), bounded by `max_output`.
pub fn decode_chain(
    codecs: &[Value],
    element_size: usize,
    input: Vec<u8>,
    max_output: usize,
) -> Result<Vec<u8>, CodecFail> {
    let filters = filters_of(codecs)?;
    h5filters::numcodecs::decode_pipeline(&filters, element_size, &input, max_output)
        .map_err(|e| CodecFail::Failed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_codec_round_trips() -> Result<(), String> {
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i % 97).to_le_bytes()).collect();
        for codec in [
            json!({"id": "zlib", "level": 4}),
            json!({"id": "bz2", "level": "9"}),
            json!({"id": "zstd", "level": 3}),
            json!({"id": "lz4", "acceleration": 1}),
            json!({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}),
            json!({"id": "shuffle", "elementsize": 4}),
            json!({"id": "fletcher32"}),
        ] {
            let chain = [codec.clone()];
            let enc = encode_chain(&chain, 4, data.clone()).map_err(|e| format!("{e:?}"))?;
            let dec = decode_chain(&chain, 4, enc, data.len()).map_err(|e| format!("{e:?}"))?;
            assert!(dec == data, "{codec}");
        }
        Ok(())
    }
}
