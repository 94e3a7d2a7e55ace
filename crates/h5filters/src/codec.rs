//! The codecs, each a pure function from bytes to bytes, in HDF5's wire formats: shuffle
//! as HDF5's `H5Z_FILTER_SHUFFLE`, deflate as `H5Z_FILTER_DEFLATE` (a zlib stream), bzip2
//! as the HDF5 bzip2 plugin (307: a plain bzip2 stream).

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

/// A zlib stream at `level` (0-9), as HDF5's deflate filter writes.
pub fn deflate(data: &[u8], level: u32) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(data.len() / 2 + 64),
        flate2::Compression::new(level.min(9)),
    );
    encoder.write_all(data)?;
    encoder.finish()
}

/// The bytes of a zlib stream.
pub fn inflate(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(data).read_to_end(&mut out)?;
    Ok(out)
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

/// The bytes of a bzip2 stream.
pub fn bzip2_decompress(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    bzip2::read::BzDecoder::new(data).read_to_end(&mut out)?;
    Ok(out)
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
    fn codecs_round_trip() -> std::io::Result<()> {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 97).to_le_bytes())
            .collect();
        assert_eq!(inflate(&deflate(&data, 1)?)?, data);
        let bz = bzip2_compress(&data, 9)?;
        assert!(bz.starts_with(b"BZh9"));
        assert_eq!(bzip2_decompress(&bz)?, data);
        Ok(())
    }
}
