//! Blosc (32001), as the HDF Group / PyTables `blosc_filter` writes it: each chunk is one
//! blosc1 frame. Parameters: filter version, blosc format version, type size, chunk size
//! in bytes (the four set by `set_local`), then compression level (default 5), shuffle
//! (0 none, 1 byte, 2 bit; default 1) and compressor code (0 blosclz, 1 lz4, 2 lz4hc,
//! 3 snappy, 4 zlib, 5 zstd; default blosclz).
//!
//! Implemented with c-blosc itself (the `blosc-src` crate builds it from source): the
//! reference implementation, so frames match the standard plugin's; a pure-Rust blosc
//! would need blosclz and every inner codec. The context functions are used, so no global
//! state is shared between threads.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_void, CStr};

use crate::wire::WireError;

pub use filterspec::known::BLOSC;

/// The filter revision the HDF Group plugin records in parameter 0.
pub const FILTER_REVISION: u32 = 2;

/// The blosc frame format version recorded in parameter 1.
pub const FORMAT_VERSION: u32 = blosc_src::BLOSC_VERSION_FORMAT;

/// The name of the compressor with this code, if c-blosc has it.
pub fn compressor_name(code: u32) -> Option<&'static str> {
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: c-blosc writes a pointer to one of its static strings, or fails.
    let status = unsafe { blosc_src::blosc_compcode_to_compname(code as c_int, &mut name) };
    if status < 0 || name.is_null() {
        return None;
    }
    // SAFETY: the name is a static NUL-terminated string of c-blosc.
    unsafe { CStr::from_ptr(name) }.to_str().ok()
}

fn corrupt(what: &'static str) -> WireError {
    WireError::Corrupt { id: BLOSC, what }
}

/// The most a frame adds to its data.
pub const MAX_OVERHEAD: usize = blosc_src::BLOSC_MAX_OVERHEAD as usize;

/// Compresses one chunk with the filter's parameters.
pub fn encode(params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
    let mut out = vec![0u8; input.len() + MAX_OVERHEAD];
    let written = encode_into(params, input, &mut out)?;
    out.truncate(written);
    Ok(out)
}

/// Compresses one chunk into `out`, which holds at least the input's length plus
/// [`MAX_OVERHEAD`]; returns the frame's length.
pub fn encode_into(params: &[u32], input: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    let typesize = params.get(2).copied().filter(|t| *t > 0).unwrap_or(1) as usize;
    let clevel = params.get(4).copied().unwrap_or(5).min(9) as c_int;
    let shuffle = params.get(5).copied().unwrap_or(1).min(2) as c_int;
    let code = params.get(6).copied().unwrap_or(0);
    let name = compressor_name(code).ok_or(WireError::Codec {
        id: BLOSC,
        message: format!(
            "compressor code {code} is unknown (0 blosclz, 1 lz4, 2 lz4hc, 3 snappy, 4 zlib, \
             5 zstd)"
        ),
    })?;
    let c_name = std::ffi::CString::new(name).map_err(|_| corrupt("compressor name"))?;
    if out.len() < input.len() + MAX_OVERHEAD {
        return Err(corrupt("the output buffer is too short"));
    }
    // SAFETY: src holds input.len() bytes, dest out.len() bytes (at least the input plus
    // the maximum overhead, enough for any input, as c-blosc documents); the compressor
    // name is a valid C string.
    let written = unsafe {
        blosc_src::blosc_compress_ctx(
            clevel,
            shuffle,
            typesize,
            input.len(),
            input.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            c_name.as_ptr(),
            0,
            1,
        )
    };
    if written <= 0 {
        return Err(WireError::Codec {
            id: BLOSC,
            message: format!("c-blosc could not compress ({written})"),
        });
    }
    Ok(written as usize)
}

/// The size a blosc frame decodes to, once its header is checked against its length.
pub fn decoded_size(input: &[u8]) -> Option<usize> {
    if input.len() < blosc_src::BLOSC_MIN_HEADER_LENGTH as usize {
        return None;
    }
    let mut nbytes: usize = 0;
    // SAFETY: the buffer holds input.len() bytes; c-blosc checks the header against it.
    let valid = unsafe {
        blosc_src::blosc_cbuffer_validate(input.as_ptr().cast::<c_void>(), input.len(), &mut nbytes)
    };
    (valid >= 0).then_some(nbytes)
}

/// Decompresses one chunk into `out`, whose length is [`decoded_size`].
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    if decoded_size(input) != Some(out.len()) {
        return Err(corrupt("the blosc header does not match the chunk"));
    }
    // SAFETY: src is a validated frame of input.len() bytes; dest holds out.len() bytes,
    // the size the header gives.
    let read = unsafe {
        blosc_src::blosc_decompress_ctx(
            input.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            1,
        )
    };
    if read < 0 || read as usize != out.len() {
        return Err(corrupt("the blosc frame does not decompress"));
    }
    Ok(out.len())
}

/// Decompresses one chunk, after checking that its header agrees with its length.
pub fn decode(input: &[u8]) -> Result<Vec<u8>, WireError> {
    let size = decoded_size(input).ok_or(corrupt("the blosc header does not match the chunk"))?;
    let mut out = vec![0u8; size];
    decode_into(input, &mut out)?;
    Ok(out)
}

/// The parameters `set_local` gives a dataset: the user's (at least four), with the first
/// four set to the filter revision, the format version, the type size and the chunk size
/// in bytes.
pub fn local_params(user: &[u32], typesize: u32, chunk_bytes: u32) -> Vec<u32> {
    let mut params = user.to_vec();
    if params.len() < 4 {
        params.resize(4, 0);
    }
    params[0] = FILTER_REVISION;
    params[1] = FORMAT_VERSION;
    params[2] = typesize;
    params[3] = chunk_bytes;
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_every_compressor() -> Result<(), WireError> {
        let data: Vec<u8> = (0..20_000u32).flat_map(|i| (i / 9).to_le_bytes()).collect();
        for code in [0, 1, 2, 3, 4, 5] {
            let params = [2, 2, 4, data.len() as u32, 5, 1, code];
            let encoded = encode(&params, &data)?;
            assert!(encoded.len() < data.len(), "{code}");
            assert_eq!(decode(&encoded)?, data, "{code}");
        }
        assert_eq!(compressor_name(1), Some("lz4"));
        Ok(())
    }

    #[test]
    fn set_local_fills_the_first_four_parameters() {
        assert_eq!(
            local_params(&[0, 0, 0, 0, 5, 1, 1], 4, 800),
            vec![2, 2, 4, 800, 5, 1, 1]
        );
        assert_eq!(local_params(&[], 8, 64), vec![2, 2, 8, 64]);
    }

    #[test]
    fn corrupt_frames_are_errors() {
        let data = vec![7u8; 4096];
        let encoded = encode(&[2, 2, 1, 4096, 5, 1, 0], &data).unwrap_or_default();
        assert!(decode(&encoded[..10]).is_err());
        assert!(decode(&encoded[..encoded.len() - 1]).is_err());
        let mut bad = encoded.clone();
        bad[12] ^= 0x7f;
        assert!(decode(&bad).is_err());
    }
}
