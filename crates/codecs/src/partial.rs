//! Decoding only a box of a chunk: the chunk's compressed stream is decoded piece by
//! piece and only the bytes of the box are kept, so that a chunk whose declared size is
//! far larger than the part a reader needs (a 785-byte bzip2 chunk of 2^30 values, of
//! an array of 4) costs the box, not the chunk.
//!
//! Only chunks stored through one streaming compressor take this way ([`Stream`]: zlib,
//! HDF5's deflate, gzip, bzip2, zstd), with their elements in C order; decoding stops at
//! the box's last byte, so the rest of the chunk is neither produced nor checked. Other
//! pipelines (shuffle, checksums, blosc, lz4, ...) need the whole chunk: their readers
//! refuse chunks over [`decoded_chunk_cap`] that reach beyond what the data covers.

use std::io::Read;

use crate::known::{BZIP2, DEFLATE, ZSTD};
pub use ncmodel::limits::{
    decoded_chunk_cap, parse_size, value_cap, CHUNK_LIMIT_VARIABLE, DEFAULT_CHUNK_LIMIT,
};

/// The bytes decoded at a time while skipping the parts of a chunk outside the box.
const WINDOW: usize = 1 << 20;

/// A compressor whose chunks are one stream that can be decoded in pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// A zlib stream (numcodecs' zlib, HDF5's deflate).
    Zlib,
    /// gzip members (numcodecs' gzip).
    Gzip,
    /// A bzip2 stream (numcodecs' bz2, the HDF5 bzip2 plugin's chunks).
    Bzip2,
    /// zstd frames (numcodecs' zstd, the HDF5 zstd plugin's chunks).
    Zstd,
}

impl Stream {
    /// The stream of the HDF5 filter `id`, when its chunks are one.
    pub fn of_hdf5_filter(id: u32) -> Option<Self> {
        match id {
            DEFLATE => Some(Self::Zlib),
            BZIP2 => Some(Self::Bzip2),
            ZSTD => Some(Self::Zstd),
            _ => None,
        }
    }

    /// The stream of the numcodecs codec `id`, when its chunks are one.
    pub fn of_numcodecs_id(id: &str) -> Option<Self> {
        match id {
            "zlib" => Some(Self::Zlib),
            "gzip" => Some(Self::Gzip),
            "bz2" => Some(Self::Bzip2),
            "zstd" => Some(Self::Zstd),
            _ => None,
        }
    }

    /// A reader of the decoded bytes of `input`.
    fn reader<'a>(self, input: &'a [u8]) -> std::io::Result<Box<dyn Read + 'a>> {
        Ok(match self {
            Self::Zlib => Box::new(flate2::read::ZlibDecoder::new(input)),
            Self::Gzip => Box::new(flate2::read::MultiGzDecoder::new(input)),
            Self::Bzip2 => Box::new(bzip2::read::BzDecoder::new(input)),
            Self::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(input)?),
        })
    }
}

/// A box of a chunk in C order: the chunk's shape, where the box starts in it and its
/// lengths, for elements of `element` bytes.
#[derive(Debug, Clone, Copy)]
pub struct ChunkBox<'a> {
    /// The chunk's shape.
    pub chunk: &'a [usize],
    /// The box's first element in the chunk.
    pub offset: &'a [usize],
    /// The box's lengths.
    pub extent: &'a [usize],
    /// The bytes of one element.
    pub element: usize,
}

impl ChunkBox<'_> {
    /// The byte offsets in the chunk of the box's rows (runs along the last axis), in
    /// order, and the bytes of one row; `None` when a size overflows or the box does not
    /// fit in the chunk.
    fn rows(&self) -> Option<(Vec<usize>, usize)> {
        let rank = self.chunk.len();
        if self.offset.len() != rank || self.extent.len() != rank {
            return None;
        }
        let fits = (0..rank).all(|d| {
            self.offset[d]
                .checked_add(self.extent[d])
                .is_some_and(|end| end <= self.chunk[d])
        });
        if !fits || self.extent.contains(&0) {
            return fits.then(|| (Vec::new(), 0));
        }
        let Some(last) = rank.checked_sub(1) else {
            // A scalar chunk: one element.
            return Some((vec![0], self.element));
        };
        let row = self.extent[last].checked_mul(self.element)?;
        // Element strides of the chunk, in C order.
        let mut strides = vec![1usize; rank];
        for d in (0..last).rev() {
            strides[d] = strides[d + 1].checked_mul(self.chunk[d + 1])?;
        }
        let rows: usize = self.extent[..last].iter().product();
        let mut starts = Vec::new();
        starts.try_reserve_exact(rows).ok()?;
        let mut at = self.offset.to_vec();
        for _ in 0..rows {
            let element: usize = at.iter().zip(&strides).map(|(i, s)| i * s).sum();
            starts.push(element.checked_mul(self.element)?);
            // The next row: the odometer over every axis but the last.
            for d in (0..last).rev() {
                at[d] += 1;
                if at[d] < self.offset[d] + self.extent[d] {
                    break;
                }
                at[d] = self.offset[d];
            }
        }
        Some((starts, row))
    }
}

/// The bytes of a chunk stored without codecs that hold `region` (from its first row's
/// first byte to its last row's last byte) as `(start, length)`; `None` when a size
/// overflows or the box does not fit in the chunk.
pub fn byte_span(region: &ChunkBox<'_>) -> Option<(usize, usize)> {
    let (rows, row) = region.rows()?;
    match (rows.first(), rows.last()) {
        (Some(first), Some(last)) => Some((*first, last.checked_add(row)? - first)),
        _ => Some((0, 0)),
    }
}

/// The bytes of `region`, in the box's own shape, cut from `span`: the bytes of a chunk
/// stored without codecs from the box's first byte on (as [`byte_span`] gives them).
pub fn cut_box(span: &[u8], region: &ChunkBox<'_>) -> std::io::Result<Vec<u8>> {
    let invalid = |what| std::io::Error::new(std::io::ErrorKind::InvalidInput, what);
    let (rows, row) = region
        .rows()
        .ok_or_else(|| invalid("the box does not fit in the chunk"))?;
    let base = rows.first().copied().unwrap_or(0);
    let mut out = Vec::new();
    out.try_reserve_exact(rows.len().saturating_mul(row))
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    for start in rows {
        let at = start - base;
        let bytes = span
            .get(at..at + row)
            .ok_or_else(|| invalid("the chunk ends before the box"))?;
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// The bytes of `region` of the chunk stored as `input` through `stream`, in the box's
/// own shape: the stream is decoded in pieces of at most 1 MiB, the bytes before and
/// between the box's rows read away, and decoding stops at the box's last byte. Memory:
/// the box plus the decoder's state and one piece. A stream that ends before the box
/// does is an error.
pub fn decode_box(stream: Stream, input: &[u8], region: &ChunkBox<'_>) -> std::io::Result<Vec<u8>> {
    let (rows, row) = region.rows().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the box does not fit in the chunk",
        )
    })?;
    let total = rows.len().saturating_mul(row);
    let mut out = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    out.resize(total, 0);
    let mut reader = stream.reader(input)?;
    let mut window = vec![0u8; WINDOW.min(rows.last().copied().unwrap_or(0)).max(1)];
    let mut position = 0usize;
    for (i, start) in rows.iter().enumerate() {
        let mut skip = start.checked_sub(position).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "rows out of order")
        })?;
        while skip > 0 {
            let piece = skip.min(window.len());
            reader.read_exact(&mut window[..piece])?;
            skip -= piece;
        }
        reader.read_exact(&mut out[i * row..(i + 1) * row])?;
        position = start + row;
    }
    Ok(out)
}

/// How many bytes `input` decodes to through `stream`, if at most `limit`: the stream
/// is decoded in pieces of 1 MiB and read away, so that a caller can then allocate the
/// output once, at its exact size, and decode into it with [`decode_stream_into`]
/// (twice the decoding time, once the memory). More than `limit` is an error, found one
/// piece past it.
pub fn stream_len(stream: Stream, input: &[u8], limit: usize) -> std::io::Result<usize> {
    let cap = u64::try_from(limit).map_or(u64::MAX, |l| l.saturating_add(1));
    let counted = std::io::copy(&mut stream.reader(input)?.take(cap), &mut std::io::sink())?;
    usize::try_from(counted)
        .ok()
        .filter(|n| *n <= limit)
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the chunk decodes to more than {limit} bytes"),
            )
        })
}

/// Decodes `input` through `stream` into `out`, which it must fill exactly.
pub fn decode_stream_into(stream: Stream, input: &[u8], out: &mut [u8]) -> std::io::Result<()> {
    let mut reader = stream.reader(input)?;
    reader.read_exact(out)?;
    let mut more = [0u8; 1];
    if reader.read(&mut more)? != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the chunk decodes to more bytes than counted",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn encoded(stream: Stream, data: &[u8]) -> std::io::Result<Vec<u8>> {
        match stream {
            Stream::Zlib => crate::codec::deflate(data, 4),
            Stream::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(4));
                e.write_all(data)?;
                e.finish()
            }
            Stream::Bzip2 => crate::codec::bzip2_compress(data, 9),
            Stream::Zstd => zstd::bulk::compress(data, 3),
        }
    }

    #[test]
    fn boxes_hold_what_the_whole_chunk_holds_there() -> std::io::Result<()> {
        // A 3 x 5 x 700 chunk of 4-byte elements, numbered; several boxes of it.
        let chunk = [3usize, 5, 700];
        let data: Vec<u8> = (0..3 * 5 * 700u32).flat_map(u32::to_le_bytes).collect();
        for stream in [Stream::Zlib, Stream::Gzip, Stream::Bzip2, Stream::Zstd] {
            let input = encoded(stream, &data)?;
            for (offset, extent) in [
                ([0, 0, 0], [3, 5, 700]),
                ([1, 2, 100], [2, 2, 3]),
                ([2, 4, 699], [1, 1, 1]),
                ([0, 1, 0], [3, 1, 700]),
                ([0, 0, 0], [0, 2, 2]),
            ] {
                let region = ChunkBox {
                    chunk: &chunk,
                    offset: &offset,
                    extent: &extent,
                    element: 4,
                };
                let part = decode_box(stream, &input, &region)?;
                let mut expected = Vec::new();
                for a in offset[0]..offset[0] + extent[0] {
                    for b in offset[1]..offset[1] + extent[1] {
                        for c in offset[2]..offset[2] + extent[2] {
                            let i = ((a * 5 + b) * 700 + c) as u32;
                            expected.extend_from_slice(&i.to_le_bytes());
                        }
                    }
                }
                assert_eq!(part, expected, "{stream:?} {offset:?} {extent:?}");
            }
        }
        Ok(())
    }

    #[test]
    fn a_stream_shorter_than_the_box_is_an_error() -> std::io::Result<()> {
        let input = encoded(Stream::Bzip2, &[7u8; 100])?;
        let region = ChunkBox {
            chunk: &[1000],
            offset: &[90],
            extent: &[20],
            element: 1,
        };
        assert!(decode_box(Stream::Bzip2, &input, &region).is_err());
        let bad = ChunkBox {
            chunk: &[10],
            offset: &[5],
            extent: &[6],
            element: 1,
        };
        assert!(decode_box(Stream::Bzip2, &input, &bad).is_err());
        Ok(())
    }

    #[test]
    fn a_gigabyte_chunk_costs_its_box() -> std::io::Result<()> {
        // 1 GiB of zeros through zstd (about 40 kB): the first 4 bytes, decoded alone.
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 1)?;
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..1024 {
            encoder.write_all(&zeros)?;
        }
        let input = encoder.finish()?;
        let region = ChunkBox {
            chunk: &[1 << 30],
            offset: &[0],
            extent: &[4],
            element: 1,
        };
        assert_eq!(decode_box(Stream::Zstd, &input, &region)?, vec![0; 4]);
        Ok(())
    }

    #[test]
    fn streams_are_counted_then_decoded_into_their_exact_size() -> std::io::Result<()> {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i / 7) as u8).collect();
        for stream in [Stream::Bzip2, Stream::Zstd, Stream::Zlib] {
            let input = encoded(stream, &data)?;
            assert_eq!(stream_len(stream, &input, data.len())?, data.len());
            assert!(stream_len(stream, &input, data.len() - 1).is_err());
            let mut out = vec![0u8; data.len()];
            decode_stream_into(stream, &input, &mut out)?;
            assert_eq!(out, data);
            let mut short = vec![0u8; data.len() - 1];
            assert!(decode_stream_into(stream, &input, &mut short).is_err());
        }
        Ok(())
    }
}
