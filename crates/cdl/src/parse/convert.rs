//! Converting constants to netCDF values of an atomic type, as ncgen does (C casts:
//! integers wrap, floats truncate), and inferring the type of an untyped attribute.

use ncmodel::{AtomicType, Values};

use super::constant::Constant;

/// Why constants could not be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConvertError {
    /// Index (in the slice given) of the constant at fault.
    pub index: usize,
    /// What is wrong.
    pub message: String,
}

fn err(index: usize, message: impl Into<String>) -> ConvertError {
    ConvertError {
        index,
        message: message.into(),
    }
}

/// Ranks the signed integer types like netCDF's type codes do (`byte` < `short` < `int` < `int64`).
fn signed_rank(t: AtomicType) -> u8 {
    match t {
        AtomicType::Byte | AtomicType::UByte | AtomicType::Char => 1,
        AtomicType::Short | AtomicType::UShort => 3,
        AtomicType::Int | AtomicType::UInt => 4,
        _ => 10,
    }
}

/// The type ncgen gives an attribute declared without one, from its constants:
/// `char` for strings (or no values), `double` if any constant is a double, else
/// `float` if any is a float, else the integer type met last unless an earlier one is
/// wider (ncgen's rule, which makes `3000000000, 1` an `int`).
pub fn infer_type(constants: &[Constant]) -> Result<AtomicType, ConvertError> {
    let strings = constants
        .iter()
        .filter(|c| matches!(c, Constant::Str(_)))
        .count();
    if strings == constants.len() {
        return Ok(AtomicType::Char);
    }
    let mut result: Option<AtomicType> = None;
    let mut floating: Option<AtomicType> = None;
    for (i, c) in constants.iter().enumerate() {
        let next = match c {
            Constant::Int { ty, .. } => *ty,
            Constant::Char(_) => AtomicType::Byte,
            Constant::Float { ty, .. } => {
                if floating != Some(AtomicType::Double) {
                    floating = Some(*ty);
                }
                continue;
            }
            Constant::Str(_) => {
                return Err(err(
                    i,
                    "an attribute without a type cannot mix strings and numbers",
                ))
            }
            other => {
                return Err(err(
                    i,
                    format!(
                        "the type of an attribute holding {} must be given",
                        other.describe()
                    ),
                ))
            }
        };
        result = Some(match result {
            Some(prior) if signed_rank(prior) > signed_rank(next) => prior,
            _ => next,
        });
    }
    Ok(floating.or(result).unwrap_or(AtomicType::Char))
}

/// The number at the start of `text` (C `strtod` on the longest numeric prefix; 0 when
/// there is none).
fn leading_number(text: &[u8]) -> f64 {
    let text = String::from_utf8_lossy(text);
    let text = text.trim_start();
    let len = text
        .bytes()
        .take_while(|b| b.is_ascii_digit() || b"+-.eE".contains(b))
        .count();
    (1..=len)
        .rev()
        .find_map(|i| text[..i].parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// A numeric constant as either an integer or a float.
enum Num {
    I(i128),
    F(f64),
}

/// Converts a float to an integer as C's cast does on x86-64 (out of range: the
/// "integer indefinite" value).
fn float_to_int(v: f64, t: AtomicType) -> i128 {
    let v = v.trunc();
    match t {
        AtomicType::Int64 | AtomicType::UInt => {
            if v.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&v) {
                i128::from(i64::MIN)
            } else {
                i128::from(v as i64)
            }
        }
        AtomicType::UInt64 => i128::from(v as u64),
        _ => {
            if v.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
                i128::from(i32::MIN)
            } else {
                i128::from(v as i32)
            }
        }
    }
}

/// Converts constants to values of the atomic type `target`, the way ncgen converts
/// attribute and data values: integers wrap to the target's width, floats truncate
/// toward zero, `_` is the type's default fill value, strings (concatenated) and
/// character constants only go to `char` and `string`, a number in a `string` is its
/// text as the reference prints it (`1.2345679e+08`).
pub fn convert_constants(
    constants: &[Constant],
    target: AtomicType,
) -> Result<Values, ConvertError> {
    let mut out = Values::empty(target);
    for (i, c) in constants.iter().enumerate() {
        push_constant(&mut out, c, target).map_err(|m| err(i, m))?;
    }
    Ok(out)
}

/// Appends one constant, converted to `target`, to `out` (which must hold `target` values).
pub fn push_constant(out: &mut Values, c: &Constant, target: AtomicType) -> Result<(), String> {
    match (out, c) {
        (Values::Char(v), Constant::Str(s)) => v.extend_from_slice(s),
        (Values::Char(v), Constant::Char(b)) => v.push(*b),
        (Values::Char(v), Constant::Fill) => v.push(0),
        (Values::Char(_), other) => {
            return Err(format!(
                "expected a string or character constant for a `char` value, found {}",
                other.describe()
            ))
        }
        (Values::String(v), Constant::Str(s)) => v.push(Some(s.clone())),
        (Values::String(v), Constant::Char(b)) => v.push(Some(vec![*b])),
        (Values::String(v), Constant::Nil) => v.push(None),
        (Values::String(v), Constant::Fill) => v.push(Some(Vec::new())),
        // As the reference: a number becomes its text (C's `%.8g` for floating point).
        (Values::String(v), Constant::Int { value, ty }) => {
            v.push(Some(integer_text(*value, *ty).into_bytes()))
        }
        (Values::String(v), Constant::Float { value, .. }) => {
            v.push(Some(crate::number::format_g(*value, 8, false).into_bytes()))
        }
        (Values::String(_), other) => {
            return Err(format!(
                "expected a string for a `string` value, found {}",
                other.describe()
            ))
        }
        (out, Constant::Fill) => {
            out.extend_from(&Values::default_fill(target));
        }
        (out, c) => {
            let num = match c {
                Constant::Int { value, .. } => Num::I(*value),
                Constant::Char(b) => Num::I(i128::from(*b)),
                Constant::Float { value, .. } => Num::F(*value),
                // ncgen reads `0x10` in numeric data as the number it spells.
                Constant::Opaque(bytes) => Num::I(
                    bytes
                        .iter()
                        .rev()
                        .take(8)
                        .rev()
                        .fold(0i128, |acc, b| (acc << 8) | i128::from(*b)),
                ),
                // ncgen reads a string in numeric data by its leading number, as C's strtod
                // does: "1900-01-01" is 1900.
                Constant::Str(text) => Num::F(leading_number(text)),
                other => {
                    return Err(format!(
                        "expected a number for a `{}` value, found {}",
                        target.cdl_name(),
                        other.describe()
                    ))
                }
            };
            push_number(out, num, target);
        }
    }
    Ok(())
}

/// An integer constant as the reference ncgen prints it into a string: in decimal, a
/// `uint64` one as C's `%lld` of its bits (18446744073709551615 is "-1").
fn integer_text(value: i128, ty: AtomicType) -> String {
    match ty {
        AtomicType::UInt64 => (value as u64 as i64).to_string(),
        _ => value.to_string(),
    }
}

fn push_number(out: &mut Values, num: Num, target: AtomicType) {
    let int = |n: &Num| match n {
        Num::I(i) => *i,
        Num::F(f) => float_to_int(*f, target),
    };
    let float = |n: &Num| match n {
        Num::I(i) => *i as f64,
        Num::F(f) => *f,
    };
    match out {
        Values::Byte(v) => v.push(int(&num) as i8),
        Values::Short(v) => v.push(int(&num) as i16),
        Values::Int(v) => v.push(int(&num) as i32),
        Values::UByte(v) => v.push(int(&num) as u8),
        Values::UShort(v) => v.push(int(&num) as u16),
        Values::UInt(v) => v.push(int(&num) as u32),
        Values::Int64(v) => v.push(int(&num) as i64),
        Values::UInt64(v) => v.push(int(&num) as u64),
        Values::Float(v) => v.push(match num {
            Num::I(i) => i as f32,
            Num::F(f) => f as f32,
        }),
        Values::Double(v) => v.push(float(&num)),
        Values::Char(_) | Values::String(_) | Values::User(_) => {}
    }
}
