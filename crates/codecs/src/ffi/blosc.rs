//! c-blosc (built from source by `blosc-src`), through safe functions that check what
//! c-blosc relies on before calling it. The context functions are used, so no global
//! state is shared between threads.

use std::ffi::{c_char, c_int, c_void, CStr};

/// The most a frame adds to its data.
pub(crate) const MAX_OVERHEAD: usize = blosc_src::BLOSC_MAX_OVERHEAD as usize;

/// The length of a frame's header, the least c-blosc reads.
const MIN_HEADER_LENGTH: usize = blosc_src::BLOSC_MIN_HEADER_LENGTH as usize;

/// The name of the compressor with this code, if c-blosc has it.
pub(crate) fn compressor_name(code: u32) -> Option<&'static str> {
    let code = c_int::try_from(code).ok()?;
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: `name` is a live local, a valid out-pointer for the call; c-blosc only
    // stores a pointer to one of its static strings in it.
    let status = unsafe { blosc_src::blosc_compcode_to_compname(code, &mut name) };
    if status < 0 || name.is_null() {
        return None;
    }
    // SAFETY: c-blosc succeeded and `name` is non-null (checked above): it points to one
    // of c-blosc's static NUL-terminated compressor names, alive for the whole program.
    unsafe { CStr::from_ptr(name) }.to_str().ok()
}

/// How c-blosc compresses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings<'a> {
    /// Compression level, 0-9.
    pub(crate) clevel: c_int,
    /// 0 none, 1 byte, 2 bit shuffle.
    pub(crate) shuffle: c_int,
    /// The element size for the shuffle.
    pub(crate) typesize: usize,
    /// The compressor's name ([`compressor_name`]).
    pub(crate) compressor: &'a CStr,
}

/// Compresses `input` into `out` as one blosc frame: the frame's length, or c-blosc's
/// status when it fails (negative for an error, 0 when the frame does not fit; also 0,
/// without calling c-blosc, when `out` is shorter than the input plus [`MAX_OVERHEAD`],
/// which c-blosc documents as enough for any input).
pub(crate) fn compress(
    settings: Settings<'_>,
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, c_int> {
    if input
        .len()
        .checked_add(MAX_OVERHEAD)
        .is_none_or(|needed| needed > out.len())
    {
        return Err(0);
    }
    // SAFETY: c-blosc reads `input.len()` bytes from `input` and writes at most
    // `out.len()` bytes (destsize) into `out`, initialised memory borrowed mutably here;
    // the compressor name is a NUL-terminated string alive for the call.
    let written = unsafe {
        blosc_src::blosc_compress_ctx(
            settings.clevel,
            settings.shuffle,
            settings.typesize,
            input.len(),
            input.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            settings.compressor.as_ptr(),
            0,
            1,
        )
    };
    usize::try_from(written)
        .ok()
        .filter(|n| *n > 0)
        .ok_or(written)
}

/// The size the blosc frame `input` decodes to, when c-blosc finds its header
/// consistent with the frame's length.
pub(crate) fn decoded_size(input: &[u8]) -> Option<usize> {
    if input.len() < MIN_HEADER_LENGTH {
        return None;
    }
    let mut nbytes: usize = 0;
    // SAFETY: c-blosc reads the header, the first MIN_HEADER_LENGTH bytes, of `input`,
    // which holds at least that many (checked above), and writes `nbytes`, a live local.
    let valid = unsafe {
        blosc_src::blosc_cbuffer_validate(input.as_ptr().cast::<c_void>(), input.len(), &mut nbytes)
    };
    (valid >= 0).then_some(nbytes)
}

/// Decompresses the blosc frame `input` into `out`, whose length must be the frame's
/// [`decoded_size`]: the length written, or `None` when it fails.
pub(crate) fn decompress(input: &[u8], out: &mut [u8]) -> Option<usize> {
    if decoded_size(input) != Some(out.len()) {
        return None;
    }
    // SAFETY: the header is valid and gives `input.len()` as the frame's compressed size
    // (checked by `decoded_size` just above), the length c-blosc reads the frame up to;
    // c-blosc writes at most `out.len()` bytes (destsize) into `out`, initialised memory
    // borrowed mutably here.
    let read = unsafe {
        blosc_src::blosc_decompress_ctx(
            input.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            1,
        )
    };
    usize::try_from(read).ok()
}
