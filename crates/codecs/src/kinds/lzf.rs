//! LZF (registered filter 32000), h5py's own compressor (`compression="lzf"`). Its HDF5
//! chunk is a bare LZF stream (liblzf's format, no header), the same bytes as
//! imagecodecs' numcodecs codec `imagecodecs_lzf` with `"header": false`, which is its
//! Zarr form. Parameters, all set by the filter's `set_local`: the filter's version (4),
//! LZF's version (0x0105) and the chunk's size in bytes, which readers use as the first
//! guess of a decoded chunk's size.
//!
//! This codec was added as the registry says a codec is added: this file, one line in
//! `registry::CODECS` and its `mod` line. HDF5 in-process, the plugins, the NCZarr and
//! Zarr forms, `ncdump --filters` and `--list-filters` follow from the registry.

use serde_json::{json, Value};

use super::reader::ConfigReader;
use crate::known::LZF;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::{Wire, WireError};

/// LZF.
#[derive(Debug)]
pub struct Lzf;

const ENTRY: CodecEntry = CodecEntry::hdf5(LZF, "imagecodecs_lzf").carried();

/// The filter's version that h5py's filter records.
const FILTER_VERSION: u32 = 4;

/// The LZF format version that h5py's filter records (liblzf 1.5).
const LZF_VERSION: u32 = 0x0105;

/// The longest literal run of one LZF token.
const MAX_LITERAL: usize = 32;

impl Codec for Lzf {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn wire(&self) -> Option<&dyn Wire> {
        Some(self)
    }

    fn codecs_text(&self, _params: &[u32]) -> String {
        "{\"id\": \"imagecodecs_lzf\",\"header\": false}".into()
    }

    /// No parameter to give: `set_local` sets them. Only imagecodecs' headerless form
    /// is the HDF5 chunk; its default, with a 4-byte size before the stream, is not.
    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        match read.object.get("header") {
            Some(Value::Bool(false)) => Ok(Vec::new()),
            _ => Err(CodecError::BadValue {
                codec: read.codec,
                key: "header",
                expected: "false (a stream without imagecodecs' size header, as in HDF5)",
            }),
        }
    }

    fn store_json(&self, _params: &[u32], _element_size: usize) -> Value {
        json!({"id": "imagecodecs_lzf", "header": false})
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        let [filter, format, chunk] = params else {
            return None;
        };
        Some(Decoded::new(
            format!("filter v{filter}, LZF v{format:#06x}, chunk {chunk} B"),
            json!({"filter_version": filter, "lzf_version": format, "chunk_bytes": chunk}),
        ))
    }

    fn hdf5_set_local(
        &self,
        given: &[u32],
        type_size: usize,
        _base_size: usize,
        chunk_dims: &[u64],
    ) -> Option<Vec<u32>> {
        let chunk_bytes = chunk_dims
            .iter()
            .fold(type_size as u64, |bytes, d| bytes.saturating_mul(*d));
        Some(set_local(
            given,
            u32::try_from(chunk_bytes).unwrap_or(u32::MAX),
        ))
    }

    /// The third word: the chunk's bytes, as LZF's `set_local` records them.
    fn recorded_chunk_bytes(&self, params: &[u32]) -> Option<usize> {
        // Missing or 0 records no chunk at all: HDF5's `set_local` always writes it, so
        // only a hand-made file lacks it, and a chunk may then decode to nothing more
        // than the slack (before: each chunk took the 256 MiB limit, 2.1 GB from 120 KB
        // in the reference ncdump's chunk cache).
        Some(params.get(2).map_or(0, |b| *b as usize))
    }

    fn local_params(
        &self,
        params: &[u32],
        _element: usize,
        chunk_bytes: usize,
    ) -> Option<Vec<u32>> {
        Some(set_local(
            params,
            u32::try_from(chunk_bytes).unwrap_or(u32::MAX),
        ))
    }
}

/// What h5py's `set_local` records: the given words (at least three), the versions
/// where they are 0, and the chunk's size.
fn set_local(given: &[u32], chunk_bytes: u32) -> Vec<u32> {
    let mut params = given.to_vec();
    if params.len() < 3 {
        params.resize(3, 0);
    }
    for (slot, default) in [(0, FILTER_VERSION), (1, LZF_VERSION)] {
        if params[slot] == 0 {
            params[slot] = default;
        }
    }
    params[2] = chunk_bytes;
    params
}

/// The plugin's chunk: a bare LZF stream.
impl Wire for Lzf {
    /// An incompressible chunk becomes literal runs (1 byte in 32 larger), which every
    /// reader decodes; h5py's own filter would store such a chunk unfiltered instead.
    fn encode(&self, _params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
        let compressed = (input.len() < i32::MAX as usize)
            .then(|| lzf::compress(input).ok())
            .flatten();
        Ok(compressed.unwrap_or_else(|| literals(input)))
    }

    fn decode(
        &self,
        params: &[u32],
        input: &[u8],
        max_output: usize,
    ) -> Result<Vec<u8>, WireError> {
        let expected = params.get(2).map_or(input.len(), |b| *b as usize);
        decode(input, max_output, expected)
    }
}

/// `input` as LZF literal runs.
fn literals(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + input.len().div_ceil(MAX_LITERAL));
    for run in input.chunks(MAX_LITERAL) {
        // A run of 1 to 32 bytes: its length less one.
        out.push((run.len() - 1) as u8);
        out.extend_from_slice(run);
    }
    out
}

/// Decodes an LZF stream to at most `max_output` bytes, reserving `expected` at first.
///
/// Each token starts with a byte `c`: below 32, `c + 1` literal bytes follow; else a
/// back-reference of `(c >> 5) + 2` bytes (with `c >> 5 == 7`, a further byte adds to
/// the length) from `((c & 31) << 8) + next byte + 1` bytes back in the output.
fn decode(input: &[u8], max_output: usize, expected: usize) -> Result<Vec<u8>, WireError> {
    let corrupt = |what| WireError::Corrupt { id: LZF, what };
    let too_large = WireError::TooLarge {
        id: LZF,
        limit: max_output,
    };
    let mut out: Vec<u8> = Vec::with_capacity(expected.min(max_output));
    let mut bytes = input.iter().copied();
    while let Some(control) = bytes.next() {
        let control = usize::from(control);
        if control < MAX_LITERAL {
            let len = control + 1;
            let start = input.len() - bytes.len();
            let run = input
                .get(start..start + len)
                .ok_or(corrupt("a literal run beyond the end"))?;
            if out.len() + len > max_output {
                return Err(too_large);
            }
            out.extend_from_slice(run);
            bytes.nth(len - 1);
            continue;
        }
        let mut len = control >> 5;
        if len == 7 {
            len += usize::from(bytes.next().ok_or(corrupt("a length beyond the end"))?);
        }
        len += 2;
        let low = bytes.next().ok_or(corrupt("an offset beyond the end"))?;
        let back = ((control & 0x1f) << 8) + usize::from(low) + 1;
        let from = out
            .len()
            .checked_sub(back)
            .ok_or(corrupt("a reference before the start"))?;
        if out.len() + len > max_output {
            return Err(too_large);
        }
        // The source may overlap what is being written (a run), so byte by byte.
        for index in from..from + len {
            let byte = out[index];
            out.push(byte);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..20_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect()
    }

    #[test]
    fn round_trips_compressible_and_incompressible_chunks() -> Result<(), WireError> {
        let data = sample();
        let encoded = Lzf.encode(&[], &data)?;
        assert!(encoded.len() < data.len() / 2);
        assert_eq!(Lzf.decode(&[4, 0x105, 80_000], &encoded, 80_000)?, data);
        // Bytes nothing repeats in: literal runs.
        let noise: Vec<u8> = (0..1000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let encoded = Lzf.encode(&[], &noise)?;
        assert_eq!(Lzf.decode(&[], &encoded, 1000)?, noise);
        assert_eq!(Lzf.decode(&[], &Lzf.encode(&[], &[7])?, 1)?, vec![7]);
        Ok(())
    }

    #[test]
    fn a_chunk_beyond_the_limit_or_corrupt_fails() -> Result<(), WireError> {
        let data = vec![0u8; 100_000];
        let encoded = Lzf.encode(&[], &data)?;
        assert!(encoded.len() < 4000);
        assert!(matches!(
            Lzf.decode(&[], &encoded, 99_999),
            Err(WireError::TooLarge { .. })
        ));
        // A reference before the start; a literal run that is cut.
        for bad in [&[0x20u8, 0x05][..], &[5, 1, 2]] {
            assert!(matches!(
                Lzf.decode(&[], bad, 100),
                Err(WireError::Corrupt { .. })
            ));
        }
        Ok(())
    }

    #[test]
    fn set_local_records_the_versions_and_the_chunk_size() {
        assert_eq!(
            Lzf.hdf5_set_local(&[], 4, 4, &[10, 20]),
            Some(vec![4, 0x105, 800])
        );
        assert_eq!(
            Lzf.hdf5_set_local(&[5, 6, 7, 8], 2, 2, &[3]),
            Some(vec![5, 6, 6, 8])
        );
    }
}
