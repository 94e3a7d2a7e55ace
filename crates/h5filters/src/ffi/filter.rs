//! The callback HDF5 calls for each built-in filter (`H5Z_func_t`): it checks HDF5's
//! pointers, borrows the chunk and the parameters, runs [`crate::callback::run_filter`]
//! and swaps HDF5's buffer for the output.

use std::ffi::{c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use hdf5_metno_sys::h5::H5free_memory;
use hdf5_metno_sys::h5z::H5Z_FLAG_REVERSE;

use super::memory::Hdf5Buffer;
use crate::callback::{self, InFilter, Output};
use codecs::wire::{Direction, BLOSC, BZIP2, LZ4, ZSTD};

/// The type of HDF5 filter callbacks.
pub(super) type FilterFn = unsafe extern "C" fn(
    c_uint,
    usize,
    *const c_uint,
    usize,
    *mut usize,
    *mut *mut c_void,
) -> usize;

/// The callback of the built-in filter `id`.
pub(super) fn callback_for(id: u32) -> Option<FilterFn> {
    match id {
        BZIP2 => Some(filter::<BZIP2>),
        BLOSC => Some(filter::<BLOSC>),
        LZ4 => Some(filter::<LZ4>),
        ZSTD => Some(filter::<ZSTD>),
        _ => None,
    }
}

/// The callback HDF5 calls for the built-in filter `ID`: reads the `nbytes` bytes of
/// `*buf`, frees it and puts in `*buf` a new buffer from HDF5's allocator holding the
/// result (and its size in `*buf_size`), and returns the result's length. On a failure
/// (a corrupt chunk, one that decodes beyond the limit, arguments that fail a check, a
/// panic) it returns 0, which HDF5 reports as a filter error, and leaves `*buf` alone.
///
/// # Safety
/// HDF5's filter-callback contract: `buf` and `buf_size` point to HDF5's buffer pointer
/// and the buffer's allocated size, readable and writable during the call; `*buf` was
/// allocated by HDF5's allocator, is owned by the callback and holds at least `nbytes`
/// initialised bytes; `cd_values` points to `cd_nelmts` values; nothing else uses these
/// during the call.
unsafe extern "C" fn filter<const ID: u32>(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    // Nothing is written through HDF5's pointers before the output is complete, so a
    // panic leaves no broken state behind.
    let call = AssertUnwindSafe(|| {
        let _marker = InFilter::enter();
        let arguments = Arguments {
            flags,
            cd_nelmts,
            cd_values,
            nbytes,
            buf_size,
            buf,
        };
        // SAFETY: these are HDF5's arguments, unchanged, under the contract of this
        // callback, which is the one `run` requires.
        unsafe { run(ID, arguments) }
    });
    catch_unwind(call).ok().flatten().unwrap_or(0)
}

/// The arguments of a filter callback, as HDF5 passes them.
struct Arguments {
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
}

/// The most bytes a slice may span.
const MAX_SLICE_BYTES: usize = isize::MAX as usize;

/// One call of the filter `id`: the result's length, or `None` on a failure, which
/// leaves `*buf` alone.
///
/// # Safety
/// The contract of [`filter`], for `arguments`.
unsafe fn run(id: u32, arguments: Arguments) -> Option<usize> {
    let Arguments {
        flags,
        cd_nelmts,
        cd_values,
        nbytes,
        buf_size,
        buf,
    } = arguments;
    if buf.is_null() || !buf.is_aligned() || buf_size.is_null() || !buf_size.is_aligned() {
        return None;
    }
    // SAFETY: `buf` is non-null and aligned (checked above) and points to HDF5's buffer
    // pointer, readable during the call (the contract).
    let data = unsafe { buf.read() };
    // SAFETY: likewise for `buf_size`, which points to the buffer's allocated size.
    let allocated = unsafe { buf_size.read() };
    if nbytes > allocated || nbytes > MAX_SLICE_BYTES || (nbytes > 0 && data.is_null()) {
        return None;
    }
    let params: &[u32] = if cd_nelmts == 0 {
        &[]
    } else {
        let fits = cd_nelmts <= MAX_SLICE_BYTES / size_of::<c_uint>();
        if cd_values.is_null() || !cd_values.is_aligned() || !fits {
            return None;
        }
        // SAFETY: `cd_values` is non-null and aligned, and `cd_nelmts` values span at
        // most isize::MAX bytes (checked above); they are initialised and unchanged
        // during the call (the contract).
        unsafe { std::slice::from_raw_parts(cd_values, cd_nelmts) }
    };
    let input: &[u8] = if nbytes == 0 {
        &[]
    } else {
        // SAFETY: `data` is non-null and holds at least `nbytes` initialised bytes, at
        // most isize::MAX (checked above; the contract); nothing writes to it during the
        // call, and it is freed only below, once the output no longer borrows it.
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), nbytes) }
    };
    let direction = if flags & H5Z_FLAG_REVERSE != 0 {
        Direction::Decode
    } else {
        Direction::Encode
    };
    let Output { buffer, len } = callback::run_filter::<Hdf5Buffer>(id, direction, params, input)?;
    let (out, size) = buffer.into_raw();
    if len == 0 || len > size {
        // SAFETY: `out` is the block of `size` bytes from HDF5's allocator just taken
        // from its owner, freed once, here.
        unsafe { H5free_memory(out) };
        return None;
    }
    // SAFETY: `input` is no longer used; `data` came from HDF5's allocator and this call
    // owns it (the contract), so it is freed once, by that allocator; `buf` and
    // `buf_size` are non-null, aligned and writable (checked above; the contract); HDF5
    // takes ownership of `out`, a block of `size` bytes from its allocator whose first
    // `len` (checked above: between 1 and `size`) are the result.
    unsafe {
        H5free_memory(data);
        buf.write(out);
        buf_size.write(size);
    }
    Some(len)
}

#[cfg(test)]
mod tests {
    use std::ptr;

    use super::*;
    use crate::callback::OutputBuffer;
    use codecs::wire;
    use codecs::with_decoded_chunk_limit;

    /// A buffer HDF5 would pass a filter: from its allocator, holding `bytes`.
    fn hdf5_copy(bytes: &[u8]) -> Option<(*mut c_void, usize)> {
        let mut buffer = Hdf5Buffer::zeroed(bytes.len().max(1))?;
        buffer
            .bytes()
            .get_mut(..bytes.len())?
            .copy_from_slice(bytes);
        Some(buffer.into_raw())
    }

    /// Calls the real callback of `id` as HDF5 does, on a copy of `chunk`: the result, or
    /// `None` for a failure (after checking that a failure left the buffer alone).
    fn call(id: u32, flags: c_uint, params: &[u32], chunk: &[u8]) -> Option<Vec<u8>> {
        let _lock = hdf5_metno_sys::LOCK.lock();
        let callback = callback_for(id)?;
        let (mut buf, mut buf_size) = hdf5_copy(chunk)?;
        let before = buf;
        // SAFETY: `buf` is a block of `buf_size` bytes from HDF5's allocator holding the
        // `chunk.len()` bytes of the chunk, owned by this call; `buf`, `buf_size` and
        // `params` are live locals: HDF5's contract.
        let len = unsafe {
            callback(
                flags,
                params.len(),
                params.as_ptr(),
                chunk.len(),
                &mut buf_size,
                &mut buf,
            )
        };
        // SAFETY: after the call `buf` is a block of at least `buf_size` bytes from HDF5's
        // allocator, the result's `len` first bytes initialised (the callback's promise;
        // on a failure, the chunk's); this call owns it and frees it once.
        let result = unsafe {
            let shown = if len == 0 { chunk.len() } else { len };
            let bytes = std::slice::from_raw_parts(buf.cast::<u8>(), shown.min(buf_size)).to_vec();
            H5free_memory(buf);
            bytes
        };
        if len == 0 {
            assert_eq!(buf, before, "a failure must leave the buffer alone");
            assert_eq!(result, chunk);
            return None;
        }
        Some(result)
    }

    #[test]
    fn the_callbacks_encode_and_decode_hdf5s_buffers() {
        let data: Vec<u8> = (0..30_000u32)
            .flat_map(|i| (i / 11).to_le_bytes())
            .collect();
        for (id, params) in [
            (BZIP2, vec![9]),
            (ZSTD, vec![3]),
            (LZ4, vec![]),
            (BLOSC, vec![2, 2, 4, 120_000, 5, 1, 1]),
        ] {
            let encoded = call(id, 0, &params, &data);
            assert_eq!(encoded, wire::encode(id, &params, &data).ok(), "{id}");
            let encoded = encoded.unwrap_or_default();
            let reverse = H5Z_FLAG_REVERSE;
            let decoded = call(id, reverse, &params, &encoded);
            assert_eq!(decoded.as_ref(), Some(&data), "{id}");
            let limited = with_decoded_chunk_limit(1000, || call(id, reverse, &params, &encoded));
            assert_eq!(limited, None, "{id}");
            assert_eq!(
                call(id, reverse, &params, &encoded[..encoded.len() / 2]),
                None
            );
        }
    }

    #[test]
    fn null_and_inconsistent_pointers_are_failures() {
        let _lock = hdf5_metno_sys::LOCK.lock();
        let Some(callback) = callback_for(ZSTD) else {
            panic!("zstd has a callback");
        };
        let Some((mut buf, mut size)) = hdf5_copy(b"0123456789") else {
            panic!("HDF5 allocates 10 bytes");
        };
        let mut null: *mut c_void = ptr::null_mut();
        let values = [3u32];
        // SAFETY: each call breaks HDF5's contract only in ways the callback checks:
        // null pointers, a null parameter array, more bytes than the buffer holds; the
        // other pointers are live locals and `buf` is a 10-byte block from HDF5.
        let statuses = unsafe {
            [
                callback(0, 1, values.as_ptr(), 10, &mut size, ptr::null_mut()),
                callback(0, 1, values.as_ptr(), 10, ptr::null_mut(), &mut buf),
                callback(0, 1, values.as_ptr(), 10, &mut size, &mut null),
                callback(0, 1, ptr::null(), 10, &mut size, &mut buf),
                callback(0, 1, values.as_ptr(), 11, &mut size, &mut buf),
            ]
        };
        assert_eq!(statuses, [0; 5]);
        assert_eq!(size, 10);
        // SAFETY: `buf` is still the block from `hdf5_copy`, owned here, freed once.
        unsafe { H5free_memory(buf) };
    }
}
