//! Deflate (HDF5's built-in filter 1): numcodecs' `zlib`, one parameter, the level.

use serde_json::{json, Value};

use super::reader::ConfigReader;
use crate::known::DEFLATE;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};

/// Deflate.
#[derive(Debug)]
pub struct Deflate;

const ENTRY: CodecEntry = CodecEntry::hdf5(DEFLATE, "zlib");

impl Codec for Deflate {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
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
}

/// The parameter word `i`, 0 when absent (netCDF-C's `_Codecs` shows absent words as 0).
pub(super) fn word(params: &[u32], i: usize) -> u32 {
    params.get(i).copied().unwrap_or(0)
}
