//! A codec-only library for nctools' tests: netCDF-C's `NCZ_get_codec_info` for a
//! third-party HDF5 filter plugin, hdf5plugin's bitshuffle (32008), as a user would add
//! beside a filter plugin they did not write (the filter guide's "Codec only" library).
//! Bitshuffle's HDF5 parameters are `[major, minor, element size, block size,
//! compression, level]` (the first two are its version, which its filter does not read):
//! `{"id": "bitshuffle", "elementsize": E, "blocksize": B, "cname": "lz4"}` ↔
//! `[0, 0, E, B, 2]` (`"zstd"` with `"clevel"` ↔ `[.., 3, L]`, `"none"` ↔ `[.., 0]`).
#![allow(unsafe_code)]

#[path = "../src/c_memory.rs"]
mod c_memory;

use std::ffi::{c_char, c_int, c_uint, c_void};

use c_memory::{codec_json, give_text, give_words, word, words, CodecClass, NC_EFILTER};
use serde_json::{json, Value};

/// hdf5plugin's bitshuffle filter id.
const BITSHUFFLE: c_uint = 32008;

static BITSHUFFLE_CODEC: CodecClass = CodecClass {
    version: 1,
    sort: 1,
    codecid: c"bitshuffle".as_ptr(),
    hdf5id: BITSHUFFLE,
    initialize: None,
    finalize: None,
    to_hdf5: bitshuffle_to_hdf5,
    to_codec: bitshuffle_to_codec,
    modify_parameters: None,
};

/// netCDF-C's codec library query: the bitshuffle codec.
#[no_mangle]
pub extern "C" fn NCZ_get_codec_info() -> *const c_void {
    std::ptr::from_ref(&BITSHUFFLE_CODEC).cast()
}

unsafe extern "C" fn bitshuffle_to_hdf5(
    text: *const c_char,
    count: *mut usize,
    out: *mut *mut c_uint,
) -> c_int {
    // SAFETY: netCDF-C's contract for NCZ_codec_to_hdf5.
    unsafe {
        let Some(object) = codec_json(text, "bitshuffle") else {
            return NC_EFILTER;
        };
        let (Some(element), Some(block), Some(level)) = (
            word(&object, "elementsize", 0),
            word(&object, "blocksize", 0),
            word(&object, "clevel", 3),
        ) else {
            return NC_EFILTER;
        };
        let params: Vec<c_uint> = match object.get("cname").and_then(Value::as_str) {
            None | Some("none") => vec![0, 0, element, block, 0],
            Some("lz4") => vec![0, 0, element, block, 2],
            Some("zstd") => vec![0, 0, element, block, 3, level],
            Some(_) => return NC_EFILTER,
        };
        give_words(&params, count, out)
    }
}

unsafe extern "C" fn bitshuffle_to_codec(
    count: usize,
    params: *const c_uint,
    out: *mut *mut c_char,
) -> c_int {
    // SAFETY: netCDF-C's contract for NCZ_hdf5_to_codec.
    unsafe {
        let params = words(count, params);
        let at = |i: usize| params.get(i).copied().unwrap_or(0);
        let mut codec = json!({"id": "bitshuffle", "elementsize": at(2), "blocksize": at(3)});
        let cname = match at(4) {
            0 => "none",
            2 => "lz4",
            3 => {
                codec["clevel"] = json!(at(5));
                "zstd"
            }
            _ => return NC_EFILTER,
        };
        codec["cname"] = json!(cname);
        give_text(&codec.to_string(), out)
    }
}
