//! Chunk bytes as numcodecs produces and reads them, for the Zarr backend: each filter
//! nctools has, as the numcodecs codec of the same name (see `crate::zarr_codec`); each
//! codec's own file says how ([`crate::registry::Codec::zarr_encode`]).
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

use crate::FilterSpec;

// The codecs with no HDF5 filter, one module each, listed in `crate::registry`.
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

pub use bit_round::{bit_round_chunks, BitRound};
pub use checksum::{adler32_chunks, crc32_chunks, crc32c_chunks, Algorithm, Checksum32};
pub use delta::{delta_chunks, Delta};
pub use error::CodecError;
pub use fixed_scale_offset::{fixed_scale_offset_chunks, FixedScaleOffset};
pub use gzip::{gzip_chunks, Gzip};
pub use numeric::{Kind, NumType, Scalar};
pub use quantize::{quantize_chunks, Quantize};
pub use registry::{ids, Chunks, Codec, MakeChunks};

use crate::wire::WireError;

/// Encodes one chunk with one codec, for values of `element_size` bytes: the codec's
/// own file says how ([`crate::registry::Codec::zarr_encode`]).
pub fn encode(
    filter: &FilterSpec,
    element_size: usize,
    input: &[u8],
) -> Result<Vec<u8>, WireError> {
    crate::registry::codec_of_hdf5_id(filter.id)
        .and_then(|c| c.zarr_encode(&filter.params, element_size, input))
        .unwrap_or(Err(WireError::Unknown(filter.id)))
}

/// Decodes one chunk of one codec, if it decodes to at most `max_output` bytes.
pub fn decode(
    filter: &FilterSpec,
    element_size: usize,
    input: &[u8],
    max_output: usize,
) -> Result<Vec<u8>, WireError> {
    crate::registry::codec_of_hdf5_id(filter.id)
        .and_then(|c| c.zarr_decode(&filter.params, element_size, input, max_output))
        .unwrap_or(Err(WireError::Unknown(filter.id)))
}

/// Encodes one chunk with a whole pipeline, the filters in order. The chunk is given up:
/// it is dropped once the first filter has read it, so that a chunk and its encoded
/// forms are not all held at once.
pub fn encode_pipeline(
    filters: &[FilterSpec],
    element_size: usize,
    input: Vec<u8>,
) -> Result<Vec<u8>, WireError> {
    let Some((first, rest)) = filters.split_first() else {
        return Ok(input);
    };
    let mut data = encode(first, element_size, &input)?;
    drop(input);
    for filter in rest {
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
    use crate::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, ZSTD};

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
            let chunk = encode_pipeline(&filters, 4, data.clone())?;
            assert_eq!(decode_pipeline(&filters, 4, &chunk, data.len())?, data);
        }
        let filters = [FilterSpec::new(FLETCHER32, [])];
        let mut chunk = encode_pipeline(&filters, 4, data.clone())?;
        chunk[7] ^= 1;
        assert!(decode_pipeline(&filters, 4, &chunk, data.len()).is_err());
        Ok(())
    }
}
