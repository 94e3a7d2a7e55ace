//! Attribute lines: `var:name = values ;` with ncdump's type suffixes, string escapes and
//! line breaks.

use std::io::{self, Write};

use ncmodel::{AtomicType, Attribute, Format, TypeRef, UserTypeKind, Values};

use super::cfmt::escape_name;
use super::cfmt::format_g;
use super::names::Scope;
use super::value::{opaque_text, ValueText};
use super::CdlWriter;

/// Removes trailing zeros after the decimal point, keeping the point itself, in the
/// mantissa of a `%#g`-formatted number (ncdump's `tztrim`).
fn trim_trailing_zeros(text: &str) -> String {
    let digits_end = text
        .char_indices()
        .skip_while(|(i, c)| *i == 0 && *c == '-')
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(text.len(), |(i, _)| i);
    let mantissa = &text[..digits_end];
    if mantissa.ends_with('.') || !mantissa.contains('.') {
        return text.to_string();
    }
    let trimmed = mantissa.trim_end_matches('0');
    format!("{trimmed}{}", &text[digits_end..])
}

/// A float attribute value: `%#.7g`, trailing zeros trimmed, an `f` suffix.
pub(crate) fn attribute_float(v: f32, digits: usize) -> String {
    if v.is_nan() {
        "NaNf".into()
    } else if v.is_infinite() {
        if v < 0.0 { "-Infinityf" } else { "Infinityf" }.into()
    } else {
        trim_trailing_zeros(&format!("{}f", format_g(f64::from(v), digits, true)))
    }
}

/// A double attribute value: `%#.15g`, trailing zeros trimmed.
pub(crate) fn attribute_double(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v < 0.0 { "-Infinity" } else { "Infinity" }.into()
    } else {
        trim_trailing_zeros(&format_g(v, digits, true))
    }
}

/// Text as ncdump quotes it in attributes. Trailing NULs are dropped; outside netCDF-4
/// files an embedded newline also ends the line and starts a new string.
pub(crate) fn attribute_text(bytes: &[u8], format: Format) -> String {
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    let mut out = Vec::with_capacity(end + 2);
    out.push(b'"');
    for &b in &bytes[..end] {
        match b {
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' if format == Format::Netcdf4 => out.extend_from_slice(b"\\n"),
            b'\n' => out.extend_from_slice(b"\\n\",\n\t\t\t\""),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\v"),
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

fn join<T>(values: &[T], text: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = values.iter().map(text).collect();
    parts.join(", ")
}

impl<W: Write> CdlWriter<'_, W> {
    /// Writes one attribute line of a variable (or of the group, with `var_name` empty).
    pub(crate) fn attribute(
        &mut self,
        scope: &Scope<'_>,
        var_name: &str,
        att: &Attribute,
    ) -> io::Result<()> {
        let dataset = self.dataset;
        let prefix = match att.type_ref {
            TypeRef::User(_) | TypeRef::Atomic(AtomicType::String) => {
                Some(scope.type_name(dataset, att.type_ref))
            }
            TypeRef::Atomic(_) => None,
        };
        self.attribute_name(prefix.as_deref(), var_name, &att.name)?;
        self.put(" = ")?;
        if att.values.is_empty() {
            self.put("\"\"")?;
        } else {
            self.attribute_values(att)?;
        }
        self.put(" ;\n")
    }

    fn attribute_values(&mut self, att: &Attribute) -> io::Result<()> {
        let digits = self.options.digits;
        let format = self.dataset.format;
        let text = match &att.values {
            Values::Char(v) => attribute_text(v, format),
            Values::Byte(v) => join(v, |x| format!("{x}b")),
            Values::Short(v) => join(v, |x| format!("{x}s")),
            Values::Int(v) => join(v, i32::to_string),
            Values::Float(v) => join(v, |x| attribute_float(*x, digits.float)),
            Values::Double(v) => join(v, |x| attribute_double(*x, digits.double)),
            Values::UByte(v) => join(v, |x| format!("{x}UB")),
            Values::UShort(v) => join(v, |x| format!("{x}US")),
            Values::UInt(v) => join(v, |x| format!("{x}U")),
            Values::Int64(v) => join(v, |x| format!("{x}LL")),
            Values::UInt64(v) => join(v, |x| format!("{x}ULL")),
            Values::String(v) => join(v, |s| match s {
                Some(bytes) => attribute_text(bytes, format),
                None => "NIL".into(),
            }),
            Values::User(_) => return self.user_attribute_values(att),
        };
        self.put(&text)
    }

    fn user_attribute_values(&mut self, att: &Attribute) -> io::Result<()> {
        let dataset = self.dataset;
        let TypeRef::User(id) = att.type_ref else {
            return Ok(());
        };
        let (Some(user), Values::User(items)) = (dataset.user_type(id), &att.values) else {
            return Ok(());
        };
        match &user.kind {
            UserTypeKind::Opaque => {
                let text = join(items, |v| match v {
                    ncmodel::Value::Opaque(bytes) => opaque_text(bytes),
                    _ => String::new(),
                });
                self.put(&text)
            }
            UserTypeKind::Enum { members, .. } => {
                let text = join(items, |v| match v {
                    ncmodel::Value::Enum(x) => members
                        .iter()
                        .find(|(_, m)| m == x)
                        .map_or_else(|| x.to_string(), |(name, _)| escape_name(name)),
                    _ => String::new(),
                });
                self.put(&text)
            }
            UserTypeKind::Compound { .. } | UserTypeKind::Vlen { .. } => {
                let texts = ValueText {
                    dataset,
                    digits: self.options.digits,
                };
                let last = items.len().saturating_sub(1);
                for (i, item) in items.iter().enumerate() {
                    let mut text = texts.user_value(user, item);
                    if i < last {
                        text.push_str(", ");
                    }
                    self.lput(&text)?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_zeros_are_trimmed_but_not_the_point() {
        assert_eq!(trim_trailing_zeros("280.1000f"), "280.1f");
        assert_eq!(trim_trailing_zeros("1.000000e+20f"), "1.e+20f");
        assert_eq!(trim_trailing_zeros("-999.0000f"), "-999.f");
        assert_eq!(trim_trailing_zeros("100.000000000000"), "100.");
        assert_eq!(trim_trailing_zeros("12345"), "12345");
    }
}
