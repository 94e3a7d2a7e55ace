//! The numeric numpy data types the array codecs (delta, fixedscaleoffset, quantize)
//! take, their elements, and numpy's conversions and arithmetic between them.

use serde_json::{Map, Value};

use super::config;
use super::error::CodecError;

/// What kind of number a data type holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A signed integer.
    Int,
    /// An unsigned integer.
    UInt,
    /// An IEEE floating-point number.
    Float,
}

/// A numeric numpy data type as numcodecs names it (`"<i4"`, `">f8"`, `"|u1"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumType {
    /// The kind of number.
    pub kind: Kind,
    /// The size of one element in bytes: 1, 2, 4 or 8 (4 or 8 for floats).
    pub size: usize,
    /// Whether elements are stored most significant byte first.
    pub big_endian: bool,
}

/// One element, as the widest number of its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A floating-point number (a float32 is held exactly).
    Float(f64),
}

impl NumType {
    /// Parses a numpy type string: a byte order (`<`, `>`, `|` or `=`, `=` and none
    /// meaning little-endian), then `i` or `u` with 1, 2, 4 or 8, or `f` with 4 or 8.
    pub fn parse(codec: &'static str, text: &str) -> Result<Self, CodecError> {
        let refuse = || {
            CodecError::config(
                codec,
                format!(
                    "data type {text:?} is not one nctools supports (a numeric numpy type \
                     such as \"<i4\", \"<u2\", \">f8\": i1..i8, u1..u8, f4, f8)"
                ),
            )
        };
        let (big_endian, rest) = match text.as_bytes().first() {
            Some(b'>') => (true, &text[1..]),
            Some(b'<' | b'|' | b'=') => (false, &text[1..]),
            _ => (false, text),
        };
        let mut chars = rest.chars();
        let kind = match chars.next() {
            Some('i') => Kind::Int,
            Some('u') => Kind::UInt,
            Some('f') => Kind::Float,
            _ => return Err(refuse()),
        };
        let size: usize = chars.as_str().parse().map_err(|_| refuse())?;
        let valid = match kind {
            Kind::Float => matches!(size, 4 | 8),
            _ => matches!(size, 1 | 2 | 4 | 8),
        };
        if !valid {
            return Err(refuse());
        }
        Ok(Self {
            kind,
            size,
            big_endian,
        })
    }

    /// The type named by member `key` of `config`, or `default` when it is absent.
    pub fn from_config(
        codec: &'static str,
        config: &Map<String, Value>,
        key: &str,
        default: Option<Self>,
    ) -> Result<Self, CodecError> {
        match config::string(codec, config, key)? {
            Some(text) => Self::parse(codec, text),
            None => {
                default.ok_or_else(|| CodecError::config(codec, format!("\"{key}\" is missing")))
            }
        }
    }

    /// The number of elements of this type in `bytes`, when it is a whole number.
    pub fn count(&self, codec: &'static str, bytes: &[u8]) -> Result<usize, CodecError> {
        if bytes.len() % self.size == 0 {
            Ok(bytes.len() / self.size)
        } else {
            Err(CodecError::corrupt(
                codec,
                format!(
                    "{} bytes are not a whole number of {}-byte elements",
                    bytes.len(),
                    self.size
                ),
            ))
        }
    }

    /// The element stored in `bytes` (exactly `self.size` of them).
    pub fn read(&self, bytes: &[u8]) -> Scalar {
        let mut word = [0u8; 8];
        if self.big_endian {
            word[8 - bytes.len()..].copy_from_slice(bytes);
            word.reverse();
        } else {
            word[..bytes.len()].copy_from_slice(bytes);
        }
        let bits = u64::from_le_bytes(word);
        let shift = 64 - 8 * self.size as u32;
        match (self.kind, self.size) {
            (Kind::Int, _) => Scalar::Int(((bits << shift) as i64) >> shift),
            (Kind::UInt, _) => Scalar::UInt(bits),
            (Kind::Float, 4) => Scalar::Float(f64::from(f32::from_bits(bits as u32))),
            (Kind::Float, _) => Scalar::Float(f64::from_bits(bits)),
        }
    }

    /// `value` converted to this type as numpy's `astype` does (integers wrap, floats
    /// truncate toward zero into integers, and round to float32).
    pub fn cast(&self, value: Scalar) -> Scalar {
        let shift = 64 - 8 * self.size as u32;
        let wrap = |bits: u64| match self.kind {
            Kind::Int => Scalar::Int(((bits << shift) as i64) >> shift),
            _ => Scalar::UInt((bits << shift) >> shift),
        };
        match (self.kind, value) {
            (Kind::Int | Kind::UInt, Scalar::Int(v)) => wrap(v as u64),
            (Kind::Int | Kind::UInt, Scalar::UInt(v)) => wrap(v),
            (Kind::Int, Scalar::Float(v)) => wrap(v as i64 as u64),
            (Kind::UInt, Scalar::Float(v)) if v < 0.0 => wrap(v as i64 as u64),
            (Kind::UInt, Scalar::Float(v)) => wrap(v as u64),
            (Kind::Float, v) if self.size == 4 => Scalar::Float(f64::from(match v {
                Scalar::Int(i) => i as f32,
                Scalar::UInt(u) => u as f32,
                Scalar::Float(f) => f as f32,
            })),
            (Kind::Float, v) => Scalar::Float(v.as_f64()),
        }
    }

    /// Appends `value`, converted to this type, to `out`.
    pub fn write(&self, value: Scalar, out: &mut Vec<u8>) {
        let bits = match self.cast(value) {
            Scalar::Int(v) => v as u64,
            Scalar::UInt(v) => v,
            Scalar::Float(v) if self.size == 4 => u64::from((v as f32).to_bits()),
            Scalar::Float(v) => v.to_bits(),
        };
        let bytes = bits.to_le_bytes();
        let bytes = &bytes[..self.size];
        if self.big_endian {
            out.extend(bytes.iter().rev());
        } else {
            out.extend_from_slice(bytes);
        }
    }

    /// `a + b` (or `a - b` when `subtract`) in this type's arithmetic: both converted to
    /// it, integers wrapping, float32 rounding.
    pub fn add(&self, a: Scalar, b: Scalar, subtract: bool) -> Scalar {
        match (self.cast(a), self.cast(b)) {
            (Scalar::Float(x), Scalar::Float(y)) => {
                let sum = if subtract { x - y } else { x + y };
                self.cast(Scalar::Float(sum))
            }
            (x, y) => {
                let (x, y) = (x.bits(), y.bits());
                let sum = if subtract {
                    x.wrapping_sub(y)
                } else {
                    x.wrapping_add(y)
                };
                self.cast(Scalar::UInt(sum))
            }
        }
    }

    /// Whether the output of `count` elements of this type fits in `max_output` bytes.
    pub fn bytes_for(
        &self,
        codec: &'static str,
        count: usize,
        max_output: usize,
    ) -> Result<usize, CodecError> {
        count
            .checked_mul(self.size)
            .filter(|n| *n <= max_output)
            .ok_or(CodecError::TooLarge {
                codec,
                limit: max_output,
            })
    }
}

impl Scalar {
    /// The value as a float64.
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Int(v) => v as f64,
            Scalar::UInt(v) => v as f64,
            Scalar::Float(v) => v,
        }
    }

    /// The bits of an integer (two's complement), or of a float's integer part.
    fn bits(self) -> u64 {
        match self {
            Scalar::Int(v) => v as u64,
            Scalar::UInt(v) => v,
            Scalar::Float(v) => v as i64 as u64,
        }
    }
}

/// Converts every element of `input` from `from` to `to` with `convert`, within
/// `max_output` bytes of output.
pub fn map_elements(
    codec: &'static str,
    from: NumType,
    to: NumType,
    input: &[u8],
    max_output: usize,
    mut convert: impl FnMut(Scalar) -> Scalar,
) -> Result<Vec<u8>, CodecError> {
    let count = from.count(codec, input)?;
    let mut out = Vec::with_capacity(to.bytes_for(codec, count, max_output)?);
    for element in input.chunks_exact(from.size) {
        to.write(convert(from.read(element)), &mut out);
    }
    Ok(out)
}

/// The most bytes `decoded` bytes of `decoded_type` take as `encoded_type`.
pub fn encoded_len(decoded: usize, decoded_type: NumType, encoded_type: NumType) -> usize {
    decoded
        .div_ceil(decoded_type.size)
        .saturating_mul(encoded_type.size)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> NumType {
        NumType::parse("test", text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn types_parse_and_refuse() {
        assert_eq!(t("<i4").size, 4);
        assert!(t(">f8").big_endian);
        assert_eq!(t("|u1").kind, Kind::UInt);
        for bad in ["<f2", "<i3", "<c8", "|O", "<M8[ns]", "", "<", "S10", "<i16"] {
            assert!(NumType::parse("test", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn elements_read_write_cast_and_add_like_numpy() {
        let mut out = Vec::new();
        t(">i2").write(Scalar::Int(-2), &mut out);
        assert_eq!(out, [0xff, 0xfe]);
        assert_eq!(t(">i2").read(&out), Scalar::Int(-2));
        assert_eq!(t("<i2").cast(Scalar::Int(70000)), Scalar::Int(4464));
        assert_eq!(t("<u1").cast(Scalar::Int(-1)), Scalar::UInt(255));
        assert_eq!(t("<i4").cast(Scalar::Float(-2.7)), Scalar::Int(-2));
        assert_eq!(
            t("<f4").cast(Scalar::Float(0.1)),
            Scalar::Float(f64::from(0.1f32))
        );
        assert_eq!(
            t("<i1").add(Scalar::Int(127), Scalar::Int(1), false),
            Scalar::Int(-128)
        );
        assert_eq!(
            t("<u2").add(Scalar::UInt(0), Scalar::UInt(1), true),
            Scalar::UInt(65535)
        );
    }
}
