//! numcodecs' `quantize` (Zarr version 3: `numcodecs.quantize`): floating-point values
//! rounded to `digits` decimal digits, stored as `astype` (by default `dtype`).
//! Decoding converts `astype` back to `dtype`. Lossy: decode only.

use serde_json::{Map, Value};

use super::config;
use super::error::CodecError;
use super::numeric::{encoded_len, map_elements, Kind, NumType};
use super::registry::Chunks;

/// The quantize codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantize {
    /// The decimal digits kept.
    pub digits: u32,
    /// The type of the decoded values (a float).
    pub dtype: NumType,
    /// The type the values are stored as (a float).
    pub astype: NumType,
}

impl Quantize {
    /// The numcodecs id.
    pub const ID: &'static str = "quantize";

    /// Reads `{"digits": d, "dtype": "<f8", "astype": "<f4"}` (`astype` optional).
    pub fn from_config(config: &Map<String, Value>) -> Result<Self, CodecError> {
        let digits = config::int_in(Self::ID, config, "digits", 0..=400, None)?;
        let dtype = NumType::from_config(Self::ID, config, "dtype", None)?;
        let astype = NumType::from_config(Self::ID, config, "astype", Some(dtype))?;
        if dtype.kind != Kind::Float || astype.kind != Kind::Float {
            return Err(CodecError::config(
                Self::ID,
                "only floating-point types (f4, f8) are quantized",
            ));
        }
        Ok(Self {
            digits: u32::try_from(digits).unwrap_or(0),
            dtype,
            astype,
        })
    }

    /// The values of `input` as `dtype`, if at most `max_output` bytes.
    pub fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        map_elements(Self::ID, self.astype, self.dtype, input, max_output, |v| v)
    }

    /// The most bytes a chunk of `decoded` bytes takes encoded.
    pub fn max_encoded_len(&self, decoded: usize) -> usize {
        encoded_len(decoded, self.dtype, self.astype)
    }
}

impl Chunks for Quantize {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        Quantize::decode(self, input, max_output)
    }

    fn max_encoded_len(&self, decoded: usize) -> usize {
        Quantize::max_encoded_len(self, decoded)
    }

    fn widens(&self) -> bool {
        true
    }
}

/// The chunks of `{"id": "quantize", ...}` (decode only).
pub fn quantize_chunks(config: &Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(Quantize::from_config(config)?))
}
