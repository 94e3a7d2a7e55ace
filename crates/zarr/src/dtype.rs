//! Zarr data types (`<f4`, `|S1`, `int16`...) and the netCDF types they hold.

use ncmodel::AtomicType;

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
}

/// The encoding of text elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// Not text, or one byte per `char`.
    Plain,
    /// `|Sn` with n > 1: a byte string of n bytes, padded with NULs.
    Bytes,
    /// `<Un`: n UTF-32 code points, padded with NULs.
    Utf32,
}

impl Dtype {
    /// A plain little-endian dtype of `atomic`.
    pub fn of(atomic: AtomicType, big_endian: bool) -> Self {
        Self {
            atomic,
            big_endian,
            size: atomic.size(),
            text: Text::Plain,
            has_order: true,
        }
    }

    /// Parses a Zarr v2 dtype; `nczarr` makes `<U1` one byte per char, as netCDF-C
    /// 4.9.0 writes it.
    pub fn parse_v2(text: &str, nczarr: bool) -> Result<Self> {
        let bad = || {
            ZarrError::BadType(format!(
                "Zarr dtype {text:?} is not supported by nctools (it reads integers, floats, \
                 bool, |S and <U strings)"
            ))
        };
        let mut chars = text.chars();
        let order = chars.next().ok_or_else(bad)?;
        let kind = chars.next().ok_or_else(bad)?;
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
            ('S', 1) => A::Char,
            ('U', 1) if nczarr => A::Char,
            ('S' | 'U', n) if n >= 1 => A::String,
            _ => return Err(bad()),
        };
        let (size, text) = match (kind, atomic) {
            ('S', A::String) => (size, Text::Bytes),
            ('U', A::String) => (size.checked_mul(4).ok_or_else(bad)?, Text::Utf32),
            _ => (size, Text::Plain),
        };
        Ok(Self {
            atomic,
            big_endian,
            size,
            text,
            has_order: order != '|',
        })
    }

    /// The Zarr v2 dtype netCDF-C 4.9.0 writes for `atomic` (`<U1` for char).
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

    /// Parses a Zarr v3 `data_type`.
    pub fn parse_v3(text: &str, big_endian: bool) -> Result<Self> {
        use AtomicType as A;
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
            _ => {
                return Err(ZarrError::BadType(format!(
                    "Zarr v3 data type {text:?} is not supported by nctools (it reads \
                     bool, int8-64, uint8-64, float32, float64)"
                )))
            }
        };
        Ok(Self::of(atomic, big_endian))
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
        self.text != Text::Bytes && self.big_endian != cfg!(target_endian = "big") && {
            self.atomic != AtomicType::Char
        }
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
    fn v2_dtypes() -> Result<()> {
        assert_eq!(Dtype::parse_v2("<f4", true)?.atomic, AtomicType::Float);
        assert_eq!(Dtype::parse_v2("<U1", true)?.atomic, AtomicType::Char);
        assert_eq!(Dtype::parse_v2("|S1", false)?.atomic, AtomicType::Char);
        let s = Dtype::parse_v2("<U3", false)?;
        assert_eq!((s.atomic, s.size), (AtomicType::String, 12));
        assert!(Dtype::parse_v2("|O", false).is_err());
        assert_eq!(
            Dtype::v2_name(AtomicType::Char, false).as_deref(),
            Some("<U1")
        );
        Ok(())
    }
}
