//! Element bytes (in the machine's byte order) to and from [`Values`], and single JSON
//! numbers to element bytes.

use ncmodel::{AtomicType, Values};
use serde_json::Value;

use crate::dtype::{Dtype, Text};
use crate::error::{Result, ZarrError};
use crate::json;

/// The values held by `bytes`, elements of `dtype` in the machine's byte order.
pub fn bytes_to_values(bytes: &[u8], dtype: &Dtype) -> Values {
    match dtype.atomic {
        AtomicType::String => Values::String(
            bytes
                .chunks_exact(dtype.size.max(1))
                .map(|e| Some(text_of(e, dtype.text)))
                .collect(),
        ),
        atomic => Values::from_native_bytes(atomic, bytes).unwrap_or_else(|| Values::empty(atomic)),
    }
}

/// One fixed-size text element as UTF-8 bytes, up to its first NUL (an element of NULs
/// only is the empty string).
fn text_of(element: &[u8], text: Text) -> Vec<u8> {
    match text {
        Text::Utf32 => {
            let s: String = element
                .chunks_exact(4)
                .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
                .take_while(|c| *c != 0)
                .map(|c| char::from_u32(c).unwrap_or('\u{fffd}'))
                .collect();
            s.into_bytes()
        }
        _ => crate::strings::from_fixed(element),
    }
}

/// The element bytes of `values` for an array of `dtype` (machine order; strings NUL
/// padded to the element size), and how many strings were cut to fit it.
pub fn element_bytes(values: &Values, dtype: &Dtype) -> Result<(Vec<u8>, usize)> {
    match values {
        Values::String(strings) if dtype.text == Text::Bytes => {
            Ok(crate::strings::to_fixed(strings, dtype.size))
        }
        other => values_to_bytes(other, dtype.atomic).map(|b| (b, 0)),
    }
}

/// The bytes of `values` (which must be of the fixed-size type `atomic`), in the
/// machine's byte order.
pub fn values_to_bytes(values: &Values, atomic: AtomicType) -> Result<Vec<u8>> {
    let out = match values {
        Values::Byte(v) => v.iter().map(|x| *x as u8).collect(),
        Values::Char(v) | Values::UByte(v) => v.clone(),
        Values::Short(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::UShort(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::Int(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::UInt(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::Int64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::UInt64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::Float(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::Double(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Values::String(_) | Values::User(_) => {
            return Err(ZarrError::BadType(format!(
                "values of type {atomic} cannot be written to a Zarr store by nctools"
            )))
        }
    };
    Ok(out)
}

/// One JSON value (a number, a non-finite token, a one-character string for char) as the
/// bytes of one element of `atomic`; `None` when it does not fit.
pub fn json_to_element(value: &Value, atomic: AtomicType) -> Option<Vec<u8>> {
    use AtomicType as A;
    if atomic == A::Char {
        return match value {
            Value::String(s) => Some(vec![s.as_bytes().first().copied().unwrap_or(0)]),
            other => other
                .as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .map(|b| vec![b]),
        };
    }
    let int = || -> Option<i128> {
        match value {
            Value::Number(n) => n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i128)),
            Value::String(s) => s.trim().parse().ok(),
            Value::Bool(b) => Some(i128::from(*b)),
            _ => None,
        }
    };
    macro_rules! fit {
        ($t:ty) => {
            int()
                .and_then(|n| <$t>::try_from(n).ok())
                .map(|x| x.to_ne_bytes().to_vec())
        };
    }
    match atomic {
        A::Byte => fit!(i8),
        A::UByte => fit!(u8),
        A::Short => fit!(i16),
        A::UShort => fit!(u16),
        A::Int => fit!(i32),
        A::UInt => fit!(u32),
        A::Int64 => fit!(i64),
        A::UInt64 => fit!(u64),
        A::Float => hex_bits(value)
            .and_then(|bits| u32::try_from(bits).ok())
            .map(|bits| bits.to_ne_bytes().to_vec())
            .or_else(|| float_of(value).map(|x| (x as f32).to_ne_bytes().to_vec())),
        A::Double => hex_bits(value)
            .map(|bits| bits.to_ne_bytes().to_vec())
            .or_else(|| float_of(value).map(|x| x.to_ne_bytes().to_vec())),
        A::Char | A::String => None,
    }
}

/// The bits of a float written as Zarr version 3 allows, `"0x"` and hexadecimal digits
/// (`"0x3ff0000000000000"` is 1.0 as a double, `"0x7fc00000"` a float NaN); `None` for
/// any other value (before, such fill values read as 0: red team s35 RB3).
fn hex_bits(value: &Value) -> Option<u64> {
    let digits = value.as_str()?.strip_prefix("0x")?;
    u64::from_str_radix(digits, 16).ok()
}

fn float_of(value: &Value) -> Option<f64> {
    match value {
        Value::String(s) => json::non_finite(s).or_else(|| s.trim().parse().ok()),
        other => json::as_f64(other),
    }
}

/// The default fill value of `atomic` as element bytes (zeros for strings).
pub fn default_fill(dtype: &Dtype) -> Vec<u8> {
    if dtype.atomic == AtomicType::String {
        return vec![0; dtype.size];
    }
    values_to_bytes(&Values::default_fill(dtype.atomic), dtype.atomic)
        .unwrap_or_else(|_| vec![0; dtype.size])
}

/// The element bytes of the first value of `values` for an array of `dtype`.
pub fn first_element(values: &Values, dtype: &Dtype) -> Option<Vec<u8>> {
    if values.is_empty() {
        return None;
    }
    match values {
        Values::String(s) if dtype.text == Text::Vlen => Some(s[0].clone().unwrap_or_default()),
        _ => element_bytes(&values.slice(0..1), dtype).ok().map(|b| b.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_numbers_to_elements() {
        assert_eq!(
            json_to_element(&json!(-1), AtomicType::Int),
            Some((-1i32).to_ne_bytes().to_vec())
        );
        assert_eq!(json_to_element(&json!(300), AtomicType::Byte), None);
        assert!(json_to_element(&json!("NaN"), AtomicType::Float).is_some());
        let d = Dtype::of(AtomicType::Short, false);
        assert_eq!(
            bytes_to_values(&[1, 0, 2, 0], &d),
            Values::Short(vec![1, 2])
        );
    }
}
