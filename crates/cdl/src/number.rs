//! Number text exactly as netCDF-C 4.9's `ncdump` prints it.
//!
//! `ncdump` formats every number with C's `printf`, then post-processes a few of them.
//! This module re-implements the pieces it relies on (glibc's output for `%g`, `%e`, `%f`,
//! `%a` and the integer conversions, correctly rounded, ties to even) and the rules on top:
//!
//! | where                                   | float                  | double             |
//! |-----------------------------------------|------------------------|--------------------|
//! | attribute (`:a = …`)                    | `%#.7g`, trimmed, `f`  | `%#.15g`, trimmed  |
//! | data of a float/double variable         | `%.7g` or `C_format`   | `%.15g` or `C_format` |
//! | compound/vlen members, data or attribute | `%.7g`                | `%.15g`            |
//! | NcML attribute (`-x`)                   | `%#.7g`, trimmed       | `%#.15g`, trimmed  |
//!
//! "Trimmed" is ncdump's `tztrim`: trailing zeros after the decimal point go, the point
//! stays (`1.e+20`, `-999.`, `0.1`). Non-finite values are spelled `NaNf`, `Infinityf`,
//! `-Infinityf` for floats and `NaN`, `Infinity`, `-Infinity` for doubles, in attributes
//! and in data alike (never with a sign on NaN); NcML keeps glibc's `nan`, `-nan`, `inf`.
//! `-p fdig,ddig` replaces 7 and 15 everywhere and overrides `C_format` attributes.
//!
//! Integer attributes carry CDL type suffixes (`-1b`, `2s`, `3`, `4UB`, `5US`, `6U`, `7LL`,
//! `8ULL`); integer data has none.

use std::fmt;

/// ncdump's default significant digits for `float` values (`FLT_DIGITS`).
pub const DEFAULT_FLOAT_DIGITS: usize = 7;

/// ncdump's default significant digits for `double` values (`DBL_DIGITS`).
pub const DEFAULT_DOUBLE_DIGITS: usize = 15;

/// Size of ncdump's buffer for one formatted value (`PRIM_LEN`); output longer than one
/// byte less is cut off.
pub const VALUE_BUFFER_LEN: usize = 100;

/// Significant digits for `float` and `double` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Precision {
    /// Digits for `float` values (7 unless `-p` says otherwise).
    pub float: usize,
    /// Digits for `double` values (15 unless `-p` says otherwise).
    pub double: usize,
}

impl Default for Precision {
    fn default() -> Self {
        Self {
            float: DEFAULT_FLOAT_DIGITS,
            double: DEFAULT_DOUBLE_DIGITS,
        }
    }
}

/// The `-p` option as ncdump reads it: the digits, and which of them the option set
/// (a set precision overrides a variable's `C_format` attribute for that type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrecisionOption {
    /// The digits to use.
    pub precision: Precision,
    /// Whether the option gave the float digits.
    pub float_specified: bool,
    /// Whether the option gave the double digits.
    pub double_specified: bool,
}

/// A `-p` argument ncdump rejects; the message is ncdump's, without its `ncdump: ` prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PrecisionError {
    /// The float digits are outside 1..=20 (or not a number, read as 0).
    #[error("unreasonable value for float significant digits: {0}")]
    Float(i32),
    /// The double digits are outside 1..=20 (or missing after the comma, read as 0).
    #[error("unreasonable value for double significant digits: {0}")]
    Double(i32),
}

/// Reads ncdump's `-p fdig[,ddig]` argument with its quirks: numbers are read like C's
/// `strtol` (leading blanks and a sign allowed, trailing junk ignored), an argument that
/// starts with `,` is ignored entirely (`-p ,10` leaves both defaults), and the double
/// digits are only read when a comma directly follows the float digits.
pub fn parse_precision_option(arg: &str) -> Result<PrecisionOption, PrecisionError> {
    let mut option = PrecisionOption::default();
    if arg.is_empty() || arg.starts_with(',') {
        return Ok(option);
    }
    let (float_digits, float_end) = c_strtol(arg);
    option.float_specified = true;
    option.precision.float =
        reasonable_digits(float_digits).ok_or(PrecisionError::Float(float_digits))?;
    let rest = &arg[float_end..];
    if let Some(double_text) = rest.strip_prefix(',') {
        let (double_digits, double_end) = c_strtol(double_text);
        option.double_specified = true;
        let digits = (double_end > 0)
            .then(|| reasonable_digits(double_digits))
            .flatten();
        option.precision.double = digits.ok_or(PrecisionError::Double(double_digits))?;
    }
    Ok(option)
}

/// `digits` as a precision if ncdump accepts it (1..=20).
fn reasonable_digits(digits: i32) -> Option<usize> {
    (1..=20)
        .contains(&digits)
        .then_some(digits.unsigned_abs() as usize)
}

/// C's `(int) strtol(text, &end, 10)`: the value, and the byte offset where reading
/// stopped (0 when there were no digits at all).
fn c_strtol(text: &str) -> (i32, usize) {
    let bytes = text.as_bytes();
    let mut at = bytes
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'..=b'\r'))
        .count();
    let negative = bytes.get(at) == Some(&b'-');
    if matches!(bytes.get(at), Some(b'-' | b'+')) {
        at += 1;
    }
    let digit_count = bytes[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digit_count == 0 {
        return (0, 0);
    }
    let magnitude = bytes[at..at + digit_count].iter().fold(0i128, |acc, d| {
        (acc * 10 + i128::from(d - b'0')).min(i128::from(u64::MAX))
    });
    let signed = if negative { -magnitude } else { magnitude };
    let long = signed.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    // The cast to int keeps the low 32 bits, as C's conversion does on Linux.
    (long as i32, at + digit_count)
}

// ---------------------------------------------------------------------------------------
// ncdump's rules
// ---------------------------------------------------------------------------------------

/// A float attribute value: `%#.{digits}g`, trailing zeros trimmed, `f` suffix
/// (`1.e+20f`, `-999.f`, `0.1f`, `NaNf`, `-Infinityf`).
pub fn attribute_float(value: f32, digits: usize) -> String {
    match non_finite_float(value) {
        Some(special) => special.to_string(),
        None => trim_trailing_zeros(&format_g(f64::from(value), digits, true)) + "f",
    }
}

/// A double attribute value: `%#.{digits}g`, trailing zeros trimmed
/// (`1.e+20`, `1.5`, `123456789.`, `NaN`, `-Infinity`).
pub fn attribute_double(value: f64, digits: usize) -> String {
    match non_finite_double(value) {
        Some(special) => special.to_string(),
        None => trim_trailing_zeros(&format_g(value, digits, true)),
    }
}

/// A float in the data section, or a float member of a compound/vlen value anywhere:
/// `%.{digits}g` (`1e+20`, `280.1`, `-0`, `NaNf`, `Infinityf`).
pub fn data_float(value: f32, digits: usize) -> String {
    match non_finite_float(value) {
        Some(special) => special.to_string(),
        None => format_g(f64::from(value), digits, false),
    }
}

/// A double in the data section, or a double member of a compound/vlen value anywhere:
/// `%.{digits}g` (`1e+20`, `123456789`, `NaN`, `-Infinity`).
pub fn data_double(value: f64, digits: usize) -> String {
    match non_finite_double(value) {
        Some(special) => special.to_string(),
        None => format_g(value, digits, false),
    }
}

/// A float datum of a variable with a `C_format` attribute (and no `-p` float digits):
/// the format applied to the value, NaN and infinities still spelled `NaNf`/`Infinityf`.
pub fn data_float_c_format(format: &CFormat, value: f32) -> String {
    match non_finite_float(value) {
        Some(special) => special.to_string(),
        None => format.format_value(CArg::Double(f64::from(value))),
    }
}

/// A double datum of a variable with a `C_format` attribute (and no `-p` double digits):
/// the format applied to the value, NaN and infinities still spelled `NaN`/`Infinity`.
pub fn data_double_c_format(format: &CFormat, value: f64) -> String {
    match non_finite_double(value) {
        Some(special) => special.to_string(),
        None => format.format_value(CArg::Double(value)),
    }
}

/// A float attribute value in NcML (`-x`): `%#.{digits}g`, trimmed, no suffix; NaN and
/// infinities as glibc spells them (`nan`, `-nan`, `inf`, `-inf`).
pub fn ncml_float(value: f32, digits: usize) -> String {
    trim_trailing_zeros(&format_g(f64::from(value), digits, true))
}

/// A double attribute value in NcML (`-x`): `%#.{digits}g`, trimmed, no suffix; NaN and
/// infinities as glibc spells them (`nan`, `-nan`, `inf`, `-inf`).
pub fn ncml_double(value: f64, digits: usize) -> String {
    trim_trailing_zeros(&format_g(value, digits, true))
}

/// An `int64` attribute value in NcML. ncdump reads NcML attribute values as doubles and
/// converts back, so values beyond 2^53 lose digits and those that round up to 2^63 come
/// out as -9223372036854775808 (x86-64's answer for an out-of-range conversion).
pub fn ncml_int64(value: i64) -> String {
    let through_double = value as f64;
    if through_double >= TWO_TO_63 {
        return i64::MIN.to_string();
    }
    (through_double as i64).to_string()
}

/// A `uint64` attribute value in NcML, through a double as ncdump does: precision beyond
/// 2^53 is lost and values that round up to 2^64 come out as 0 (x86-64 conversion).
pub fn ncml_uint64(value: u64) -> String {
    let through_double = value as f64;
    if through_double < TWO_TO_63 {
        return (through_double as u64).to_string();
    }
    let high_half = through_double - TWO_TO_63;
    let low_bits = if high_half >= TWO_TO_63 {
        1u64 << 63
    } else {
        high_half as u64
    };
    (low_bits ^ (1u64 << 63)).to_string()
}

/// 2^63 as a double.
const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;

/// ncdump's spelling of a non-finite float (`NaNf`, `Infinityf`, `-Infinityf`).
fn non_finite_float(value: f32) -> Option<&'static str> {
    if value.is_nan() {
        Some("NaNf")
    } else if value.is_infinite() {
        Some(if value < 0.0 {
            "-Infinityf"
        } else {
            "Infinityf"
        })
    } else {
        None
    }
}

/// ncdump's spelling of a non-finite double (`NaN`, `Infinity`, `-Infinity`).
fn non_finite_double(value: f64) -> Option<&'static str> {
    if value.is_nan() {
        Some("NaN")
    } else if value.is_infinite() {
        Some(if value < 0.0 { "-Infinity" } else { "Infinity" })
    } else {
        None
    }
}

/// ncdump's `tztrim`: drops trailing zeros after the decimal point of the leading number
/// (mantissa) but keeps the point itself and anything after the number
/// (`1.500000e+20` → `1.5e+20`, `100.000` → `100.`). Text whose number has no decimal
/// point loses its trailing zeros too (`100` → `1`), as in C; ncdump only passes it
/// `%#g` output, which always has a point.
pub fn trim_trailing_zeros(text: &str) -> String {
    let unsigned_start = usize::from(text.starts_with('-'));
    let number_len = text[unsigned_start..]
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let number_end = unsigned_start + number_len;
    let number = &text[..number_end];
    if number_len == 0 || number.ends_with('.') {
        return text.to_string();
    }
    let kept = number.trim_end_matches('0');
    format!("{kept}{}", &text[number_end..])
}

/// A byte attribute value: `-5b`.
pub fn attribute_byte(value: i8) -> String {
    format!("{value}b")
}

/// A short attribute value: `-5s`.
pub fn attribute_short(value: i16) -> String {
    format!("{value}s")
}

/// An int attribute value: `-5` (no suffix).
pub fn attribute_int(value: i32) -> String {
    value.to_string()
}

/// A ubyte attribute value: `5UB`.
pub fn attribute_ubyte(value: u8) -> String {
    format!("{value}UB")
}

/// A ushort attribute value: `5US`.
pub fn attribute_ushort(value: u16) -> String {
    format!("{value}US")
}

/// A uint attribute value: `5U`.
pub fn attribute_uint(value: u32) -> String {
    format!("{value}U")
}

/// An int64 attribute value: `-5LL`.
pub fn attribute_int64(value: i64) -> String {
    format!("{value}LL")
}

/// A uint64 attribute value: `5ULL`.
pub fn attribute_uint64(value: u64) -> String {
    format!("{value}ULL")
}

// ---------------------------------------------------------------------------------------
// C printf conversions
// ---------------------------------------------------------------------------------------

/// C's `%.{precision}g` (or `%#.{precision}g` when `alternate`) of `value`, as glibc
/// prints it: `precision` significant digits (0 counts as 1), correctly rounded with ties
/// to even; fixed notation when the decimal exponent `x` satisfies `-4 <= x < precision`,
/// otherwise `d.ddde±XX` with at least two exponent digits; without `#`, trailing zeros
/// and a bare decimal point are removed. Non-finite values are `nan`, `-nan`, `inf`,
/// `-inf`. A float argument is first widened to double, exactly as C's varargs do.
pub fn format_g(value: f64, precision: usize, alternate: bool) -> String {
    signed_float(value, Notation::General, precision, alternate)
}

/// C's `%.{precision}e` (or `%#.{precision}e`) of `value`, as glibc prints it
/// (`1.500000e+20`, `-1e-05` for precision 0).
pub fn format_e(value: f64, precision: usize, alternate: bool) -> String {
    signed_float(value, Notation::Exponent, precision, alternate)
}

/// C's `%.{precision}f` (or `%#.{precision}f`) of `value`, as glibc prints it: every
/// integer digit exactly (`100000002004087734272.000` for `1e20f`).
pub fn format_f(value: f64, precision: usize, alternate: bool) -> String {
    signed_float(value, Notation::Fixed, precision, alternate)
}

/// A lower-case floating-point conversion of `value` with a precision, a `-` for a
/// negative sign bit (`-0`, `-nan`).
fn signed_float(value: f64, notation: Notation, precision: usize, alternate: bool) -> String {
    let style = FloatStyle {
        notation,
        upper: false,
    };
    let body = float_body(value.abs(), style, Some(precision), alternate);
    let sign = if value.is_sign_negative() { "-" } else { "" };
    format!("{sign}{body}")
}

/// How a floating-point conversion lays out its digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Notation {
    /// `%f`
    Fixed,
    /// `%e`
    Exponent,
    /// `%g`
    General,
    /// `%a`
    Hex,
}

/// A floating-point conversion: its notation, and whether it is the upper-case letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FloatStyle {
    notation: Notation,
    upper: bool,
}

/// The text of a floating-point conversion of `magnitude` (not negative), without sign
/// and padding. `precision` is `None` when the format gave none.
fn float_body(
    magnitude: f64,
    style: FloatStyle,
    precision: Option<usize>,
    alternate: bool,
) -> String {
    let text = if magnitude.is_nan() {
        "nan".to_string()
    } else if magnitude.is_infinite() {
        "inf".to_string()
    } else {
        match style.notation {
            Notation::Fixed => fixed_body(magnitude, precision.unwrap_or(6), alternate),
            Notation::Exponent => exponent_body(magnitude, precision.unwrap_or(6), alternate),
            Notation::General => general_body(magnitude, precision.unwrap_or(6), alternate),
            Notation::Hex => hex_body(magnitude, precision, alternate),
        }
    };
    if style.upper {
        text.to_ascii_uppercase()
    } else {
        text
    }
}

/// The first `count` (at least 1) significant decimal digits of `magnitude`, correctly
/// rounded with ties to even, and the decimal exponent of the first one.
fn significant_digits(magnitude: f64, count: usize) -> (Vec<u8>, i32) {
    if let Some(fast) = significant_digits_from_shortest(magnitude, count.max(1)) {
        return fast;
    }
    let text = format!("{:.*e}", count.max(1) - 1, magnitude);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exponent.parse().unwrap_or(0))
}

/// Appends C's `%.{precision}g` of a finite `value` to `out` without allocating on the
/// common path (the data section's hot loop); the same text as [`format_g`].
pub fn push_format_g(out: &mut Vec<u8>, value: f64, precision: usize) {
    let count = precision.max(1);
    if value == 0.0 {
        out.extend_from_slice(if value.is_sign_negative() {
            b"-0"
        } else {
            b"0"
        });
        return;
    }
    let Some((digits, len, exponent)) = shortest_rounded(value.abs(), count) else {
        out.extend_from_slice(format_g(value, precision, false).as_bytes());
        return;
    };
    let mut len = len;
    while len > 1 && digits[len - 1] == b'0' {
        len -= 1;
    }
    let digits = &digits[..len];
    if value.is_sign_negative() {
        out.push(b'-');
    }
    if exponent >= -4 && (exponent as i64) < count as i64 {
        if exponent >= 0 {
            let int_len = exponent as usize + 1;
            for i in 0..int_len {
                out.push(digits.get(i).copied().unwrap_or(b'0'));
            }
            if len > int_len {
                out.push(b'.');
                out.extend_from_slice(&digits[int_len..]);
            }
        } else {
            out.extend_from_slice(b"0.");
            for _ in 0..(-exponent - 1) {
                out.push(b'0');
            }
            out.extend_from_slice(digits);
        }
    } else {
        out.push(digits[0]);
        if len > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exponent < 0 { b'-' } else { b'+' });
        let e = exponent.unsigned_abs();
        if e < 10 {
            out.push(b'0');
        }
        let mut buffer = itoa::Buffer::new();
        out.extend_from_slice(buffer.format(e).as_bytes());
    }
}

/// [`significant_digits_from_shortest`] into a fixed buffer: the digits (zero padded to
/// `count`), how many, and the exponent.
fn shortest_rounded(magnitude: f64, count: usize) -> Option<([u8; 24], usize, i32)> {
    if count > 15 || magnitude < f64::MIN_POSITIVE || !magnitude.is_finite() {
        return None;
    }
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(magnitude).as_bytes();
    let (mantissa, exp) = match text.iter().position(|b| *b == b'e' || *b == b'E') {
        Some(i) => (&text[..i], parse_exponent(&text[i + 1..])),
        None => (text, 0),
    };
    let point = mantissa
        .iter()
        .position(|b| *b == b'.')
        .unwrap_or(mantissa.len());
    let mut digits = [b'0'; 24];
    let mut len = 0;
    let mut leading_zeros = 0;
    for &b in mantissa.iter().filter(|b| b.is_ascii_digit()) {
        if len == 0 && b == b'0' {
            leading_zeros += 1;
        } else if len < digits.len() {
            digits[len] = b;
            len += 1;
        }
    }
    while len > 1 && digits[len - 1] == b'0' {
        len -= 1;
    }
    let mut exponent = point as i32 - 1 - leading_zeros + exp;
    if len <= count {
        return Some((digits, count, exponent));
    }
    let next = digits[count];
    let rest_nonzero = digits[count + 1..len].iter().any(|d| *d != b'0');
    if next == b'5' && !rest_nonzero {
        return None;
    }
    if next >= b'5' {
        let mut i = count;
        loop {
            if i == 0 {
                digits[0] = b'1';
                for d in digits.iter_mut().take(count).skip(1) {
                    *d = b'0';
                }
                exponent += 1;
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    for d in digits.iter_mut().skip(count) {
        *d = b'0';
    }
    Some((digits, count, exponent))
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits.iter().fold(0i32, |acc, d| {
        acc.saturating_mul(10).saturating_add(i32::from(d - b'0'))
    });
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// Appends a float in the data section (`%.{digits}g`, `NaNf`, `Infinityf`) to `out`.
pub fn push_data_float(out: &mut Vec<u8>, value: f32, digits: usize) {
    match non_finite_float(value) {
        Some(special) => out.extend_from_slice(special.as_bytes()),
        None => push_format_g(out, f64::from(value), digits),
    }
}

/// Appends a double in the data section (`%.{digits}g`, `NaN`, `Infinity`) to `out`.
pub fn push_data_double(out: &mut Vec<u8>, value: f64, digits: usize) {
    match non_finite_double(value) {
        Some(special) => out.extend_from_slice(special.as_bytes()),
        None => push_format_g(out, value, digits),
    }
}

/// The shortest round-trip digits of a positive finite `magnitude` (Ryu) and the decimal
/// exponent of the first.
fn shortest_digits(magnitude: f64) -> (Vec<u8>, i32) {
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(magnitude);
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let point = mantissa.find('.').unwrap_or(mantissa.len());
    let all: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let leading_zeros = all.iter().take_while(|d| **d == b'0').count();
    let mut digits = all[leading_zeros.min(all.len())..].to_vec();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        return (vec![b'0'], 0);
    }
    // The first significant digit's position relative to the decimal point.
    let first = point as i32 - 1 - leading_zeros as i32;
    (digits, first + exp)
}

/// [`significant_digits`] without exact (bignum) arithmetic, when the shortest round-trip
/// digits of `magnitude` decide it: with at most `count` of them they are the answer
/// (for `count` <= 15 a double's ulp is below the last kept digit's unit); with more,
/// rounding them gives the exact rounding unless they end exactly on a half (a tie the
/// shortest digits cannot decide). `None` where exact arithmetic is needed.
fn significant_digits_from_shortest(magnitude: f64, count: usize) -> Option<(Vec<u8>, i32)> {
    // Subnormals have fewer significant bits, so their ulp can pass the last kept digit.
    if count > 15 || magnitude < f64::MIN_POSITIVE || !magnitude.is_finite() {
        return None;
    }
    let (mut digits, mut exponent) = shortest_digits(magnitude);
    if digits.len() <= count {
        digits.resize(count, b'0');
        return Some((digits, exponent));
    }
    let next = digits[count];
    let rest_nonzero = digits[count + 1..].iter().any(|d| *d != b'0');
    if next == b'5' && !rest_nonzero {
        return None;
    }
    digits.truncate(count);
    if next >= b'5' {
        // Round up, carrying.
        let mut i = count;
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                digits.truncate(count);
                exponent += 1;
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    Some((digits, exponent))
}

/// The decimal exponent of the first significant digit of `magnitude` itself, before
/// any rounding (enough digits to print a double exactly).
fn exact_exponent(magnitude: f64) -> i32 {
    const EXACT_DIGITS: usize = 800;
    significant_digits(magnitude, EXACT_DIGITS).1
}

/// `%f` of `magnitude` without sign.
fn fixed_body(magnitude: f64, precision: usize, alternate: bool) -> String {
    let mut text = format!("{magnitude:.precision$}");
    if precision == 0 && alternate {
        text.push('.');
    }
    text
}

/// `%e` of `magnitude` without sign.
fn exponent_body(magnitude: f64, precision: usize, alternate: bool) -> String {
    let (digits, exponent) = significant_digits(magnitude, precision + 1);
    exponent_text(&digits, exponent, alternate)
}

/// `d.ddde±XX` from significant `digits` (at least one) and the decimal `exponent`; the
/// point is left out when there is a single digit, unless `alternate`.
fn exponent_text(digits: &[u8], exponent: i32, alternate: bool) -> String {
    let (first, rest) = digits
        .split_first()
        .map_or((b'0', &[][..]), |(f, r)| (*f, r));
    let mut text = String::with_capacity(digits.len() + 6);
    text.push(char::from(first));
    if !rest.is_empty() || alternate {
        text.push('.');
    }
    text.extend(rest.iter().map(|d| char::from(*d)));
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    text.push_str(&format!("e{exponent_sign}{:02}", exponent.unsigned_abs()));
    text
}

/// `%g` of `magnitude` without sign.
fn general_body(magnitude: f64, precision: usize, alternate: bool) -> String {
    let significant = precision.max(1);
    let (mut digits, exponent) = significant_digits(magnitude, significant);
    let fixed = exponent >= -4 && i64::from(exponent) < significant as i64;
    if alternate && carried_out_of_fixed_notation(magnitude, &digits, exponent, significant) {
        return exponent_text(b"1", exponent, alternate);
    }
    if !alternate {
        while digits.len() > 1 && digits.last() == Some(&b'0') {
            digits.pop();
        }
    }
    if fixed {
        fixed_text_from_digits(&digits, exponent, alternate)
    } else {
        exponent_text(&digits, exponent, alternate)
    }
}

/// glibc's quirk in `%#g`: when the unrounded value would print in fixed notation with
/// no fraction digits (its exponent is `significant - 1`) and rounding carries it to
/// 10^significant, glibc switches to exponent notation but keeps zero fraction digits:
/// `%#.2g` of 99.5 is `1.e+02`, not `1.0e+02`. Whether `digits`/`exponent` (the rounded
/// value) came about that way.
fn carried_out_of_fixed_notation(
    magnitude: f64,
    digits: &[u8],
    exponent: i32,
    significant: usize,
) -> bool {
    let is_power_of_ten = digits.first() == Some(&b'1') && digits[1..].iter().all(|d| *d == b'0');
    is_power_of_ten
        && i64::from(exponent) == significant as i64
        && exact_exponent(magnitude) < exponent
}

/// Fixed notation from significant `digits` whose first has decimal `exponent`
/// (`-4 <= exponent < digits`, or fewer digits after trimming): the point is left out
/// when no digit follows it, unless `alternate`.
fn fixed_text_from_digits(digits: &[u8], exponent: i32, alternate: bool) -> String {
    let as_text = |ds: &[u8]| ds.iter().map(|d| char::from(*d)).collect::<String>();
    let (integer, fraction) = if exponent >= 0 {
        let integer_len = exponent.unsigned_abs() as usize + 1;
        let mut integer = as_text(&digits[..integer_len.min(digits.len())]);
        integer.push_str(&"0".repeat(integer_len.saturating_sub(digits.len())));
        (integer, as_text(digits.get(integer_len..).unwrap_or(&[])))
    } else {
        let zeros = "0".repeat(exponent.unsigned_abs() as usize - 1);
        ("0".to_string(), zeros + &as_text(digits))
    };
    if fraction.is_empty() && !alternate {
        integer
    } else {
        format!("{integer}.{fraction}")
    }
}

/// Bits of a double's fraction field.
const FRACTION_BITS: u32 = 52;

/// Hex digits of a double's fraction field.
const FRACTION_HEX_DIGITS: usize = 13;

/// `%a` of `magnitude` without sign, as glibc prints it: `0x1.8p+0`, subnormals as
/// `0x0.0000000000001p-1022`, zero as `0x0p+0`; a precision rounds the hex digits to
/// nearest, ties to even, and a carry can make the leading digit `2`.
fn hex_body(magnitude: f64, precision: Option<usize>, alternate: bool) -> String {
    let bits = magnitude.to_bits();
    let biased_exponent = (bits >> FRACTION_BITS) as i32;
    let fraction = bits & ((1u64 << FRACTION_BITS) - 1);
    let (leading, exponent) = match (biased_exponent, fraction) {
        (0, 0) => (0, 0),
        (0, _) => (0, -1022),
        _ => (1, biased_exponent - 1023),
    };
    let mantissa = (leading << FRACTION_BITS) | fraction;
    let (mantissa, digit_count) = match precision {
        None => {
            let zeros = (fraction.trailing_zeros() / 4).min(FRACTION_HEX_DIGITS as u32);
            let digit_count = if fraction == 0 {
                0
            } else {
                FRACTION_HEX_DIGITS - zeros as usize
            };
            (
                mantissa >> (4 * (FRACTION_HEX_DIGITS - digit_count)),
                digit_count,
            )
        }
        Some(p) if p < FRACTION_HEX_DIGITS => (round_hex_digits(mantissa, p), p),
        Some(p) => (mantissa, p),
    };
    let kept_digits = digit_count.min(FRACTION_HEX_DIGITS);
    let leading_digit = mantissa >> (4 * kept_digits);
    let fraction_digits = mantissa & ((1u64 << (4 * kept_digits)) - 1);
    let mut text = format!("0x{leading_digit:x}");
    if digit_count > 0 || alternate {
        text.push('.');
    }
    if kept_digits > 0 {
        text.push_str(&format!("{fraction_digits:0kept_digits$x}"));
    }
    text.push_str(&"0".repeat(digit_count - kept_digits));
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    text.push_str(&format!("p{exponent_sign}{}", exponent.unsigned_abs()));
    text
}

/// `mantissa` (leading digit and 13 fraction hex digits) rounded to `keep` fraction hex
/// digits, ties to even.
fn round_hex_digits(mantissa: u64, keep: usize) -> u64 {
    let dropped_bits = 4 * (FRACTION_HEX_DIGITS - keep) as u32;
    let kept = mantissa >> dropped_bits;
    let remainder = mantissa & ((1u64 << dropped_bits) - 1);
    let half = 1u64 << (dropped_bits - 1);
    let round_up = remainder > half || (remainder == half && kept & 1 == 1);
    kept + u64::from(round_up)
}

// ---------------------------------------------------------------------------------------
// C_format attributes
// ---------------------------------------------------------------------------------------

/// A value handed to a C `printf` conversion, after C's argument promotions: `byte`,
/// `short`, `ubyte`, `ushort` and `int` travel as `int`, `float` as `double`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CArg {
    /// An `int` (also a promoted `signed char`, `short`, `unsigned char`, `unsigned short`).
    Int(i32),
    /// An `unsigned int`.
    UInt(u32),
    /// A `long long`.
    LongLong(i64),
    /// An `unsigned long long`.
    ULongLong(u64),
    /// A `double` (also a promoted `float`).
    Double(f64),
}

impl From<i8> for CArg {
    fn from(value: i8) -> Self {
        Self::Int(i32::from(value))
    }
}

impl From<u8> for CArg {
    fn from(value: u8) -> Self {
        Self::Int(i32::from(value))
    }
}

impl From<i16> for CArg {
    fn from(value: i16) -> Self {
        Self::Int(i32::from(value))
    }
}

impl From<u16> for CArg {
    fn from(value: u16) -> Self {
        Self::Int(i32::from(value))
    }
}

impl From<i32> for CArg {
    fn from(value: i32) -> Self {
        Self::Int(value)
    }
}

impl From<u32> for CArg {
    fn from(value: u32) -> Self {
        Self::UInt(value)
    }
}

impl From<i64> for CArg {
    fn from(value: i64) -> Self {
        Self::LongLong(value)
    }
}

impl From<u64> for CArg {
    fn from(value: u64) -> Self {
        Self::ULongLong(value)
    }
}

impl From<f32> for CArg {
    fn from(value: f32) -> Self {
        Self::Double(f64::from(value))
    }
}

impl From<f64> for CArg {
    fn from(value: f64) -> Self {
        Self::Double(value)
    }
}

impl CArg {
    /// The 64-bit register an integer conversion reads on x86-64: 32-bit arguments are
    /// zero-extended (what `%lx` of an `int` -1 shows: `ffffffff`). A double given to an
    /// integer conversion is undefined in C; it is truncated toward zero here.
    fn integer_register(self) -> u64 {
        match self {
            Self::Int(v) => u64::from(v as u32),
            Self::UInt(v) => u64::from(v),
            Self::LongLong(v) => v as u64,
            Self::ULongLong(v) => v,
            Self::Double(v) => v as i64 as u64,
        }
    }

    /// The value a floating-point conversion formats. An integer given to a
    /// floating-point conversion is undefined in C; its numeric value is used here.
    fn as_double(self) -> f64 {
        match self {
            Self::Int(v) => f64::from(v),
            Self::UInt(v) => f64::from(v),
            Self::LongLong(v) => v as f64,
            Self::ULongLong(v) => v as f64,
            Self::Double(v) => v,
        }
    }
}

/// The length modifier of an integer conversion: how many bits of the argument it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IntegerWidth {
    /// `hh`
    Char,
    /// `h`
    Short,
    /// none
    Int,
    /// `l`, `ll`, `q`, `j`, `z`, `Z`, `t`
    Long,
}

/// What a conversion prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConversionKind {
    /// `d`, `i`
    Signed,
    /// `u`
    Unsigned,
    /// `o`
    Octal,
    /// `x`, `X`
    Hex { upper: bool },
    /// `c`
    Character,
    /// `f F e E g G a A`
    Float(FloatStyle),
}

/// The flags of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Flags {
    /// `-`: pad on the right.
    left: bool,
    /// `+`: always a sign on signed conversions.
    plus: bool,
    /// ` `: a blank where a `+` would go.
    space: bool,
    /// `#`: alternate form.
    alternate: bool,
    /// `0`: pad with zeros after the sign.
    zero: bool,
}

/// One `%` conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Conversion {
    flags: Flags,
    width: usize,
    precision: Option<usize>,
    integer_width: IntegerWidth,
    kind: ConversionKind,
}

/// A C `printf` format with at most one conversion, as found in a variable's `C_format`
/// attribute, which ncdump uses for that variable's data (unless `-p` overrides floats
/// and doubles).
///
/// Supported: flags `-+ #0'` (`'` is a no-op in the C locale), a width, a precision,
/// length modifiers `hh h l ll q j z Z t`, and the conversions `d i u o x X c f F e E g
/// G a A`, plus `%%` and literal text. Formats ncdump cannot survive or would print
/// garbage for (`%s`, `%n`, `%p`, `*` widths, positional `%1$d`, `L`, a second
/// conversion) are rejected by [`CFormat::parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CFormat {
    /// Text before the conversion, `%%` already turned into `%`.
    prefix: String,
    /// The conversion, if any.
    conversion: Option<Conversion>,
    /// Text after the conversion, `%%` already turned into `%`.
    suffix: String,
}

impl CFormat {
    /// Parses a format; `None` if it is not one this module can reproduce (see the type's
    /// documentation).
    pub fn parse(format: &str) -> Option<Self> {
        let (prefix, after_prefix) = literal_text(format)?;
        let Some(spec) = after_prefix else {
            return Some(Self {
                prefix,
                conversion: None,
                suffix: String::new(),
            });
        };
        let (conversion, rest) = parse_conversion(spec)?;
        let (suffix, another) = literal_text(rest)?;
        if another.is_some() {
            return None;
        }
        Some(Self {
            prefix,
            conversion: Some(conversion),
            suffix,
        })
    }

    /// The format of a `C_format` attribute's text, with ncdump's acceptance rules: the
    /// text must be 1 to 99 bytes long, is cut at its first NUL, and must be UTF-8 here.
    pub fn from_attribute(text: &[u8]) -> Option<Self> {
        if text.is_empty() || text.len() >= VALUE_BUFFER_LEN {
            return None;
        }
        let until_nul = text.split(|b| *b == 0).next().unwrap_or(&[]);
        Self::parse(std::str::from_utf8(until_nul).ok()?)
    }

    /// The complete output of C's `printf(format, value)`.
    pub fn printf(&self, value: CArg) -> String {
        let converted = self
            .conversion
            .map(|c| convert(c, value))
            .unwrap_or_default();
        format!("{}{converted}{}", self.prefix, self.suffix)
    }

    /// What ncdump prints: [`CFormat::printf`]'s output cut at a NUL (a `%c` of 0) and to
    /// 99 bytes, the room in ncdump's value buffer (cut at a character boundary here).
    pub fn format_value(&self, value: CArg) -> String {
        let mut text = self.printf(value);
        if let Some(nul) = text.find('\0') {
            text.truncate(nul);
        }
        let mut limit = (VALUE_BUFFER_LEN - 1).min(text.len());
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        text.truncate(limit);
        text
    }
}

impl fmt::Display for CFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.prefix.replace('%', "%%"))?;
        if let Some(c) = &self.conversion {
            write!(f, "{}", conversion_text(c))?;
        }
        write!(f, "{}", self.suffix.replace('%', "%%"))
    }
}

/// A conversion written back as format text (canonical spelling).
fn conversion_text(c: &Conversion) -> String {
    let mut text = String::from("%");
    for (set, flag) in [
        (c.flags.left, '-'),
        (c.flags.plus, '+'),
        (c.flags.space, ' '),
        (c.flags.alternate, '#'),
        (c.flags.zero, '0'),
    ] {
        if set {
            text.push(flag);
        }
    }
    if c.width > 0 {
        text.push_str(&c.width.to_string());
    }
    if let Some(p) = c.precision {
        text.push_str(&format!(".{p}"));
    }
    text.push_str(match c.integer_width {
        IntegerWidth::Char => "hh",
        IntegerWidth::Short => "h",
        IntegerWidth::Int => "",
        IntegerWidth::Long => "ll",
    });
    text.push(match c.kind {
        ConversionKind::Signed => 'd',
        ConversionKind::Unsigned => 'u',
        ConversionKind::Octal => 'o',
        ConversionKind::Hex { upper } => {
            if upper {
                'X'
            } else {
                'x'
            }
        }
        ConversionKind::Character => 'c',
        ConversionKind::Float(style) => {
            let letter = match style.notation {
                Notation::Fixed => 'f',
                Notation::Exponent => 'e',
                Notation::General => 'g',
                Notation::Hex => 'a',
            };
            if style.upper {
                letter.to_ascii_uppercase()
            } else {
                letter
            }
        }
    });
    text
}

/// Literal text up to the next conversion: the text with `%%` made `%`, and the rest
/// starting just after the conversion's `%` (`None` at the end of the format). `None`
/// overall if the format ends in a lone `%`.
fn literal_text(format: &str) -> Option<(String, Option<&str>)> {
    let mut text = String::new();
    let mut rest = format;
    while let Some(at) = rest.find('%') {
        text.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(more) = after.strip_prefix('%') {
            text.push('%');
            rest = more;
        } else if after.is_empty() {
            return None;
        } else {
            return Some((text, Some(after)));
        }
    }
    text.push_str(rest);
    Some((text, None))
}

/// Parses a conversion specification (the text after `%`); the conversion and the rest.
fn parse_conversion(spec: &str) -> Option<(Conversion, &str)> {
    let (flags, rest) = parse_flags(spec);
    let (width, rest) = leading_number(rest);
    if rest.starts_with('$') || rest.starts_with('*') {
        return None;
    }
    let (precision, rest) = match rest.strip_prefix('.') {
        Some(after_point) => {
            let (digits, rest) = leading_number(after_point);
            (Some(digits), rest)
        }
        None => (None, rest),
    };
    let (integer_width, rest) = parse_length(rest);
    let mut chars = rest.chars();
    let kind = conversion_kind(chars.next()?)?;
    Some((
        Conversion {
            flags,
            width,
            precision,
            integer_width,
            kind,
        },
        chars.as_str(),
    ))
}

/// The flag characters at the start of `spec`.
fn parse_flags(spec: &str) -> (Flags, &str) {
    let mut flags = Flags::default();
    let mut rest = spec;
    loop {
        match rest.as_bytes().first() {
            Some(b'-') => flags.left = true,
            Some(b'+') => flags.plus = true,
            Some(b' ') => flags.space = true,
            Some(b'#') => flags.alternate = true,
            Some(b'0') => flags.zero = true,
            Some(b'\'') => {}
            _ => return (flags, rest),
        }
        rest = &rest[1..];
    }
}

/// A run of decimal digits at the start of `text` (0 if none) and the rest; a run too
/// large for memory saturates, which no real `printf` would print either.
fn leading_number(text: &str) -> (usize, &str) {
    let len = text.bytes().take_while(u8::is_ascii_digit).count();
    let value = text[..len].bytes().fold(0usize, |acc, d| {
        acc.saturating_mul(10).saturating_add(usize::from(d - b'0'))
    });
    (value, &text[len..])
}

/// The length modifier at the start of `text`, and the rest. `L` (long double) is not
/// accepted by [`conversion_kind`]'s caller: it stays in `text` and fails there.
fn parse_length(text: &str) -> (IntegerWidth, &str) {
    for (modifier, width) in [
        ("hh", IntegerWidth::Char),
        ("h", IntegerWidth::Short),
        ("ll", IntegerWidth::Long),
        ("l", IntegerWidth::Long),
        ("q", IntegerWidth::Long),
        ("j", IntegerWidth::Long),
        ("z", IntegerWidth::Long),
        ("Z", IntegerWidth::Long),
        ("t", IntegerWidth::Long),
    ] {
        if let Some(rest) = text.strip_prefix(modifier) {
            return (width, rest);
        }
    }
    (IntegerWidth::Int, text)
}

/// The conversion a letter names, if supported.
fn conversion_kind(letter: char) -> Option<ConversionKind> {
    let float = |notation, upper| Some(ConversionKind::Float(FloatStyle { notation, upper }));
    match letter {
        'd' | 'i' => Some(ConversionKind::Signed),
        'u' => Some(ConversionKind::Unsigned),
        'o' => Some(ConversionKind::Octal),
        'x' => Some(ConversionKind::Hex { upper: false }),
        'X' => Some(ConversionKind::Hex { upper: true }),
        'c' => Some(ConversionKind::Character),
        'f' => float(Notation::Fixed, false),
        'F' => float(Notation::Fixed, true),
        'e' => float(Notation::Exponent, false),
        'E' => float(Notation::Exponent, true),
        'g' => float(Notation::General, false),
        'G' => float(Notation::General, true),
        'a' => float(Notation::Hex, false),
        'A' => float(Notation::Hex, true),
        _ => None,
    }
}

/// The text one conversion makes of `value`, padded to its width.
fn convert(c: Conversion, value: CArg) -> String {
    match c.kind {
        ConversionKind::Float(style) => convert_float(c, style, value.as_double()),
        ConversionKind::Character => {
            let byte = value.integer_register() as u8;
            pad(c.flags, c.width, "", &char::from(byte).to_string(), false)
        }
        ConversionKind::Signed => convert_signed(c, value.integer_register()),
        ConversionKind::Unsigned | ConversionKind::Octal | ConversionKind::Hex { .. } => {
            convert_unsigned(c, value.integer_register())
        }
    }
}

/// A floating-point conversion of `value`.
fn convert_float(c: Conversion, style: FloatStyle, value: f64) -> String {
    let body = float_body(value.abs(), style, c.precision, c.flags.alternate);
    let sign = sign_text(value.is_sign_negative(), c.flags);
    let zero_pad = c.flags.zero && value.is_finite();
    if style.notation == Notation::Hex {
        let (prefix, digits) = body.split_at(2.min(body.len()));
        let prefix = if value.is_finite() {
            format!("{sign}{prefix}")
        } else {
            sign.to_string()
        };
        let digits = if value.is_finite() {
            digits.to_string()
        } else {
            body.clone()
        };
        return pad(c.flags, c.width, &prefix, &digits, zero_pad);
    }
    pad(c.flags, c.width, sign, &body, zero_pad)
}

/// A `d`/`i` conversion of the register `bits`.
fn convert_signed(c: Conversion, bits: u64) -> String {
    let value: i64 = match c.integer_width {
        IntegerWidth::Char => i64::from(bits as u8 as i8),
        IntegerWidth::Short => i64::from(bits as u16 as i16),
        IntegerWidth::Int => i64::from(bits as u32 as i32),
        IntegerWidth::Long => bits as i64,
    };
    let digits = integer_digits(value.unsigned_abs(), 10, false, c.precision);
    let sign = sign_text(value < 0, c.flags);
    pad(
        c.flags,
        c.width,
        sign,
        &digits,
        c.flags.zero && c.precision.is_none(),
    )
}

/// A `u`/`o`/`x`/`X` conversion of the register `bits`.
fn convert_unsigned(c: Conversion, bits: u64) -> String {
    let value: u64 = match c.integer_width {
        IntegerWidth::Char => u64::from(bits as u8),
        IntegerWidth::Short => u64::from(bits as u16),
        IntegerWidth::Int => u64::from(bits as u32),
        IntegerWidth::Long => bits,
    };
    let (radix, upper) = match c.kind {
        ConversionKind::Octal => (8, false),
        ConversionKind::Hex { upper } => (16, upper),
        _ => (10, false),
    };
    let mut digits = integer_digits(value, radix, upper, c.precision);
    let mut prefix = "";
    if c.flags.alternate && radix == 8 && !digits.starts_with('0') {
        digits.insert(0, '0');
    }
    if c.flags.alternate && radix == 16 && value != 0 {
        prefix = if upper { "0X" } else { "0x" };
    }
    pad(
        c.flags,
        c.width,
        prefix,
        &digits,
        c.flags.zero && c.precision.is_none(),
    )
}

/// The digits of `value` in `radix`, at least `precision` of them (none for a zero with
/// precision 0).
fn integer_digits(value: u64, radix: u32, upper: bool, precision: Option<usize>) -> String {
    let digits = match (radix, upper) {
        (8, _) => format!("{value:o}"),
        (16, false) => format!("{value:x}"),
        (16, true) => format!("{value:X}"),
        _ => value.to_string(),
    };
    match precision {
        Some(0) if value == 0 => String::new(),
        Some(p) if p > digits.len() => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    }
}

/// The sign a signed conversion prints.
fn sign_text(negative: bool, flags: Flags) -> &'static str {
    if negative {
        "-"
    } else if flags.plus {
        "+"
    } else if flags.space {
        " "
    } else {
        ""
    }
}

/// `prefix` (sign, `0x`) and `body` padded to `width`: blanks on the left, blanks on the
/// right with `-`, or zeros between prefix and body when `zero_pad` (and not `-`).
fn pad(flags: Flags, width: usize, prefix: &str, body: &str, zero_pad: bool) -> String {
    let len = prefix.chars().count() + body.chars().count();
    let fill = width.saturating_sub(len);
    if flags.left {
        format!("{prefix}{body}{}", " ".repeat(fill))
    } else if zero_pad {
        format!("{prefix}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{prefix}{body}", " ".repeat(fill))
    }
}

#[cfg(test)]
mod shortest_path_tests {
    use super::*;
    use proptest::prelude::*;

    fn exact(magnitude: f64, count: usize) -> (Vec<u8>, i32) {
        let text = format!("{:.*e}", count - 1, magnitude);
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
        (
            mantissa.bytes().filter(u8::is_ascii_digit).collect(),
            exponent.parse().unwrap_or(0),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn shortest_digits_round_like_exact_arithmetic_for_doubles(
            bits in any::<u64>(), count in 1usize..=15
        ) {
            let v = f64::from_bits(bits).abs();
            if let Some(fast) = significant_digits_from_shortest(v, count) {
                prop_assert_eq!(fast, exact(v, count), "{} at {}", v, count);
            }
        }

        #[test]
        fn shortest_digits_round_like_exact_arithmetic_for_floats(
            bits in any::<u32>(), count in 1usize..=15
        ) {
            let v = f64::from(f32::from_bits(bits).abs());
            if let Some(fast) = significant_digits_from_shortest(v, count) {
                prop_assert_eq!(fast, exact(v, count), "{} at {}", v, count);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn pushed_g_is_format_g(bits in any::<u64>(), precision in 1usize..=17) {
            let v = f64::from_bits(bits);
            if v.is_finite() {
                let mut out = Vec::new();
                push_format_g(&mut out, v, precision);
                prop_assert_eq!(String::from_utf8_lossy(&out), format_g(v, precision, false));
            }
        }

        #[test]
        fn pushed_g_is_format_g_for_floats(bits in any::<u32>(), precision in 1usize..=9) {
            let v = f64::from(f32::from_bits(bits));
            if v.is_finite() {
                let mut out = Vec::new();
                push_format_g(&mut out, v, precision);
                prop_assert_eq!(String::from_utf8_lossy(&out), format_g(v, precision, false));
            }
        }
    }

    #[test]
    fn short_decimals_take_the_fast_path() {
        assert_eq!(
            significant_digits_from_shortest(280.1, 7),
            Some((b"2801000".to_vec(), 2))
        );
        assert_eq!(
            significant_digits_from_shortest(0.1, 15).map(|d| d.1),
            Some(-1)
        );
        // 10000.295 is stored just below the tie: the shortest digits cannot tell.
        assert_eq!(significant_digits_from_shortest(10000.295, 7), None);
        assert_eq!(
            significant_digits_from_shortest(9.9999999, 7),
            Some((b"1000000".to_vec(), 1))
        );
    }
}
