//! Bzip2 (registered filter 307): numcodecs' `bz2`, one parameter, the block size (1-9).

use serde_json::{json, Value};

use super::deflate::word;
use super::reader::ConfigReader;
use crate::known::BZIP2;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};

/// Bzip2.
#[derive(Debug)]
pub struct Bzip2;

const ENTRY: CodecEntry = CodecEntry::hdf5(BZIP2, "bz2").carried();

impl Codec for Bzip2 {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
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
}
