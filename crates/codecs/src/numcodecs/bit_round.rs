//! numcodecs' `bitround` (Zarr version 3: `numcodecs.bitround`): floating-point values
//! with all but `keepbits` bits of their mantissa rounded away. The stored values are
//! the rounded values themselves, so decoding is the identity. Lossy: decode only.

use serde_json::{Map, Value};

use super::config;
use super::error::CodecError;
use super::registry::Chunks;

/// The bit-round codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitRound {
    /// The mantissa bits kept (at most 52, float64's).
    pub keepbits: u32,
}

impl BitRound {
    /// The numcodecs id.
    pub const ID: &'static str = "bitround";

    /// Reads `{"keepbits": k}`.
    pub fn from_config(config: &Map<String, Value>) -> Result<Self, CodecError> {
        let keepbits = config::int_in(Self::ID, config, "keepbits", 0..=52, None)?;
        Ok(Self {
            keepbits: u32::try_from(keepbits).unwrap_or(0),
        })
    }

    /// The values of `input` (unchanged), if at most `max_output` bytes.
    pub fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        if input.len() > max_output {
            return Err(CodecError::TooLarge {
                codec: Self::ID,
                limit: max_output,
            });
        }
        Ok(input.to_vec())
    }
}

impl Chunks for BitRound {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        BitRound::decode(self, input, max_output)
    }

    fn max_encoded_len(&self, decoded: usize) -> usize {
        decoded
    }
}

/// The chunks of `{"id": "bitround", ...}` (decode only).
pub fn bit_round_chunks(config: &Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(BitRound::from_config(config)?))
}
