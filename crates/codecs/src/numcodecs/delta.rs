//! numcodecs' `delta` (Zarr version 3: `numcodecs.delta`): the first element, then each
//! element minus the one before, computed in `dtype` (integers wrapping) and stored as
//! `astype` (by default `dtype`). Decoding is the running sum, in `dtype`. Lossless
//! when `astype` holds every difference.

use serde_json::{Map, Value};

use super::error::CodecError;
use super::numeric::{encoded_len, map_elements, NumType, Scalar};
use super::registry::Chunks;

/// The delta codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delta {
    /// The type of the decoded elements.
    pub dtype: NumType,
    /// The type the differences are stored as.
    pub astype: NumType,
}

impl Delta {
    /// The numcodecs id.
    pub const ID: &'static str = "delta";

    /// Reads `{"dtype": "<i4", "astype": "<i2"}` (`astype` optional).
    pub fn from_config(config: &Map<String, Value>) -> Result<Self, CodecError> {
        let dtype = NumType::from_config(Self::ID, config, "dtype", None)?;
        let astype = NumType::from_config(Self::ID, config, "astype", Some(dtype))?;
        Ok(Self { dtype, astype })
    }

    /// The differences of the elements of `input`.
    pub fn encode(&self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        let mut previous = None;
        map_elements(Self::ID, self.dtype, self.astype, input, usize::MAX, |v| {
            let diff = match previous {
                None => v,
                Some(p) => self.dtype.add(v, p, true),
            };
            previous = Some(v);
            diff
        })
    }

    /// The running sum of the differences in `input`, if at most `max_output` bytes.
    pub fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        let mut sum: Option<Scalar> = None;
        map_elements(Self::ID, self.astype, self.dtype, input, max_output, |v| {
            let next = match sum {
                None => self.dtype.cast(v),
                Some(s) => self.dtype.add(s, v, false),
            };
            sum = Some(next);
            next
        })
    }

    /// The most bytes a chunk of `decoded` bytes takes encoded.
    pub fn max_encoded_len(&self, decoded: usize) -> usize {
        encoded_len(decoded, self.dtype, self.astype)
    }
}

impl Chunks for Delta {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn encode(&self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        Delta::encode(self, input)
    }

    fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        Delta::decode(self, input, max_output)
    }

    fn max_encoded_len(&self, decoded: usize) -> usize {
        Delta::max_encoded_len(self, decoded)
    }

    fn widens(&self) -> bool {
        true
    }
}

/// The chunks of `{"id": "delta", ...}`.
pub fn delta_chunks(config: &Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(Delta::from_config(config)?))
}
