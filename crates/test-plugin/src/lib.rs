//! A plugin library for nctools' tests, never installed: what a user's in-house HDF5
//! filter and its NCZarr codec library look like to netCDF-C (its filter guide's
//! "Pre-Processing Filter Libraries" and codec API), written here so that the tests
//! control how it behaves.
//!
//! - The HDF5 filter `299` (HDF5 keeps 256 to 511 for testing) with one parameter, its
//!   mode: `0` stores the chunk as it is; on decoding, `1` returns eight times the
//!   chunk's bytes, `2` crashes (`SIGSEGV`), `3` fails (returns 0).
//! - When loaded, it creates the file `NCTOOLS_TEST_PLUGIN_MARK` names, if set.
//! - Its codec `nctools_test`: `{"id": "nctools_test", "mode": N}` ↔ `[N]`.
//!
//! Its example `bitshuffle_codec` is a codec-only library for a third-party filter
//! plugin, hdf5plugin's bitshuffle. Buffers come from the C library's `malloc`, as HDF5's allocator does in release
//! builds and as netCDF-C frees what a codec library returns.
#![allow(unsafe_code)]

mod c_memory;

use std::ffi::{c_char, c_int, c_uint, c_void};

use c_memory::{codec_json, give_text, give_words, word, words, CodecClass, NC_EFILTER};
use serde_json::json;

/// The test filter's id.
const TEST_FILTER: c_int = 299;
/// `H5Z_CLASS_T_VERS`.
const CLASS_VERSION: c_int = 1;
/// `H5Z_FLAG_REVERSE`.
const REVERSE: c_uint = 0x0100;

/// `H5Z_class2_t`.
#[repr(C)]
pub struct FilterClass {
    version: c_int,
    id: c_int,
    encoder_present: c_uint,
    decoder_present: c_uint,
    name: *const c_char,
    can_apply: Option<unsafe extern "C" fn()>,
    set_local: Option<unsafe extern "C" fn()>,
    filter: Option<
        unsafe extern "C" fn(
            c_uint,
            usize,
            *const c_uint,
            usize,
            *mut usize,
            *mut *mut c_void,
        ) -> usize,
    >,
}

// SAFETY: immutable statics of plain data and static strings.
unsafe impl Sync for FilterClass {}

static TEST_CLASS: FilterClass = FilterClass {
    version: CLASS_VERSION,
    id: TEST_FILTER,
    encoder_present: 1,
    decoder_present: 1,
    name: c"nctools test filter".as_ptr(),
    can_apply: None,
    set_local: None,
    filter: Some(test_filter),
};

static TEST_CODEC: CodecClass = CodecClass {
    version: 1,
    sort: 1,
    codecid: c"nctools_test".as_ptr(),
    hdf5id: TEST_FILTER as c_uint,
    initialize: None,
    finalize: None,
    to_hdf5: test_to_hdf5,
    to_codec: test_to_codec,
    modify_parameters: None,
};

/// Runs when the library is loaded: creates the file `NCTOOLS_TEST_PLUGIN_MARK` names,
/// if it names one, so that a test sees whether a tool loaded the library at all.
extern "C" fn on_load() {
    if let Some(mark) = std::env::var_os("NCTOOLS_TEST_PLUGIN_MARK") {
        let _ = std::fs::write(mark, b"loaded\n");
    }
}

/// The loader's list of initialisers, which run [`on_load`].
#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;

/// HDF5's plugin type query: a filter.
#[no_mangle]
pub extern "C" fn H5PLget_plugin_type() -> c_int {
    0
}

/// HDF5's plugin query: the test filter's class.
#[no_mangle]
pub extern "C" fn H5PLget_plugin_info() -> *const c_void {
    std::ptr::from_ref(&TEST_CLASS).cast()
}

/// netCDF-C's codec library query: the test filter's codec.
#[no_mangle]
pub extern "C" fn NCZ_get_codec_info() -> *const c_void {
    std::ptr::from_ref(&TEST_CODEC).cast()
}

/// The test filter (HDF5's `H5Z_func_t`).
unsafe extern "C" fn test_filter(
    flags: c_uint,
    nparams: usize,
    params: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    let mode = if nparams > 0 && !params.is_null() {
        // SAFETY: HDF5 passes `nparams` words.
        unsafe { *params }
    } else {
        0
    };
    if flags & REVERSE == 0 {
        return nbytes;
    }
    match mode {
        1 => {
            let size = nbytes.saturating_mul(8).max(8);
            // SAFETY: a fresh block of `size` bytes, zeroed, replacing HDF5's buffer
            // (freed with the allocator that made it).
            unsafe {
                let bigger = libc::calloc(size, 1);
                if bigger.is_null() {
                    return 0;
                }
                std::ptr::copy_nonoverlapping((*buf).cast::<u8>(), bigger.cast::<u8>(), nbytes);
                libc::free(*buf);
                *buf = bigger;
                *buf_size = size;
            }
            size
        }
        2 => {
            // SAFETY: raising a signal is what this mode is for.
            unsafe { libc::raise(libc::SIGSEGV) };
            0
        }
        3 => 0,
        _ => nbytes,
    }
}

unsafe extern "C" fn test_to_hdf5(
    text: *const c_char,
    count: *mut usize,
    out: *mut *mut c_uint,
) -> c_int {
    // SAFETY: netCDF-C's contract for NCZ_codec_to_hdf5.
    unsafe {
        match codec_json(text, "nctools_test").and_then(|o| word(&o, "mode", 0)) {
            Some(mode) => give_words(&[mode], count, out),
            None => NC_EFILTER,
        }
    }
}

unsafe extern "C" fn test_to_codec(
    count: usize,
    params: *const c_uint,
    out: *mut *mut c_char,
) -> c_int {
    // SAFETY: netCDF-C's contract for NCZ_hdf5_to_codec.
    unsafe {
        let mode = words(count, params).first().copied().unwrap_or(0);
        give_text(
            &json!({"id": "nctools_test", "mode": mode}).to_string(),
            out,
        )
    }
}
