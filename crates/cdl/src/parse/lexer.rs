//! Tokens of CDL: names, paths, keywords, punctuation and constants.

use std::io::BufRead;

use ncmodel::AtomicType;

use super::constant::Constant;
use super::error::{ErrorKind, ParseError, Position};
use super::input::Input;
use super::number::{classify_number, is_number_byte};

/// Reserved words of CDL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keyword {
    /// `netcdf` (any of its spellings).
    Netcdf,
    /// An atomic type name.
    Type(AtomicType),
    /// `compound`, `struct` or `structure`.
    Compound,
    /// `enum`.
    Enum,
    /// `opaque`.
    Opaque,
    /// `unlimited` or `UNLIMITED`.
    Unlimited,
    /// `types:`.
    Types,
    /// `dimensions:`.
    Dimensions,
    /// `variables:`.
    Variables,
    /// `data:`.
    Data,
    /// `group:`.
    Group,
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    /// What it is.
    pub kind: Tok,
    /// Where it starts.
    pub pos: Position,
    /// Its length in characters.
    pub len: usize,
}

/// The kinds of token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A name (escapes resolved).
    Ident(String),
    /// An absolute path `/a/b` (escapes resolved); empty for `/`.
    Path(Vec<String>),
    /// A reserved word.
    Keyword(Keyword),
    /// A constant (number, string, character, opaque, `_`, `NIL`).
    Const(Constant),
    /// One of `{ } ( ) , ; = : *`.
    Punct(u8),
    /// The end of the source.
    Eof,
}

impl Tok {
    /// How messages show this token.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(n) => format!("name `{n}`"),
            Tok::Path(p) => format!("path `/{}`", p.join("/")),
            Tok::Keyword(k) => format!("keyword `{}`", keyword_text(*k)),
            Tok::Const(c) => c.describe().to_string(),
            Tok::Punct(c) => format!("`{}`", char::from(*c)),
            Tok::Eof => "end of file".to_string(),
        }
    }
}

fn keyword_text(k: Keyword) -> &'static str {
    match k {
        Keyword::Netcdf => "netcdf",
        Keyword::Type(t) => t.cdl_name(),
        Keyword::Compound => "compound",
        Keyword::Enum => "enum",
        Keyword::Opaque => "opaque",
        Keyword::Unlimited => "UNLIMITED",
        Keyword::Types => "types:",
        Keyword::Dimensions => "dimensions:",
        Keyword::Variables => "variables:",
        Keyword::Data => "data:",
        Keyword::Group => "group:",
    }
}

/// Which netCDF-4 type names are reserved words. ncgen decides it from `-k`: with a
/// classic-model kind (`nc3`, `nc6`, `nc7`) `string`, `int64`, `ubyte`... are ordinary
/// names (`int string(string)` is valid CDL there); with CDF5 only `string` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// Every type name is reserved (netCDF-4, and when no kind is given).
    #[default]
    Enhanced,
    /// CDF5: the unsigned and 64-bit types are reserved, `string` is a name.
    Cdf5,
    /// The classic model: only the six classic types are reserved.
    Classic,
}

impl Dialect {
    /// Whether the type `t`'s name is reserved in this dialect.
    fn reserves(self, t: AtomicType) -> bool {
        use AtomicType as T;
        match self {
            Self::Enhanced => true,
            Self::Cdf5 => t != T::String,
            Self::Classic => matches!(
                t,
                T::Char | T::Byte | T::Short | T::Int | T::Float | T::Double
            ),
        }
    }
}

/// The atomic type named `word` (`int`, `string`, `long`...), reserved or not.
pub(crate) fn atomic_type_named(word: &str) -> Option<AtomicType> {
    match keyword(word) {
        Some(Keyword::Type(t)) => Some(t),
        _ => None,
    }
}

/// The reserved word spelled `word`, if any (section words without their colon).
fn keyword(word: &str) -> Option<Keyword> {
    use AtomicType as T;
    Some(match word {
        "netcdf" | "NETCDF" | "netCDF" => Keyword::Netcdf,
        "char" => Keyword::Type(T::Char),
        "byte" => Keyword::Type(T::Byte),
        "ubyte" => Keyword::Type(T::UByte),
        "short" => Keyword::Type(T::Short),
        "ushort" => Keyword::Type(T::UShort),
        "int" | "long" | "integer" => Keyword::Type(T::Int),
        "uint" | "ulong" | "uinteger" => Keyword::Type(T::UInt),
        "int64" => Keyword::Type(T::Int64),
        "uint64" => Keyword::Type(T::UInt64),
        "float" | "real" => Keyword::Type(T::Float),
        "double" => Keyword::Type(T::Double),
        "string" => Keyword::Type(T::String),
        "compound" | "struct" | "structure" => Keyword::Compound,
        "enum" => Keyword::Enum,
        "opaque" => Keyword::Opaque,
        "unlimited" | "UNLIMITED" => Keyword::Unlimited,
        _ => return None,
    })
}

fn section(word: &str) -> Option<Keyword> {
    Some(match word {
        "types" => Keyword::Types,
        "dimensions" => Keyword::Dimensions,
        "variables" => Keyword::Variables,
        "data" => Keyword::Data,
        "group" => Keyword::Group,
        _ => return None,
    })
}

/// Special words that are floating-point constants.
fn special_float(word: &str) -> Option<Constant> {
    let (value, ty) = match word {
        "NaN" | "nan" => (f64::NAN, AtomicType::Double),
        "Infinity" | "DoubleInf" => (f64::INFINITY, AtomicType::Double),
        "-Infinity" => (f64::NEG_INFINITY, AtomicType::Double),
        "NaNf" | "nanf" => (f64::NAN, AtomicType::Float),
        "Infinityf" | "Inff" | "FloatInf" => (f64::INFINITY, AtomicType::Float),
        "-Infinityf" | "-Inff" => (f64::NEG_INFINITY, AtomicType::Float),
        _ => return None,
    };
    Some(Constant::Float { value, ty })
}

/// Whether `b` may start a name (UTF-8 lead bytes included; `\` starts an escape).
#[inline]
fn starts_name(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 || b == b'\\'
}

/// Whether `b` may continue a name.
#[inline]
fn continues_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'@' | b'+' | b'-') || b >= 0x80
}

/// The lexer: turns the input into tokens.
pub(crate) struct Lexer<R> {
    pub(crate) input: Input<R>,
    /// Scratch space for the text of numbers (reused: no allocation per number).
    scratch: Vec<u8>,
    /// Which type names are reserved.
    pub(crate) dialect: Dialect,
    /// Where the token before the last one read ended (for "`;` missing at the end of
    /// this line").
    pub(crate) last_end: Position,
}

impl<R: BufRead> Lexer<R> {
    /// A lexer over `input`.
    pub(crate) fn new(input: Input<R>) -> Self {
        Self {
            input,
            scratch: Vec::with_capacity(64),
            dialect: Dialect::default(),
            last_end: Position::START,
        }
    }

    /// When `tok`, found where a `;` was expected, starts a later line than the token
    /// before it ended, the error of a `;` missing at the end of that earlier line: placed
    /// there, with a hint that says so. `None` otherwise (or at the end of the file).
    pub(crate) fn semicolon_missing_before(&mut self, tok: &Token) -> Option<ParseError> {
        let end = self.last_end;
        if tok.kind == Tok::Eof || tok.pos.line <= end.line || end.offset == 0 {
            return None;
        }
        let mut e = ParseError::new(
            ErrorKind::Syntax,
            end,
            "expected `;` at the end of this line",
        )
        .with_len(1)
        .with_hint(format!(
            "add `;` here: line {} starts with {}, which cannot continue this statement",
            tok.pos.line,
            tok.kind.describe()
        ));
        self.input.decorate(&mut e, end);
        Some(e)
    }

    /// An error at `pos` of `len` characters.
    pub(crate) fn error_at(
        &mut self,
        kind: ErrorKind,
        pos: Position,
        len: usize,
        msg: impl Into<String>,
    ) -> ParseError {
        self.input.error(kind, pos, msg).with_len(len)
    }

    /// The next token.
    pub(crate) fn next_token(&mut self) -> Result<Token, ParseError> {
        self.last_end = self.input.position();
        self.input.skip_trivia()?;
        let pos = self.input.position();
        let Some(b) = self.input.peek()? else {
            return Ok(Token {
                kind: Tok::Eof,
                pos,
                len: 1,
            });
        };
        let kind = match b {
            b'{' | b'}' | b'(' | b')' | b',' | b';' | b'=' | b':' | b'*' => {
                self.input.bump();
                Tok::Punct(b)
            }
            b'"' => Tok::Const(Constant::Str(self.string(pos)?)),
            b'\'' => Tok::Const(Constant::Char(self.char_constant(pos)?)),
            b'/' => Tok::Path(self.path(pos)?),
            b'0'..=b'9' | b'.' => Tok::Const(self.number(pos)?),
            b'+' | b'-' => {
                if self
                    .input
                    .peek_at(1)?
                    .is_some_and(|c| c.is_ascii_alphabetic())
                {
                    self.signed_word(pos)?
                } else {
                    Tok::Const(self.number(pos)?)
                }
            }
            _ if starts_name(b) => self.word(pos)?,
            _ => {
                let shown = self.char_at_cursor()?;
                return Err(self.error_at(
                    ErrorKind::Syntax,
                    pos,
                    1,
                    format!("unexpected character `{shown}`"),
                ));
            }
        };
        let end = self.input.position();
        let len = if end.line == pos.line {
            (end.col - pos.col) as usize
        } else {
            1
        };
        Ok(Token { kind, pos, len })
    }

    fn char_at_cursor(&mut self) -> Result<String, ParseError> {
        let mut bytes = Vec::new();
        while let Some(b) = self.input.peek_at(bytes.len())? {
            if !bytes.is_empty() && b & 0xC0 != 0x80 || bytes.len() == 4 {
                break;
            }
            bytes.push(b);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The raw name after `netcdf`: everything up to `{`, without blanks, escapes resolved.
    pub(crate) fn dataset_name(&mut self) -> Result<String, ParseError> {
        self.input.skip_trivia()?;
        let mut raw = Vec::new();
        self.input.take_while(|b| b != b'{', Some(&mut raw))?;
        raw.retain(|b| *b > b' ');
        let mut out = Vec::with_capacity(raw.len());
        let mut it = raw.iter();
        while let Some(&b) = it.next() {
            if b == b'\\' {
                if let Some(&c) = it.next() {
                    out.push(c);
                }
            } else {
                out.push(b);
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// A name (keyword, section word, special constant or identifier).
    fn word(&mut self, pos: Position) -> Result<Tok, ParseError> {
        let (name, escaped) = self.name_text(pos)?;
        if !escaped {
            match keyword(&name) {
                Some(Keyword::Type(t)) if !self.dialect.reserves(t) => {}
                Some(k) => return Ok(Tok::Keyword(k)),
                None => {}
            }
            if let Some(c) = special_float(&name) {
                return Ok(Tok::Const(c));
            }
            match name.as_str() {
                "_" => return Ok(Tok::Const(Constant::Fill)),
                "NIL" | "nil" | "Nil" => return Ok(Tok::Const(Constant::Nil)),
                _ => {}
            }
            if let Some(k) = section(&name) {
                if self.input.peek()? == Some(b':') {
                    self.input.bump();
                    return Ok(Tok::Keyword(k));
                }
            }
        }
        Ok(Tok::Ident(name))
    }

    /// `-Infinity`, `-Infinityf`, `-Inff` (and `+` forms of nothing: an error).
    fn signed_word(&mut self, pos: Position) -> Result<Tok, ParseError> {
        let mut text = vec![0u8; 0];
        if let Some(s) = self.input.next_byte()? {
            text.push(s);
        }
        self.input.take_while(continues_name, Some(&mut text))?;
        let word = String::from_utf8_lossy(&text).into_owned();
        match special_float(&word) {
            Some(c) if word.starts_with('-') => Ok(Tok::Const(c)),
            _ => Err(self
                .error_at(
                    ErrorKind::BadNumber,
                    pos,
                    word.chars().count(),
                    format!("bad number `{word}`"),
                )
                .with_hint("special values are `NaN`, `Infinity`, `-Infinity`, `NaNf`, `Infinityf`, `-Infinityf`")),
        }
    }

    /// The text of a name with escapes resolved, and whether it had any.
    fn name_text(&mut self, pos: Position) -> Result<(String, bool), ParseError> {
        let mut bytes = Vec::new();
        let mut escaped = false;
        loop {
            self.input.take_while(continues_name, Some(&mut bytes))?;
            if self.input.peek()? == Some(b'\\') {
                match self.input.peek_at(1)? {
                    Some(c) if c >= b' ' => {
                        self.input.bump();
                        self.input.bump();
                        bytes.push(c);
                        escaped = true;
                    }
                    _ => {
                        return Err(self.error_at(
                            ErrorKind::Syntax,
                            pos,
                            bytes.len() + 1,
                            "a `\\` in a name must escape a character",
                        ))
                    }
                }
            } else {
                break;
            }
        }
        match String::from_utf8(bytes) {
            Ok(s) => Ok((s, escaped)),
            Err(_) => Err(self.error_at(ErrorKind::Syntax, pos, 1, "name is not valid UTF-8")),
        }
    }

    /// A path `/a/b/c` (the cursor is on the first `/`).
    fn path(&mut self, pos: Position) -> Result<Vec<String>, ParseError> {
        let mut parts = Vec::new();
        while self.input.peek()? == Some(b'/') {
            self.input.bump();
            match self.input.peek()? {
                Some(b) if starts_name(b) => {
                    let (name, _) = self.name_text(pos)?;
                    parts.push(name);
                }
                _ if parts.is_empty() => return Ok(parts),
                _ => {
                    let here = self.input.position();
                    return Err(self.error_at(
                        ErrorKind::Syntax,
                        here,
                        1,
                        "expected a name after `/` in a path",
                    ));
                }
            }
        }
        Ok(parts)
    }

    /// A number's text, classified. Never allocates once `scratch` has grown.
    fn number(&mut self, pos: Position) -> Result<Constant, ParseError> {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        if let Some(s @ (b'+' | b'-')) = self.input.peek()? {
            self.input.bump();
            text.push(s);
        }
        loop {
            self.input.take_while(is_number_byte, Some(&mut text))?;
            let last = text.last().copied().unwrap_or(b'0');
            let hex = text.len() > 1 && text.iter().any(|b| *b == b'x' || *b == b'X');
            match self.input.peek()? {
                Some(s @ (b'+' | b'-')) if (last | 0x20) == b'e' && !hex => {
                    self.input.bump();
                    text.push(s);
                }
                _ => break,
            }
        }
        let result = classify_number(&text);
        let result = match result {
            Ok(c) => Ok(c),
            // The text is shown only on error: no allocation per number on the hot path.
            Err(why) => {
                let shown = String::from_utf8_lossy(&text).into_owned();
                Err(self.error_at(
                    ErrorKind::BadNumber,
                    pos,
                    text.len(),
                    format!("bad number `{shown}`: {why}"),
                ))
            }
        };
        self.scratch = text;
        result
    }

    /// A string constant (the cursor is on the opening quote).
    fn string(&mut self, pos: Position) -> Result<Vec<u8>, ParseError> {
        self.input.bump();
        let mut out = Vec::new();
        loop {
            self.input
                .take_while(|b| b != b'"' && b != b'\\', Some(&mut out))?;
            match self.input.next_byte()? {
                Some(b'"') => return Ok(out),
                Some(b'\\') => {
                    let c = self.escape(pos)?;
                    out.push(c);
                }
                _ => {
                    return Err(self
                        .error_at(ErrorKind::UnterminatedString, pos, 1, "unterminated string")
                        .with_hint("close the string with `\"`"))
                }
            }
        }
    }

    /// The byte an escape stands for (the cursor is after the `\`).
    fn escape(&mut self, pos: Position) -> Result<u8, ParseError> {
        let Some(c) = self.input.next_byte()? else {
            return Err(self
                .error_at(ErrorKind::UnterminatedString, pos, 1, "unterminated string")
                .with_hint("close the string with `\"`"));
        };
        Ok(match c {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'?' => 0x7f,
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.input.peek()? {
                        Some(d @ b'0'..=b'7') => {
                            self.input.bump();
                            v = v * 8 + u32::from(d - b'0');
                        }
                        _ => break,
                    }
                }
                (v & 0xff) as u8
            }
            b'x' | b'X' => {
                let mut v = 0u8;
                for _ in 0..2 {
                    match self.input.peek()? {
                        Some(d) if d.is_ascii_hexdigit() => {
                            self.input.bump();
                            let digit = (d as char).to_digit(16).unwrap_or(0) as u8;
                            v = (v << 4) | digit;
                        }
                        _ => break,
                    }
                }
                v
            }
            other => other,
        })
    }

    /// A character constant `'c'` (the cursor is on the opening quote).
    fn char_constant(&mut self, pos: Position) -> Result<u8, ParseError> {
        self.input.bump();
        let c = match self.input.next_byte()? {
            Some(b'\\') => self.escape(pos)?,
            Some(b'\'') | Some(b'\n') | None => {
                return Err(self.error_at(
                    ErrorKind::UnterminatedString,
                    pos,
                    1,
                    "bad character constant",
                ))
            }
            Some(c) => c,
        };
        if self.input.next_byte()? != Some(b'\'') {
            return Err(self
                .error_at(
                    ErrorKind::UnterminatedString,
                    pos,
                    1,
                    "unterminated character constant",
                )
                .with_hint("a character constant is one character between `'`, like 'a'"));
        }
        Ok(c)
    }
}
