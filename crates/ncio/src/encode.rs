//! Encoding values into libnetcdf's memory layout for writing: atomic arrays as they are,
//! strings as `char*` arrays, user-defined types laid out like C structs (compound field
//! offsets computed with natural alignment), vlens as `nc_vlen_t`. Values are checked
//! against their type first: the variant, the number of values of each compound field, the
//! size of opaque values; what does not fit is an error, never memory libnetcdf misreads.

use std::ffi::c_char;

use ncmodel::{AtomicType, CompoundField, TypeId, TypeRef, UserType, UserTypeKind, Value, Values};

use crate::error::NcError;
use crate::sys::Encoded;

/// libnetcdf's `nc_vlen_t`: a length and a pointer.
const VLEN_SIZE: usize = 2 * size_of::<usize>();

/// Sizes and alignments of types, with computed compound layouts.
pub(crate) struct Layouts {
    types: Vec<UserType>,
}

/// Values that do not fit their type.
fn mismatch(what: String) -> NcError {
    NcError {
        kind: store::ErrorKind::Unsupported,
        message: what,
        context: String::new(),
    }
}

impl Layouts {
    /// Computes layouts for `types` (in definition order: a type only refers to earlier ones).
    pub(crate) fn new(types: &[UserType]) -> Self {
        let mut table = Self { types: Vec::new() };
        for t in types {
            let mut laid = t.clone();
            if let UserTypeKind::Compound { fields } = &mut laid.kind {
                laid.size = table.lay_out(fields);
            } else if let UserTypeKind::Vlen { .. } = laid.kind {
                laid.size = VLEN_SIZE;
            } else if let UserTypeKind::Enum { base, .. } = laid.kind {
                laid.size = base.size();
            }
            table.types.push(laid);
        }
        table
    }

    /// The laid-out type with this id.
    pub(crate) fn user(&self, id: TypeId) -> Option<&UserType> {
        self.types.iter().find(|t| t.id == id)
    }

    /// Sets field offsets; returns the compound's size.
    fn lay_out(&self, fields: &mut [CompoundField]) -> usize {
        let mut offset: usize = 0;
        let mut max_align: usize = 1;
        for field in fields.iter_mut() {
            let align = self.align(field.type_ref);
            max_align = max_align.max(align);
            offset = offset.next_multiple_of(align);
            field.offset = offset;
            let count = field.dims.iter().product::<usize>().max(1);
            offset = offset.saturating_add(self.size(field.type_ref).saturating_mul(count));
        }
        offset.next_multiple_of(max_align)
    }

    /// The in-memory size of one value.
    pub(crate) fn size(&self, t: TypeRef) -> usize {
        match t {
            TypeRef::Atomic(AtomicType::String) => size_of::<*const c_char>(),
            TypeRef::Atomic(a) => a.size(),
            TypeRef::User(id) => self.user(id).map_or(0, |u| u.size),
        }
    }

    fn align(&self, t: TypeRef) -> usize {
        match t {
            TypeRef::Atomic(a) => self.size(TypeRef::Atomic(a)).max(1),
            TypeRef::User(id) => match self.user(id).map(|u| &u.kind) {
                Some(UserTypeKind::Compound { fields }) => fields
                    .iter()
                    .map(|f| self.align(f.type_ref))
                    .max()
                    .unwrap_or(1),
                Some(UserTypeKind::Vlen { .. }) => align_of::<usize>(),
                Some(UserTypeKind::Enum { base, .. }) => base.size(),
                Some(UserTypeKind::Opaque) | None => 1,
            },
        }
    }

    /// Encodes `values` of type `t`, checking them against it.
    pub(crate) fn encode(&self, t: TypeRef, values: &Values) -> Result<Encoded, NcError> {
        let size = self.size(t);
        if size == 0 {
            return Err(mismatch(format!("values of an unknown type {t:?}")));
        }
        let bytes = size
            .checked_mul(values.len())
            .ok_or_else(|| mismatch("too many values".into()))?;
        let mut encoded = Encoded::zeroed(bytes);
        self.write_values(&mut encoded, 0, t, values)?;
        Ok(encoded)
    }

    fn write_values(
        &self,
        out: &mut Encoded,
        at: usize,
        t: TypeRef,
        values: &Values,
    ) -> Result<(), NcError> {
        let fits = match (t, values) {
            (TypeRef::Atomic(AtomicType::Byte), Values::Byte(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::Char), Values::Char(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::UByte), Values::UByte(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::Short), Values::Short(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::Int), Values::Int(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::Float), Values::Float(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::Double), Values::Double(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::UShort), Values::UShort(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::UInt), Values::UInt(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::Int64), Values::Int64(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::UInt64), Values::UInt64(v)) => out.put(at, v),
            (TypeRef::Atomic(AtomicType::String), Values::String(v)) => {
                let step = size_of::<*const c_char>();
                v.iter().enumerate().all(|(i, s)| {
                    i.checked_mul(step)
                        .and_then(|o| o.checked_add(at))
                        .is_some_and(|o| out.put_string(o, s.as_deref()))
                })
            }
            (TypeRef::User(id), Values::User(v)) => {
                let user = self
                    .user(id)
                    .ok_or_else(|| mismatch(format!("values of an unknown type {}", id.0)))?;
                for (i, value) in v.iter().enumerate() {
                    let offset = i
                        .checked_mul(user.size)
                        .and_then(|o| o.checked_add(at))
                        .ok_or_else(|| mismatch("too many values".into()))?;
                    self.write_user(out, offset, user, value)?;
                }
                true
            }
            _ => {
                return Err(mismatch(format!(
                    "values of the wrong type ({}) for {}",
                    variant_name(values),
                    self.type_name(t)
                )))
            }
        };
        if fits {
            Ok(())
        } else {
            Err(mismatch(format!(
                "more values than {} holds",
                self.type_name(t)
            )))
        }
    }

    fn type_name(&self, t: TypeRef) -> String {
        match t {
            TypeRef::Atomic(a) => a.cdl_name().to_string(),
            TypeRef::User(id) => self
                .user(id)
                .map_or(format!("type {}", id.0), |u| u.name.clone()),
        }
    }

    fn write_user(
        &self,
        out: &mut Encoded,
        at: usize,
        user: &UserType,
        value: &Value,
    ) -> Result<(), NcError> {
        match (&user.kind, value) {
            (UserTypeKind::Compound { fields }, Value::Compound(parts)) => {
                if parts.len() != fields.len() {
                    return Err(mismatch(format!(
                        "{} fields given for the compound {} of {}",
                        parts.len(),
                        user.name,
                        fields.len()
                    )));
                }
                for (field, part) in fields.iter().zip(parts) {
                    let count = field.dims.iter().product::<usize>().max(1);
                    if part.len() != count {
                        return Err(mismatch(format!(
                            "{} values for the field {} of {}, which holds {count}",
                            part.len(),
                            field.name,
                            user.name
                        )));
                    }
                    let offset = at
                        .checked_add(field.offset)
                        .ok_or_else(|| mismatch("too many values".into()))?;
                    self.write_values(out, offset, field.type_ref, part)?;
                }
                Ok(())
            }
            (UserTypeKind::Vlen { base }, Value::Vlen(items)) => {
                let child = self.encode(*base, items)?;
                if out.put_vlen(at, items.len(), child) {
                    Ok(())
                } else {
                    Err(mismatch(format!("more values than {} holds", user.name)))
                }
            }
            (UserTypeKind::Opaque, Value::Opaque(bytes)) => {
                if bytes.len() > user.size {
                    return Err(mismatch(format!(
                        "{} bytes for the opaque type {} of {}",
                        bytes.len(),
                        user.name,
                        user.size
                    )));
                }
                if out.put(at, bytes) {
                    Ok(())
                } else {
                    Err(mismatch(format!("more values than {} holds", user.name)))
                }
            }
            (UserTypeKind::Enum { base, .. }, Value::Enum(v)) => {
                // The low bytes of the integer in native order are the base type's value.
                let bytes = v.to_ne_bytes();
                let n = base.size();
                let start = if cfg!(target_endian = "big") {
                    16 - n
                } else {
                    0
                };
                if out.put(at, &bytes[start..start + n]) {
                    Ok(())
                } else {
                    Err(mismatch(format!("more values than {} holds", user.name)))
                }
            }
            _ => Err(mismatch(format!(
                "a value of the wrong kind for the type {}",
                user.name
            ))),
        }
    }
}

/// The name of a `Values` variant, for messages.
fn variant_name(values: &Values) -> &'static str {
    match values {
        Values::Byte(_) => "byte",
        Values::Char(_) => "char",
        Values::UByte(_) => "ubyte",
        Values::Short(_) => "short",
        Values::Int(_) => "int",
        Values::Float(_) => "float",
        Values::Double(_) => "double",
        Values::UShort(_) => "ushort",
        Values::UInt(_) => "uint",
        Values::Int64(_) => "int64",
        Values::UInt64(_) => "uint64",
        Values::String(_) => "string",
        Values::User(_) => "user-defined",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ncmodel::AtomicType;

    #[test]
    fn compound_layout_follows_c_alignment() {
        let field = |name: &str, t: AtomicType, dims: Vec<usize>| CompoundField {
            name: name.into(),
            offset: 0,
            type_ref: TypeRef::Atomic(t),
            dims,
        };
        let compound = UserType {
            id: TypeId(1),
            name: "c".into(),
            group_path: vec![],
            size: 0,
            kind: UserTypeKind::Compound {
                fields: vec![
                    field("a", AtomicType::Byte, vec![]),
                    field("b", AtomicType::Double, vec![]),
                    field("c", AtomicType::Short, vec![3]),
                ],
            },
        };
        let layouts = Layouts::new(&[compound]);
        let laid = layouts.user(TypeId(1)).map(|u| (u.size, u.kind.clone()));
        let Some((size, UserTypeKind::Compound { fields })) = laid else {
            panic!("no layout");
        };
        assert_eq!(
            fields.iter().map(|f| f.offset).collect::<Vec<_>>(),
            [0, 8, 16]
        );
        assert_eq!(size, 24);
    }
}
