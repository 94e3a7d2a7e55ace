//! Encoding values into libnetcdf's memory layout for writing: atomic arrays as they are,
//! strings as `char*` arrays, user-defined types laid out like C structs (compound field
//! offsets computed with natural alignment), vlens as `nc_vlen_t`. The encoded buffer owns
//! everything its pointers point to.

use std::ffi::{c_char, c_void, CString};

use ncmodel::{CompoundField, TypeId, TypeRef, UserType, UserTypeKind, Value, Values};

/// Sizes and alignments of types, with computed compound layouts.
pub(crate) struct Layouts {
    types: Vec<UserType>,
}

/// A `nc_vlen_t` as libnetcdf reads it.
#[repr(C)]
#[derive(Clone, Copy)]
struct VlenRecord {
    len: usize,
    p: *const c_void,
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
                laid.size = size_of::<VlenRecord>();
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
            offset += self.size(field.type_ref) * field.dims.iter().product::<usize>().max(1);
        }
        offset.next_multiple_of(max_align)
    }

    /// The in-memory size of one value.
    pub(crate) fn size(&self, t: TypeRef) -> usize {
        match t {
            TypeRef::Atomic(a) => a.size(),
            TypeRef::User(id) => self.user(id).map_or(0, |u| u.size),
        }
    }

    fn align(&self, t: TypeRef) -> usize {
        match t {
            TypeRef::Atomic(a) => a.size(),
            TypeRef::User(id) => match self.user(id).map(|u| &u.kind) {
                Some(UserTypeKind::Compound { fields }) => fields
                    .iter()
                    .map(|f| self.align(f.type_ref))
                    .max()
                    .unwrap_or(1),
                Some(UserTypeKind::Vlen { .. }) => align_of::<VlenRecord>(),
                Some(UserTypeKind::Enum { base, .. }) => base.size(),
                Some(UserTypeKind::Opaque) | None => 1,
            },
        }
    }

    /// Encodes `values` of type `t`.
    pub(crate) fn encode(&self, t: TypeRef, values: &Values) -> Encoded {
        let size = self.size(t).max(1);
        let mut encoded = Encoded::zeroed(size * values.len());
        self.write_values(&mut encoded, 0, t, values);
        encoded
    }

    fn write_values(&self, out: &mut Encoded, at: usize, t: TypeRef, values: &Values) {
        let size = self.size(t);
        match values {
            Values::Byte(v) => out.put_slice(at, v),
            Values::Char(v) | Values::UByte(v) => out.put_slice(at, v),
            Values::Short(v) => out.put_slice(at, v),
            Values::Int(v) => out.put_slice(at, v),
            Values::Float(v) => out.put_slice(at, v),
            Values::Double(v) => out.put_slice(at, v),
            Values::UShort(v) => out.put_slice(at, v),
            Values::UInt(v) => out.put_slice(at, v),
            Values::Int64(v) => out.put_slice(at, v),
            Values::UInt64(v) => out.put_slice(at, v),
            Values::String(v) => {
                for (i, s) in v.iter().enumerate() {
                    let ptr = match s {
                        Some(bytes) => out.own_string(bytes),
                        None => std::ptr::null(),
                    };
                    out.put_slice(at + i * size_of::<*const c_char>(), &[ptr]);
                }
            }
            Values::User(v) => {
                let TypeRef::User(id) = t else {
                    return;
                };
                let Some(user) = self.user(id) else {
                    return;
                };
                for (i, value) in v.iter().enumerate() {
                    self.write_user(out, at + i * size, user, value);
                }
            }
        }
    }

    fn write_user(&self, out: &mut Encoded, at: usize, user: &UserType, value: &Value) {
        match (&user.kind, value) {
            (UserTypeKind::Compound { fields }, Value::Compound(parts)) => {
                for (field, part) in fields.iter().zip(parts) {
                    self.write_values(out, at + field.offset, field.type_ref, part);
                }
            }
            (UserTypeKind::Vlen { base }, Value::Vlen(items)) => {
                let child = self.encode(*base, items);
                let record = VlenRecord {
                    len: items.len(),
                    p: child.as_ptr(),
                };
                out.put_slice(at, &[record]);
                out.children.push(child);
            }
            (UserTypeKind::Opaque, Value::Opaque(bytes)) => {
                let n = bytes.len().min(user.size);
                out.put_slice(at, &bytes[..n]);
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
                out.put_slice(at, &bytes[start..start + n]);
            }
            _ => {}
        }
    }
}

/// Encoded values: an aligned buffer and what its pointers point to.
pub(crate) struct Encoded {
    /// The values, 8-byte aligned.
    words: Vec<u64>,
    len: usize,
    strings: Vec<CString>,
    children: Vec<Encoded>,
}

impl Encoded {
    fn zeroed(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(8).max(1)],
            len,
            strings: Vec::new(),
            children: Vec::new(),
        }
    }

    /// The buffer for libnetcdf; valid while `self` lives.
    pub(crate) fn as_ptr(&self) -> *const c_void {
        self.words.as_ptr().cast()
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the u64 buffer holds at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }

    /// Copies the bytes of `items` to byte offset `at`.
    fn put_slice<T: Copy>(&mut self, at: usize, items: &[T]) {
        let n = size_of_val(items);
        // SAFETY: T is plain data (numbers, pointers, repr(C) records); reading its bytes is
        // defined.
        let src = unsafe { std::slice::from_raw_parts(items.as_ptr().cast::<u8>(), n) };
        if let Some(dst) = self.bytes_mut().get_mut(at..at + n) {
            dst.copy_from_slice(src);
        }
    }

    /// Keeps a NUL-terminated copy of `bytes` (cut at an inner NUL) and returns its address.
    fn own_string(&mut self, bytes: &[u8]) -> *const c_char {
        let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
        let owned = CString::new(&bytes[..end]).unwrap_or_default();
        let ptr = owned.as_ptr();
        self.strings.push(owned);
        ptr
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
