//! Chunk bytes as numcodecs produces and reads them, for the Zarr backend: each filter
//! nctools has, as the numcodecs codec of the same name (see `crate::zarr_codec`).
//!
//! Where numcodecs' bytes are the HDF5 filter's, the HDF5 code is used: zlib is deflate's
//! zlib stream, bz2 a plain bzip2 stream, zstd one frame, blosc one blosc1 frame, shuffle
//! the same byte planes, and fletcher32 the same checksum, appended in the same byte
//! order (observed: 10 float32 values 0..9 end in `449253a4` with both numcodecs 0.16 and
//! HDF5 1.10). lz4 differs: numcodecs writes the decoded size (4 bytes, little-endian)
//! then one LZ4 block, where the HDF5 plugin writes its own block framing. Our LZ4 blocks
//! are valid LZ4 that liblz4 reads, but not always byte-identical to liblz4's choices.
//!
//! Decoding is bounded like [`crate::wire::decode`]: a chunk that would decode to more
//! than `max_output` bytes is an error found before the excess is produced.

use crate::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, ZSTD};
use crate::FilterSpec;

// The codecs with no HDF5 filter, one module each, named in one place (`registry`).
mod bit_round;
mod checksum;
mod config;
mod delta;
mod error;
mod fixed_scale_offset;
mod gzip;
mod numeric;
mod quantize;
mod registry;

pub use bit_round::BitRound;
pub use checksum::{Algorithm, Checksum32};
pub use delta::Delta;
pub use error::CodecError;
pub use fixed_scale_offset::FixedScaleOffset;
pub use gzip::Gzip;
pub use numeric::{Kind, NumType, Scalar};
pub use registry::{ids, Codec};

use crate::codec;
use crate::wire::{self, WireError};

/// Encodes one chunk with one codec, for values of `element_size` bytes.
pub fn encode(
    filter: &FilterSpec,
    element_size: usize,
    input: &[u8],
) -> Result<Vec<u8>, WireError> {
    let id = filter.id;
    let level = |default: u32| filter.params.first().copied().unwrap_or(default);
    match id {
        SHUFFLE => Ok(codec::shuffle(input, shuffle_size(filter, element_size))),
        FLETCHER32 => {
            let mut out = input.to_vec();
            out.extend_from_slice(&fletcher32(input).to_le_bytes());
            Ok(out)
        }
        DEFLATE => codec::deflate(input, level(1)).map_err(|e| WireError::Codec {
            id,
            message: e.to_string(),
        }),
        LZ4 => {
            let size = u32::try_from(input.len()).map_err(|_| WireError::Corrupt {
                id,
                what: "a chunk of 4 GiB or more, which numcodecs' lz4 cannot frame",
            })?;
            let mut out = size.to_le_bytes().to_vec();
            out.extend_from_slice(&lz4_flex::block::compress(input));
            Ok(out)
        }
        BLOSC => {
            let local = crate::blosc::local_params(
                &filter.params,
                u32::try_from(element_size).unwrap_or(1).min(255),
                u32::try_from(input.len()).unwrap_or(u32::MAX),
            );
            wire::encode(BLOSC, &local, input)
        }
        BZIP2 | ZSTD => wire::encode(id, &filter.params, input),
        _ => Err(WireError::Unknown(id)),
    }
}

/// The element size a shuffle works on: its parameter (numcodecs' `elementsize`) when it
/// has one, else the type's `element_size`.
fn shuffle_size(filter: &FilterSpec, element_size: usize) -> usize {
    filter
        .params
        .first()
        .map_or(element_size, |size| *size as usize)
}

/// Decodes one chunk of one codec, if it decodes to at most `max_output` bytes.
pub fn decode(
    filter: &FilterSpec,
    element_size: usize,
    input: &[u8],
    max_output: usize,
) -> Result<Vec<u8>, WireError> {
    let id = filter.id;
    let too_large = WireError::TooLarge {
        id,
        limit: max_output,
    };
    match id {
        SHUFFLE if input.len() > max_output => Err(too_large),
        SHUFFLE => Ok(codec::unshuffle(input, shuffle_size(filter, element_size))),
        FLETCHER32 => {
            let split = input.len().checked_sub(4).ok_or(WireError::Corrupt {
                id,
                what: "a chunk shorter than its checksum",
            })?;
            let (data, stored) = input.split_at(split);
            if data.len() > max_output {
                return Err(too_large);
            }
            let mut word = [0u8; 4];
            word.copy_from_slice(stored);
            if u32::from_le_bytes(word) != fletcher32(data) {
                return Err(WireError::Corrupt {
                    id,
                    what: "the fletcher32 checksum does not match the data",
                });
            }
            Ok(data.to_vec())
        }
        DEFLATE => codec::inflate(input, max_output).map_err(|e| match e {
            codec::DecodeError::TooLarge { limit } => WireError::TooLarge { id, limit },
            other => WireError::Codec {
                id,
                message: other.to_string(),
            },
        }),
        LZ4 => {
            let corrupt = |what| WireError::Corrupt { id, what };
            let header = input
                .get(..4)
                .ok_or(corrupt("a chunk shorter than its header"))?;
            let mut word = [0u8; 4];
            word.copy_from_slice(header);
            let size = u32::from_le_bytes(word) as usize;
            if size > max_output {
                return Err(too_large);
            }
            let mut out = vec![0u8; size];
            let written = lz4_flex::block::decompress_into(&input[4..], &mut out)
                .map_err(|_| corrupt("an LZ4 block that does not decode"))?;
            if written != size {
                return Err(corrupt("an LZ4 block shorter than its header says"));
            }
            Ok(out)
        }
        BZIP2 | ZSTD | BLOSC => wire::decode(id, input, max_output),
        _ => Err(WireError::Unknown(id)),
    }
}

/// Encodes one chunk with a whole pipeline, the filters in order.
pub fn encode_pipeline(
    filters: &[FilterSpec],
    element_size: usize,
    input: &[u8],
) -> Result<Vec<u8>, WireError> {
    let mut data = input.to_vec();
    for filter in filters {
        data = encode(filter, element_size, &data)?;
    }
    Ok(data)
}

/// Decodes one chunk of a whole pipeline, the filters in reverse order; every stage is
/// bounded by `max_output` (the chunk's decoded size).
pub fn decode_pipeline(
    filters: &[FilterSpec],
    element_size: usize,
    input: &[u8],
    max_output: usize,
) -> Result<Vec<u8>, WireError> {
    let mut data = input.to_vec();
    for (i, filter) in filters.iter().enumerate().rev() {
        // Inner stages may hold a checksum or framing on top of the decoded size.
        let bound = if i == 0 {
            max_output
        } else {
            max_output.saturating_add(1 << 16)
        };
        data = decode(filter, element_size, &data, bound)?;
    }
    Ok(data)
}

/// Whether `id` is a filter this module encodes and decodes.
pub fn has_codec(id: u32) -> bool {
    crate::registry::by_hdf5_id(id).is_some_and(|c| c.implemented)
}

/// The Fletcher-32 checksum of HDF5 and numcodecs: sums of big-endian 16-bit words (a
/// last odd byte is the high byte of a word), folded to 16 bits.
pub fn fletcher32(data: &[u8]) -> u32 {
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let mut words = data.chunks(2).peekable();
    while words.peek().is_some() {
        // 360 words keep both sums within 32 bits before they are folded.
        for word in words.by_ref().take(360) {
            let high = u32::from(word[0]) << 8;
            sum1 += high | word.get(1).map_or(0, |b| u32::from(*b));
            sum2 += sum1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(n: usize) -> Vec<u8> {
        (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect()
    }

    #[test]
    fn fletcher32_matches_numcodecs_and_hdf5() {
        // Observed with numcodecs 0.16 Fletcher32().encode and h5py's fletcher32=True
        // chunk of numpy.arange(10, dtype='<f4'): both end in 44 92 53 a4.
        let chunk = encode(&FilterSpec::new(FLETCHER32, []), 4, &floats(10));
        assert_eq!(
            chunk.ok().map(|c| c[40..].to_vec()),
            Some(vec![0x44, 0x92, 0x53, 0xa4])
        );
    }

    #[test]
    fn lz4_has_numcodecs_header_and_round_trips() -> Result<(), WireError> {
        // numcodecs' LZ4().encode of the same 40 bytes starts with 28 00 00 00.
        let data = floats(10);
        let filter = FilterSpec::new(LZ4, []);
        let chunk = encode(&filter, 4, &data)?;
        assert_eq!(&chunk[..4], &[0x28, 0, 0, 0]);
        assert_eq!(decode(&filter, 4, &chunk, 40)?, data);
        assert!(matches!(
            decode(&filter, 4, &chunk, 39),
            Err(WireError::TooLarge { .. })
        ));
        Ok(())
    }

    #[test]
    fn every_pipeline_round_trips_and_detects_corruption() -> Result<(), WireError> {
        let data = floats(1000);
        let pipeline = [
            FilterSpec::new(SHUFFLE, []),
            FilterSpec::new(FLETCHER32, []),
            FilterSpec::new(DEFLATE, [4]),
        ];
        for last in [
            FilterSpec::new(BZIP2, [9]),
            FilterSpec::new(ZSTD, [3]),
            FilterSpec::new(BLOSC, [0, 0, 0, 0, 5, 1, 1]),
            FilterSpec::new(LZ4, []),
        ] {
            let mut filters = pipeline.to_vec();
            filters.push(last);
            let chunk = encode_pipeline(&filters, 4, &data)?;
            assert_eq!(decode_pipeline(&filters, 4, &chunk, data.len())?, data);
        }
        let filters = [FilterSpec::new(FLETCHER32, [])];
        let mut chunk = encode_pipeline(&filters, 4, &data)?;
        chunk[7] ^= 1;
        assert!(decode_pipeline(&filters, 4, &chunk, data.len()).is_err());
        Ok(())
    }
}
