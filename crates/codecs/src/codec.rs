//! The codecs, each a pure function from bytes to bytes, in HDF5's wire formats: shuffle
//! as HDF5's `H5Z_FILTER_SHUFFLE`, deflate as `H5Z_FILTER_DEFLATE` (a zlib stream), bzip2
//! as the HDF5 bzip2 plugin (307: a plain bzip2 stream). Decoders take the most they may
//! produce, and stop as soon as the data goes beyond it (see [`read_bounded`]).

use std::io::{Read, Write};

/// HDF5's shuffle: the first bytes of every element, then the second bytes, and so on;
/// the bytes after the last whole element stay at the end.
pub fn shuffle(data: &[u8], element: usize) -> Vec<u8> {
    if element <= 1 || data.len() < element {
        return data.to_vec();
    }
    let n = data.len() / element;
    let mut out = vec![0u8; data.len()];
    for (j, plane) in out[..n * element].chunks_exact_mut(n).enumerate() {
        for (i, byte) in plane.iter_mut().enumerate() {
            *byte = data[i * element + j];
        }
    }
    out[n * element..].copy_from_slice(&data[n * element..]);
    out
}

/// The inverse of [`shuffle`].
pub fn unshuffle(data: &[u8], element: usize) -> Vec<u8> {
    if element <= 1 || data.len() < element {
        return data.to_vec();
    }
    let n = data.len() / element;
    let mut out = vec![0u8; data.len()];
    for (j, plane) in data[..n * element].chunks_exact(n).enumerate() {
        for (i, byte) in plane.iter().enumerate() {
            out[i * element + j] = *byte;
        }
    }
    out[n * element..].copy_from_slice(&data[n * element..]);
    out
}

/// A zlib stream at `level` (0-9), as HDF5's deflate filter writes, made by libdeflate:
/// whole chunks at once, no larger than zlib's at the same level (within 0.1% at levels
/// 8 and 9, smaller at the others) and two to five times as fast; zlib-rs, used before,
/// wrote level 1 a quarter larger than zlib (the measurements are in docs/filters.md).
pub fn deflate(data: &[u8], level: u32) -> std::io::Result<Vec<u8>> {
    let level = libdeflater::CompressionLvl::new(level.min(9) as i32)
        .map_err(|e| std::io::Error::other(format!("deflate level {level}: {e:?}")))?;
    let mut compressor = libdeflater::Compressor::new(level);
    let mut out = vec![0u8; compressor.zlib_compress_bound(data.len())];
    let written = compressor
        .zlib_compress(data, &mut out)
        .map_err(|e| std::io::Error::other(format!("deflate: {e}")))?;
    out.truncate(written);
    Ok(out)
}

/// A stream that cannot be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The codec failed (corrupt input, usually).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The stream decodes to more than the limit given.
    #[error("the data decodes to more than {limit} bytes")]
    TooLarge {
        /// The most the caller accepted, in bytes.
        limit: usize,
    },
}

/// All the bytes of `reader`, when there are at most `max_output`: reading stops at
/// `max_output + 1` bytes, so a decompression bomb costs memory and time in proportion
/// to the limit (the buffer grows by doubling: at most about twice the limit), not to
/// what it would decode to. `expected` is a capacity to reserve at first (clamped to the
/// limit).
pub fn read_bounded(
    reader: impl Read,
    max_output: usize,
    expected: usize,
) -> Result<Vec<u8>, DecodeError> {
    let too_large = DecodeError::TooLarge { limit: max_output };
    let mut out = Vec::new();
    out.try_reserve_exact(expected.min(max_output))
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    let cap = u64::try_from(max_output).map_or(u64::MAX, |m| m.saturating_add(1));
    reader.take(cap).read_to_end(&mut out)?;
    if out.len() > max_output {
        return Err(too_large);
    }
    Ok(out)
}

/// The bytes of a zlib stream, if there are at most `max_output`.
pub fn inflate(data: &[u8], max_output: usize) -> Result<Vec<u8>, DecodeError> {
    read_bounded(flate2::read::ZlibDecoder::new(data), max_output, 0)
}

/// A bzip2 stream with blocks of `level` (1-9) x 100 kB, as the HDF5 bzip2 plugin writes.
pub fn bzip2_compress(data: &[u8], level: u32) -> std::io::Result<Vec<u8>> {
    let mut encoder = bzip2::write::BzEncoder::new(
        Vec::with_capacity(data.len() / 2 + 64),
        bzip2::Compression::new(level.clamp(1, 9)),
    );
    encoder.write_all(data)?;
    encoder.finish()
}

/// The bytes of a bzip2 stream, if there are at most `max_output`.
pub fn bzip2_decompress(data: &[u8], max_output: usize) -> Result<Vec<u8>, DecodeError> {
    read_bounded(bzip2::read::BzDecoder::new(data), max_output, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_groups_bytes_by_position_and_keeps_the_tail() {
        let data = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(shuffle(&data, 4), vec![1, 5, 2, 6, 3, 7, 4, 8, 9]);
        assert_eq!(unshuffle(&shuffle(&data, 4), 4), data.to_vec());
        assert_eq!(shuffle(&data, 1), data.to_vec());
        assert_eq!(shuffle(&data[..3], 4), vec![1, 2, 3]);
    }

    #[test]
    fn codecs_round_trip() -> Result<(), DecodeError> {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 97).to_le_bytes())
            .collect();
        assert_eq!(inflate(&deflate(&data, 1)?, data.len())?, data);
        let bz = bzip2_compress(&data, 9)?;
        assert!(bz.starts_with(b"BZh9"));
        assert_eq!(bzip2_decompress(&bz, data.len())?, data);
        Ok(())
    }

    #[test]
    fn decoders_stop_one_byte_past_the_limit() -> Result<(), DecodeError> {
        let data = vec![3u8; 100_000];
        let streams: [(&str, Vec<u8>); 2] = [
            ("deflate", deflate(&data, 6)?),
            ("bzip2", bzip2_compress(&data, 9)?),
        ];
        for (name, stream) in streams {
            let decode = |max| match name {
                "deflate" => inflate(&stream, max),
                _ => bzip2_decompress(&stream, max),
            };
            assert_eq!(decode(100_000)?.len(), 100_000, "{name}");
            let over = decode(99_999);
            assert!(
                matches!(over, Err(DecodeError::TooLarge { limit: 99_999 })),
                "{name}: {over:?}"
            );
            assert!(matches!(decode(0), Err(DecodeError::TooLarge { limit: 0 })));
        }
        Ok(())
    }

    #[test]
    fn read_bounded_reads_only_one_byte_past_the_limit() {
        let mut source: &[u8] = &[1, 2, 3, 4, 5, 6];
        let result = read_bounded(&mut source, 3, 100);
        assert!(matches!(result, Err(DecodeError::TooLarge { limit: 3 })));
        assert_eq!(source, &[5, 6]);
    }

    #[test]
    fn every_deflate_level_round_trips() -> Result<(), DecodeError> {
        let data: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 977).to_le_bytes())
            .collect();
        for level in 0..=9 {
            let stream = deflate(&data, level)?;
            assert_eq!(inflate(&stream, data.len())?, data, "level {level}");
            if level > 0 {
                assert!(stream.len() < data.len() / 2, "level {level}");
            }
        }
        // A level past 9 is 9, as HDF5 clamps it.
        assert_eq!(deflate(&data, 12)?, deflate(&data, 9)?);
        Ok(())
    }
}
