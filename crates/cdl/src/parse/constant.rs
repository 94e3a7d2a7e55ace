//! Constants as written in CDL (before conversion to a target type) and data tokens.

use ncmodel::AtomicType;

use super::error::Position;

/// One constant as the lexer read it, typed the way ncgen's lexer types it.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// An integer. `ty` is the type its spelling gives it: a suffix (`b`, `s`, `l`/`ll`,
    /// `u`, `ub`, `us`, `ul`, `ull`...) or, without one, the smallest of `int`, `uint`,
    /// `int64`, `uint64` that holds it (negative ones: `int` or `int64`).
    Int {
        /// The value.
        value: i128,
        /// Its type.
        ty: AtomicType,
    },
    /// A floating-point number: `ty` is [`AtomicType::Float`] with an `f` suffix (value
    /// already rounded to `f32`), [`AtomicType::Double`] otherwise.
    Float {
        /// The value.
        value: f64,
        /// Its type.
        ty: AtomicType,
    },
    /// A character constant such as `'a'` or `'\n'` (ncgen types it as a byte).
    Char(u8),
    /// A string constant, escapes resolved.
    Str(Vec<u8>),
    /// An opaque constant `0x...`: its bytes (hex digits padded to an even count).
    Opaque(Vec<u8>),
    /// The fill marker `_`.
    Fill,
    /// `NIL` (a null string).
    Nil,
    /// A name: an enum constant. Several names for a path (`/g/e_t.A` is `["g", "e_t.A"]`).
    Name(Vec<String>),
    /// A function call such as `time("2000-01-01")`.
    Call {
        /// The function name.
        name: String,
        /// Its arguments.
        args: Vec<Constant>,
    },
}

impl Constant {
    /// A short description for messages (`an integer`, `a string`...).
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Int { .. } => "an integer",
            Self::Float { .. } => "a floating-point number",
            Self::Char(_) => "a character constant",
            Self::Str(_) => "a string",
            Self::Opaque(_) => "an opaque constant",
            Self::Fill => "the fill marker `_`",
            Self::Nil => "`NIL`",
            Self::Name(_) => "a name",
            Self::Call { .. } => "a function call",
        }
    }
}

/// One token of a data list, returned by [`super::DataReader::next`].
#[derive(Debug, Clone, PartialEq)]
pub enum DataToken {
    /// A constant and where it starts.
    Constant(Constant, Position),
    /// `{`: the start of a compound, vlen or sub-array.
    Open(Position),
    /// `}`.
    Close(Position),
}
