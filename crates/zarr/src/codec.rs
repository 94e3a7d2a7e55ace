//! numcodecs codecs: their HDF5 filter equivalents and the chunk bytes they read and
//! write. Private to the crate until the shared table in `filterspec`/`h5filters` lands.

use filterspec::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, ZSTD};
use filterspec::FilterSpec;
use serde_json::{json, Value};

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

fn integer(codec: &Value, key: &str) -> Option<i64> {
    match codec.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The HDF5 filter equivalent of a codec, when it has one.
pub fn filter_of_codec(codec: &Value) -> Option<FilterSpec> {
    if codec_id(codec) == "lz4" {
        return Some(FilterSpec::new(LZ4, []));
    }
    let text = format!("[{codec}]");
    filterspec::codecs_to_filters(&text)
        .ok()
        .and_then(|f| f.into_iter().next())
}

/// The numcodecs JSON of an HDF5 filter for elements of `element_size` bytes.
pub fn codec_of_filter(filter: &FilterSpec, element_size: usize) -> Result<Value, String> {
    let p = |i: usize| filter.params.get(i).copied();
    Ok(match filter.id {
        SHUFFLE => json!({"id": "shuffle", "elementsize": element_size}),
        FLETCHER32 => json!({"id": "fletcher32"}),
        DEFLATE => json!({"id": "zlib", "level": p(0).unwrap_or(6)}),
        BZIP2 => json!({"id": "bz2", "level": p(0).unwrap_or(9)}),
        ZSTD => json!({"id": "zstd", "level": p(0).map_or(3, |l| l as i32)}),
        LZ4 => json!({"id": "lz4", "acceleration": 1}),
        BLOSC => {
            let cname = filterspec::codecs::BLOSC_COMPRESSORS
                .get(p(6).unwrap_or(1) as usize)
                .copied()
                .unwrap_or("lz4");
            json!({"id": "blosc", "cname": cname, "clevel": p(4).unwrap_or(5),
                   "shuffle": p(5).map_or(1, |s| s as i32), "blocksize": 0})
        }
        id => {
            let name = filterspec::known::name_of(id).unwrap_or("unknown");
            return Err(format!(
                "filter {id} ({name}) has no Zarr codec in nctools; Zarr stores can use \
                 bzip2, zstd, blosc, lz4, deflate (zlib), shuffle and fletcher32 (choose \
                 one of them with -F, or -F none)"
            ));
        }
    })
}

/// Encodes one chunk through `codecs` (filters, then the compressor).
pub fn encode_chain(
    codecs: &[Value],
    element_size: usize,
    input: Vec<u8>,
) -> Result<Vec<u8>, CodecFail> {
    codecs
        .iter()
        .try_fold(input, |data, codec| encode_one(codec, element_size, data))
}

/// Decodes one chunk through `codecs` (the compressor first), to at most `max_output`
/// bytes at every stage.
pub fn decode_chain(
    codecs: &[Value],
    element_size: usize,
    input: Vec<u8>,
    max_output: usize,
) -> Result<Vec<u8>, CodecFail> {
    codecs.iter().rev().try_fold(input, |data, codec| {
        decode_one(codec, element_size, &data, max_output)
    })
}

fn failed(id: &str) -> impl Fn(String) -> CodecFail + '_ {
    move |e| CodecFail::Failed(format!("codec {id:?}: {e}"))
}

fn encode_one(codec: &Value, element_size: usize, data: Vec<u8>) -> Result<Vec<u8>, CodecFail> {
    let id = codec_id(codec);
    let level = |default: i64| integer(codec, "level").unwrap_or(default);
    let fail = failed(id);
    match id {
        "shuffle" => {
            let size = integer(codec, "elementsize").map_or(element_size, |s| s.max(1) as usize);
            Ok(h5filters::shuffle(&data, size))
        }
        "fletcher32" => {
            let mut out = data;
            let sum = fletcher32(&out);
            out.extend_from_slice(&sum.to_le_bytes());
            Ok(out)
        }
        "zlib" => {
            h5filters::deflate(&data, level(1).clamp(0, 9) as u32).map_err(|e| fail(e.to_string()))
        }
        "bz2" => h5filters::wire::encode(BZIP2, &[level(9).clamp(1, 9) as u32], &data)
            .map_err(|e| fail(e.to_string())),
        "zstd" => h5filters::wire::encode(ZSTD, &[level(0) as i32 as u32], &data)
            .map_err(|e| fail(e.to_string())),
        "lz4" => Ok(lz4_encode(&data)),
        "blosc" => {
            let Some(filter) = filter_of_codec(codec) else {
                return Err(fail("bad parameters".into()));
            };
            let size = u32::try_from(element_size)
                .ok()
                .filter(|s| *s <= 255)
                .unwrap_or(1);
            let bytes = u32::try_from(data.len()).unwrap_or(u32::MAX);
            let params = h5filters::blosc::local_params(&filter.params, size, bytes);
            h5filters::blosc::encode(&params, &data).map_err(|e| fail(e.to_string()))
        }
        other => Err(CodecFail::Unavailable(other.to_string())),
    }
}

fn decode_one(
    codec: &Value,
    element_size: usize,
    data: &[u8],
    max: usize,
) -> Result<Vec<u8>, CodecFail> {
    let id = codec_id(codec);
    let fail = failed(id);
    // Checksums and shuffles never grow; a checksum stage may see four bytes more.
    let max = max.saturating_add(64);
    match id {
        "shuffle" => {
            let size = integer(codec, "elementsize").map_or(element_size, |s| s.max(1) as usize);
            Ok(h5filters::unshuffle(data, size))
        }
        "fletcher32" => {
            let Some(split) = data.len().checked_sub(4) else {
                return Err(fail("chunk shorter than its checksum".into()));
            };
            let (body, sum) = data.split_at(split);
            let stored = u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]);
            if fletcher32(body) != stored {
                return Err(fail("checksum mismatch: the chunk is corrupt".into()));
            }
            Ok(body.to_vec())
        }
        "zlib" => h5filters::inflate(data, max).map_err(|e| fail(e.to_string())),
        "bz2" => h5filters::wire::decode(BZIP2, data, max).map_err(|e| fail(e.to_string())),
        "zstd" => h5filters::wire::decode(ZSTD, data, max).map_err(|e| fail(e.to_string())),
        "blosc" => h5filters::blosc::decode(data, max).map_err(|e| fail(e.to_string())),
        "lz4" => lz4_decode(data, max).map_err(fail),
        other => Err(CodecFail::Unavailable(other.to_string())),
    }
}

/// numcodecs' Fletcher-32: HDF5's algorithm over little-endian 16-bit words.
fn fletcher32(data: &[u8]) -> u32 {
    let (mut sum1, mut sum2) = (0u32, 0u32);
    for block in data.chunks(720) {
        for word in block.chunks(2) {
            let w = u32::from(word[0]) | word.get(1).map_or(0, |b| u32::from(*b) << 8);
            sum1 += w;
            sum2 += sum1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

/// numcodecs' LZ4: the decoded size (4 bytes, little-endian), then one LZ4 block.
fn lz4_encode(data: &[u8]) -> Vec<u8> {
    let len = data.len() as u32;
    let framed = h5filters::wire::encode(LZ4, &[len.max(1)], data).unwrap_or_default();
    // The plugin's frame: size (8), block size (4), block length (4), block.
    let block = framed
        .get(16..)
        .filter(|b| framed.len() >= 16 && b.len() < data.len());
    let mut out = len.to_le_bytes().to_vec();
    match block {
        Some(block) => out.extend_from_slice(block),
        None => literal_block(data, &mut out),
    }
    out
}

/// An LZ4 block holding `data` as literals only.
fn literal_block(data: &[u8], out: &mut Vec<u8>) {
    let n = data.len();
    out.push(if n >= 15 { 0xF0 } else { (n as u8) << 4 });
    if n >= 15 {
        let mut rest = n - 15;
        while rest >= 255 {
            out.push(255);
            rest -= 255;
        }
        out.push(rest as u8);
    }
    out.extend_from_slice(data);
}

fn lz4_decode(data: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let Some((head, block)) = data.split_first_chunk::<4>() else {
        return Err("chunk shorter than its header".into());
    };
    let size = u32::from_le_bytes(*head) as usize;
    if size > max {
        return Err(format!(
            "the chunk declares {size} bytes, more than the {max} expected"
        ));
    }
    let mut framed = (size as u64).to_be_bytes().to_vec();
    framed.extend_from_slice(&(size.max(1) as u32).to_be_bytes());
    framed.extend_from_slice(&(block.len() as u32).to_be_bytes());
    framed.extend_from_slice(block);
    h5filters::wire::decode(LZ4, &framed, max).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut out = Vec::new();
        literal_block(&[7; 20], &mut out);
        let mut framed = 20u32.to_le_bytes().to_vec();
        framed.extend(out);
        assert_eq!(lz4_decode(&framed, 20), Ok(vec![7; 20]));
        Ok(())
    }
}
