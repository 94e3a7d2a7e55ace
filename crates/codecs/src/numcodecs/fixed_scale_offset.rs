//! numcodecs' `fixedscaleoffset` (Zarr version 3: `numcodecs.fixedscaleoffset`):
//! values stored as `round((x - offset) * scale)` in `astype`. Decoding is
//! `stored / scale + offset`, computed as numpy does (in float32 when `astype` is
//! float32, else in float64), then converted to `dtype`. Lossy: decode only.

use serde_json::{Map, Value};

use super::config;
use super::error::CodecError;
use super::numeric::{encoded_len, map_elements, Kind, NumType, Scalar};
use super::registry::Chunks;

/// The fixed scale-offset codec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedScaleOffset {
    /// Subtracted from the values before scaling.
    pub offset: f64,
    /// What the values are multiplied by (never zero).
    pub scale: f64,
    /// The type of the decoded values.
    pub dtype: NumType,
    /// The type the scaled values are stored as.
    pub astype: NumType,
}

impl FixedScaleOffset {
    /// The numcodecs id.
    pub const ID: &'static str = "fixedscaleoffset";

    /// Reads `{"offset": o, "scale": s, "dtype": "<f8", "astype": "<i2"}` (`astype`
    /// optional).
    pub fn from_config(config: &Map<String, Value>) -> Result<Self, CodecError> {
        let number = |key| {
            config::float(Self::ID, config, key)?
                .ok_or_else(|| CodecError::config(Self::ID, format!("\"{key}\" is missing")))
        };
        let (offset, scale) = (number("offset")?, number("scale")?);
        if scale == 0.0 {
            return Err(CodecError::config(Self::ID, "\"scale\" is 0"));
        }
        let dtype = NumType::from_config(Self::ID, config, "dtype", None)?;
        let astype = NumType::from_config(Self::ID, config, "astype", Some(dtype))?;
        Ok(Self {
            offset,
            scale,
            dtype,
            astype,
        })
    }

    /// The values of the stored elements of `input`, if at most `max_output` bytes.
    pub fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        let single = self.astype.kind == Kind::Float && self.astype.size == 4;
        map_elements(Self::ID, self.astype, self.dtype, input, max_output, |v| {
            let x = v.as_f64();
            Scalar::Float(if single {
                let (scale, offset) = (self.scale as f32, self.offset as f32);
                f64::from(x as f32 / scale + offset)
            } else {
                x / self.scale + self.offset
            })
        })
    }

    /// The most bytes a chunk of `decoded` bytes takes encoded.
    pub fn max_encoded_len(&self, decoded: usize) -> usize {
        encoded_len(decoded, self.dtype, self.astype)
    }
}

impl Chunks for FixedScaleOffset {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        FixedScaleOffset::decode(self, input, max_output)
    }

    fn max_encoded_len(&self, decoded: usize) -> usize {
        FixedScaleOffset::max_encoded_len(self, decoded)
    }

    fn widens(&self) -> bool {
        true
    }
}

/// The chunks of `{"id": "fixedscaleoffset", ...}` (decode only).
pub fn fixed_scale_offset_chunks(
    config: &Map<String, Value>,
) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(FixedScaleOffset::from_config(config)?))
}
