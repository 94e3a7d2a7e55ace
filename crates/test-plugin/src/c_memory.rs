//! What both test libraries share: netCDF-C's `NCZ_codec_t` and the memory a codec
//! library hands netCDF-C (from the C library's `malloc`, which netCDF-C frees).
#![allow(dead_code)]

use std::ffi::{c_char, c_int, c_uint, CStr};

use serde_json::{Map, Value};

/// netCDF-C's `NC_EFILTER`.
pub const NC_EFILTER: c_int = -132;

/// `NCZ_codec_t`, version 1, sort HDF5.
#[repr(C)]
pub struct CodecClass {
    /// `NCZ_CODEC_CLASS_VER`.
    pub version: c_int,
    /// `NCZ_CODEC_HDF5`.
    pub sort: c_int,
    /// The numcodecs id.
    pub codecid: *const c_char,
    /// The HDF5 filter id.
    pub hdf5id: c_uint,
    /// `NCZ_codec_initialize`.
    pub initialize: Option<unsafe extern "C" fn()>,
    /// `NCZ_codec_finalize`.
    pub finalize: Option<unsafe extern "C" fn()>,
    /// `NCZ_codec_to_hdf5`.
    pub to_hdf5: unsafe extern "C" fn(*const c_char, *mut usize, *mut *mut c_uint) -> c_int,
    /// `NCZ_hdf5_to_codec`.
    pub to_codec: unsafe extern "C" fn(usize, *const c_uint, *mut *mut c_char) -> c_int,
    /// `NCZ_modify_parameters` (none here).
    pub modify_parameters: Option<unsafe extern "C" fn()>,
}

// SAFETY: immutable statics of plain data and static strings.
unsafe impl Sync for CodecClass {}

/// Copies `text` into a malloc'd C string at `out`.
///
/// # Safety
/// `out` is a valid pointer to write to.
pub unsafe fn give_text(text: &str, out: *mut *mut c_char) -> c_int {
    // SAFETY: a block of len + 1 bytes, filled and NUL-terminated.
    unsafe {
        let block = libc::malloc(text.len() + 1).cast::<u8>();
        if block.is_null() {
            return NC_EFILTER;
        }
        std::ptr::copy_nonoverlapping(text.as_ptr(), block, text.len());
        *block.add(text.len()) = 0;
        *out = block.cast();
    }
    0
}

/// Copies `words` into a malloc'd array at `out`, their count at `count`.
///
/// # Safety
/// Both pointers are valid to write to.
pub unsafe fn give_words(words: &[c_uint], count: *mut usize, out: *mut *mut c_uint) -> c_int {
    // SAFETY: a block of `words.len()` words, filled.
    unsafe {
        let block = libc::malloc(words.len().max(1) * size_of::<c_uint>()).cast::<c_uint>();
        if block.is_null() {
            return NC_EFILTER;
        }
        std::ptr::copy_nonoverlapping(words.as_ptr(), block, words.len());
        *count = words.len();
        *out = block;
    }
    0
}

/// The JSON object of a codec text, if it is one with the id `id`.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string.
pub unsafe fn codec_json(text: *const c_char, id: &str) -> Option<Map<String, Value>> {
    if text.is_null() {
        return None;
    }
    // SAFETY: per the contract.
    let text = unsafe { CStr::from_ptr(text) }.to_str().ok()?;
    let Value::Object(object) = serde_json::from_str(text).ok()? else {
        return None;
    };
    (object.get("id")?.as_str()? == id).then_some(object)
}

/// A member as a word (numbers may come quoted, as netCDF-C's own codecs write them).
pub fn word(object: &Map<String, Value>, key: &str, default: c_uint) -> Option<c_uint> {
    match object.get(key) {
        None => Some(default),
        Some(Value::Number(n)) => c_uint::try_from(n.as_u64()?).ok(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        Some(_) => None,
    }
}

/// The words HDF5 passed.
///
/// # Safety
/// `params` holds `count` words, or is NULL.
pub unsafe fn words<'a>(count: usize, params: *const c_uint) -> &'a [c_uint] {
    if params.is_null() || count == 0 {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(params, count) }
}
