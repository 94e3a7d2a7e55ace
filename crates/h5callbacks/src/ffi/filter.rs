//! The callback HDF5 calls for each filter nctools carries (`H5Z_func_t`): it checks
//! HDF5's pointers, borrows the chunk and the parameters, runs
//! [`crate::callback::run_filter`] and swaps HDF5's buffer for the output, allocated by
//! the [`Allocator`] the callback was made for.

use std::ffi::{c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::abi::{FilterFn, FLAG_REVERSE};
use super::memory::{Allocator, Buffer};
use crate::callback::{self, InFilter, Output};
use codecs::wire::Direction;

/// The HDF5 id of the filter in slot `slot`: the `slot`th of
/// `codecs::registry::carried_codecs()`.
pub(crate) fn carried_id(slot: usize) -> Option<u32> {
    codecs::registry::carried_codecs()
        .nth(slot)
        .and_then(|c| c.entry().hdf5_id)
}

/// The slot of the carried filter `id`.
pub(crate) fn slot_of(id: u32) -> Option<usize> {
    codecs::registry::carried_codecs()
        .position(|c| c.entry().hdf5_id == Some(id))
        .filter(|slot| *slot < codecs::registry::SLOTS)
}

/// The callback of the filter `id` nctools carries, its output in memory from `A`;
/// `None` for another id.
pub(crate) fn filter_callback<A: Allocator>(id: u32) -> Option<FilterFn> {
    codecs::by_slot!(slot_of(id)?, filter, A)
}

/// The callback HDF5 calls for the filter in slot `SLOT`: reads the `nbytes` bytes of `*buf`,
/// frees it and puts in `*buf` a new buffer from `A` holding the result (and its size
/// in `*buf_size`), and returns the result's length. On a failure
/// (a corrupt chunk, one that decodes beyond the limit, arguments that fail a check, a
/// panic) it returns 0, which HDF5 reports as a filter error, and leaves `*buf` alone.
///
/// # Safety
/// HDF5's filter-callback contract: `buf` and `buf_size` point to HDF5's buffer pointer
/// and the buffer's allocated size, readable and writable during the call; `*buf` was
/// allocated by HDF5's allocator (which `A::free` accepts), is owned by the callback and
/// holds at least `nbytes` initialised bytes; `cd_values` points to `cd_nelmts` values; nothing else uses these
/// during the call.
unsafe extern "C" fn filter<A: Allocator, const SLOT: usize>(
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
        let id = carried_id(SLOT)?;
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
        unsafe { run::<A>(id, arguments) }
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
unsafe fn run<A: Allocator>(id: u32, arguments: Arguments) -> Option<usize> {
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
    let direction = if flags & FLAG_REVERSE != 0 {
        Direction::Decode
    } else {
        Direction::Encode
    };
    let Output { buffer, len } = callback::run_filter::<Buffer<A>>(id, direction, params, input)?;
    let (out, size) = buffer.into_raw();
    if len == 0 || len > size {
        // SAFETY: `out` is the block of `size` bytes from `A` just taken from its owner,
        // freed once, here.
        unsafe { A::free(out) };
        return None;
    }
    // SAFETY: `input` is no longer used; `data` came from HDF5's allocator, which
    // `A::free` accepts, and this call owns it (the contract), so it is freed once;
    // `buf` and `buf_size` are non-null, aligned and writable (checked above; the
    // contract); HDF5 takes ownership of `out`, a block of `size` bytes from `A`, which
    // HDF5 frees, whose first `len` (checked above: between 1 and `size`) are the result.
    unsafe {
        A::free(data);
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
    use crate::LibcAllocator;
    use codecs::wire::{self, BLOSC, BZIP2, LZ4, ZSTD};
    use codecs::with_decoded_chunk_limit;

    /// A buffer HDF5 would pass a plugin's filter: from malloc, holding `bytes`.
    fn hdf5_copy(bytes: &[u8]) -> Option<(*mut c_void, usize)> {
        let mut buffer = Buffer::<LibcAllocator>::zeroed(bytes.len().max(1))?;
        buffer
            .bytes()
            .get_mut(..bytes.len())?
            .copy_from_slice(bytes);
        Some(buffer.into_raw())
    }

    /// Calls the real callback of `id` as HDF5 does, on a copy of `chunk`: the result, or
    /// `None` for a failure (after checking that a failure left the buffer alone).
    fn call(id: u32, flags: c_uint, params: &[u32], chunk: &[u8]) -> Option<Vec<u8>> {
        let callback = filter_callback::<LibcAllocator>(id)?;
        let (mut buf, mut buf_size) = hdf5_copy(chunk)?;
        let before = buf;
        // SAFETY: `buf` is a block of `buf_size` bytes from malloc holding the
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
        // SAFETY: after the call `buf` is a block of at least `buf_size` bytes from
        // malloc, the result's `len` first bytes initialised (the callback's promise;
        // on a failure, the chunk's); this call owns it and frees it once.
        let result = unsafe {
            let shown = if len == 0 { chunk.len() } else { len };
            let bytes = std::slice::from_raw_parts(buf.cast::<u8>(), shown.min(buf_size)).to_vec();
            LibcAllocator::free(buf);
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
            let reverse = FLAG_REVERSE;
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
        let Some(callback) = filter_callback::<LibcAllocator>(ZSTD) else {
            panic!("zstd has a callback");
        };
        let Some((mut buf, mut size)) = hdf5_copy(b"0123456789") else {
            panic!("malloc gives 10 bytes");
        };
        let mut null: *mut c_void = ptr::null_mut();
        let values = [3u32];
        // SAFETY: each call breaks HDF5's contract only in ways the callback checks:
        // null pointers, a null parameter array, more bytes than the buffer holds; the
        // other pointers are live locals and `buf` is a 10-byte block from malloc.
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
        unsafe { LibcAllocator::free(buf) };
    }

    /// An allocator that panics, to check that a panic inside a callback becomes a
    /// filter failure.
    struct Panicking;

    // SAFETY: `allocate` never returns; `free` is the C library's.
    unsafe impl Allocator for Panicking {
        fn allocate(_len: usize) -> *mut c_void {
            panic!("a panic inside the filter");
        }

        unsafe fn free(block: *mut c_void) {
            // SAFETY: the caller's contract: a block from malloc, freed once.
            unsafe { LibcAllocator::free(block) }
        }
    }

    #[test]
    fn a_panic_inside_the_callback_is_a_failure() {
        let Some(callback) = filter_callback::<Panicking>(ZSTD) else {
            panic!("zstd has a callback");
        };
        let Some((mut buf, mut size)) = hdf5_copy(b"0123456789") else {
            panic!("malloc gives 10 bytes");
        };
        let before = buf;
        let values = [3u32];
        // SAFETY: HDF5's contract: `buf` is a 10-byte block from malloc holding the
        // chunk, owned by the call; the other pointers are live locals.
        let status = unsafe { callback(0, 1, values.as_ptr(), 10, &mut size, &mut buf) };
        assert_eq!((status, buf, size), (0, before, 10));
        assert!(!crate::in_filter_callback());
        // SAFETY: `buf` is still the block from `hdf5_copy`, owned here, freed once.
        unsafe { LibcAllocator::free(buf) };
    }
}
