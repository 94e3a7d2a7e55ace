//! Zstandard (registered filter 32015): numcodecs' `zstd`, Zarr version 3's core `zstd`,
//! one parameter, the level (negative for the fast modes).

use serde_json::{json, Map, Value};

use super::deflate::word;
use super::reader::ConfigReader;
use crate::known::ZSTD;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};

/// Zstandard.
#[derive(Debug)]
pub struct Zstd;

const ENTRY: CodecEntry = CodecEntry::hdf5(ZSTD, "zstd").carried().core("zstd");

impl Codec for Zstd {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        format!("{{\"id\": \"zstd\",\"level\": {}}}", word(params, 0) as i32)
    }

    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(vec![read.required(
            "level",
            -131072..=22,
            "an integer up to 22",
        )?])
    }

    fn store_json(&self, params: &[u32], _element_size: usize) -> Value {
        json!({"id": "zstd", "level": params.first().map_or(3, |l| *l as i32)})
    }

    /// Version 3's zstd has a `checksum` member (false: numcodecs writes none).
    fn numcodecs_to_v3(
        &self,
        configuration: &mut Map<String, Value>,
        _element_size: usize,
    ) -> String {
        configuration.entry("checksum").or_insert(json!(false));
        "zstd".into()
    }

    /// Negative (fast) levels are stored as their two's-complement bits.
    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        let [level] = params else { return None };
        let level = *level as i32;
        Some(Decoded::new(
            format!("level {level}"),
            json!({ "level": level }),
        ))
    }
}
