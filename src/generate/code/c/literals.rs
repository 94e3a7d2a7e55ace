//! C initializers for netCDF values: numbers with the suffixes their types need, text as
//! string literals, and user-defined values (compounds, vlens, opaque, enums) as nested
//! braces, with the contents of each vlen in an array of its own declared before.

use ncmodel::{AtomicType, Dataset, TypeRef, UserTypeKind, Value, Values};

use super::super::literal::{f32_text, f64_text, wrap};
use super::super::Unsupported;

/// The C spelling of each netCDF type: its C type, its `NC_` constant and the suffix of
/// its typed functions (`nc_put_att_int`).
pub fn atomic_c(t: AtomicType) -> (&'static str, &'static str, &'static str) {
    match t {
        AtomicType::Byte => ("signed char", "NC_BYTE", "schar"),
        AtomicType::Char => ("char", "NC_CHAR", "text"),
        AtomicType::Short => ("short", "NC_SHORT", "short"),
        AtomicType::Int => ("int", "NC_INT", "int"),
        AtomicType::Float => ("float", "NC_FLOAT", "float"),
        AtomicType::Double => ("double", "NC_DOUBLE", "double"),
        AtomicType::UByte => ("unsigned char", "NC_UBYTE", "uchar"),
        AtomicType::UShort => ("unsigned short", "NC_USHORT", "ushort"),
        AtomicType::UInt => ("unsigned int", "NC_UINT", "uint"),
        AtomicType::Int64 => ("long long", "NC_INT64", "longlong"),
        AtomicType::UInt64 => ("unsigned long long", "NC_UINT64", "ulonglong"),
        AtomicType::String => ("char *", "NC_STRING", "string"),
    }
}

/// A C string literal of `bytes`: valid UTF-8 stays as it is, quotes, backslashes,
/// question marks (trigraphs) and control bytes are escaped (octal, three digits, so no
/// following digit is taken in), and a long text is split into adjacent literals, one
/// per line, indented by `indent`.
pub fn string_literal(bytes: &[u8], indent: &str) -> String {
    let text = std::str::from_utf8(bytes).ok();
    let mut pieces: Vec<String> = Vec::new();
    match text {
        Some(text) => {
            for c in text.chars() {
                pieces.push(match c {
                    '"' => "\\\"".into(),
                    '\\' => "\\\\".into(),
                    '?' => "\\?".into(),
                    '\n' => "\\n".into(),
                    '\t' => "\\t".into(),
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => format!("\\{:03o}", c as u32),
                    c => c.to_string(),
                });
            }
        }
        None => {
            for &b in bytes {
                pieces.push(match b {
                    b'"' => "\\\"".into(),
                    b'\\' => "\\\\".into(),
                    b'?' => "\\?".into(),
                    0x20..=0x7e => (b as char).to_string(),
                    _ => format!("\\{b:03o}"),
                });
            }
        }
    }
    let mut lines = vec![String::new()];
    let mut width = 0;
    for piece in pieces {
        if width + piece.len() > 72 {
            lines.push(String::new());
            width = 0;
        }
        width += piece.len();
        if let Some(line) = lines.last_mut() {
            line.push_str(&piece);
            // A line ends after a newline in the text, where a reader expects one.
            if piece == "\\n" {
                lines.push(String::new());
                width = 0;
            }
        }
    }
    if lines.len() > 1 && lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let quoted: Vec<String> = lines.iter().map(|l| format!("\"{l}\"")).collect();
    quoted.join(&format!("\n{indent}"))
}

/// Builds initializers; the arrays holding vlen contents go to `aux`, in the order they
/// must be declared.
pub struct Initializers<'d> {
    dataset: &'d Dataset,
    /// The C type name of each user type, by id.
    type_name: &'d dyn Fn(TypeRef) -> String,
    /// Declarations to put before the one using these initializers.
    pub aux: Vec<String>,
    /// Numbers the aux arrays (unique in the program).
    counter: &'d mut usize,
}

impl<'d> Initializers<'d> {
    /// Initializers of values of `dataset`'s types; `type_name` gives a type's C name.
    pub fn new(
        dataset: &'d Dataset,
        type_name: &'d dyn Fn(TypeRef) -> String,
        counter: &'d mut usize,
    ) -> Self {
        Self {
            dataset,
            type_name,
            aux: Vec::new(),
            counter,
        }
    }

    /// One initializer per value of `values`, which are of type `t`.
    pub fn elements(&mut self, t: TypeRef, values: &Values) -> Result<Vec<String>, Unsupported> {
        Ok(match values {
            Values::Byte(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::Char(v) => v.iter().map(|&c| char_literal(c)).collect(),
            Values::Short(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::Int(v) => v.iter().map(|&x| int_literal(x)).collect(),
            Values::Float(v) => v.iter().map(|&x| float_literal(x)).collect(),
            Values::Double(v) => v.iter().map(|&x| double_literal(x)).collect(),
            Values::UByte(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::UShort(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::UInt(v) => v.iter().map(|x| format!("{x}U")).collect(),
            Values::Int64(v) => v.iter().map(|&x| int64_literal(x)).collect(),
            Values::UInt64(v) => v.iter().map(|x| format!("{x}ULL")).collect(),
            Values::String(v) => v
                .iter()
                .map(|s| match s {
                    Some(bytes) => string_literal(bytes, "        "),
                    None => "NULL".to_string(),
                })
                .collect(),
            Values::User(v) => {
                let mut out = Vec::with_capacity(v.len());
                for value in v {
                    out.push(self.user_value(t, value)?);
                }
                out
            }
        })
    }

    fn user_value(&mut self, t: TypeRef, value: &Value) -> Result<String, Unsupported> {
        let TypeRef::User(id) = t else {
            return Err(Unsupported(format!(
                "a user-defined value given for the type {t:?}"
            )));
        };
        let user = self
            .dataset
            .user_type(id)
            .ok_or_else(|| Unsupported(format!("type id {} is not defined", id.0)))?;
        match (&user.kind, value) {
            (UserTypeKind::Enum { base, .. }, Value::Enum(n)) => Ok(enum_literal(*base, *n)),
            (UserTypeKind::Opaque, Value::Opaque(bytes)) => {
                let mut bytes = bytes.clone();
                bytes.resize(user.size.max(1), 0);
                let items = bytes.iter().map(|b| format!("0x{b:02X}"));
                Ok(format!("{{{}}}", wrap(items, "        ")))
            }
            (UserTypeKind::Vlen { base }, Value::Vlen(inner)) => {
                if inner.is_empty() {
                    return Ok("{0, NULL}".to_string());
                }
                let elements = self.elements(*base, inner)?;
                *self.counter += 1;
                let name = format!("vlen_{}", self.counter);
                let c_type = (self.type_name)(*base);
                self.aux.push(format!(
                    "static const {c_type} {name}[{}] = {{\n        {}\n    }};",
                    elements.len(),
                    wrap(elements, "        ")
                ));
                Ok(format!("{{{}, (void *){name}}}", inner.len()))
            }
            (UserTypeKind::Compound { fields }, Value::Compound(parts)) => {
                let mut items = Vec::with_capacity(fields.len());
                for (field, part) in fields.iter().zip(parts) {
                    let elements = self.elements(field.type_ref, part)?;
                    items.push(if field.dims.is_empty() {
                        elements
                            .into_iter()
                            .next()
                            .unwrap_or_else(|| "0".to_string())
                    } else if elements.is_empty() {
                        "{0}".to_string()
                    } else {
                        format!("{{{}}}", wrap(elements, "        "))
                    });
                }
                if items.is_empty() {
                    items.push("0".to_string());
                }
                Ok(format!("{{{}}}", wrap(items, "        ")))
            }
            (kind, value) => Err(Unsupported(format!(
                "a value {value:?} does not fit the type {} ({kind:?})",
                user.name
            ))),
        }
    }
}

/// A `char` as a character literal when printable, else its number.
fn char_literal(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'\\' => "'\\\\'".into(),
        0x20..=0x7e => format!("'{}'", c as char),
        _ => c.to_string(),
    }
}

/// An `int`: the most negative one cannot be written as a negated literal.
fn int_literal(x: i32) -> String {
    if x == i32::MIN {
        "(-2147483647 - 1)".into()
    } else {
        x.to_string()
    }
}

/// An `int64`, with the `LL` suffix.
fn int64_literal(x: i64) -> String {
    if x == i64::MIN {
        "(-9223372036854775807LL - 1)".into()
    } else {
        format!("{x}LL")
    }
}

/// An enum member's value in its base type.
fn enum_literal(base: AtomicType, n: i128) -> String {
    match base {
        AtomicType::Int => i32::try_from(n).map_or_else(|_| n.to_string(), int_literal),
        AtomicType::Int64 => i64::try_from(n).map_or_else(|_| n.to_string(), int64_literal),
        AtomicType::UInt => format!("{n}U"),
        AtomicType::UInt64 => format!("{n}ULL"),
        _ => n.to_string(),
    }
}

/// A `float` literal (`f` suffix); NaN and the infinities as math.h's macros.
fn float_literal(x: f32) -> String {
    match f32_text(x) {
        Some(text) => format!("{text}f"),
        None => non_finite(f64::from(x)),
    }
}

/// A `double` literal; NaN and the infinities as math.h's macros.
fn double_literal(x: f64) -> String {
    f64_text(x).unwrap_or_else(|| non_finite(x))
}

fn non_finite(x: f64) -> String {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        format!("{sign}NAN")
    } else {
        format!("{sign}INFINITY")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_of_the_edge_values() {
        assert_eq!(int_literal(i32::MIN), "(-2147483647 - 1)");
        assert_eq!(int64_literal(-5), "-5LL");
        assert_eq!(float_literal(f32::NAN), "NAN");
        assert_eq!(double_literal(f64::NEG_INFINITY), "-INFINITY");
        assert_eq!(float_literal(0.5), "0.5f");
        assert_eq!(char_literal(b'\''), "'\\''");
        assert_eq!(char_literal(0), "0");
    }

    #[test]
    fn strings_are_escaped_and_split() {
        assert_eq!(string_literal(b"a\"b\\c?", ""), "\"a\\\"b\\\\c\\?\"");
        assert_eq!(string_literal(b"\x01\xff", ""), "\"\\001\\377\"");
        assert_eq!(string_literal("été".as_bytes(), ""), "\"été\"");
        let long = string_literal(&[b'x'; 200], "  ");
        assert_eq!(long.lines().count(), 3);
        assert_eq!(string_literal(b"a\nb", ""), "\"a\\n\"\n\"b\"");
    }
}
