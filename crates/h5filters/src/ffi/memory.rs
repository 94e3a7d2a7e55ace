//! Memory from HDF5's allocator (`H5allocate_memory`): what a filter hands back to HDF5.
//! It is zeroed as soon as it is allocated, so no slice ever covers uninitialised bytes.

use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use hdf5_metno_sys::h5::{H5allocate_memory, H5free_memory};

use crate::callback::OutputBuffer;

/// A block of zeroed or written bytes from HDF5's allocator, freed on drop unless
/// handed to HDF5 with [`Hdf5Buffer::into_raw`].
#[derive(Debug)]
pub(super) struct Hdf5Buffer {
    ptr: NonNull<u8>,
    len: usize,
}

impl Hdf5Buffer {
    /// Hands the block over: its address and length, for HDF5 to own and free.
    pub(super) fn into_raw(self) -> (*mut c_void, usize) {
        let this = ManuallyDrop::new(self);
        (this.ptr.as_ptr().cast::<c_void>(), this.len)
    }
}

impl OutputBuffer for Hdf5Buffer {
    fn zeroed(len: usize) -> Option<Self> {
        if len == 0 || isize::try_from(len).is_err() {
            return None;
        }
        // SAFETY: H5allocate_memory has no precondition; it returns null or a block of
        // `len` bytes that the caller owns (0: not cleared, it is zeroed below).
        let raw = unsafe { H5allocate_memory(len, 0) };
        let ptr = NonNull::new(raw.cast::<u8>())?;
        // SAFETY: `ptr` starts the block of `len` bytes just allocated (non-null, checked
        // above), writable and referenced by nothing else.
        unsafe { ptr.as_ptr().write_bytes(0, len) };
        Some(Self { ptr, len })
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` starts a block of `len` bytes (at most isize::MAX) owned by
        // `self`, initialised since `zeroed` and written only through such slices since;
        // `&mut self` makes this borrow the only one.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Hdf5Buffer {
    fn drop(&mut self) {
        // SAFETY: the block came from H5allocate_memory and `self` still owns it
        // (`into_raw` skips this drop), so it is freed once, by HDF5's allocator.
        unsafe { H5free_memory(self.ptr.as_ptr().cast::<c_void>()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_and_writable() {
        let _lock = hdf5_metno_sys::LOCK.lock();
        let mut buffer = Hdf5Buffer::zeroed(4096);
        let bytes = buffer.as_mut().map(Hdf5Buffer::bytes);
        assert!(bytes
            .as_ref()
            .is_some_and(|b| b.len() == 4096 && b.iter().all(|x| *x == 0)));
        if let Some(bytes) = bytes {
            bytes.fill(7);
        }
        assert!(Hdf5Buffer::zeroed(0).is_none());
        assert!(Hdf5Buffer::zeroed(usize::MAX).is_none());
    }
}
