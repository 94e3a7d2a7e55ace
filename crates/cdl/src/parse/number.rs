//! Classifying the text of a numeric constant the way ncgen's lexer does.

use ncmodel::AtomicType;

use super::constant::Constant;

/// Whether `b` can continue the text of a number (the lexer then classifies it).
#[inline]
pub(crate) fn is_number_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.'
}

/// Converts the text of a number (sign included) to a constant, or says what is wrong.
pub(crate) fn classify_number(text: &[u8]) -> Result<Constant, String> {
    let (negative, body) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if body.len() > 2 && body[0] == b'0' && (body[1] | 0x20) == b'x' {
        return classify_hex(negative || text.first() == Some(&b'+'), &body[2..]);
    }
    let suffix_len = body
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    let (core, suffix) = body.split_at(body.len() - suffix_len);
    if core.is_empty()
        || !core.iter().all(|b| {
            b.is_ascii_digit() || *b == b'.' || (*b | 0x20) == b'e' || *b == b'+' || *b == b'-'
        })
    {
        return Err("not a valid number".into());
    }
    let is_float = core.iter().any(|b| *b == b'.' || (*b | 0x20) == b'e');
    let mut lower = [0u8; 3];
    if suffix.len() > lower.len() {
        return Err(format!(
            "unknown suffix `{}`",
            String::from_utf8_lossy(suffix)
        ));
    }
    for (l, s) in lower.iter_mut().zip(suffix) {
        *l = s.to_ascii_lowercase();
    }
    let suffix_lc = &lower[..suffix.len()];
    if is_float {
        classify_float(text, suffix, suffix_lc)
    } else {
        classify_integer(negative, core, suffix_lc)
    }
}

fn classify_float(text: &[u8], suffix: &[u8], suffix_lc: &[u8]) -> Result<Constant, String> {
    let digits = &text[..text.len() - suffix.len()];
    // Rust's float syntax is a superset of the digits/point/exponent forms allowed here.
    let s = std::str::from_utf8(digits).map_err(|_| "not a valid number".to_string())?;
    if !s.bytes().any(|b| b.is_ascii_digit()) || s.ends_with(['e', 'E', '+', '-']) {
        return Err("not a valid number".into());
    }
    match suffix_lc {
        b"f" => s
            .parse::<f32>()
            .map(|v| Constant::Float {
                value: f64::from(v),
                ty: AtomicType::Float,
            })
            .map_err(|_| "not a valid float constant".into()),
        b"" | b"d" | b"l" => s
            .parse::<f64>()
            .map(|v| Constant::Float {
                value: v,
                ty: AtomicType::Double,
            })
            .map_err(|_| "not a valid double constant".into()),
        _ => Err(format!(
            "unknown suffix `{}` on a floating-point constant",
            String::from_utf8_lossy(suffix)
        )),
    }
}

/// The suffix with its `u` first: netCDF-C 4.10.1's ncgen also takes the `u` after the
/// size letter (`10bu`, `300su`, `7lu`, `5llu`), with the same meaning.
fn unsigned_first(suffix: &[u8]) -> &[u8] {
    match suffix {
        b"bu" => b"ub",
        b"su" => b"us",
        b"lu" => b"ul",
        b"llu" => b"ull",
        other => other,
    }
}

fn classify_integer(negative: bool, core: &[u8], written: &[u8]) -> Result<Constant, String> {
    let suffix = unsigned_first(written);
    let (radix, digits) = if core.len() > 1 && core[0] == b'0' {
        (8u32, &core[1..])
    } else {
        (10, core)
    };
    let mut mag: u128 = 0;
    for &d in digits {
        let v = match d {
            b'0'..=b'9' => u32::from(d - b'0'),
            _ => return Err("not a valid integer".into()),
        };
        if v >= radix {
            return Err(format!(
                "digit `{}` in an octal constant (a leading 0 means octal)",
                char::from(d)
            ));
        }
        mag = mag * u128::from(radix) + u128::from(v);
        if mag > u128::from(u64::MAX) {
            return Err("integer constant out of range (larger than 64 bits)".into());
        }
    }
    let value = if negative {
        -(mag as i128)
    } else {
        mag as i128
    };
    let in_range = |lo: i128, hi: i128| value >= lo && value <= hi;
    let unsigned = suffix.first() == Some(&b'u');
    if unsigned && negative {
        return Err("an unsigned constant cannot be negative".into());
    }
    let ty = match suffix {
        b"" => {
            if in_range(i128::from(i32::MIN), i128::from(i32::MAX)) {
                AtomicType::Int
            } else if !negative && value <= i128::from(u32::MAX) {
                AtomicType::UInt
            } else if negative {
                AtomicType::Int64
            } else {
                AtomicType::UInt64
            }
        }
        b"b" if in_range(-128, 255) => AtomicType::Byte,
        b"s" if in_range(-32768, 65535) => AtomicType::Short,
        // ncgen 4.9 reads a single `l` as `int` (`5L` is an int attribute), `ll` as int64.
        b"l" if in_range(i128::from(i32::MIN), i128::from(i32::MAX)) => AtomicType::Int,
        b"l" | b"ll" if in_range(i128::from(i64::MIN), i128::from(i64::MAX)) => AtomicType::Int64,
        b"u" | b"ul" if value <= i128::from(u32::MAX) => AtomicType::UInt,
        b"ul" | b"ull" => AtomicType::UInt64,
        b"ub" if value <= 255 => AtomicType::UByte,
        b"us" if value <= 65535 => AtomicType::UShort,
        b"b" | b"s" | b"l" | b"ll" | b"u" | b"ub" | b"us" => {
            return Err(format!(
                "integer constant out of range for its `{}` suffix",
                String::from_utf8_lossy(written)
            ))
        }
        _ => {
            return Err(format!(
                "unknown integer suffix `{}`",
                String::from_utf8_lossy(written)
            ))
        }
    };
    Ok(Constant::Int { value, ty })
}

fn classify_hex(signed: bool, body: &[u8]) -> Result<Constant, String> {
    let (digits, suffix) = match body.last() {
        Some(b'S' | b's' | b'L' | b'l') => (&body[..body.len() - 1], true),
        _ => (body, false),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
        return Err("not a valid hexadecimal constant".into());
    }
    if suffix {
        // ncgen keeps the low 64 bits and types these as `uint`.
        let start = digits.len().saturating_sub(16);
        let value = digits[start..]
            .iter()
            .fold(0u64, |acc, d| (acc << 4) | u64::from(hex_value(*d)));
        return Ok(Constant::Int {
            value: i128::from(value),
            ty: AtomicType::UInt,
        });
    }
    if signed {
        return Err("an opaque constant cannot have a sign".into());
    }
    Ok(Constant::Opaque(hex_bytes(digits)))
}

/// The bytes of hex digits, padded with a `0` digit to an even count.
pub(crate) fn hex_bytes(digits: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(digits.len().div_ceil(2));
    for pair in digits.chunks(2) {
        let hi = hex_value(pair[0]);
        let lo = pair.get(1).map_or(0, |d| hex_value(*d));
        out.push((hi << 4) | lo);
    }
    out
}

fn hex_value(d: u8) -> u8 {
    match d {
        b'0'..=b'9' => d - b'0',
        b'a'..=b'f' => d - b'a' + 10,
        b'A'..=b'F' => d - b'A' + 10,
        _ => 0,
    }
}
