//! Memory handed to libnetcdf: raw value buffers, and values encoded in libnetcdf's
//! layout, which hold pointers (strings, vlens) into memory they own.

use std::ffi::{c_char, c_void, CString};

pub use store::RawBuffer;

/// The pointers of a [`RawBuffer`] handed to C.
pub(super) trait RawPointers {
    /// The buffer for libnetcdf to fill; valid for `len()` bytes, aligned for any atomic
    /// type.
    fn fill_ptr(&mut self) -> *mut c_void;
    /// The buffer for libnetcdf to read; valid for `len()` bytes, aligned for any atomic
    /// type.
    fn read_ptr(&self) -> *const c_void;
}

impl RawPointers for RawBuffer {
    fn fill_ptr(&mut self) -> *mut c_void {
        self.as_bytes_mut().as_mut_ptr().cast()
    }

    fn read_ptr(&self) -> *const c_void {
        self.as_bytes().as_ptr().cast()
    }
}

/// Plain data whose bytes may be copied into an [`Encoded`] buffer: numbers, and the
/// records and pointers of libnetcdf's layout.
pub(crate) trait Plain: Copy + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! plain {
    ($($t:ty),*) => { $(impl sealed::Sealed for $t {} impl Plain for $t {})* };
}
plain!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

/// A `nc_vlen_t` as libnetcdf reads it.
#[repr(C)]
#[derive(Clone, Copy)]
struct VlenRecord {
    len: usize,
    p: *const c_void,
}

/// Values encoded in libnetcdf's memory layout: an aligned buffer, and what its pointers
/// point to (strings, vlen contents), owned here so they live as long as the buffer.
pub(crate) struct Encoded {
    /// The values, 8-byte aligned.
    words: Vec<u64>,
    len: usize,
    strings: Vec<CString>,
    children: Vec<Encoded>,
}

impl Encoded {
    /// A zeroed buffer of `len` bytes.
    pub(crate) fn zeroed(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(8).max(1)],
            len,
            strings: Vec::new(),
            children: Vec::new(),
        }
    }

    /// The buffer's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The buffer for libnetcdf; valid while `self` lives.
    pub(super) fn as_ptr(&self) -> *const c_void {
        self.words.as_ptr().cast()
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `words` holds at least `len` bytes (zeroed() sizes it so), all
        // initialised; the slice borrows self mutably, so nothing else aliases it.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }

    /// Copies the bytes of `items` to byte offset `at`; false if they do not fit.
    pub(crate) fn put<T: Plain>(&mut self, at: usize, items: &[T]) -> bool {
        let n = size_of_val(items);
        // SAFETY: T is Plain (numbers only: no padding, every byte initialised), so its
        // n bytes may be read as u8.
        let src = unsafe { std::slice::from_raw_parts(items.as_ptr().cast::<u8>(), n) };
        self.put_bytes(at, src)
    }

    fn put_bytes(&mut self, at: usize, src: &[u8]) -> bool {
        let Some(end) = at.checked_add(src.len()) else {
            return false;
        };
        match self.bytes_mut().get_mut(at..end) {
            Some(dst) => {
                dst.copy_from_slice(src);
                true
            }
            None => false,
        }
    }

    /// Stores a `char*` at `at`: a NUL-terminated copy of `bytes`, cut at an inner NUL as
    /// C would read it, or NULL for `None`.
    pub(crate) fn put_string(&mut self, at: usize, bytes: Option<&[u8]>) -> bool {
        let ptr: *const c_char = match bytes {
            Some(bytes) => {
                let owned = c_string_cut_at_nul(bytes);
                let ptr = owned.as_ptr();
                self.strings.push(owned);
                ptr
            }
            None => std::ptr::null(),
        };
        self.put_bytes(at, &(ptr as usize).to_ne_bytes())
    }

    /// Stores a `nc_vlen_t` at `at` pointing to `items` values encoded in `child`.
    pub(crate) fn put_vlen(&mut self, at: usize, items: usize, child: Encoded) -> bool {
        let record = VlenRecord {
            len: items,
            p: child.as_ptr(),
        };
        let mut bytes = [0u8; size_of::<VlenRecord>()];
        bytes[..size_of::<usize>()].copy_from_slice(&record.len.to_ne_bytes());
        bytes[size_of::<usize>()..].copy_from_slice(&(record.p as usize).to_ne_bytes());
        // The child's buffer is on the heap: moving `child` into self does not move it.
        self.children.push(child);
        self.put_bytes(at, &bytes)
    }
}

/// The size and alignment of libnetcdf's `nc_vlen_t`.
pub(crate) const VLEN_RECORD: (usize, usize) = (size_of::<VlenRecord>(), align_of::<VlenRecord>());

/// A C string of `bytes` up to their first NUL: what a C reader of them sees.
pub(crate) fn c_string_cut_at_nul(bytes: &[u8]) -> CString {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    // No NUL is left in bytes[..end], so this cannot fail.
    CString::new(&bytes[..end]).unwrap_or_default()
}
