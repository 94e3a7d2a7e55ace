//! JSON as Zarr stores hold it: parsing that accepts the bare `NaN`, `Infinity` and
//! `-Infinity` tokens netCDF-C writes, and writing in netCDF-C's style (`{"k": v, "k2":
//! v2}`, `[a,b]`, no newline) or zarr-python's (indented).

use serde_json::Value;

use crate::error::{Result, ZarrError};

/// The prefix a bare non-finite token gets when it is turned into a string for parsing.
const BARE: char = '\u{1}';

/// The most a metadata document may weigh, in values: each scalar, array and object
/// counts one (by the separators and brackets that introduce it) and each object member
/// two more, for its name and its place in the map. 2 Mi. Parsed and turned into
/// attributes, a unit costs about 90 bytes (a member about three times a number), so a
/// document costs at most about 190 MiB whatever its text's length; a 64 MiB document of
/// single digits would weigh 32 Mi and cost gigabytes. The consolidated metadata of a
/// store of CF variables weighs about 66 per array, so up to some 30,000 arrays;
/// heavier consolidated metadata is set aside for the store's own documents.
pub const MAX_DOCUMENT_WEIGHT: usize = 2 << 20;

/// Parses the JSON text of the file `what`, accepting bare `NaN`/`Infinity` tokens;
/// a text weighing more than [`MAX_DOCUMENT_WEIGHT`] is refused before it is parsed.
pub fn parse(text: &str, what: &str) -> Result<Value> {
    check_weight(text, what)?;
    let prepared = quote_bare_tokens(text);
    serde_json::from_str(&prepared).map_err(|e| {
        ZarrError::Corrupt(format!(
            "{what} is not valid JSON ({e}); the store is damaged"
        ))
    })
}

/// The prefix a number gets when it is turned into a string by
/// [`parse_keeping_numbers`].
const NUMBER: char = '\u{2}';

/// Parses like [`parse`], keeping every number as its text (a marked string, which
/// [`J::from_value`] writes back as the same number): a document rewritten through it
/// changes no number's text, where a double parsed and printed again may.
pub fn parse_keeping_numbers(text: &str, what: &str) -> Result<Value> {
    check_weight(text, what)?;
    let prepared = quote_numbers(&quote_bare_tokens(text));
    serde_json::from_str(&prepared).map_err(|e| {
        ZarrError::Corrupt(format!(
            "{what} is not valid JSON ({e}); the store is damaged"
        ))
    })
}

/// Rewrites every number outside strings as a string marked by [`NUMBER`].
fn quote_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '-' || c.is_ascii_digit() {
            let mut end = i + c.len_utf8();
            while let Some((j, d)) = chars.peek().copied() {
                if d.is_ascii_digit() || matches!(d, '.' | 'e' | 'E' | '+' | '-') {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            out.push('"');
            out.push_str("\\u0002");
            out.push_str(&text[i..end]);
            out.push('"');
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

/// Rewrites bare `NaN`, `Infinity` and `-Infinity` outside strings as marked strings.
fn quote_bare_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = ["NaN", "Infinity", "-Infinity"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        if let Some(token) = token {
            out.push('"');
            out.push_str("\\u0001");
            out.push_str(token);
            out.push('"');
            rest = &rest[token.len()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Refuses a text weighing more than [`MAX_DOCUMENT_WEIGHT`] ([`weight_of`]); `what`
/// names it.
fn check_weight(text: &str, what: &str) -> Result<()> {
    if weight_of(text.as_bytes()) > MAX_DOCUMENT_WEIGHT {
        return Err(too_heavy(what));
    }
    Ok(())
}

/// The refusal of a document weighing more than [`MAX_DOCUMENT_WEIGHT`].
fn too_heavy(what: &str) -> ZarrError {
    ZarrError::TooLarge(format!(
        "{what} holds more than {MAX_DOCUMENT_WEIGHT} JSON values and names (strings \
         counting one per {STRING_BYTES_PER_UNIT} bytes, other text one per \
         {OTHER_BYTES_PER_UNIT}), more than nctools parses in one \
         metadata document (parsing costs tens of bytes each); an attribute this long \
         belongs in a variable"
    ))
}

/// The weight of a JSON text as [`MAX_DOCUMENT_WEIGHT`] counts it: values, member names
/// twice more, the bytes of strings one per [`STRING_BYTES_PER_UNIT`] (a string is
/// kept whole, then copied into attributes and output), and every other byte
/// (whitespace, the digits of numbers) one per [`OTHER_BYTES_PER_UNIT`], since parsing
/// them costs time. One pass over the bytes, nothing allocated.
pub fn weight_of(text: &[u8]) -> usize {
    let mut weight = 1usize;
    let mut string_bytes = 0usize;
    let mut other_bytes = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    for &b in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                continue;
            }
            string_bytes += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b'[' | b'{' => weight = weight.saturating_add(1),
            b':' => weight = weight.saturating_add(2),
            _ => other_bytes += 1,
        }
    }
    weight
        .saturating_add(string_bytes / STRING_BYTES_PER_UNIT)
        .saturating_add(other_bytes / OTHER_BYTES_PER_UNIT)
}

/// How many bytes outside strings (whitespace, numbers' digits) weigh one unit: 16, so
/// that a document holds at most 32 MiB of them and a store 64 MiB (before they weighed
/// nothing: ten documents of 60 MB of spaces in a 587 KB zip took minutes of CPU).
pub const OTHER_BYTES_PER_UNIT: usize = 16;

/// How many bytes of strings weigh one unit: 8, so that a document holds at most 16 MiB
/// of strings and a store 32 MiB ([`crate::source::MAX_STORE_WEIGHT`]), whatever their
/// number (before, a 60 MB attribute string weighed 3, and ten of them in a 587 KB zip
/// archive took 1.26 GB).
pub const STRING_BYTES_PER_UNIT: usize = 8;

/// Parses JSON text that is not a store's document (a char attribute's text that may be
/// a JSON object), refusing it, as [`parse`] does, past [`MAX_DOCUMENT_WEIGHT`].
pub fn parse_plain(text: &str, what: &str) -> Result<Value> {
    check_weight(text, what)?;
    serde_json::from_str(text)
        .map_err(|e| ZarrError::Corrupt(format!("{what} is not valid JSON ({e})")))
}

/// A JSON value as a number, including the non-finite forms (bare tokens or the strings
/// `"NaN"`, `"Infinity"`, `"-Infinity"` zarr-python writes).
pub fn as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => non_finite(s),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// The non-finite number a string names.
pub fn non_finite(s: &str) -> Option<f64> {
    match s.trim_start_matches(BARE) {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Whether the string stood for a bare non-finite token.
pub fn is_bare_token(s: &str) -> bool {
    s.starts_with(BARE)
}

/// A JSON value to write, with numbers kept as the text to write.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    /// `null`.
    Null,
    /// `true`/`false`.
    Bool(bool),
    /// A number (or bare `NaN`/`Infinity`), as written.
    Num(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<J>),
    /// An object, members in order.
    Obj(Vec<(String, J)>),
}

impl J {
    /// An integer.
    pub fn int(n: impl Into<i128>) -> Self {
        Self::Num(n.into().to_string())
    }

    /// A double, netCDF-C style (bare `NaN`, `Infinity`, `-Infinity`).
    pub fn f64(x: f64) -> Self {
        Self::Num(float_text(x, format!("{x:?}")))
    }

    /// An object from members.
    pub fn obj<const N: usize>(members: [(&str, J); N]) -> Self {
        Self::Obj(
            members
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// A [`serde_json::Value`] as is (numbers keep their text).
    pub fn from_value(value: &Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Num(n.to_string()),
            Value::String(s) => match non_finite(s).filter(|_| is_bare_token(s)) {
                Some(x) => Self::f64(x),
                None => match s.strip_prefix(NUMBER) {
                    Some(number) => Self::Num(number.to_string()),
                    None => Self::Str(s.clone()),
                },
            },
            Value::Array(items) => Self::Arr(items.iter().map(Self::from_value).collect()),
            Value::Object(map) => Self::Obj(
                map.iter()
                    .map(|(k, v)| (k.clone(), Self::from_value(v)))
                    .collect(),
            ),
        }
    }

    /// The text in netCDF-C's style: `{"k": v, "k2": v2}` and `[a,b]`.
    pub fn nczarr_text(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            Self::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_compact(out);
                }
                out.push(']');
            }
            Self::Obj(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&quote(k));
                    out.push_str(": ");
                    v.write_compact(out);
                }
                out.push('}');
            }
            other => other.write_atom(out),
        }
    }

    /// The text indented by two spaces per level, as zarr-python writes (strict JSON:
    /// non-finite numbers as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`).
    pub fn pretty_text(&self) -> String {
        let mut out = String::new();
        self.write_indented(&mut out, 0, Indented::ZarrPython);
        out
    }

    /// The text as zarr-python 2 writes `.zmetadata` (Python's `json.dumps` with
    /// `indent=4`, `separators=(",", ": ")` and `ensure_ascii`): four spaces per level,
    /// every character outside ASCII escaped as `\uXXXX`, non-finite numbers bare
    /// (`NaN`), as Python writes a float it read so. Members keep their order.
    pub fn python_text(&self) -> String {
        let mut out = String::new();
        self.write_indented(&mut out, 0, Indented::PythonDumps);
        out
    }

    fn write_indented(&self, out: &mut String, level: usize, style: Indented) {
        let pad = |out: &mut String, level: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', style.width() * level));
        };
        match self {
            Self::Arr(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    pad(out, level + 1);
                    item.write_indented(out, level + 1, style);
                }
                pad(out, level);
                out.push(']');
            }
            Self::Obj(members) if !members.is_empty() => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    pad(out, level + 1);
                    out.push_str(&style.quote(k));
                    out.push_str(": ");
                    v.write_indented(out, level + 1, style);
                }
                pad(out, level);
                out.push('}');
            }
            leaf => style.write_leaf(leaf, out),
        }
    }

    fn write_atom(&self, out: &mut String) {
        match self {
            Self::Null => out.push_str("null"),
            Self::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Self::Num(text) => out.push_str(text),
            Self::Str(s) => out.push_str(&quote(s)),
            Self::Arr(_) => out.push_str("[]"),
            Self::Obj(_) => out.push_str("{}"),
        }
    }
}

/// The two indented texts: zarr-python's documents and Python's `json.dumps`.
#[derive(Debug, Clone, Copy)]
enum Indented {
    /// Two spaces per level; UTF-8 strings; non-finite numbers quoted.
    ZarrPython,
    /// Four spaces per level; ASCII strings; non-finite numbers bare.
    PythonDumps,
}

impl Indented {
    fn width(self) -> usize {
        match self {
            Self::ZarrPython => 2,
            Self::PythonDumps => 4,
        }
    }

    fn quote(self, s: &str) -> String {
        match self {
            Self::ZarrPython => quote(s),
            Self::PythonDumps => ascii_quote(s),
        }
    }

    /// A value that is no non-empty array or object.
    fn write_leaf(self, value: &J, out: &mut String) {
        match (self, value) {
            (Self::ZarrPython, J::Num(text))
                if matches!(text.as_str(), "NaN" | "Infinity" | "-Infinity") =>
            {
                out.push_str(&quote(text));
            }
            (Self::ZarrPython, other) => other.write_compact(out),
            (Self::PythonDumps, J::Str(s)) => out.push_str(&ascii_quote(s)),
            (Self::PythonDumps, other) => other.write_atom(out),
        }
    }
}

/// A float's text: bare tokens for non-finite values, else `shortest` without a
/// needless `.0` exponent form change.
fn float_text(x: f64, shortest: String) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        shortest
    }
}

/// A JSON string literal.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// A JSON string literal in ASCII: what [`quote`] writes, with every other character
/// (and DEL) as `\uXXXX` (a surrogate pair beyond the Basic Multilingual Plane), as Python's
/// `json.dumps` does with `ensure_ascii`.
pub fn ascii_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in quote(s).chars() {
        if c.is_ascii() && c != '\u{7f}' {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_tokens_parse_and_print() -> Result<()> {
        let v = parse(
            r#"{"a": NaN, "b": [Infinity,-Infinity], "c": "NaN x"}"#,
            "t",
        )?;
        assert!(as_f64(&v["a"]).is_some_and(f64::is_nan));
        assert_eq!(as_f64(&v["b"][1]), Some(f64::NEG_INFINITY));
        assert_eq!(v["c"], "NaN x");
        assert_eq!(
            J::from_value(&v).nczarr_text(),
            r#"{"a": NaN, "b": [Infinity,-Infinity], "c": "NaN x"}"#
        );
        Ok(())
    }

    /// Python's `json.dumps(v, indent=4, separators=(",", ": "), ensure_ascii=True)`.
    #[test]
    fn python_text_is_json_dumps_indented_in_ascii() -> Result<()> {
        let v = parse(
            r#"{"a": [1, 2.5], "b": {}, "c": [], "d": "\u00b0C \ud83d\ude00", "e": NaN}"#,
            "t",
        )?;
        assert_eq!(
            J::from_value(&v).python_text(),
            "{\n    \"a\": [\n        1,\n        2.5\n    ],\n    \"b\": {},\n    \"c\": [],\n    \
             \"d\": \"\\u00b0C \\ud83d\\ude00\",\n    \"e\": NaN\n}"
        );
        Ok(())
    }

    #[test]
    fn floats_are_shortest() {
        assert_eq!(J::f64(0.1).nczarr_text(), "0.1");
        assert_eq!(J::f64(9.5).nczarr_text(), "9.5");
        assert_eq!(
            J::f64(f64::from(0.01f32)).nczarr_text(),
            "0.009999999776482582"
        );
        assert_eq!(J::f64(f64::NAN).pretty_text(), "\"NaN\"");
    }
}

#[cfg(test)]
mod keeping_numbers_tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text_through_a_rewrite() -> Result<()> {
        let text = r#"{"a": [1,-2], "f": 9.969209968386869e36, "n": NaN, "s": "x-1"}"#;
        let value = parse_keeping_numbers(text, "test")?;
        assert_eq!(J::from_value(&value).nczarr_text(), text);
        Ok(())
    }
}
