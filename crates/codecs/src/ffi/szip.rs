//! libaec's szip interface (`libsz`, `szlib.h`), through safe functions: one buffer
//! compressed or decompressed at a time, with the four parameters HDF5 stores.

use std::ffi::{c_int, c_void};

/// szlib's parameters, as HDF5 passes them (`SZ_com_t`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SzParams {
    /// Option flags (`SZ_*_OPTION_MASK`).
    pub(crate) options_mask: c_int,
    /// Bits per sample.
    pub(crate) bits_per_pixel: c_int,
    /// Samples per block (even, 2 to 32).
    pub(crate) pixels_per_block: c_int,
    /// Samples per scanline (the reference sample interval, times the block size).
    pub(crate) pixels_per_scanline: c_int,
}

#[link(name = "sz")]
extern "C" {
    fn SZ_BufftoBuffCompress(
        dest: *mut c_void,
        dest_len: *mut usize,
        source: *const c_void,
        source_len: usize,
        param: *mut SzParams,
    ) -> c_int;
    fn SZ_BufftoBuffDecompress(
        dest: *mut c_void,
        dest_len: *mut usize,
        source: *const c_void,
        source_len: usize,
        param: *mut SzParams,
    ) -> c_int;
}

/// szlib's status for an output buffer too small (`SZ_OUTBUFF_FULL`).
pub(crate) const OUTPUT_FULL: c_int = 2;

/// The signature szlib's two buffer-to-buffer functions share.
type BuffToBuff =
    unsafe extern "C" fn(*mut c_void, *mut usize, *const c_void, usize, *mut SzParams) -> c_int;

/// `input` compressed into `out`: the length written, or szlib's status ([`OUTPUT_FULL`]
/// when it does not fit). The parameters are checked by the caller (`kinds::szip`).
pub(crate) fn compress(params: SzParams, input: &[u8], out: &mut [u8]) -> Result<usize, c_int> {
    buffer_to_buffer(SZ_BufftoBuffCompress, params, input, out)
}

/// `input` decompressed into `out`, which must be filled exactly: the length written, or
/// szlib's status.
pub(crate) fn decompress(params: SzParams, input: &[u8], out: &mut [u8]) -> Result<usize, c_int> {
    buffer_to_buffer(SZ_BufftoBuffDecompress, params, input, out)
}

/// One call of `function` (one of szlib's two) from `input` into `out`.
fn buffer_to_buffer(
    function: BuffToBuff,
    params: SzParams,
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, c_int> {
    let mut params = params;
    let mut written = out.len();
    // SAFETY: `function` is szlib's compress or decompress; it reads `input.len()` bytes
    // of `input` and writes at most `written` (= `out.len()`) bytes into `out`, both live
    // borrows for the call; it stores the length written through `written` and only
    // reads `params`, a local.
    let status = unsafe {
        function(
            out.as_mut_ptr().cast(),
            &mut written,
            input.as_ptr().cast(),
            input.len(),
            &mut params,
        )
    };
    if status == 0 && written <= out.len() {
        Ok(written)
    } else {
        Err(status)
    }
}
