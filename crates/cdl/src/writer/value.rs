//! Single values as ncdump writes them in the data section and in attributes of
//! user-defined types, and ncdump's fill-value comparison.

use ncmodel::{AtomicType, Dataset, TypeRef, UserType, UserTypeKind, Value, Values};

/// How netCDF-C 4.10 shows an enum value of 0 that names no member (`NC_UNDEFINED_ENUM_IDENT`).
pub(crate) const UNDEFINED_ENUM_IDENT: &str = "_UNDEFINED";

use super::FloatDigits;
use crate::escape::{quote_compound_chars, quote_string_value, NULL_STRING};
use crate::number::{
    data_double, data_double_c_format, data_float, data_float_c_format, push_data_double,
    push_data_float, CArg, CFormat,
};

/// The spelling of a fill value in the data section.
pub(crate) const FILL: &str = "_";

/// Formats values of any type as ncdump does inside data rows and compound/vlen values.
#[derive(Clone, Copy)]
pub(crate) struct ValueText<'a> {
    pub(crate) dataset: &'a Dataset,
    pub(crate) digits: FloatDigits,
}

/// A string value: quoted with C escapes, or `NIL` for a NULL string.
pub(crate) fn string_text(s: Option<&[u8]>) -> Vec<u8> {
    match s {
        Some(bytes) => quote_string_value(bytes),
        None => NULL_STRING.as_bytes().to_vec(),
    }
}

/// Joins byte strings with `, `.
fn join_bytes(parts: impl Iterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, part) in parts.enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(&part);
    }
    out
}

/// `{` + inner + `}`.
fn braced(inner: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(inner.len() + 2);
    out.push(b'{');
    out.extend_from_slice(&inner);
    out.push(b'}');
    out
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
    pub(crate) fn element(&self, type_ref: TypeRef, values: &Values, i: usize) -> Vec<u8> {
        let text = match values {
            Values::Byte(v) => v[i].to_string(),
            Values::Char(v) => return vec![v[i]],
            Values::Short(v) => v[i].to_string(),
            Values::Int(v) => v[i].to_string(),
            Values::Float(v) => data_float(v[i], self.digits.float),
            Values::Double(v) => data_double(v[i], self.digits.double),
            Values::UByte(v) => v[i].to_string(),
            Values::UShort(v) => v[i].to_string(),
            Values::UInt(v) => v[i].to_string(),
            Values::Int64(v) => v[i].to_string(),
            Values::UInt64(v) => v[i].to_string(),
            Values::String(v) => return string_text(v[i].as_deref()),
            Values::User(v) => {
                return match type_ref {
                    TypeRef::User(id) => match self.dataset.user_type(id) {
                        Some(user) => self.user_value(user, &v[i]),
                        None => Vec::new(),
                    },
                    TypeRef::Atomic(_) => Vec::new(),
                }
            }
        };
        text.into_bytes()
    }

    /// Appends element `i` of `values` to `out` (the data section's hot path: integers and
    /// floating point without allocating).
    pub(crate) fn push_element(
        &self,
        out: &mut Vec<u8>,
        type_ref: TypeRef,
        values: &Values,
        i: usize,
    ) {
        let mut int = itoa::Buffer::new();
        match values {
            Values::Byte(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::Short(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::Int(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::UByte(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::UShort(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::UInt(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::Int64(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::UInt64(v) => out.extend_from_slice(int.format(v[i]).as_bytes()),
            Values::Float(v) => push_data_float(out, v[i], self.digits.float),
            Values::Double(v) => push_data_double(out, v[i], self.digits.double),
            _ => out.extend_from_slice(&self.element(type_ref, values, i)),
        }
    }

    /// Appends element `i` of a variable's `values` formatted with the variable's
    /// `C_format` (numbers only; NaN and infinities keep ncdump's spellings).
    pub(crate) fn push_c_format(
        &self,
        out: &mut Vec<u8>,
        format: &CFormat,
        values: &Values,
        i: usize,
    ) {
        let text = match values {
            Values::Byte(v) => format.format_value(CArg::from(v[i])),
            Values::Short(v) => format.format_value(CArg::from(v[i])),
            Values::Int(v) => format.format_value(CArg::from(v[i])),
            Values::UByte(v) => format.format_value(CArg::from(v[i])),
            Values::UShort(v) => format.format_value(CArg::from(v[i])),
            Values::UInt(v) => format.format_value(CArg::from(v[i])),
            Values::Int64(v) => format.format_value(CArg::from(v[i])),
            Values::UInt64(v) => format.format_value(CArg::from(v[i])),
            Values::Float(v) => data_float_c_format(format, v[i]),
            Values::Double(v) => data_double_c_format(format, v[i]),
            _ => return,
        };
        out.extend_from_slice(text.as_bytes());
    }

    /// All elements of `values`, joined by `, `.
    fn joined(&self, type_ref: TypeRef, values: &Values) -> Vec<u8> {
        join_bytes((0..values.len()).map(|i| self.element(type_ref, values, i)))
    }

    /// A value of a user-defined type.
    pub(crate) fn user_value(&self, user: &UserType, value: &Value) -> Vec<u8> {
        match (&user.kind, value) {
            (UserTypeKind::Compound { fields }, Value::Compound(parts)) => {
                braced(join_bytes(fields.iter().zip(parts).map(|(field, part)| {
                    self.field_text(field.type_ref, &field.dims, part)
                })))
            }
            (UserTypeKind::Vlen { base }, Value::Vlen(items)) => braced(self.joined(*base, items)),
            (_, Value::Opaque(bytes)) => opaque_text(bytes).into_bytes(),
            (UserTypeKind::Enum { members, .. }, Value::Enum(v)) => members
                .iter()
                .find(|(_, m)| m == v)
                .map_or_else(
                    // netCDF-C 4.10 names a 0 that is no member `_UNDEFINED` (HDF5's
                    // default fill of an enum); any other value is shown as its number.
                    || {
                        if *v == 0 {
                            UNDEFINED_ENUM_IDENT.to_string()
                        } else {
                            v.to_string()
                        }
                    },
                    |(name, _)| name.clone(),
                )
                .into_bytes(),
            _ => Vec::new(),
        }
    }

    fn field_text(&self, type_ref: TypeRef, dims: &[usize], part: &Values) -> Vec<u8> {
        let is_char = type_ref == TypeRef::Atomic(AtomicType::Char);
        match (dims, part) {
            ([], Values::Char(bytes)) => quote_compound_chars(bytes),
            ([], _) => self.element(type_ref, part, 0),
            (_, Values::Char(bytes)) if is_char => {
                let row = dims[dims.len() - 1].max(1);
                braced(join_bytes(bytes.chunks(row).map(quote_compound_chars)))
            }
            _ => braced(self.joined(type_ref, part)),
        }
    }
}
