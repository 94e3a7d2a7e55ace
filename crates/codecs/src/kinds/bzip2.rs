//! Bzip2 (registered filter 307): numcodecs' `bz2`, one parameter, the block size (1-9).

use serde_json::{json, Value};

use super::deflate::word;
use super::reader::ConfigReader;
use crate::known::BZIP2;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::{codec_error, decode_error, Wire, WireError};

/// Bzip2.
#[derive(Debug)]
pub struct Bzip2;

const ENTRY: CodecEntry = CodecEntry::hdf5(BZIP2, "bz2")
    .carried()
    .netcdf4_python("bzip2");

impl Codec for Bzip2 {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    /// Block size 9.
    fn try_candidates(&self) -> &'static [&'static str] {
        &["bzip2,9"]
    }

    fn wire(&self) -> Option<&dyn Wire> {
        Some(self)
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        format!("{{\"id\": \"bz2\",\"level\": {}}}", word(params, 0))
    }

    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(vec![read.required("level", 1..=9, "an integer 1 to 9")?])
    }

    fn store_json(&self, params: &[u32], _element_size: usize) -> Value {
        json!({"id": "bz2", "level": params.first().copied().unwrap_or(9).clamp(1, 9)})
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        let [level] = params else { return None };
        Some(Decoded::new(
            format!("block size {level} (x100 kB)"),
            json!({ "block_size": level }),
        ))
    }

    /// The block size, 9 by default; another value is not the plugin's.
    fn local_params(
        &self,
        params: &[u32],
        _element: usize,
        _chunk_bytes: usize,
    ) -> Option<Vec<u32>> {
        match params {
            [] => Some(vec![9]),
            [level] if (1..=9).contains(level) => Some(vec![*level]),
            _ => None,
        }
    }
}

/// The plugin's chunk: a plain bzip2 stream; parameter: block size 1-9 (default 9).
impl Wire for Bzip2 {
    fn encode(&self, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
        let level = params
            .first()
            .copied()
            .filter(|l| (1..=9).contains(l))
            .unwrap_or(9);
        crate::codec::bzip2_compress(input, level).map_err(codec_error(BZIP2))
    }

    fn decode(
        &self,
        _params: &[u32],
        input: &[u8],
        max_output: usize,
    ) -> Result<Vec<u8>, WireError> {
        crate::codec::bzip2_decompress(input, max_output).map_err(decode_error(BZIP2))
    }
}
