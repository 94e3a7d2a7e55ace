//! Attribute lines: `var:name = values ;` with ncdump's type suffixes, string escapes and
//! line breaks.

use std::io::{self, Write};

use ncmodel::{AtomicType, Attribute, Format, TypeRef, UserTypeKind, Values};

use super::names::Scope;
use super::value::{opaque_text, ValueText};
use super::CdlWriter;
use crate::calendar::TimeAxis;
use crate::escape::{escape_name, quote_attribute_text, quote_string_attribute, NULL_STRING};
use crate::number::{attribute_double, attribute_float};

fn join<T, B: AsRef<[u8]>>(values: &[T], text: impl Fn(&T) -> B) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(text(v).as_ref());
    }
    out
}

impl<W: Write> CdlWriter<'_, W> {
    /// Writes one attribute line of a variable (or of the group, with `var_name` empty),
    /// with the values of a numeric attribute as date-times in a comment if `axis` is the
    /// variable's time axis.
    pub(crate) fn attribute(
        &mut self,
        scope: &Scope<'_>,
        var_name: &str,
        att: &Attribute,
        axis: Option<&TimeAxis>,
    ) -> io::Result<()> {
        let dataset = self.dataset;
        let prefix = match att.type_ref {
            TypeRef::User(_) | TypeRef::Atomic(AtomicType::String) => {
                Some(scope.type_name(dataset, att.type_ref))
            }
            TypeRef::Atomic(_)
                if self.options.fill_value_types
                    && !var_name.is_empty()
                    && att.name == "_FillValue" =>
            {
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
        self.put(" ;")?;
        let numeric = matches!(att.type_ref, TypeRef::Atomic(t) if !matches!(t, AtomicType::Char | AtomicType::String));
        if let Some(axis) = axis.filter(|_| numeric && !att.values.is_empty()) {
            self.time_comment(axis, &att.values)?;
        }
        self.put("\n")
    }

    fn attribute_values(&mut self, att: &Attribute) -> io::Result<()> {
        let digits = self.options.digits;
        let format = self.dataset.format;
        let text = match &att.values {
            Values::Char(v) => quote_attribute_text(v, format != Format::Netcdf4),
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
                Some(bytes) => quote_string_attribute(bytes),
                None => NULL_STRING.as_bytes().to_vec(),
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
                        text.extend_from_slice(b", ");
                    }
                    self.lput(&text)?;
                }
                Ok(())
            }
        }
    }
}
