//! Single values as ncdump writes them in the data section and in attributes of
//! user-defined types, and ncdump's fill-value comparison.

use ncmodel::{AtomicType, Dataset, TypeRef, UserType, UserTypeKind, Value, Values};

use super::cfmt::format_g;
use super::FloatDigits;

/// The spelling of a fill value in the data section.
pub(crate) const FILL: &str = "_";

/// Formats values of any type as ncdump does inside data rows and compound/vlen values.
#[derive(Clone, Copy)]
pub(crate) struct ValueText<'a> {
    pub(crate) dataset: &'a Dataset,
    pub(crate) digits: FloatDigits,
}

/// A float as ncdump writes it in data (`%.7g`, `NaNf`, `Infinityf`).
pub(crate) fn float_text(v: f32, digits: usize) -> String {
    if v.is_nan() {
        "NaNf".into()
    } else if v.is_infinite() {
        if v < 0.0 { "-Infinityf" } else { "Infinityf" }.into()
    } else {
        format_g(f64::from(v), digits, false)
    }
}

/// A double as ncdump writes it in data (`%.15g`, `NaN`, `Infinity`).
pub(crate) fn double_text(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v < 0.0 { "-Infinity" } else { "Infinity" }.into()
    } else {
        format_g(v, digits, false)
    }
}

/// A string value: quoted with C escapes, or `NIL` for a NULL string.
pub(crate) fn string_text(s: Option<&[u8]>) -> String {
    let Some(bytes) = s else {
        return "NIL".into();
    };
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'"');
    for &b in bytes {
        match b {
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            // ncdump writes a vertical tab as \n.
            0x0b => out.extend_from_slice(b"\\n"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            b if b < 0x20 || b == 0x7f => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
            b => out.push(b),
        }
    }
    out.push(b'"');
    String::from_utf8_lossy(&out).into_owned()
}

/// Characters of a char field of a compound value: escapes as a backslash followed by the
/// character itself, other non-printables as octal; trailing NULs dropped; no quotes.
fn compound_chars_text(bytes: &[u8]) -> String {
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    let mut out = Vec::with_capacity(end);
    for &b in &bytes[..end] {
        match b {
            0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b | b'\\' | b'\'' | b'"' => {
                out.push(b'\\');
                out.push(b);
            }
            0x20..=0x7e => out.push(b),
            b => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An opaque value in hex: `0X` and two upper-case digits per byte.
pub(crate) fn opaque_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 + 2 * bytes.len());
    out.push_str("0X");
    for b in bytes {
        out.push_str(&format!("{b:02X}"));
    }
    out
}

impl ValueText<'_> {
    /// Element `i` of `values` (of type `type_ref`).
    pub(crate) fn element(&self, type_ref: TypeRef, values: &Values, i: usize) -> String {
        match values {
            Values::Byte(v) => v[i].to_string(),
            Values::Char(v) => String::from_utf8_lossy(&v[i..=i]).into_owned(),
            Values::Short(v) => v[i].to_string(),
            Values::Int(v) => v[i].to_string(),
            Values::Float(v) => float_text(v[i], self.digits.float),
            Values::Double(v) => double_text(v[i], self.digits.double),
            Values::UByte(v) => v[i].to_string(),
            Values::UShort(v) => v[i].to_string(),
            Values::UInt(v) => v[i].to_string(),
            Values::Int64(v) => v[i].to_string(),
            Values::UInt64(v) => v[i].to_string(),
            Values::String(v) => string_text(v[i].as_deref()),
            Values::User(v) => match type_ref {
                TypeRef::User(id) => match self.dataset.user_type(id) {
                    Some(user) => self.user_value(user, &v[i]),
                    None => String::new(),
                },
                TypeRef::Atomic(_) => String::new(),
            },
        }
    }

    /// All elements of `values`, joined by `, `.
    fn joined(&self, type_ref: TypeRef, values: &Values) -> String {
        let parts: Vec<String> = (0..values.len())
            .map(|i| self.element(type_ref, values, i))
            .collect();
        parts.join(", ")
    }

    /// A value of a user-defined type.
    pub(crate) fn user_value(&self, user: &UserType, value: &Value) -> String {
        match (&user.kind, value) {
            (UserTypeKind::Compound { fields }, Value::Compound(parts)) => {
                let texts: Vec<String> = fields
                    .iter()
                    .zip(parts)
                    .map(|(field, part)| self.field_text(field.type_ref, &field.dims, part))
                    .collect();
                format!("{{{}}}", texts.join(", "))
            }
            (UserTypeKind::Vlen { base }, Value::Vlen(items)) => {
                format!("{{{}}}", self.joined(*base, items))
            }
            (_, Value::Opaque(bytes)) => opaque_text(bytes),
            (UserTypeKind::Enum { members, .. }, Value::Enum(v)) => members
                .iter()
                .find(|(_, m)| m == v)
                .map_or_else(|| v.to_string(), |(name, _)| name.clone()),
            _ => String::new(),
        }
    }

    fn field_text(&self, type_ref: TypeRef, dims: &[usize], part: &Values) -> String {
        let is_char = type_ref == TypeRef::Atomic(AtomicType::Char);
        match (dims, part) {
            ([], Values::Char(bytes)) => compound_chars_text(bytes),
            ([], _) => self.element(type_ref, part, 0),
            (_, Values::Char(bytes)) if is_char => {
                let row = dims[dims.len() - 1].max(1);
                let rows: Vec<String> = bytes.chunks(row).map(compound_chars_text).collect();
                format!("{{{}}}", rows.join(", "))
            }
            _ => format!("{{{}}}", self.joined(type_ref, part)),
        }
    }
}
