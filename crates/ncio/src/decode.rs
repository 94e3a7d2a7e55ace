//! Reading values of any type through a libnetcdf "fill this buffer" call, and decoding
//! user-defined types (compound, vlen, opaque, enum) from libnetcdf's memory layout.

use std::ffi::{c_char, c_int, c_void, CStr};

use ncmodel::{AtomicType, TypeRef, UserType, UserTypeKind, Value, Values};
use netcdf_sys::{nc_free_string, nc_vlen_t};

use crate::error::NcError;
use crate::ffi::{check, nc_reclaim_data};

/// Knows the user types of a dataset, to size and decode values.
#[derive(Clone, Copy)]
pub(crate) struct TypeTable<'a> {
    pub(crate) ncid: c_int,
    pub(crate) types: &'a [UserType],
}

impl TypeTable<'_> {
    fn user(&self, id: ncmodel::TypeId) -> Option<&UserType> {
        self.types.iter().find(|t| t.id == id)
    }

    /// Reads `n` values of `type_ref` with `fill`, a libnetcdf call that writes them into
    /// the buffer it is given. Must be called with the library lock held.
    pub(crate) fn read(
        &self,
        type_ref: TypeRef,
        n: usize,
        fill: impl FnOnce(*mut c_void) -> c_int,
        context: impl Fn() -> String,
    ) -> Result<Values, NcError> {
        match type_ref {
            TypeRef::Atomic(AtomicType::String) => read_strings(n, fill, context),
            TypeRef::Atomic(t) => read_atomic(t, n, fill, context),
            TypeRef::User(id) => {
                let Some(user) = self.user(id) else {
                    return Err(unknown_type(id, &context));
                };
                self.read_user(user, n, fill, context)
            }
        }
    }

    fn read_user(
        &self,
        user: &UserType,
        n: usize,
        fill: impl FnOnce(*mut c_void) -> c_int,
        context: impl Fn() -> String,
    ) -> Result<Values, NcError> {
        let bytes = user.size.max(1) * n;
        // u64 storage keeps the buffer aligned for any field type.
        let mut buffer = vec![0u64; bytes.div_ceil(8).max(1)];
        let ptr = buffer.as_mut_ptr().cast::<c_void>();
        check(fill(ptr), &context)?;
        let base = ptr.cast::<u8>().cast_const();
        // SAFETY: libnetcdf wrote n instances of `user` into the buffer.
        let values = (0..n)
            .map(|i| unsafe { self.decode_user(user, base.add(i * user.size)) })
            .collect();
        // SAFETY: the buffer holds n instances whose nested data libnetcdf allocated.
        let status = unsafe { nc_reclaim_data(self.ncid, user.id.0, ptr, n) };
        check(status, &context)?;
        Ok(Values::User(values))
    }

    /// Decodes `n` consecutive values of `type_ref` at `mem`.
    ///
    /// # Safety
    /// `mem` must point to `n` valid instances of the type as libnetcdf lays them out.
    unsafe fn decode_many(&self, type_ref: TypeRef, mem: *const u8, n: usize) -> Values {
        match type_ref {
            TypeRef::Atomic(t) => decode_atomic(t, mem, n),
            TypeRef::User(id) => match self.user(id) {
                Some(user) => Values::User(
                    (0..n)
                        .map(|i| self.decode_user(user, mem.add(i * user.size)))
                        .collect(),
                ),
                None => Values::User(Vec::new()),
            },
        }
    }

    /// # Safety
    /// `mem` must point to one valid instance of `user`.
    unsafe fn decode_user(&self, user: &UserType, mem: *const u8) -> Value {
        match &user.kind {
            UserTypeKind::Compound { fields } => Value::Compound(
                fields
                    .iter()
                    .map(|f| {
                        let count = f.dims.iter().product::<usize>().max(1);
                        self.decode_many(f.type_ref, mem.add(f.offset), count)
                    })
                    .collect(),
            ),
            UserTypeKind::Vlen { base } => {
                let vlen = std::ptr::read_unaligned(mem.cast::<nc_vlen_t>());
                if vlen.p.is_null() {
                    Value::Vlen(self.decode_many(*base, mem, 0))
                } else {
                    Value::Vlen(self.decode_many(*base, vlen.p.cast::<u8>(), vlen.len))
                }
            }
            UserTypeKind::Opaque => {
                Value::Opaque(std::slice::from_raw_parts(mem, user.size).to_vec())
            }
            UserTypeKind::Enum { base, .. } => {
                Value::Enum(decode_atomic(*base, mem, 1).integer_at(0).unwrap_or(0))
            }
        }
    }
}

fn unknown_type(id: ncmodel::TypeId, context: &impl Fn() -> String) -> NcError {
    NcError {
        code: -45,
        message: format!("unknown user-defined type id {}", id.0),
        context: context(),
    }
}

/// Builds a [`Values`] of atomic type `$t` from the generic function `$f::<T>(args)`.
macro_rules! by_atomic_type {
    ($t:expr, $f:ident ( $($arg:expr),* )) => {
        match $t {
            AtomicType::Byte => Values::Byte($f::<i8>($($arg),*)),
            AtomicType::Char => Values::Char($f::<u8>($($arg),*)),
            AtomicType::Short => Values::Short($f::<i16>($($arg),*)),
            AtomicType::Int => Values::Int($f::<i32>($($arg),*)),
            AtomicType::Float => Values::Float($f::<f32>($($arg),*)),
            AtomicType::Double => Values::Double($f::<f64>($($arg),*)),
            AtomicType::UByte => Values::UByte($f::<u8>($($arg),*)),
            AtomicType::UShort => Values::UShort($f::<u16>($($arg),*)),
            AtomicType::UInt => Values::UInt($f::<u32>($($arg),*)),
            AtomicType::Int64 => Values::Int64($f::<i64>($($arg),*)),
            AtomicType::UInt64 => Values::UInt64($f::<u64>($($arg),*)),
            AtomicType::String => Values::String(Vec::new()),
        }
    };
}

/// A vector of `n` values filled in by `run`.
fn filled<T: Copy + Default>(n: usize, run: &mut dyn FnMut(*mut c_void)) -> Vec<T> {
    let mut v = vec![T::default(); n];
    run(v.as_mut_ptr().cast::<c_void>());
    v
}

fn read_atomic(
    t: AtomicType,
    n: usize,
    fill: impl FnOnce(*mut c_void) -> c_int,
    context: impl Fn() -> String,
) -> Result<Values, NcError> {
    let mut status = 0;
    let mut fill = Some(fill);
    let mut run = |ptr: *mut c_void| {
        if let Some(f) = fill.take() {
            status = f(ptr);
        }
    };
    let values = by_atomic_type!(t, filled(n, &mut run));
    check(status, context)?;
    Ok(values)
}

fn read_strings(
    n: usize,
    fill: impl FnOnce(*mut c_void) -> c_int,
    context: impl Fn() -> String,
) -> Result<Values, NcError> {
    let mut pointers: Vec<*mut c_char> = vec![std::ptr::null_mut(); n];
    check(fill(pointers.as_mut_ptr().cast::<c_void>()), &context)?;
    let strings = pointers
        .iter()
        .map(|p| {
            // SAFETY: libnetcdf wrote NUL-terminated strings or NULL.
            (!p.is_null()).then(|| unsafe { CStr::from_ptr(*p) }.to_bytes().to_vec())
        })
        .collect();
    // SAFETY: the strings were allocated by libnetcdf for this call.
    check(
        unsafe { nc_free_string(n, pointers.as_mut_ptr()) },
        &context,
    )?;
    Ok(Values::String(strings))
}

/// Reads `n` unaligned values of `T` at `mem`.
///
/// # Safety
/// `mem` must point to `n` values of `T`.
unsafe fn read_unaligned_vec<T: Copy>(mem: *const u8, n: usize) -> Vec<T> {
    (0..n)
        .map(|i| std::ptr::read_unaligned(mem.cast::<T>().add(i)))
        .collect()
}

/// # Safety
/// `mem` must point to `n` values of `t` (a `char*` each for strings).
unsafe fn decode_atomic(t: AtomicType, mem: *const u8, n: usize) -> Values {
    if t == AtomicType::String {
        let strings = read_unaligned_vec::<*const c_char>(mem, n)
            .into_iter()
            .map(|p| (!p.is_null()).then(|| CStr::from_ptr(p).to_bytes().to_vec()))
            .collect();
        return Values::String(strings);
    }
    by_atomic_type!(t, read_unaligned_vec(mem, n))
}
