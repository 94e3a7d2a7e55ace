//! Blosc (32001), as the HDF Group / PyTables `blosc_filter` writes it: each chunk is one
//! blosc1 frame. Parameters: filter version, blosc format version, type size, chunk size
//! in bytes (the four set by `set_local`), then compression level (default 5), shuffle
//! (0 none, 1 byte, 2 bit; default 1) and compressor code (0 blosclz, 1 lz4, 2 lz4hc,
//! 3 snappy, 4 zlib, 5 zstd; default blosclz).
//!
//! Implemented with c-blosc itself (the `blosc-src` crate builds it from source): the
//! reference implementation, so frames match the standard plugin's; a pure-Rust blosc
//! would need blosclz and every inner codec. The calls into C are in `crate::ffi::blosc`;
//! this module is safe code.

use std::ffi::{c_int, CString};

use crate::ffi::blosc as c_blosc;
use crate::wire::WireError;

pub use crate::known::BLOSC;

/// Blosc's compressor names, by their code (the filter's seventh parameter).
pub const COMPRESSORS: [&str; 6] = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];

/// The filter revision the HDF Group plugin records in parameter 0.
pub const FILTER_REVISION: u32 = 2;

/// The blosc frame format version recorded in parameter 1.
pub const FORMAT_VERSION: u32 = blosc_src::BLOSC_VERSION_FORMAT;

/// The name of the compressor with this code, if c-blosc has it.
pub fn compressor_name(code: u32) -> Option<&'static str> {
    c_blosc::compressor_name(code)
}

fn corrupt(what: &'static str) -> WireError {
    WireError::Corrupt { id: BLOSC, what }
}

/// The most a frame adds to its data.
pub const MAX_OVERHEAD: usize = c_blosc::MAX_OVERHEAD;

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
    let compressor = CString::new(name).map_err(|_| corrupt("compressor name"))?;
    if out.len() < input.len().saturating_add(MAX_OVERHEAD) {
        return Err(corrupt("the output buffer is too short"));
    }
    let settings = c_blosc::Settings {
        clevel,
        shuffle,
        typesize,
        compressor: &compressor,
    };
    c_blosc::compress(settings, input, out).map_err(|status| WireError::Codec {
        id: BLOSC,
        message: format!("c-blosc could not compress ({status})"),
    })
}

/// The size a blosc frame decodes to, once its header is checked against its length.
pub fn decoded_size(input: &[u8]) -> Option<usize> {
    c_blosc::decoded_size(input)
}

/// Decompresses one chunk into `out`, whose length is [`decoded_size`].
pub fn decode_into(input: &[u8], out: &mut [u8]) -> Result<usize, WireError> {
    if decoded_size(input) != Some(out.len()) {
        return Err(corrupt("the blosc header does not match the chunk"));
    }
    match c_blosc::decompress(input, out) {
        Some(read) if read == out.len() => Ok(read),
        _ => Err(corrupt("the blosc frame does not decompress")),
    }
}

/// Decompresses one chunk, after checking that its header agrees with its length and
/// that it decodes to at most `max_output` bytes (before allocating anything).
pub fn decode(input: &[u8], max_output: usize) -> Result<Vec<u8>, WireError> {
    let size = decoded_size(input).ok_or(corrupt("the blosc header does not match the chunk"))?;
    if size > max_output {
        return Err(WireError::TooLarge {
            id: BLOSC,
            limit: max_output,
        });
    }
    let mut out = vec![0u8; size];
    decode_into(input, &mut out)?;
    Ok(out)
}

/// The type size blosc shuffles over for elements of `element` bytes: the element size,
/// or 1 past 255 bytes, as the plugin's set-local callback and c-blosc itself decide.
pub fn typesize(element: usize) -> u32 {
    u32::try_from(element)
        .ok()
        .filter(|size| *size <= 255)
        .unwrap_or(1)
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

/// What blosc's `set_local` records for a dataset whose type is `type_size` bytes,
/// `base_size` for the elements of an array type (else the same), chunked as
/// `chunk_dims`: [`local_params`] with the element size (1 when above 255, as the
/// plugin does) and the chunk size in bytes (at most `u32::MAX`).
pub fn set_local_params(
    user: &[u32],
    type_size: usize,
    base_size: usize,
    chunk_dims: &[u64],
) -> Vec<u32> {
    let element = typesize(base_size);
    let chunk_bytes = chunk_dims
        .iter()
        .fold(type_size as u64, |bytes, d| bytes.saturating_mul(*d));
    local_params(
        user,
        element,
        u32::try_from(chunk_bytes).unwrap_or(u32::MAX),
    )
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
            assert_eq!(decode(&encoded, data.len())?, data, "{code}");
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
        // A 10 x 20 chunk of arrays of three 4-byte values; elements of 300 bytes.
        assert_eq!(
            set_local_params(&[0, 0, 0, 0, 9], 12, 4, &[10, 20]),
            vec![2, 2, 4, 2400, 9]
        );
        assert_eq!(set_local_params(&[], 300, 300, &[2]), vec![2, 2, 1, 600]);
        assert_eq!(
            set_local_params(&[], 8, 8, &[1 << 20, 1 << 20]),
            vec![2, 2, 8, u32::MAX]
        );
    }

    #[test]
    fn corrupt_frames_are_errors() {
        let data = vec![7u8; 4096];
        let encoded = encode(&[2, 2, 1, 4096, 5, 1, 0], &data).unwrap_or_default();
        assert!(decode(&encoded[..10], 4096).is_err());
        assert!(decode(&encoded[..encoded.len() - 1], 4096).is_err());
        let mut bad = encoded.clone();
        bad[12] ^= 0x7f;
        assert!(decode(&bad, 4096).is_err());
    }
}
