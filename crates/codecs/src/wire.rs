//! The chunk formats of the standard HDF5 filter plugins, for the codecs nctools carries
//! into HDF5 (bzip2 307, blosc 32001, lz4 32004, zstd 32015), and of HDF5's szip filter
//! (4, libaec), which nctools decodes on every core: each codec's file
//! (`crate::kinds`) implements [`Wire`] with its plugin's format, and the functions here
//! find it by filter id through the registry.
//!
//! Decoding is bounded: [`decode`] takes the most a chunk may decode to and fails with
//! [`WireError::TooLarge`] as soon as it would go beyond, without allocating or producing
//! the excess; [`decode_into`] is bounded by its output buffer.

use crate::codec::DecodeError;

pub use crate::known::{BLOSC, BZIP2, LZ4, ZSTD};

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

pub(crate) fn codec_error(id: u32) -> impl Fn(std::io::Error) -> WireError {
    move |e| WireError::Codec {
        id,
        message: e.to_string(),
    }
}

pub(crate) fn decode_error(id: u32) -> impl Fn(DecodeError) -> WireError {
    move |e| match e {
        DecodeError::Io(e) => codec_error(id)(e),
        DecodeError::TooLarge { limit } => WireError::TooLarge { id, limit },
    }
}

/// A chunk that starts with the size it decodes to (4 bytes, little-endian), as
/// numcodecs' lz4 and HDF5's szip write it: a zeroed buffer of that size and the bytes
/// after the header; [`WireError::TooLarge`] when the size is over `max_output` (found
/// before anything is allocated).
pub(crate) fn sized_payload(
    id: u32,
    input: &[u8],
    max_output: usize,
) -> Result<(Vec<u8>, &[u8]), WireError> {
    let (header, payload) = input.split_first_chunk::<4>().ok_or(WireError::Corrupt {
        id,
        what: "a chunk shorter than its header",
    })?;
    let size = u32::from_le_bytes(*header) as usize;
    if size > max_output {
        return Err(WireError::TooLarge {
            id,
            limit: max_output,
        });
    }
    Ok((vec![0u8; size], payload))
}

/// The chunk format of the built-in filter `id`: the registry's codec of that HDF5 id.
fn wire_of(id: u32) -> Result<&'static dyn Wire, WireError> {
    crate::registry::codec_of_hdf5_id(id)
        .and_then(|codec| codec.wire())
        .ok_or(WireError::Unknown(id))
}

/// Encodes one chunk with the built-in filter `id` and its parameters.
pub fn encode(id: u32, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
    wire_of(id)?.encode(params, input)
}

/// Decodes one chunk of the built-in filter `id`, if it decodes to at most `max_output`
/// bytes: otherwise [`WireError::TooLarge`], found without producing the excess (sizes
/// declared in lz4, blosc and zstd headers are checked before anything is allocated;
/// bzip2 and zstd streams stop one byte past the limit). Decoding needs no parameters:
/// every format describes itself.
pub fn decode(id: u32, input: &[u8], max_output: usize) -> Result<Vec<u8>, WireError> {
    decode_with(id, &[], input, max_output)
}

/// [`decode`] with the filter's parameters, for a format that does not describe itself
/// (szip: HDF5's four words).
pub fn decode_with(
    id: u32,
    params: &[u32],
    input: &[u8],
    max_output: usize,
) -> Result<Vec<u8>, WireError> {
    wire_of(id)?.decode(params, input, max_output)
}

/// The largest encoding of `len` bytes, for the filters that can encode into a buffer
/// given in advance (zstd, lz4, blosc; not bzip2): [`encode_into`] then writes straight
/// into it.
pub fn encoded_bound(id: u32, params: &[u32], len: usize) -> Option<usize> {
    wire_of(id).ok()?.encoded_bound(params, len)
}

/// Encodes one chunk into `out` (at least [`encoded_bound`] long); returns the length
/// written.
pub fn encode_into(
    id: u32,
    params: &[u32],
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, WireError> {
    wire_of(id)?
        .encode_into(params, input, out)
        .unwrap_or(Err(WireError::Unknown(id)))
}

/// The size a chunk decodes to, when its own header says it (zstd frames with a content
/// size, lz4 and blosc; not bzip2): then [`decode_into`] can write straight into a buffer
/// of that size. Corrupt headers give `None`; decoding then reports the error. The size
/// comes from the file: compare it with the chunk size expected before allocating a
/// buffer that large ([`decode`] does).
pub fn decoded_size(id: u32, input: &[u8]) -> Option<usize> {
    wire_of(id).ok()?.decoded_size(input)
}

/// Decodes one chunk into `out`, whose length is [`decoded_size`]; returns the length
/// written, which must be all of `out`.
pub fn decode_into(id: u32, input: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    let written = wire_of(id)?
        .decode_into(input, out)
        .unwrap_or(Err(WireError::Unknown(id)))?;
    if written != out.len() {
        return Err(WireError::Corrupt {
            id,
            what: "the chunk decodes to another size than its header says",
        });
    }
    Ok(written)
}

/// One built-in filter's chunk format, as its standard plugin writes it: implemented by
/// the codec's own file and found through [`crate::registry::Codec::wire`]. The `_into`
/// forms write straight into a buffer given in advance; a format without them answers
/// `None`.
pub trait Wire: Sync {
    /// Encodes one chunk with the filter's parameters.
    fn encode(&self, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError>;

    /// Decodes one chunk with the filter's parameters (most formats need none), if it
    /// decodes to at most `max_output` bytes (else [`WireError::TooLarge`], found without
    /// producing the excess).
    fn decode(&self, params: &[u32], input: &[u8], max_output: usize)
        -> Result<Vec<u8>, WireError>;

    /// The largest encoding of `len` bytes, when the format can encode into a buffer.
    fn encoded_bound(&self, _params: &[u32], _len: usize) -> Option<usize> {
        None
    }

    /// Encodes one chunk into `out` (at least [`Wire::encoded_bound`] long); the length
    /// written.
    fn encode_into(
        &self,
        _params: &[u32],
        _input: &[u8],
        _out: &mut [u8],
    ) -> Option<Result<usize, WireError>> {
        None
    }

    /// The size a chunk decodes to, when its header says it.
    fn decoded_size(&self, _input: &[u8]) -> Option<usize> {
        None
    }

    /// Decodes one chunk into `out`, whose length is [`Wire::decoded_size`]; the length
    /// written.
    fn decode_into(&self, _input: &[u8], _out: &mut [u8]) -> Option<Result<usize, WireError>> {
        None
    }
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
}
