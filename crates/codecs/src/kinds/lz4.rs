//! LZ4 (registered filter 32004): numcodecs' `lz4`. numcodecs frames its block
//! differently from the HDF5 plugin, so a chunk does not move between the two as it is.

use serde_json::{json, Value};

use super::reader::ConfigReader;
use crate::known::LZ4;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::{Wire, WireError};

/// LZ4.
#[derive(Debug)]
pub struct Lz4;

const ENTRY: CodecEntry = CodecEntry::hdf5(LZ4, "lz4").carried().not_passthrough();

impl Codec for Lz4 {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    /// The default block size (the whole chunk).
    fn try_candidates(&self) -> &'static [&'static str] {
        &["lz4"]
    }

    fn wire(&self) -> Option<&dyn Wire> {
        Some(self)
    }

    fn codecs_text(&self, _params: &[u32]) -> String {
        "{\"id\": \"lz4\",\"acceleration\": 1}".to_string()
    }

    /// numcodecs' acceleration has no HDF5 counterpart: the plugin's default block.
    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        read.integer("acceleration", -(1 << 16)..=1 << 16, "an integer")?;
        Ok(Vec::new())
    }

    fn store_json(&self, _params: &[u32], _element_size: usize) -> Value {
        json!({"id": "lz4", "acceleration": 1})
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        match params {
            [] | [0] => Some(Decoded::new(
                "block size default (1 GiB)",
                json!({ "block_size": Value::Null }),
            )),
            [size] => Some(Decoded::new(
                format!("block size {size} bytes"),
                json!({ "block_size": size }),
            )),
            _ => None,
        }
    }

    /// numcodecs' framing: the decoded size (4 bytes, little-endian), then one LZ4 block.
    fn zarr_encode(
        &self,
        _params: &[u32],
        _element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        let Ok(size) = u32::try_from(input.len()) else {
            return Some(Err(WireError::Corrupt {
                id: LZ4,
                what: "a chunk of 4 GiB or more, which numcodecs' lz4 cannot frame",
            }));
        };
        let mut out = size.to_le_bytes().to_vec();
        out.extend_from_slice(&lz4_flex::block::compress(input));
        Some(Ok(out))
    }

    fn zarr_decode(
        &self,
        _params: &[u32],
        _element_size: usize,
        input: &[u8],
        max_output: usize,
    ) -> Option<Result<Vec<u8>, WireError>> {
        Some(numcodecs_decode(input, max_output))
    }
}

/// The lz4 plugin's default block size.
const LZ4_DEFAULT_BLOCK: usize = 1 << 30;

/// The HDF Group plugin's framing: the original size (8 bytes, big-endian), the block
/// size (4 bytes, big-endian), then per block its compressed size (4 bytes, big-endian)
/// and the LZ4 block, stored raw when compressing does not make it smaller; parameter:
/// block size in bytes (default 1 GiB, at most the chunk size).
impl Wire for Lz4 {
    fn encode(&self, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
        Ok(lz4_encode(params, input))
    }

    fn decode(
        &self,
        _params: &[u32],
        input: &[u8],
        max_output: usize,
    ) -> Result<Vec<u8>, WireError> {
        lz4_decode(input, max_output)
    }

    fn encoded_bound(&self, params: &[u32], len: usize) -> Option<usize> {
        Some(lz4_encoded_bound(params, len))
    }

    fn encode_into(
        &self,
        params: &[u32],
        input: &[u8],
        out: &mut [u8],
    ) -> Option<Result<usize, WireError>> {
        Some(lz4_encode_into(params, input, out))
    }

    fn decoded_size(&self, input: &[u8]) -> Option<usize> {
        lz4_decoded_size(input)
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Option<Result<usize, WireError>> {
        Some(lz4_decode_into(input, out))
    }
}

/// The largest framing of `len` bytes.
fn lz4_encoded_bound(params: &[u32], len: usize) -> usize {
    let block = lz4_block_size(params, len);
    let blocks = len.div_ceil(block).max(1);
    12 + blocks * (4 + lz4_flex::block::get_maximum_output_size(block))
}

/// The original size a chunk's header gives, when it is plausible for the chunk.
fn lz4_decoded_size(input: &[u8]) -> Option<usize> {
    let total = usize::try_from(lz4_declared_size(input)?).ok()?;
    (total <= input.len().saturating_mul(255)).then_some(total)
}

/// The lz4 plugin's block size for a chunk of `len` bytes.
fn lz4_block_size(params: &[u32], len: usize) -> usize {
    let wanted = params
        .first()
        .map(|b| *b as usize)
        .filter(|b| *b > 0)
        .unwrap_or(LZ4_DEFAULT_BLOCK);
    wanted.min(len).max(1)
}

fn lz4_encode(params: &[u32], input: &[u8]) -> Vec<u8> {
    let bound = lz4_encoded_bound(params, input.len());
    let mut out = vec![0u8; bound];
    let written = lz4_encode_into(params, input, &mut out).unwrap_or(0);
    out.truncate(written);
    out
}

/// Encodes the lz4 plugin's framing into `out` (at least [`lz4_encoded_bound`] long).
fn lz4_encode_into(params: &[u32], input: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    let short = || WireError::Corrupt {
        id: LZ4,
        what: "the output buffer is too short",
    };
    let block = lz4_block_size(params, input.len());
    out.get_mut(..12).ok_or_else(short)?.copy_from_slice(
        &[
            (input.len() as u64).to_be_bytes().as_slice(),
            &(block as u32).to_be_bytes(),
        ]
        .concat(),
    );
    let mut at = 12;
    for piece in input.chunks(block) {
        let room = out.get_mut(at + 4..).ok_or_else(short)?;
        // Compress straight into the output; a block that does not shrink is stored raw.
        let written = lz4_flex::block::compress_into(piece, room).unwrap_or(usize::MAX);
        let stored = if written >= piece.len() {
            room.get_mut(..piece.len())
                .ok_or_else(short)?
                .copy_from_slice(piece);
            piece.len()
        } else {
            written
        };
        out[at..at + 4].copy_from_slice(&(stored as u32).to_be_bytes());
        at += 4 + stored;
    }
    Ok(at)
}

/// The original size an lz4 chunk's header gives, unchecked.
fn lz4_declared_size(input: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(input.get(..8)?.try_into().ok()?))
}

fn lz4_decode(input: &[u8], max_output: usize) -> Result<Vec<u8>, WireError> {
    if lz4_declared_size(input).is_some_and(|n| n > max_output as u64) {
        return Err(WireError::TooLarge {
            id: LZ4,
            limit: max_output,
        });
    }
    let total = lz4_decoded_size(input).ok_or(WireError::Corrupt {
        id: LZ4,
        what: "a header that does not fit the chunk",
    })?;
    let mut out = vec![0u8; total];
    lz4_decode_into(input, &mut out)?;
    Ok(out)
}

/// Decodes the lz4 plugin's framing into `out`, whose length is the header's original size.
fn lz4_decode_into(input: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    let corrupt = |what| WireError::Corrupt { id: LZ4, what };
    let word = |at: usize, len: usize| -> Result<u64, WireError> {
        let end = at.checked_add(len).ok_or_else(|| corrupt("truncated"))?;
        let bytes = input.get(at..end).ok_or_else(|| corrupt("truncated"))?;
        Ok(bytes.iter().fold(0u64, |v, b| (v << 8) | u64::from(*b)))
    };
    let total = usize::try_from(word(0, 8)?).map_err(|_| corrupt("original size too large"))?;
    let block = usize::try_from(word(8, 4)?).map_err(|_| corrupt("block size"))?;
    if total != out.len() {
        return Err(corrupt("original size"));
    }
    if block == 0 && total > 0 {
        return Err(corrupt("block size 0"));
    }
    let (mut done, mut at) = (0usize, 12usize);
    while done < total {
        let stored = usize::try_from(word(at, 4)?).map_err(|_| corrupt("block size"))?;
        at += 4;
        let end = at
            .checked_add(stored)
            .ok_or_else(|| corrupt("truncated block"))?;
        let data = input
            .get(at..end)
            .ok_or_else(|| corrupt("truncated block"))?;
        at = end;
        let expected = block.min(total - done);
        let target = &mut out[done..done + expected];
        if stored == expected {
            target.copy_from_slice(data);
        } else {
            let n = lz4_flex::block::decompress_into(data, target)
                .map_err(|_| corrupt("a block does not decompress"))?;
            if n != expected {
                return Err(corrupt("a block decompresses to the wrong size"));
            }
        }
        done += expected;
    }
    if at != input.len() {
        return Err(corrupt("bytes after the last block"));
    }
    Ok(done)
}

/// A chunk in numcodecs' framing, if it decodes to at most `max_output` bytes.
fn numcodecs_decode(input: &[u8], max_output: usize) -> Result<Vec<u8>, WireError> {
    let corrupt = |what| WireError::Corrupt { id: LZ4, what };
    let (mut out, block) = crate::wire::sized_payload(LZ4, input, max_output)?;
    let written = lz4_flex::block::decompress_into(block, &mut out)
        .map_err(|_| corrupt("an LZ4 block that does not decode"))?;
    if written != out.len() {
        return Err(corrupt("an LZ4 block shorter than its header says"));
    }
    Ok(out)
}
