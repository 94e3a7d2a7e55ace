//! LZ4 (registered filter 32004): numcodecs' `lz4`. numcodecs frames its block
//! differently from the HDF5 plugin, so a chunk does not move between the two as it is.

use serde_json::{json, Value};

use super::reader::ConfigReader;
use crate::known::LZ4;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};

/// LZ4.
#[derive(Debug)]
pub struct Lz4;

const ENTRY: CodecEntry = CodecEntry::hdf5(LZ4, "lz4").carried().not_passthrough();

impl Codec for Lz4 {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn codecs_text(&self, _params: &[u32]) -> String {
        "{\"id\": \"lz4\",\"acceleration\": 1}".to_string()
    }

    /// numcodecs' acceleration has no HDF5 counterpart: the plugin's default block.
    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        read.integer("acceleration", -(1 << 16)..=1 << 16, "an integer")?;
        Ok(Vec::new())
    }

    fn store_json(&self, _params: &[u32], _element_size: usize) -> Value {
        json!({"id": "lz4", "acceleration": 1})
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        match params {
            [] | [0] => Some(Decoded::new(
                "block size default (1 GiB)",
                json!({ "block_size": Value::Null }),
            )),
            [size] => Some(Decoded::new(
                format!("block size {size} bytes"),
                json!({ "block_size": size }),
            )),
            _ => None,
        }
    }
}
