//! Zarr data types (`<f4`, `|S1`, `int16`...) and the netCDF types they hold.

use ncmodel::AtomicType;
use serde_json::Value;

use crate::error::{Result, ZarrError};

/// How the elements of an array are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dtype {
    /// The netCDF type the elements are read as.
    pub atomic: AtomicType,
    /// Whether multi-byte elements are big-endian on disk.
    pub big_endian: bool,
    /// The size of one stored element in bytes.
    pub size: usize,
    /// How text elements are encoded.
    pub text: Text,
    /// Whether the dtype names its byte order (`<`/`>`), as opposed to `|`.
    pub has_order: bool,
    /// What the stored elements are when they are not the netCDF type itself.
    pub special: Special,
}

/// Stored elements that nctools reads as another netCDF type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// The elements are the netCDF type.
    None,
    /// IEEE half-precision floats (`<f2`, `float16`), read as `float` (netCDF has no
    /// 16-bit float).
    Half,
    /// numpy `datetime64` in this unit since 1970-01-01 (a CF unit word), read as
    /// `int64`.
    Datetime(&'static str),
    /// numpy `timedelta64` in this unit, read as `int64`.
    Timedelta(&'static str),
    /// Byte strings of any length (the `vlen-bytes` codec: v2 `|O`, v3
    /// `variable_length_bytes`), read as `string` with their bytes as stored.
    Bytes,
}

/// The encoding of text elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// Not text, or one byte per `char`.
    Plain,
    /// `|Sn` (a string): a byte string of n bytes, padded with NULs.
    Bytes,
    /// `<Un`: n UTF-32 code points, padded with NULs.
    Utf32,
    /// An object array of the `vlen-utf8` codec: strings of any length, each chunk one
    /// encoded list (read only; an element is held as an index into the strings read).
    Vlen,
}

/// Who wrote a Zarr v2 store, for the dtypes whose meaning depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// NCZarr: `<U1` and `>S1` are char (netCDF-C 4.9.0's and 4.9.1+'s forms), `|Sn`
    /// is a string of at most n bytes, `|S1` included (4.9.1+).
    NcZarr,
    /// A pure Zarr store written by netCDF-C (its root has `_NCProperties`): `<U1` is
    /// one byte per char, as 4.9.0 writes it; `|S1` and `>S1` are strings of at most one
    /// byte, as netCDF-C 4.10 reads them (pure Zarr has no char type).
    NetcdfPure,
    /// Any other pure Zarr store (zarr-python, xarray): `<Un` is UTF-32 (numpy's `U`),
    /// `|Sn` a string of at most n bytes, `|S1` included (as netCDF-C 4.10 reads it).
    Pure,
}

/// The width of an element of [`Text::Vlen`]: an index into the strings read.
pub const VLEN_INDEX: usize = size_of::<u64>();

impl Dtype {
    /// A plain little-endian dtype of `atomic`.
    pub fn of(atomic: AtomicType, big_endian: bool) -> Self {
        Self {
            atomic,
            big_endian,
            size: atomic.size(),
            text: Text::Plain,
            has_order: true,
            special: Special::None,
        }
    }

    /// A fixed-length string of `width` bytes, NUL padded (`|S<width>`).
    pub fn fixed_string(width: usize) -> Self {
        Self {
            atomic: AtomicType::String,
            big_endian: false,
            size: width.max(1),
            text: Text::Bytes,
            has_order: false,
            special: Special::None,
        }
    }

    /// Strings of an object array of the `vlen-utf8` codec.
    pub fn vlen_string() -> Self {
        Self {
            text: Text::Vlen,
            size: VLEN_INDEX,
            ..Self::fixed_string(1)
        }
    }

    /// Byte strings of an object array of the `vlen-bytes` codec, read as strings.
    pub fn vlen_bytes() -> Self {
        Self {
            special: Special::Bytes,
            ..Self::vlen_string()
        }
    }

    /// The codec of a [`Text::Vlen`] array's elements: `vlen-bytes` or `vlen-utf8`.
    pub fn vlen_codec(&self) -> &'static str {
        if self.special == Special::Bytes {
            crate::vlen::VLEN_BYTES
        } else {
            crate::vlen::VLEN_UTF8
        }
    }

    /// Parses a Zarr v2 dtype of a store written as `dialect` says.
    pub fn parse_v2(text: &str, dialect: Dialect) -> Result<Self> {
        let bad = || {
            ZarrError::BadType(format!(
                "Zarr dtype {text:?} is not supported by nctools (it reads integers, floats, \
                 bool, |S and <U strings, and |O strings of the vlen-utf8 codec)"
            ))
        };
        let mut chars = text.chars();
        let order = chars.next().ok_or_else(bad)?;
        let kind = chars.next().ok_or_else(bad)?;
        let big_endian = order == '>';
        match (kind, chars.as_str()) {
            ('f', "2") => return Ok(Self::half(big_endian)),
            ('M' | 'm', rest) => {
                let unit = rest
                    .strip_prefix("8[")
                    .and_then(|u| u.strip_suffix(']'))
                    .unwrap_or("");
                return Self::time(kind == 'M', unit, big_endian, text);
            }
            ('c', _) => return Err(cannot_hold(text, "complex numbers")),
            ('V', _) => return Err(cannot_hold(text, "structured (record) types")),
            _ => {}
        }
        let size: usize = chars.as_str().parse().map_err(|_| bad())?;
        let big_endian = match order {
            '<' | '|' => false,
            '>' => true,
            _ => return Err(bad()),
        };
        use AtomicType as A;
        let atomic = match (kind, size) {
            ('i', 1) => A::Byte,
            ('i', 2) => A::Short,
            ('i', 4) => A::Int,
            ('i', 8) => A::Int64,
            ('u' | 'b', 1) => A::UByte,
            ('u', 2) => A::UShort,
            ('u', 4) => A::UInt,
            ('u', 8) => A::UInt64,
            ('f', 4) => A::Float,
            ('f', 8) => A::Double,
            ('S', 1) if dialect == Dialect::NcZarr && order == '>' => A::Char,
            ('U', 1) if dialect != Dialect::Pure => A::Char,
            ('S' | 'U', n) if n >= 1 => A::String,
            _ => return Err(bad()),
        };
        let (size, text) = match (kind, atomic) {
            ('S', A::String) => (size, Text::Bytes),
            ('U', A::String) => (size.checked_mul(4).ok_or_else(bad)?, Text::Utf32),
            _ => (size, Text::Plain),
        };
        // Byte strings have no byte order: `>S1` is only netCDF-C 4.9.1+'s mark of char.
        let bytes = kind == 'S';
        Ok(Self {
            atomic,
            big_endian: big_endian && !bytes,
            size,
            text,
            has_order: order != '|' && !bytes,
            special: Special::None,
        })
    }

    /// The Zarr v2 dtype netCDF-C 4.9.0 writes for `atomic` (`<U1` for char); strings
    /// have no fixed form here (see [`Dtype::v2_text`]).
    pub fn v2_name(atomic: AtomicType, big_endian: bool) -> Option<String> {
        use AtomicType as A;
        let (kind, size) = match atomic {
            A::Byte => ('i', 1),
            A::Char => ('U', 1),
            A::Short => ('i', 2),
            A::Int => ('i', 4),
            A::Int64 => ('i', 8),
            A::UByte => ('u', 1),
            A::UShort => ('u', 2),
            A::UInt => ('u', 4),
            A::UInt64 => ('u', 8),
            A::Float => ('f', 4),
            A::Double => ('f', 8),
            A::String => return None,
        };
        let order = if big_endian { '>' } else { '<' };
        Some(format!("{order}{kind}{size}"))
    }

    /// Parses a Zarr v3 `data_type`: a name, or one of zarr-python's objects of
    /// fixed-length strings (`null_terminated_bytes`, `fixed_length_utf32`); `string`
    /// is an array of the `vlen-utf8` codec.
    pub fn parse_v3(data_type: &Value, big_endian: bool) -> Result<Self> {
        use AtomicType as A;
        let (text, length) = match data_type {
            Value::String(s) => (s.as_str(), None),
            Value::Object(o) => (
                o.get("name").and_then(Value::as_str).unwrap_or("?"),
                o.get("configuration")
                    .and_then(|c| c.get("length_bytes"))
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok()),
            ),
            _ => ("?", None),
        };
        match (text, length) {
            ("null_terminated_bytes", Some(n)) if n >= 1 => return Ok(Self::fixed_string(n)),
            ("fixed_length_utf32", Some(n)) if n >= 4 && n % 4 == 0 => {
                return Ok(Self {
                    atomic: A::String,
                    big_endian,
                    size: n,
                    text: Text::Utf32,
                    has_order: true,
                    special: Special::None,
                })
            }
            ("string" | "variable_length_utf8", _) => return Ok(Self::vlen_string()),
            ("variable_length_bytes", _) => return Ok(Self::vlen_bytes()),
            _ => {}
        }
        let atomic = match text {
            "int8" => A::Byte,
            "int16" => A::Short,
            "int32" => A::Int,
            "int64" => A::Int64,
            "uint8" | "bool" => A::UByte,
            "uint16" => A::UShort,
            "uint32" => A::UInt,
            "uint64" => A::UInt64,
            "float32" => A::Float,
            "float64" => A::Double,
            "float16" => return Ok(Self::half(big_endian)),
            "numpy.datetime64" | "numpy.timedelta64" => {
                let unit = data_type
                    .pointer("/configuration/unit")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let scale = data_type
                    .pointer("/configuration/scale_factor")
                    .and_then(Value::as_u64)
                    .unwrap_or(1);
                if scale != 1 {
                    return Err(ZarrError::BadType(format!(
                        "Zarr v3 data type {data_type}: times in steps of {scale} {unit} are \
                         not supported by nctools (it reads a scale_factor of 1)"
                    )));
                }
                let datetime = text == "numpy.datetime64";
                return Self::time(datetime, unit, big_endian, &data_type.to_string());
            }
            "complex64" | "complex128" | "complex_float32" | "complex_float64" => {
                return Err(cannot_hold(&data_type.to_string(), "complex numbers"))
            }
            _ if data_type.is_array() => {
                return Err(cannot_hold(
                    &data_type.to_string(),
                    "structured (record) types",
                ))
            }
            _ => {
                return Err(ZarrError::BadType(format!(
                    "Zarr v3 data type {data_type} is not supported by nctools (it reads \
                     bool, int8-64, uint8-64, float16, float32, float64, numpy.datetime64, \
                     numpy.timedelta64, null_terminated_bytes, fixed_length_utf32, string \
                     and variable_length_bytes)"
                )))
            }
        };
        Ok(Self::of(atomic, big_endian))
    }

    /// The Zarr v2 dtype of a fixed-length string array: `|S<n>`.
    /// Half-precision floats, read as `float`.
    fn half(big_endian: bool) -> Self {
        Self {
            special: Special::Half,
            ..Self::of(AtomicType::Float, big_endian)
        }
    }

    /// numpy `datetime64` (`datetime`) or `timedelta64` in `unit` (numpy's letters),
    /// read as `int64`; `text` is the type as written, for messages.
    fn time(datetime: bool, unit: &str, big_endian: bool, text: &str) -> Result<Self> {
        let word = match unit {
            "W" => "weeks",
            "D" => "days",
            "h" => "hours",
            "m" => "minutes",
            "s" => "seconds",
            "ms" => "milliseconds",
            "us" | "μs" => "microseconds",
            "ns" => "nanoseconds",
            _ => {
                return Err(ZarrError::BadType(format!(
                    "Zarr data type {text}: times in the unit {unit:?} are not supported by \
                     nctools (it reads the units W, D, h, m, s, ms, us and ns; years and \
                     months have no fixed length)"
                )))
            }
        };
        Ok(Self {
            special: if datetime {
                Special::Datetime(word)
            } else {
                Special::Timedelta(word)
            },
            ..Self::of(AtomicType::Int64, big_endian)
        })
    }

    /// The size of one stored element (2 for half floats, read as 4-byte floats).
    pub fn stored_size(&self) -> usize {
        match self.special {
            Special::Half => 2,
            _ => self.size,
        }
    }

    /// The `units` attribute a time type implies, in CF's form.
    pub fn cf_units(&self) -> Option<String> {
        match self.special {
            Special::Datetime(word) => Some(format!("{word} since 1970-01-01 00:00:00")),
            Special::Timedelta(word) => Some(word.to_string()),
            _ => None,
        }
    }

    pub fn v2_string(&self) -> String {
        format!("|S{}", self.size)
    }

    /// The Zarr v3 `data_type` of `atomic` (char is stored as `uint8`).
    pub fn v3_name(atomic: AtomicType) -> Option<&'static str> {
        use AtomicType as A;
        Some(match atomic {
            A::Byte => "int8",
            A::Short => "int16",
            A::Int => "int32",
            A::Int64 => "int64",
            A::UByte | A::Char => "uint8",
            A::UShort => "uint16",
            A::UInt => "uint32",
            A::UInt64 => "uint64",
            A::Float => "float32",
            A::Double => "float64",
            A::String => return None,
        })
    }

    /// Whether the stored bytes of an element must be reversed for this machine.
    pub fn needs_swap(&self) -> bool {
        !matches!(self.text, Text::Bytes | Text::Vlen)
            && self.big_endian != cfg!(target_endian = "big")
            && { self.atomic != AtomicType::Char }
    }

    /// The width swapped as a unit: 4 for UTF-32 code points, else the element size.
    pub fn swap_width(&self) -> usize {
        match self.text {
            Text::Utf32 => 4,
            _ => self.size,
        }
    }
}

/// Reverses the byte order of every `width`-byte word of `data` in place.
/// The error for a type netCDF cannot hold.
fn cannot_hold(text: &str, what: &str) -> ZarrError {
    ZarrError::BadType(format!(
        "the Zarr data type {text} holds {what}, which netCDF cannot hold"
    ))
}

/// The 4-byte floats (machine order) of half-precision floats in machine order.
pub fn widen_half(data: &[u8]) -> Vec<u8> {
    data.chunks_exact(2)
        .flat_map(|h| half_to_f32(u16::from_ne_bytes([h[0], h[1]])).to_ne_bytes())
        .collect()
}

/// An IEEE 754 half-precision number as a 4-byte float (exact: every half is a float).
fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exponent = u32::from((h >> 10) & 0x1f);
    let fraction = u32::from(h & 0x3ff);
    let bits = match (exponent, fraction) {
        (0, 0) => sign,
        (0, f) => {
            // Subnormal: f × 2^-24.
            let value = f as f32 * 2f32.powi(-24);
            return if sign != 0 { -value } else { value };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 127 - 15) << 23) | (f << 13),
    };
    f32::from_bits(bits)
}

pub fn swap_in_place(data: &mut [u8], width: usize) {
    if width > 1 {
        for word in data.chunks_exact_mut(width) {
            word.reverse();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats_widen_exactly() {
        let halves: [(u16, f32); 7] = [
            (0x3c00, 1.0),
            (0xc000, -2.0),
            (0x7bff, 65504.0),
            (0x0001, 5.960_464_5e-8),
            (0x0000, 0.0),
            (0x7c00, f32::INFINITY),
            (0x3555, 0.333_251_95),
        ];
        let bytes: Vec<u8> = halves.iter().flat_map(|(h, _)| h.to_ne_bytes()).collect();
        let wide = widen_half(&bytes);
        for (i, (_, f)) in halves.iter().enumerate() {
            let got = f32::from_ne_bytes([
                wide[4 * i],
                wide[4 * i + 1],
                wide[4 * i + 2],
                wide[4 * i + 3],
            ]);
            assert_eq!(got, *f, "half {i}");
        }
        assert!(half_to_f32(0x7e00).is_nan());
    }

    #[test]
    fn times_and_types_netcdf_cannot_hold() -> Result<()> {
        let t = Dtype::parse_v2("<M8[ns]", Dialect::Pure)?;
        assert_eq!(
            (t.atomic, t.cf_units()),
            (
                AtomicType::Int64,
                Some("nanoseconds since 1970-01-01 00:00:00".into())
            )
        );
        let t = Dtype::parse_v2("<m8[s]", Dialect::Pure)?;
        assert_eq!(t.cf_units(), Some("seconds".into()));
        assert!(Dtype::parse_v2("<M8[Y]", Dialect::Pure).is_err());
        let h = Dtype::parse_v2("<f2", Dialect::Pure)?;
        assert_eq!(
            (h.atomic, h.size, h.stored_size()),
            (AtomicType::Float, 4, 2)
        );
        let c = Dtype::parse_v2("<c8", Dialect::Pure)
            .err()
            .map(|e| e.to_string());
        assert!(c.is_some_and(|e| e.contains("complex numbers, which netCDF cannot hold")));
        let v3 = serde_json::json!({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}});
        assert_eq!(
            Dtype::parse_v3(&v3, false)?.cf_units(),
            Some("seconds since 1970-01-01 00:00:00".into())
        );
        let c = Dtype::parse_v3(&serde_json::json!("complex128"), false);
        assert!(c.is_err());
        Ok(())
    }

    #[test]
    fn v2_dtypes() -> Result<()> {
        use Dialect::{NcZarr, NetcdfPure, Pure};
        let atomic = |t, d| Dtype::parse_v2(t, d).map(|d| d.atomic);
        assert_eq!(atomic("<f4", NcZarr)?, AtomicType::Float);
        assert_eq!(atomic("<U1", NcZarr)?, AtomicType::Char);
        let c = Dtype::parse_v2(">S1", NcZarr)?;
        assert_eq!(
            (c.atomic, c.big_endian, c.has_order),
            (AtomicType::Char, false, false)
        );
        assert_eq!(atomic("|S1", NcZarr)?, AtomicType::String);
        assert_eq!(atomic("|S1", Pure)?, AtomicType::String);
        assert_eq!(atomic(">S1", NetcdfPure)?, AtomicType::String);
        assert_eq!(atomic("<U1", NetcdfPure)?, AtomicType::Char);
        let u1 = Dtype::parse_v2("<U1", Pure)?;
        assert_eq!(
            (u1.atomic, u1.size, u1.text),
            (AtomicType::String, 4, Text::Utf32)
        );
        let s = Dtype::parse_v2("<U3", Pure)?;
        assert_eq!((s.atomic, s.size), (AtomicType::String, 12));
        let s = Dtype::parse_v2("|S6", NcZarr)?;
        assert_eq!(
            (s.atomic, s.size, s.text),
            (AtomicType::String, 6, Text::Bytes)
        );
        assert!(Dtype::parse_v2("|O", Pure).is_err());
        assert_eq!(
            Dtype::v2_name(AtomicType::Char, false).as_deref(),
            Some("<U1")
        );
        Ok(())
    }

    #[test]
    fn v3_string_types() -> Result<()> {
        let t: Value = serde_json::json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}});
        assert_eq!(Dtype::parse_v3(&t, false)?, Dtype::fixed_string(5));
        let t =
            serde_json::json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}});
        let u = Dtype::parse_v3(&t, false)?;
        assert_eq!((u.size, u.text), (8, Text::Utf32));
        assert_eq!(
            Dtype::parse_v3(&Value::from("string"), false)?.text,
            Text::Vlen
        );
        assert!(Dtype::parse_v3(&Value::from("complex64"), false).is_err());
        Ok(())
    }
}
