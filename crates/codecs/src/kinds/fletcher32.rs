//! Fletcher-32 (HDF5's built-in filter 3): numcodecs' `fletcher32`, no parameter.

use serde_json::{json, Value};

use super::reader::ConfigReader;
use crate::known::FLETCHER32;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};

/// Fletcher-32.
#[derive(Debug)]
pub struct Fletcher32;

const ENTRY: CodecEntry = CodecEntry::hdf5(FLETCHER32, "fletcher32");

impl Codec for Fletcher32 {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn codecs_text(&self, _params: &[u32]) -> String {
        "{\"id\": \"fletcher32\"}".to_string()
    }

    fn hdf5_params(&self, _read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(Vec::new())
    }

    fn store_json(&self, _params: &[u32], _element_size: usize) -> Value {
        json!({"id": "fletcher32"})
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        params
            .is_empty()
            .then(|| Decoded::new("checksum, no parameters", json!({})))
    }
}
