//! Parameter constants (the spec's constants table, DECISIONS D1): a number with an
//! optional type tag, giving one or two 32-bit filter parameter words.

use std::fmt;

use nom::bytes::complete::tag_no_case;
use nom::character::complete::{char, digit0, digit1, hex_digit1, one_of};
use nom::combinator::{opt, recognize, verify};
use nom::sequence::{pair, preceded, tuple};
use nom::IResult;

use crate::fix8::u64_to_words;

/// The type tag after a number, which sets its range and encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeTag {
    /// No tag: i32 if negative, else u32 or (if larger) u64.
    Untagged,
    /// `b`: 8-bit.
    Byte,
    /// `ub`: unsigned 8-bit.
    UByte,
    /// `s`: 16-bit.
    Short,
    /// `us`: unsigned 16-bit.
    UShort,
    /// `u`: unsigned 32-bit.
    UInt,
    /// `l`: signed 64-bit, two words.
    Long,
    /// `ul`: unsigned 64-bit, two words.
    ULong,
    /// `f`: 32-bit float.
    Float,
    /// `d`: 64-bit double, two words.
    Double,
}

impl TypeTag {
    /// Every tag, untagged first.
    pub const ALL: [TypeTag; 10] = [
        Self::Untagged,
        Self::Byte,
        Self::UByte,
        Self::Short,
        Self::UShort,
        Self::UInt,
        Self::Long,
        Self::ULong,
        Self::Float,
        Self::Double,
    ];

    /// The tag as written after a number (lower case; empty for untagged).
    pub const fn suffix(self) -> &'static str {
        match self {
            Self::Untagged => "",
            Self::Byte => "b",
            Self::UByte => "ub",
            Self::Short => "s",
            Self::UShort => "us",
            Self::UInt => "u",
            Self::Long => "l",
            Self::ULong => "ul",
            Self::Float => "f",
            Self::Double => "d",
        }
    }

    /// The tag for a suffix, case-insensitive.
    pub fn from_suffix(suffix: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.suffix().eq_ignore_ascii_case(suffix))
    }

    /// Whether the tag takes floating-point text.
    pub const fn is_real(self) -> bool {
        matches!(self, Self::Float | Self::Double)
    }

    /// The type the tag names, for messages.
    pub const fn type_name(self) -> &'static str {
        match self {
            Self::Untagged => "an untagged integer",
            Self::Byte | Self::UByte => "an 8-bit integer",
            Self::Short | Self::UShort => "a 16-bit integer",
            Self::UInt => "an unsigned 32-bit integer",
            Self::Long => "a signed 64-bit integer",
            Self::ULong => "an unsigned 64-bit integer",
            Self::Float => "a 32-bit float",
            Self::Double => "a 64-bit double",
        }
    }

    /// The accepted range, for messages.
    pub fn range_hint(self) -> String {
        match self {
            Self::Untagged => "untagged integers take -2147483648 to 18446744073709551615 \
                 (negative: 32-bit; above 4294967295: two words)"
                .into(),
            Self::Byte | Self::UByte => format!("{self} takes -128 to 255"),
            Self::Short | Self::UShort => format!("{self} takes -32768 to 65535"),
            Self::UInt => "u takes 0 to 4294967295".into(),
            Self::Long => "l takes -9223372036854775808 to 9223372036854775807".into(),
            Self::ULong => "ul takes 0 to 18446744073709551615".into(),
            Self::Float => "f takes finite values up to about 3.4e38 in magnitude".into(),
            Self::Double => "d takes finite values up to about 1.8e308 in magnitude".into(),
        }
    }
}

impl fmt::Display for TypeTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Untagged => f.write_str("untagged"),
            other => f.write_str(other.suffix()),
        }
    }
}

/// The number part of a constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// A whole number (decimal or `0x` hex), as written with its sign.
    Integer(i128),
    /// A number read as floating point (for the `f` and `d` tags).
    Real(f64),
}

/// One parameter constant: a number and its type tag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Constant {
    /// The value.
    pub number: Number,
    /// The tag.
    pub tag: TypeTag,
}

/// The one or two 32-bit words a constant gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// A 32-bit or smaller constant.
    One(u32),
    /// A 64-bit constant: low word first (see [`crate::fix8`]).
    Two([u32; 2]),
}

impl Words {
    /// The words in order.
    pub fn as_slice(&self) -> &[u32] {
        match self {
            Self::One(w) => std::slice::from_ref(w),
            Self::Two(w) => w,
        }
    }
}

impl Constant {
    /// The parameter words of the constant, or `None` if its value is out of its tag's
    /// range (or is not a whole number where the tag needs one).
    pub fn words(&self) -> Option<Words> {
        match (self.tag, self.number) {
            (TypeTag::Float, Number::Real(v)) => {
                let narrowed = v as f32;
                narrowed
                    .is_finite()
                    .then_some(Words::One(narrowed.to_bits()))
            }
            (TypeTag::Double, Number::Real(v)) => {
                v.is_finite().then(|| Words::Two(u64_to_words(v.to_bits())))
            }
            (_, Number::Real(_)) | (TypeTag::Float | TypeTag::Double, _) => None,
            (tag, Number::Integer(v)) => integer_words(tag, v),
        }
    }
}

fn in_range(v: i128, low: i128, high: i128) -> bool {
    (low..=high).contains(&v)
}

fn integer_words(tag: TypeTag, v: i128) -> Option<Words> {
    let one = |ok: bool, word: u32| ok.then_some(Words::One(word));
    let two = |ok: bool, bits: u64| ok.then(|| Words::Two(u64_to_words(bits)));
    // The `as` casts below keep the low bits, which is the encoding the table asks for.
    match tag {
        TypeTag::Byte | TypeTag::UByte => one(in_range(v, -128, 255), (v as u32) & 0xff),
        TypeTag::Short | TypeTag::UShort => one(in_range(v, -32768, 65535), (v as u32) & 0xffff),
        TypeTag::UInt => one(in_range(v, 0, u32::MAX.into()), v as u32),
        TypeTag::Long => two(in_range(v, i64::MIN.into(), i64::MAX.into()), v as u64),
        TypeTag::ULong => two(in_range(v, 0, u64::MAX.into()), v as u64),
        TypeTag::Untagged if v < 0 => one(in_range(v, i32::MIN.into(), -1), v as u32),
        TypeTag::Untagged if v <= i128::from(u32::MAX) => one(true, v as u32),
        TypeTag::Untagged => two(v <= i128::from(u64::MAX), v as u64),
        TypeTag::Float | TypeTag::Double => None,
    }
}

impl fmt::Display for Constant {
    /// Writes the constant so that [`parse_constant`] reads it back unchanged.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.number {
            Number::Integer(v) => write!(f, "{v}{}", self.tag.suffix()),
            Number::Real(v) => write!(f, "{v:?}{}", self.tag.suffix()),
        }
    }
}

/// Why a piece of text is not a constant; positions are added by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstantError {
    /// It does not start with a number.
    NotANumber,
    /// A number followed by something that is not a tag.
    UnknownTag,
    /// A decimal point or exponent, but no `f`/`d` tag.
    FractionWithoutFloatTag,
    /// Fraction, exponent or hex with an integer tag, or hex with a float tag.
    NotAnInteger(TypeTag),
    /// The value does not fit the tag's type.
    OutOfRange(TypeTag),
}

/// The lexical pieces of a constant.
struct Lexeme<'a> {
    negative: bool,
    hex: Option<&'a str>,
    decimal: &'a str,
    tag: &'a str,
}

fn exponent(input: &str) -> IResult<&str, &str> {
    recognize(tuple((one_of("eE"), opt(one_of("+-")), digit1)))(input)
}

fn decimal(input: &str) -> IResult<&str, &str> {
    verify(
        recognize(tuple((digit0, opt(pair(char('.'), digit0)), opt(exponent)))),
        |s: &str| {
            s.bytes()
                .take_while(|b| *b != b'e' && *b != b'E')
                .any(|b| b.is_ascii_digit())
        },
    )(input)
}

fn lexeme(input: &str) -> IResult<&str, Lexeme<'_>> {
    let (rest, sign) = opt(one_of("+-"))(input)?;
    let (rest, hex) = opt(preceded(tag_no_case("0x"), hex_digit1))(rest)?;
    let (rest, decimal) = match hex {
        Some(_) => (rest, ""),
        None => decimal(rest)?,
    };
    let lexeme = Lexeme {
        negative: sign == Some('-'),
        hex,
        decimal,
        tag: rest,
    };
    Ok(("", lexeme))
}

fn magnitude(digits: &str, radix: u32) -> Option<i128> {
    digits.chars().try_fold(0i128, |acc, c| {
        let digit = i128::from(c.to_digit(radix)?);
        acc.checked_mul(i128::from(radix))?.checked_add(digit)
    })
}

/// Parses one constant: blanks must already be trimmed.
pub fn parse_constant(text: &str) -> Result<Constant, ConstantError> {
    let (_, lex) = lexeme(text).map_err(|_| ConstantError::NotANumber)?;
    let tag = TypeTag::from_suffix(lex.tag).ok_or(ConstantError::UnknownTag)?;
    let is_real_text = lex.decimal.contains(['.', 'e', 'E']);
    let number = if tag.is_real() {
        if lex.hex.is_some() {
            return Err(ConstantError::NotAnInteger(tag));
        }
        let numeric = &text[..text.len() - lex.tag.len()];
        Number::Real(numeric.parse().map_err(|_| ConstantError::NotANumber)?)
    } else if is_real_text {
        return Err(match tag {
            TypeTag::Untagged => ConstantError::FractionWithoutFloatTag,
            other => ConstantError::NotAnInteger(other),
        });
    } else {
        let digits = lex.hex.map_or((lex.decimal, 10), |h| (h, 16));
        let value = magnitude(digits.0, digits.1).ok_or(ConstantError::OutOfRange(tag))?;
        Number::Integer(if lex.negative { -value } else { value })
    };
    let constant = Constant { number, tag };
    match constant.words() {
        Some(_) => Ok(constant),
        None => Err(ConstantError::OutOfRange(tag)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<u32> {
        let c = parse_constant(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        c.words().map(|w| w.as_slice().to_vec()).unwrap_or_default()
    }

    #[test]
    fn hex_and_signs() {
        assert_eq!(words("0x10"), [16]);
        assert_eq!(words("0XfF"), [255]);
        assert_eq!(words("0x1fb"), [0x1fb]);
        assert_eq!(words("0xffub"), [255]);
        assert_eq!(words("-0x10"), [(-16i32) as u32]);
        assert_eq!(words("+5"), [5]);
    }

    #[test]
    fn lexical_errors() {
        assert_eq!(parse_constant("x"), Err(ConstantError::NotANumber));
        assert_eq!(parse_constant(""), Err(ConstantError::NotANumber));
        assert_eq!(parse_constant("."), Err(ConstantError::NotANumber));
        assert_eq!(parse_constant("e5"), Err(ConstantError::NotANumber));
        assert_eq!(parse_constant("5x"), Err(ConstantError::UnknownTag));
        assert_eq!(parse_constant("5 0"), Err(ConstantError::UnknownTag));
        assert_eq!(
            parse_constant("1.5"),
            Err(ConstantError::FractionWithoutFloatTag)
        );
        assert_eq!(
            parse_constant("1e3"),
            Err(ConstantError::FractionWithoutFloatTag)
        );
        assert_eq!(
            parse_constant("1.5b"),
            Err(ConstantError::NotAnInteger(TypeTag::Byte))
        );
    }
}
