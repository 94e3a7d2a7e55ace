//! Deflate (HDF5's built-in filter 1): numcodecs' `zlib`, one parameter, the level.

use serde_json::{json, Value};

use super::reader::ConfigReader;
use crate::known::DEFLATE;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::WireError;

/// Deflate.
#[derive(Debug)]
pub struct Deflate;

const ENTRY: CodecEntry = CodecEntry::hdf5(DEFLATE, "zlib").netcdf4_python("zlib");

impl Codec for Deflate {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    /// Levels 1, 4 and 9, without and with shuffle.
    fn try_candidates(&self) -> &'static [&'static str] {
        &[
            "deflate,1",
            "deflate,4",
            "deflate,9",
            "shuffle|deflate,1",
            "shuffle|deflate,4",
            "shuffle|deflate,9",
        ]
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        format!("{{\"id\": \"zlib\",\"level\": {}}}", word(params, 0))
    }

    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(vec![read.required("level", 0..=9, "an integer 0 to 9")?])
    }

    fn store_json(&self, params: &[u32], _element_size: usize) -> Value {
        json!({"id": "zlib", "level": params.first().copied().unwrap_or(1).min(9)})
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        let [level] = params else { return None };
        Some(Decoded::new(
            format!("level {level}"),
            json!({ "level": level }),
        ))
    }

    /// numcodecs' zlib is HDF5's deflate: one zlib stream.
    fn zarr_encode(
        &self,
        params: &[u32],
        _element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        let level = params.first().copied().unwrap_or(1);
        Some(crate::codec::deflate(input, level).map_err(crate::wire::codec_error(DEFLATE)))
    }

    fn zarr_decode(
        &self,
        _params: &[u32],
        _element_size: usize,
        input: &[u8],
        max_output: usize,
    ) -> Option<Result<Vec<u8>, WireError>> {
        Some(crate::codec::inflate(input, max_output).map_err(crate::wire::decode_error(DEFLATE)))
    }
}

/// The parameter word `i`, 0 when absent (netCDF-C's `_Codecs` shows absent words as 0).
pub(super) fn word(params: &[u32], i: usize) -> u32 {
    params.get(i).copied().unwrap_or(0)
}
