//! The chunk formats of the standard HDF5 filter plugins, as pure functions:
//!
//! - bzip2 (307): a plain bzip2 stream; parameter: block size 1-9 (default 9);
//! - zstd (32015): one zstd frame with its content size (frames without it are read
//!   too); parameter: level (default 3);
//! - lz4 (32004): the HDF Group plugin's framing: the original size (8 bytes, big-endian),
//!   the block size (4 bytes, big-endian), then per block its compressed size (4 bytes,
//!   big-endian) and the LZ4 block, stored raw when compressing does not make it smaller;
//!   parameter: block size in bytes (default 1 GiB, at most the chunk size);
//! - blosc (32001): one blosc1 frame (see [`crate::blosc`]).
//!
//! Decoding is bounded: [`decode`] takes the most a chunk may decode to and fails with
//! [`WireError::TooLarge`] as soon as it would go beyond, without allocating or producing
//! the excess; [`decode_into`] is bounded by its output buffer.

use crate::codec::{self, DecodeError};

pub use crate::known::{BLOSC, BZIP2, LZ4, ZSTD};

/// The lz4 plugin's default block size.
const LZ4_DEFAULT_BLOCK: usize = 1 << 30;

/// The smallest and largest window (log2 of bytes) a streaming zstd decoder accepts: the
/// window the frame needs must fit the chunk, but every streaming encoder up to level 19
/// declares 2^23 whatever the size, and 2^27 is zstd's own default limit.
const ZSTD_WINDOW_LOG: (u32, u32) = (23, 27);

/// Which way a filter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Writing: compress.
    Encode,
    /// Reading: decompress.
    Decode,
}

/// A chunk that cannot be encoded or decoded.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The codec failed (corrupt input, usually).
    #[error("filter {id}: {message}")]
    Codec {
        /// The filter.
        id: u32,
        /// What the codec said.
        message: String,
    },
    /// The framing is wrong (truncated, sizes that do not add up).
    #[error("filter {id}: corrupt chunk: {what}")]
    Corrupt {
        /// The filter.
        id: u32,
        /// What is wrong.
        what: &'static str,
    },
    /// The chunk decodes to more than the limit (a decompression bomb, or a corrupt
    /// header).
    #[error("filter {id}: the chunk decodes to more than {limit} bytes")]
    TooLarge {
        /// The filter.
        id: u32,
        /// The most the caller accepted, in bytes.
        limit: usize,
    },
    /// Not a built-in filter.
    #[error("filter {0} is not built in")]
    Unknown(u32),
}

fn codec_error(id: u32) -> impl Fn(std::io::Error) -> WireError {
    move |e| WireError::Codec {
        id,
        message: e.to_string(),
    }
}

fn decode_error(id: u32) -> impl Fn(DecodeError) -> WireError {
    move |e| match e {
        DecodeError::Io(e) => codec_error(id)(e),
        DecodeError::TooLarge { limit } => WireError::TooLarge { id, limit },
    }
}

/// Encodes one chunk with the built-in filter `id` and its parameters.
pub fn encode(id: u32, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
    match id {
        BZIP2 => {
            let level = params
                .first()
                .copied()
                .filter(|l| (1..=9).contains(l))
                .unwrap_or(9);
            codec::bzip2_compress(input, level).map_err(codec_error(id))
        }
        ZSTD => {
            let level = params.first().map_or(3, |l| *l as i32);
            zstd::bulk::compress(input, level).map_err(codec_error(id))
        }
        LZ4 => Ok(lz4_encode(params, input)),
        BLOSC => crate::blosc::encode(params, input),
        _ => Err(WireError::Unknown(id)),
    }
}

/// Decodes one chunk of the built-in filter `id`, if it decodes to at most `max_output`
/// bytes: otherwise [`WireError::TooLarge`], found without producing the excess (sizes
/// declared in lz4, blosc and zstd headers are checked before anything is allocated;
/// bzip2 and zstd streams stop one byte past the limit). Decoding needs no parameters:
/// every format describes itself.
pub fn decode(id: u32, input: &[u8], max_output: usize) -> Result<Vec<u8>, WireError> {
    match id {
        BZIP2 => codec::bzip2_decompress(input, max_output).map_err(decode_error(id)),
        ZSTD => zstd_decode(input, max_output),
        LZ4 => lz4_decode(input, max_output),
        BLOSC => crate::blosc::decode(input, max_output),
        _ => Err(WireError::Unknown(id)),
    }
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
    codec::read_bounded(decoder, max_output, expected.unwrap_or(0)).map_err(decode_error(ZSTD))
}

/// The largest zstd window accepted for chunks of at most `max_output` bytes: the window
/// that covers them, within [`ZSTD_WINDOW_LOG`].
fn zstd_window_log_max(max_output: usize) -> u32 {
    let (low, high) = ZSTD_WINDOW_LOG;
    let covering = usize::BITS - max_output.saturating_sub(1).leading_zeros();
    covering.clamp(low, high)
}

/// The largest encoding of `len` bytes, for the filters that can encode into a buffer
/// given in advance (zstd, lz4, blosc; not bzip2): [`encode_into`] then writes straight
/// into it.
pub fn encoded_bound(id: u32, params: &[u32], len: usize) -> Option<usize> {
    match id {
        ZSTD => Some(zstd::zstd_safe::compress_bound(len)),
        LZ4 => {
            let block = lz4_block_size(params, len);
            let blocks = len.div_ceil(block).max(1);
            Some(12 + blocks * (4 + lz4_flex::block::get_maximum_output_size(block)))
        }
        BLOSC => Some(len + blosc_src_overhead()),
        _ => None,
    }
}

fn blosc_src_overhead() -> usize {
    crate::blosc::MAX_OVERHEAD
}

/// Encodes one chunk into `out` (at least [`encoded_bound`] long); returns the length
/// written.
pub fn encode_into(
    id: u32,
    params: &[u32],
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, WireError> {
    match id {
        ZSTD => {
            let level = params.first().map_or(3, |l| *l as i32);
            zstd::bulk::compress_to_buffer(input, out, level).map_err(codec_error(id))
        }
        LZ4 => lz4_encode_into(params, input, out),
        BLOSC => crate::blosc::encode_into(params, input, out),
        _ => Err(WireError::Unknown(id)),
    }
}

/// The size a chunk decodes to, when its own header says it (zstd frames with a content
/// size, lz4 and blosc; not bzip2): then [`decode_into`] can write straight into a buffer
/// of that size. Corrupt headers give `None`; decoding then reports the error. The size
/// comes from the file: compare it with the chunk size expected before allocating a
/// buffer that large ([`decode`] does).
pub fn decoded_size(id: u32, input: &[u8]) -> Option<usize> {
    match id {
        ZSTD => zstd::zstd_safe::get_frame_content_size(input)
            .ok()
            .flatten()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n <= input.len().saturating_mul(32_768)),
        LZ4 => {
            let total = usize::try_from(lz4_declared_size(input)?).ok()?;
            (total <= input.len().saturating_mul(255)).then_some(total)
        }
        BLOSC => crate::blosc::decoded_size(input),
        _ => None,
    }
}

/// Decodes one chunk into `out`, whose length is [`decoded_size`]; returns the length
/// written, which must be all of `out`.
pub fn decode_into(id: u32, input: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    let written = match id {
        ZSTD => zstd::bulk::decompress_to_buffer(input, out).map_err(codec_error(id))?,
        LZ4 => lz4_decode_into(input, out)?,
        BLOSC => crate::blosc::decode_into(input, out)?,
        _ => return Err(WireError::Unknown(id)),
    };
    if written != out.len() {
        return Err(WireError::Corrupt {
            id,
            what: "the chunk decodes to another size than its header says",
        });
    }
    Ok(written)
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
    let bound = encoded_bound(LZ4, params, input.len()).unwrap_or(0);
    let mut out = vec![0u8; bound];
    let written = lz4_encode_into(params, input, &mut out).unwrap_or(0);
    out.truncate(written);
    out
}

/// Encodes the lz4 plugin's framing into `out` (at least [`encoded_bound`] long).
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
    let total = decoded_size(LZ4, input).ok_or(WireError::Corrupt {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A limit far above every chunk of these tests.
    const LIMIT: usize = 1 << 24;

    fn sample() -> Vec<u8> {
        (0..50_000u32)
            .flat_map(|i| (i / 13).to_le_bytes())
            .collect()
    }

    #[test]
    fn every_builtin_round_trips() -> Result<(), WireError> {
        let data = sample();
        for (id, params) in [
            (BZIP2, vec![9]),
            (ZSTD, vec![3]),
            (LZ4, vec![]),
            (LZ4, vec![4096]),
        ] {
            let encoded = encode(id, &params, &data)?;
            assert!(encoded.len() < data.len(), "{id}");
            assert_eq!(decode(id, &encoded, LIMIT)?, data, "{id}");
        }
        Ok(())
    }

    #[test]
    fn lz4_framing_is_the_plugins() -> Result<(), WireError> {
        let data = sample();
        let encoded = encode(LZ4, &[65536], &data)?;
        assert_eq!(&encoded[..8], &(data.len() as u64).to_be_bytes());
        assert_eq!(&encoded[8..12], &65536u32.to_be_bytes());
        // Incompressible blocks are stored raw, with their own size.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..1000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 56) as u8
            })
            .collect();
        let raw = encode(LZ4, &[], &noise)?;
        assert_eq!(&raw[12..16], &1000u32.to_be_bytes());
        assert_eq!(&raw[16..], &noise[..]);
        Ok(())
    }

    #[test]
    fn corrupt_chunks_are_errors_not_crashes() {
        let data = sample();
        for id in [BZIP2, ZSTD, LZ4] {
            let encoded = encode(id, &[], &data).unwrap_or_default();
            for cut in [0, 5, 13, encoded.len() / 2] {
                assert!(decode(id, &encoded[..cut], LIMIT).is_err(), "{id} {cut}");
            }
            let mut flipped = encoded.clone();
            let middle = flipped.len() / 2;
            flipped[middle] ^= 0xff;
            flipped[12] ^= 0x55;
            // Either an error or (for a lucky flip) some output; never a panic.
            let _ = decode(id, &flipped, LIMIT);
        }
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// A limit far above every chunk of these tests.
    const LIMIT: usize = 1 << 24;

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Noise(u64);

    impl Noise {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Random bytes and mutated valid chunks never crash a decoder: they decode (to
    /// something) or fail with an error.
    #[test]
    fn garbage_and_mutated_chunks_never_crash_a_decoder() {
        let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        for id in [BZIP2, ZSTD, LZ4, BLOSC] {
            let params = [2, 2, 4, data.len() as u32, 5, 1, 0];
            let valid = encode(id, &params, &data).unwrap_or_default();
            for round in 0..300 {
                let len = (noise.next() % 200) as usize;
                let garbage: Vec<u8> = (0..len).map(|_| noise.next() as u8).collect();
                let _ = decode(id, &garbage, LIMIT);
                let mut mutated = valid.clone();
                for _ in 0..(1 + round % 4) {
                    let at = (noise.next() as usize) % mutated.len().max(1);
                    if let Some(byte) = mutated.get_mut(at) {
                        *byte ^= (noise.next() as u8) | 1;
                    }
                }
                let cut = (noise.next() as usize) % (mutated.len() + 1);
                let _ = decode(id, &mutated, LIMIT);
                let _ = decode(id, &mutated[..cut], LIMIT);
                if let Some(size) = decoded_size(id, &mutated) {
                    let mut out = vec![0u8; size];
                    let _ = decode_into(id, &mutated, &mut out);
                }
            }
        }
    }
}

#[cfg(test)]
mod bombs {
    use std::io::Write;

    use super::*;

    const MIB: usize = 1 << 20;

    /// `mib` MiB of zeros compressed by a streaming encoder fed 1 MiB at a time, so the
    /// test never holds the whole output; the zstd frame has no content size.
    fn zero_bomb(id: u32, mib: usize) -> std::io::Result<Vec<u8>> {
        fn feed<W: Write>(mut encoder: W, mib: usize) -> std::io::Result<W> {
            let zeros = vec![0u8; MIB];
            for _ in 0..mib {
                encoder.write_all(&zeros)?;
            }
            Ok(encoder)
        }
        if id == BZIP2 {
            let level = bzip2::Compression::new(9);
            feed(bzip2::write::BzEncoder::new(Vec::new(), level), mib)?.finish()
        } else {
            feed(zstd::stream::write::Encoder::new(Vec::new(), 3)?, mib)?.finish()
        }
    }

    fn too_large(result: &Result<Vec<u8>, WireError>, limit: usize) -> bool {
        matches!(result, Err(WireError::TooLarge { limit: l, .. }) if *l == limit)
    }

    #[test]
    fn bzip2_and_unsized_zstd_bombs_stop_at_the_limit() -> std::io::Result<()> {
        for id in [BZIP2, ZSTD] {
            let bomb = zero_bomb(id, 40)?;
            assert!(bomb.len() < 8192, "{id}: {} bytes", bomb.len());
            if id == ZSTD {
                assert_eq!(
                    zstd::zstd_safe::get_frame_content_size(&bomb).ok(),
                    Some(None)
                );
            }
            let result = decode(id, &bomb, MIB);
            assert!(too_large(&result, MIB), "{id}: {result:?}");
            let whole = decode(id, &bomb, 40 * MIB);
            assert!(
                whole
                    .as_ref()
                    .is_ok_and(|d| d.len() == 40 * MIB && d.iter().all(|b| *b == 0)),
                "{id}"
            );
            assert!(too_large(&decode(id, &bomb, 40 * MIB - 1), 40 * MIB - 1));
        }
        Ok(())
    }

    #[test]
    fn declared_sizes_beyond_the_limit_are_refused_before_decoding() -> Result<(), WireError> {
        let data = vec![9u8; 10_000];
        for (id, params) in [
            (ZSTD, vec![3]),
            (LZ4, vec![]),
            (BLOSC, vec![2, 2, 1, 10_000, 5, 1, 0]),
        ] {
            let encoded = encode(id, &params, &data)?;
            assert_eq!(decoded_size(id, &encoded), Some(10_000), "{id}");
            assert_eq!(decode(id, &encoded, 10_000)?, data, "{id}");
            assert!(too_large(&decode(id, &encoded, 9_999), 9_999), "{id}");
        }
        // Headers that claim 1 TiB: refused for the limit, not for the memory.
        let mut lz4 = encode(LZ4, &[], &data)?;
        lz4[..8].copy_from_slice(&(1u64 << 40).to_be_bytes());
        assert!(too_large(&decode(LZ4, &lz4, MIB), MIB));
        let mut zstd = Vec::new();
        let mut encoder =
            zstd::stream::write::Encoder::new(&mut zstd, 3).map_err(codec_error(ZSTD))?;
        encoder
            .set_pledged_src_size(Some(1 << 40))
            .map_err(codec_error(ZSTD))?;
        encoder.write_all(&data).map_err(codec_error(ZSTD))?;
        encoder.flush().map_err(codec_error(ZSTD))?;
        drop(encoder);
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(&zstd).ok(),
            Some(Some(1 << 40))
        );
        assert!(too_large(&decode(ZSTD, &zstd, MIB), MIB));
        Ok(())
    }

    #[test]
    fn unsized_zstd_frames_of_small_chunks_decode() -> Result<(), WireError> {
        let data: Vec<u8> = (0..4096u32).map(|i| (i % 251) as u8).collect();
        for level in [1, 3, 19] {
            let mut encoder =
                zstd::stream::write::Encoder::new(Vec::new(), level).map_err(codec_error(ZSTD))?;
            encoder.write_all(&data).map_err(codec_error(ZSTD))?;
            let frame = encoder.finish().map_err(codec_error(ZSTD))?;
            assert_eq!(
                zstd::zstd_safe::get_frame_content_size(&frame).ok(),
                Some(None)
            );
            assert_eq!(decode(ZSTD, &frame, 4096)?, data, "level {level}");
            assert!(
                too_large(&decode(ZSTD, &frame, 4095), 4095),
                "level {level}"
            );
        }
        Ok(())
    }

    #[test]
    fn the_zstd_window_covers_the_chunk_within_bounds() {
        assert_eq!(zstd_window_log_max(4096), 23);
        assert_eq!(zstd_window_log_max((1 << 25) + 1), 26);
        assert_eq!(zstd_window_log_max(usize::MAX), 27);
    }
}
