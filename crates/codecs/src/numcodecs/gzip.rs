//! numcodecs' `gzip` (Zarr version 3: `gzip`): one gzip member (RFC 1952), not the zlib
//! stream of the `zlib` codec. Decoding reads any number of members, as Python's gzip
//! module does.

use std::io::Write;

use serde_json::{Map, Value};

use super::config;
use super::error::CodecError;
use super::registry::Chunks;
use crate::codec::{read_bounded, DecodeError};

/// The gzip codec at a compression level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gzip {
    /// The compression level, 0 to 9 (numcodecs' default: 5).
    pub level: u32,
}

impl Gzip {
    /// The numcodecs id.
    pub const ID: &'static str = "gzip";

    /// Reads `{"level": L}`.
    pub fn from_config(config: &Map<String, Value>) -> Result<Self, CodecError> {
        let level = config::int_in(Self::ID, config, "level", 0..=9, Some(5))?;
        Ok(Self {
            level: u32::try_from(level).unwrap_or(5),
        })
    }

    /// One gzip member of `input` (its time stamp 0).
    pub fn encode(&self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        let mut encoder = flate2::GzBuilder::new().mtime(0).write(
            Vec::with_capacity(input.len() / 2 + 64),
            flate2::Compression::new(self.level),
        );
        encoder
            .write_all(input)
            .and_then(|()| encoder.finish())
            .map_err(|e| CodecError::corrupt(Self::ID, e.to_string()))
    }

    /// The bytes of the gzip members of `input`, if at most `max_output`.
    pub fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        let reader = flate2::read::MultiGzDecoder::new(input);
        read_bounded(reader, max_output, input.len().saturating_mul(2)).map_err(|e| match e {
            DecodeError::TooLarge { limit } => CodecError::TooLarge {
                codec: Self::ID,
                limit,
            },
            DecodeError::Io(e) => CodecError::corrupt(Self::ID, e.to_string()),
        })
    }
}

impl Chunks for Gzip {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn encode(&self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        Gzip::encode(self, input)
    }

    fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        Gzip::decode(self, input, max_output)
    }

    fn max_encoded_len(&self, decoded: usize) -> usize {
        decoded.saturating_add(super::registry::COMPRESSOR_SLACK)
    }
}

/// The chunks of `{"id": "gzip", ...}`.
pub fn gzip_chunks(config: &Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(Gzip::from_config(config)?))
}
