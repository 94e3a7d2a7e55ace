//! Values read from and written to libnetcdf: attributes and hyperslabs of any type.
//! User-defined types (compound, vlen, opaque, enum) are decoded from libnetcdf's memory
//! layout with the layouts of the file's own types, checked before any memory is read.

use std::ffi::{c_char, c_int, c_void, CStr};

use ncmodel::{AtomicType, TypeRef, UserType, UserTypeKind, Value, Values};
use netcdf_sys::{
    nc_get_att, nc_get_vara, nc_put_att, nc_put_att_string, nc_put_att_text, nc_put_vara, nc_type,
    nc_vlen_t,
};

use super::inquire::var_rank_and_type;
use super::library_stderr;
use super::memory::RawPointers;
use super::memory::{c_string_cut_at_nul, VLEN_RECORD};
use super::{check, Encoded, Grp, Lib, RawBuffer};
use crate::error::NcError;

extern "C" {
    /// `nc_reclaim_data` (netCDF-C 4.9): frees what nested instances point to (strings,
    /// vlens), not the top-level memory.
    fn nc_reclaim_data(ncid: c_int, xtypeid: c_int, memory: *mut c_void, count: usize) -> c_int;
}

/// The user types of one open file, checked: every compound field lies inside its
/// compound, vlens have libnetcdf's record size, enums hold their base type. Only a table
/// built from the file being read may decode its memory.
#[derive(Clone, Copy)]
pub(crate) struct TypeTable<'a> {
    types: &'a [UserType],
}

fn corrupt(what: String, context: &dyn Fn() -> String) -> NcError {
    NcError {
        kind: store::ErrorKind::Unsupported,
        message: what,
        context: context(),
    }
}

fn overflow(context: &dyn Fn() -> String) -> NcError {
    NcError {
        kind: store::ErrorKind::System {
            errno: Some(libc::ENOMEM),
        },
        message: "the size of the data overflows memory".into(),
        context: context(),
    }
}

impl<'a> TypeTable<'a> {
    /// Checks the layouts of `types` (as libnetcdf reported them for this file).
    pub(crate) fn new(
        types: &'a [UserType],
        context: &dyn Fn() -> String,
    ) -> Result<Self, NcError> {
        let table = Self { types };
        for user in types {
            table.check_layout(user, context)?;
        }
        Ok(table)
    }

    fn user(&self, id: ncmodel::TypeId) -> Option<&'a UserType> {
        self.types.iter().find(|t| t.id == id)
    }

    /// The in-memory size of one value of `t`; `None` for an unknown type.
    fn size(&self, t: TypeRef) -> Option<usize> {
        match t {
            TypeRef::Atomic(AtomicType::String) => Some(size_of::<*const c_char>()),
            TypeRef::Atomic(a) => Some(a.size()),
            TypeRef::User(id) => self.user(id).map(|u| u.size),
        }
    }

    fn check_layout(&self, user: &UserType, context: &dyn Fn() -> String) -> Result<(), NcError> {
        let bad = |what: &str| {
            corrupt(
                format!("the type {} has an impossible layout: {what}", user.name),
                context,
            )
        };
        match &user.kind {
            UserTypeKind::Compound { fields } => {
                for field in fields {
                    let size = self
                        .size(field.type_ref)
                        .ok_or_else(|| bad("a field of unknown type"))?;
                    let count = field
                        .dims
                        .iter()
                        .try_fold(1usize, |n, d| n.checked_mul(*d))
                        .ok_or_else(|| bad("a field too large"))?;
                    let end = size
                        .checked_mul(count)
                        .and_then(|b| b.checked_add(field.offset))
                        .ok_or_else(|| bad("a field too large"))?;
                    if end > user.size {
                        return Err(bad(&format!("field {} ends past the type", field.name)));
                    }
                    if field.type_ref == TypeRef::User(user.id) {
                        return Err(bad("a field of its own type"));
                    }
                }
            }
            UserTypeKind::Vlen { .. } if user.size != VLEN_RECORD.0 => {
                return Err(bad("a vlen of the wrong size"));
            }
            UserTypeKind::Enum { base, .. } if user.size < base.size() => {
                return Err(bad("an enum smaller than its base type"));
            }
            _ => {}
        }
        Ok(())
    }

    /// Reads `n` values of `type_ref` with `fill`, a libnetcdf call that writes them into
    /// the buffer it is given (which has room for `n` values and one more: libnetcdf writes
    /// a NUL past the end of some text attributes).
    fn read(
        &self,
        _lib: &Lib,
        grp: Grp<'_>,
        type_ref: TypeRef,
        n: usize,
        fill: impl FnOnce(*mut c_void) -> c_int,
        context: &dyn Fn() -> String,
    ) -> Result<Values, NcError> {
        let size = self
            .size(type_ref)
            .ok_or_else(|| corrupt(format!("unknown type {type_ref:?}"), context))?;
        // One value of a user type larger than the value limit is not read: HDF5 builds
        // its fill values and conversion buffers at that size (before, an opaque type of
        // 1e9 bytes, nothing written, took 2.96 GB from a 1.4 KB file).
        let limit = codecs::partial::value_cap();
        if matches!(type_ref, TypeRef::User(_)) && size > limit {
            return Err(corrupt(
                format!(
                    "its type declares values of {size} bytes each, {}: the file is \
                     probably corrupt or hostile",
                    super::filtered_heaps::value_limit_words(limit as u64)
                ),
                context,
            ));
        }
        let bytes = n
            .checked_add(1)
            .and_then(|slots| slots.checked_mul(size.max(1)))
            .ok_or_else(|| overflow(context))?;
        // u64 words keep the buffer aligned for any type; zeroed, so that pointers libnetcdf
        // does not set (an empty read) are NULL.
        let mut words: Vec<u64> = Vec::new();
        words
            .try_reserve_exact(bytes.div_ceil(8))
            .map_err(|_| overflow(context))?;
        words.resize(bytes.div_ceil(8), 0);
        let ptr = words.as_mut_ptr().cast::<c_void>();
        check(fill(ptr), context)?;
        let base = ptr.cast::<u8>().cast_const();
        // SAFETY: libnetcdf wrote n values of type_ref into the buffer (the call
        // succeeded); the table's layouts were checked against the type sizes libnetcdf
        // reported for this file, so every offset read stays inside the buffer; pointers
        // inside (strings, vlens) were set by libnetcdf.
        let values = unsafe { self.decode_many(type_ref, base, n) };
        let needs_reclaim = match type_ref {
            TypeRef::Atomic(AtomicType::String) | TypeRef::User(_) => n > 0,
            TypeRef::Atomic(_) => false,
        };
        if needs_reclaim {
            let xtype = match type_ref {
                TypeRef::Atomic(a) => a.nc_type(),
                TypeRef::User(id) => id.0,
            };
            // SAFETY: the buffer holds n instances of xtype whose nested memory libnetcdf
            // allocated in this call; they are freed once, here, after being copied.
            let status = unsafe { nc_reclaim_data(grp.id(), xtype, ptr, n) };
            check(status, context)?;
        }
        Ok(values)
    }

    /// Decodes `n` consecutive values of `type_ref` at `mem`.
    ///
    /// # Safety
    /// `mem` must point to `n` valid instances of the type as libnetcdf lays them out, and
    /// the table's layouts must be those of the file that wrote them.
    unsafe fn decode_many(&self, type_ref: TypeRef, mem: *const u8, n: usize) -> Values {
        match type_ref {
            TypeRef::Atomic(t) => decode_atomic(t, mem, n),
            TypeRef::User(id) => match self.user(id) {
                Some(user) => Values::User(
                    (0..n)
                        // SAFETY: instance i lies at i * size inside the n instances.
                        .map(|i| unsafe { self.decode_user(user, mem.add(i * user.size)) })
                        .collect(),
                ),
                None => Values::User(Vec::new()),
            },
        }
    }

    /// # Safety
    /// `mem` must point to one valid instance of `user`, laid out as the table says.
    unsafe fn decode_user(&self, user: &UserType, mem: *const u8) -> Value {
        match &user.kind {
            UserTypeKind::Compound { fields } => Value::Compound(
                fields
                    .iter()
                    .map(|f| {
                        let count = f.dims.iter().product::<usize>().max(1);
                        // SAFETY: check_layout proved offset + count * size <= user.size.
                        unsafe { self.decode_many(f.type_ref, mem.add(f.offset), count) }
                    })
                    .collect(),
            ),
            UserTypeKind::Vlen { base } => {
                // SAFETY: a vlen instance is an nc_vlen_t (its size was checked).
                let vlen = unsafe { std::ptr::read_unaligned(mem.cast::<nc_vlen_t>()) };
                if vlen.p.is_null() {
                    Value::Vlen(self.decode_many(*base, mem, 0))
                } else {
                    // SAFETY: libnetcdf allocated vlen.len values of the base type at p.
                    Value::Vlen(unsafe { self.decode_many(*base, vlen.p.cast::<u8>(), vlen.len) })
                }
            }
            UserTypeKind::Opaque => {
                // SAFETY: an opaque instance is user.size bytes.
                let bytes = unsafe { std::slice::from_raw_parts(mem, user.size) };
                Value::Opaque(bytes.to_vec())
            }
            UserTypeKind::Enum { base, .. } => {
                // SAFETY: an enum instance holds one value of its base type (size checked).
                let value = unsafe { decode_atomic(*base, mem, 1) };
                Value::Enum(value.integer_at(0).unwrap_or(0))
            }
        }
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

/// Reads `n` unaligned values of `T` at `mem`.
///
/// # Safety
/// `mem` must point to `n` initialised values of `T` (any alignment).
unsafe fn read_unaligned_vec<T: Copy>(mem: *const u8, n: usize) -> Vec<T> {
    (0..n)
        // SAFETY: value i is inside the n values at mem.
        .map(|i| unsafe { std::ptr::read_unaligned(mem.cast::<T>().add(i)) })
        .collect()
}

/// # Safety
/// `mem` must point to `n` values of `t` (a `char*`, NULL or NUL-terminated, for strings).
unsafe fn decode_atomic(t: AtomicType, mem: *const u8, n: usize) -> Values {
    if t == AtomicType::String {
        // SAFETY: the caller's contract: n string pointers at mem.
        let pointers = unsafe { read_unaligned_vec::<*const c_char>(mem, n) };
        let strings = pointers
            .into_iter()
            // SAFETY: libnetcdf set each pointer to NULL or a NUL-terminated string.
            .map(|p| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes().to_vec()))
            .collect();
        return Values::String(strings);
    }
    // SAFETY: the caller's contract: n values of t at mem.
    unsafe { by_atomic_type!(t, read_unaligned_vec(mem, n)) }
}

/// The size of one chunk of `varid` before filtering, when it is chunked: what a chunk of it
/// may decode to (`elem` bytes per element as stored; 16 for strings and vlens, whose
/// chunks hold heap references).
fn chunk_bytes(lib: &Lib, grp: Grp<'_>, varid: c_int, elem: usize) -> Option<usize> {
    let (layout, chunks) = super::inquire::var_chunking(lib, grp, varid, &String::new).ok()?;
    if layout != 0 {
        return None;
    }
    let bytes = chunks
        .iter()
        .try_fold(elem.max(1), |n, c| n.checked_mul(*c))?;
    // A chunk that declares more than the chunk limit while the variable holds less
    // (4 values in chunks of 2^30) may decode to the limit only: HDF5 would otherwise
    // let a few hundred bytes decode to gigabytes.
    let limit = codecs::partial::decoded_chunk_cap();
    if bytes > limit {
        let context = String::new;
        let info = super::inquire::var(lib, grp, varid, &context).ok()?;
        let covered = info
            .dim_ids
            .iter()
            .zip(&chunks)
            .map(|(d, c)| {
                super::inquire::dim(lib, grp, *d, &context).map_or(*c, |(_, len)| len.min(*c))
            })
            .try_fold(elem.max(1), |n, c| n.checked_mul(c))
            .unwrap_or(usize::MAX);
        if covered < bytes {
            return Some(limit);
        }
    }
    Some(bytes)
}

/// Runs a libnetcdf transfer of `varid` with the built-in filters' decoded chunks bounded
/// by the variable's chunk size, so that a small hostile chunk cannot decode to gigabytes.
///
/// A read during which the library logged an error (on a remote dataset, see
/// [`super::library_stderr`]) fails even where libnetcdf returned success.
fn bounded(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    elem: usize,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let mark = library_stderr::mark();
    let status = match chunk_bytes(lib, grp, varid, elem) {
        Some(bytes) => codecs::with_decoded_chunk_limit(bytes, call),
        None => call(),
    };
    library_stderr::status_with_log(status, library_stderr::logged_error_since(mark))
}

/// The size of one stored element of `type_ref` for [`bounded`].
fn stored_size(type_ref: TypeRef, memory_size: usize) -> usize {
    match type_ref {
        TypeRef::Atomic(AtomicType::String) | TypeRef::User(_) => memory_size.max(16),
        TypeRef::Atomic(a) => a.size(),
    }
}

/// The number of values of a hyperslab, checked against the variable's rank.
fn slab_values(
    rank: usize,
    start: &[usize],
    count: &[usize],
    context: &dyn Fn() -> String,
) -> Result<usize, NcError> {
    if start.len() != rank || count.len() != rank {
        return Err(NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: format!(
                "a hyperslab of {} dimensions for a variable of {rank}",
                count.len().max(start.len())
            ),
            context: context(),
        });
    }
    count
        .iter()
        .try_fold(1usize, |n, c| n.checked_mul(*c))
        .ok_or_else(|| overflow(context))
}

/// The model's reference to a netCDF type id.
pub(crate) fn type_ref_of(xtype: nc_type) -> TypeRef {
    AtomicType::from_nc_type(xtype).map_or(TypeRef::User(ncmodel::TypeId(xtype)), TypeRef::Atomic)
}

impl TypeTable<'_> {
    /// Reads the attribute `name` of `varid` (or the group's, with `NC_GLOBAL`): its type
    /// and values.
    pub(crate) fn get_att(
        &self,
        lib: &Lib,
        grp: Grp<'_>,
        varid: c_int,
        name: &CStr,
        context: &dyn Fn() -> String,
    ) -> Result<(TypeRef, Values), NcError> {
        let info = super::inquire::att_info(lib, grp, varid, name, context)?;
        let type_ref = type_ref_of(info.xtype);
        let values = self.read(
            lib,
            grp,
            type_ref,
            info.len,
            // SAFETY: the buffer has room for info.len values of the attribute's type and
            // one more (read() sizes it so); name is NUL-terminated.
            |buf| unsafe { nc_get_att(grp.id(), varid, name.as_ptr(), buf) },
            context,
        )?;
        Ok((type_ref, values))
    }

    /// Reads the hyperslab `start`/`count` of `varid`, which must be of type `expected`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn get_vara(
        &self,
        lib: &Lib,
        grp: Grp<'_>,
        varid: c_int,
        expected: TypeRef,
        start: &[usize],
        count: &[usize],
        context: &dyn Fn() -> String,
    ) -> Result<Values, NcError> {
        let (rank, xtype) = var_rank_and_type(lib, grp, varid, context)?;
        if type_ref_of(xtype) != expected {
            return Err(corrupt(
                format!("the variable is of type {xtype}, not {expected:?}"),
                context,
            ));
        }
        let n = slab_values(rank, start, count, context)?;
        let elem = stored_size(expected, self.size(expected).unwrap_or(0));
        self.read(
            lib,
            grp,
            expected,
            n,
            |buf| {
                bounded(lib, grp, varid, elem, || {
                    // SAFETY: start and count have one entry per dimension of the variable
                    // (checked above); the buffer has room for n values of its type.
                    unsafe { nc_get_vara(grp.id(), varid, start.as_ptr(), count.as_ptr(), buf) }
                })
            },
            context,
        )
    }
}

/// Checks a raw transfer: an atomic type of fixed size, the rank, and the bytes it needs;
/// returns them and the size of one value.
fn raw_slab_bytes(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    start: &[usize],
    count: &[usize],
    context: &dyn Fn() -> String,
) -> Result<(usize, usize), NcError> {
    let (rank, xtype) = var_rank_and_type(lib, grp, varid, context)?;
    let size = match AtomicType::from_nc_type(xtype) {
        Some(t) if t != AtomicType::String => t.size(),
        _ => {
            return Err(NcError {
                kind: store::ErrorKind::Unsupported,
                message: "not an atomic type of fixed size".into(),
                context: context(),
            })
        }
    };
    let n = slab_values(rank, start, count, context)?;
    let bytes = n.checked_mul(size).ok_or_else(|| overflow(context))?;
    Ok((bytes, size))
}

/// Reads a hyperslab of an atomic, fixed-size variable as raw bytes into `buf`.
pub(crate) fn get_vara_raw(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    start: &[usize],
    count: &[usize],
    buf: &mut RawBuffer,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let (bytes, size) = raw_slab_bytes(lib, grp, varid, start, count, context)?;
    buf.resize(bytes);
    let ptr = buf.fill_ptr();
    let status = bounded(lib, grp, varid, size, || {
        // SAFETY: start/count have one entry per dimension and the buffer holds exactly the
        // bytes of count's product of values of the variable's type (both checked above).
        unsafe { nc_get_vara(grp.id(), varid, start.as_ptr(), count.as_ptr(), ptr) }
    });
    check(status, context)
}

/// Writes raw bytes (as [`get_vara_raw`] reads them) to a hyperslab.
pub(crate) fn put_vara_raw(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    start: &[usize],
    count: &[usize],
    buf: &RawBuffer,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let (bytes, size) = raw_slab_bytes(lib, grp, varid, start, count, context)?;
    if buf.len() < bytes {
        return Err(NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: "the buffer is shorter than the hyperslab".into(),
            context: context(),
        });
    }
    let ptr = buf.read_ptr();
    // Writing part of a chunk makes HDF5 decode the chunk first.
    let status = bounded(lib, grp, varid, size, || {
        // SAFETY: start/count have one entry per dimension and the buffer holds at least the
        // bytes of count's product of values of the variable's type (checked above).
        unsafe { nc_put_vara(grp.id(), varid, start.as_ptr(), count.as_ptr(), ptr) }
    });
    check(status, context)
}

/// Writes `n` encoded values to the hyperslab `start`/`count` of `varid`; `size` is the
/// in-memory size of one value of the variable's type, as it was defined.
#[allow(clippy::too_many_arguments)]
pub(crate) fn put_vara(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    start: &[usize],
    count: &[usize],
    encoded: &Encoded,
    size: usize,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let (rank, xtype) = var_rank_and_type(lib, grp, varid, context)?;
    let n = slab_values(rank, start, count, context)?;
    let needed = n.checked_mul(size).ok_or_else(|| overflow(context))?;
    if encoded.len() != needed {
        return Err(NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: format!(
                "{} bytes of values for a hyperslab of {n} values of {size} bytes",
                encoded.len()
            ),
            context: context(),
        });
    }
    let elem = stored_size(type_ref_of(xtype), size);
    let status = bounded(lib, grp, varid, elem, || {
        // SAFETY: start/count have one entry per dimension and the buffer holds exactly n
        // values of the variable's type in its memory layout (checked above); the pointers
        // inside it point to memory `encoded` owns.
        unsafe {
            nc_put_vara(
                grp.id(),
                varid,
                start.as_ptr(),
                count.as_ptr(),
                encoded.as_ptr(),
            )
        }
    });
    check(status, context)
}

/// Writes a text attribute.
pub(crate) fn put_att_text(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    name: &CStr,
    text: &[u8],
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY: name is NUL-terminated; text holds text.len() bytes.
    let status = unsafe {
        nc_put_att_text(
            grp.id(),
            varid,
            name.as_ptr(),
            text.len(),
            text.as_ptr().cast(),
        )
    };
    check(status, context)
}

/// Writes a string attribute; `None` is a NULL string. Each string is cut at its first NUL,
/// as C reads it.
pub(crate) fn put_att_string(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    name: &CStr,
    strings: &[Option<Vec<u8>>],
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let owned: Vec<Option<std::ffi::CString>> = strings
        .iter()
        .map(|s| s.as_deref().map(c_string_cut_at_nul))
        .collect();
    let mut pointers: Vec<*const c_char> = owned
        .iter()
        .map(|s| s.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
        .collect();
    // SAFETY: pointers holds strings.len() entries, each NULL or a NUL-terminated string
    // owned by `owned`, which outlives the call; name is NUL-terminated.
    let status = unsafe {
        nc_put_att_string(
            grp.id(),
            varid,
            name.as_ptr(),
            pointers.len(),
            pointers.as_mut_ptr(),
        )
    };
    check(status, context)
}

/// Writes an attribute of `n` encoded values of type `xtype` (in-memory size `size`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn put_att(
    _lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    name: &CStr,
    xtype: nc_type,
    n: usize,
    size: usize,
    encoded: &Encoded,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    if Some(encoded.len()) != n.checked_mul(size) {
        return Err(NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: format!(
                "{} bytes of values for {n} values of {size} bytes",
                encoded.len()
            ),
            context: context(),
        });
    }
    // SAFETY: the buffer holds exactly n values of xtype in its memory layout (checked
    // above), with pointers into memory `encoded` owns; name is NUL-terminated.
    let status = unsafe { nc_put_att(grp.id(), varid, name.as_ptr(), xtype, n, encoded.as_ptr()) };
    check(status, context)
}
