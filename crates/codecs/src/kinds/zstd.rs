//! Zstandard (registered filter 32015): numcodecs' `zstd`, Zarr version 3's core `zstd`,
//! one parameter, the level (negative for the fast modes).

use serde_json::{json, Map, Value};

use super::deflate::word;
use super::reader::ConfigReader;
use crate::known::ZSTD;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::{codec_error, decode_error, Wire, WireError};

/// Zstandard.
#[derive(Debug)]
pub struct Zstd;

const ENTRY: CodecEntry = CodecEntry::hdf5(ZSTD, "zstd")
    .carried()
    .core("zstd")
    .netcdf4_python("zstd");

impl Codec for Zstd {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    /// Levels 1, 3, 9 and 19, without and with shuffle.
    fn try_candidates(&self) -> &'static [&'static str] {
        &[
            "zstd,1",
            "zstd,3",
            "zstd,9",
            "zstd,19",
            "shuffle|zstd,1",
            "shuffle|zstd,3",
            "shuffle|zstd,9",
            "shuffle|zstd,19",
        ]
    }

    fn wire(&self) -> Option<&dyn Wire> {
        Some(self)
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        format!("{{\"id\": \"zstd\",\"level\": {}}}", word(params, 0) as i32)
    }

    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(vec![read.required(
            "level",
            -131072..=22,
            "an integer up to 22",
        )?])
    }

    fn store_json(&self, params: &[u32], _element_size: usize) -> Value {
        json!({"id": "zstd", "level": params.first().map_or(3, |l| *l as i32)})
    }

    /// Version 3's zstd has a `checksum` member (false: numcodecs writes none).
    fn numcodecs_to_v3(
        &self,
        configuration: &mut Map<String, Value>,
        _element_size: usize,
    ) -> String {
        configuration.entry("checksum").or_insert(json!(false));
        "zstd".into()
    }

    /// Negative (fast) levels are stored as their two's-complement bits.
    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        let [level] = params else { return None };
        let level = *level as i32;
        Some(Decoded::new(
            format!("level {level}"),
            json!({ "level": level }),
        ))
    }
}

/// The smallest and largest window (log2 of bytes) a streaming zstd decoder accepts: the
/// window the frame needs must fit the chunk, but every streaming encoder up to level 19
/// declares 2^23 whatever the size, and 2^27 is zstd's own default limit.
const ZSTD_WINDOW_LOG: (u32, u32) = (23, 27);

/// The plugin's chunk: one zstd frame with its content size (frames without it are read
/// too); parameter: level (default 3).
impl Wire for Zstd {
    fn encode(&self, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
        zstd::bulk::compress(input, level(params)).map_err(codec_error(ZSTD))
    }

    fn decode(
        &self,
        _params: &[u32],
        input: &[u8],
        max_output: usize,
    ) -> Result<Vec<u8>, WireError> {
        zstd_decode(input, max_output)
    }

    fn encoded_bound(&self, _params: &[u32], len: usize) -> Option<usize> {
        Some(zstd::zstd_safe::compress_bound(len))
    }

    fn encode_into(
        &self,
        params: &[u32],
        input: &[u8],
        out: &mut [u8],
    ) -> Option<Result<usize, WireError>> {
        Some(zstd::bulk::compress_to_buffer(input, out, level(params)).map_err(codec_error(ZSTD)))
    }

    fn decoded_size(&self, input: &[u8]) -> Option<usize> {
        zstd::zstd_safe::get_frame_content_size(input)
            .ok()
            .flatten()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n <= input.len().saturating_mul(32_768))
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Option<Result<usize, WireError>> {
        Some(zstd::bulk::decompress_to_buffer(input, out).map_err(codec_error(ZSTD)))
    }
}

/// The level of the filter's parameters (negative levels as their two's-complement bits).
fn level(params: &[u32]) -> i32 {
    params.first().map_or(3, |l| *l as i32)
}

/// A zstd chunk (frames with or without their content size) decoded with a streaming
/// decoder, stopped one byte past `max_output`.
fn zstd_decode(input: &[u8], max_output: usize) -> Result<Vec<u8>, WireError> {
    let declared = zstd::zstd_safe::get_frame_content_size(input)
        .ok()
        .flatten()
        .and_then(|n| usize::try_from(n).ok());
    if declared.is_some_and(|n| n > max_output) {
        return Err(WireError::TooLarge {
            id: ZSTD,
            limit: max_output,
        });
    }
    let mut decoder = zstd::stream::read::Decoder::with_buffer(input).map_err(codec_error(ZSTD))?;
    decoder
        .window_log_max(zstd_window_log_max(max_output))
        .map_err(codec_error(ZSTD))?;
    // The declared size is a hint only here; a lying header is caught by the decoder.
    let expected = declared.filter(|n| *n <= input.len().saturating_mul(32_768));
    crate::codec::read_bounded(decoder, max_output, expected.unwrap_or(0))
        .map_err(decode_error(ZSTD))
}

/// The largest zstd window accepted for chunks of at most `max_output` bytes: the window
/// that covers them, within [`ZSTD_WINDOW_LOG`].
fn zstd_window_log_max(max_output: usize) -> u32 {
    let (low, high) = ZSTD_WINDOW_LOG;
    let covering = usize::BITS - max_output.saturating_sub(1).leading_zeros();
    covering.clamp(low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zstd_window_covers_the_chunk_within_bounds() {
        assert_eq!(zstd_window_log_max(4096), 23);
        assert_eq!(zstd_window_log_max((1 << 25) + 1), 26);
        assert_eq!(zstd_window_log_max(usize::MAX), 27);
    }
}
