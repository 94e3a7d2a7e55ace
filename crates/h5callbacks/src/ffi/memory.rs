//! The memory a filter hands back to HDF5, which frees it: from HDF5's own allocator
//! in-process, from the C library's (`malloc`) in a plugin, as the standard plugins do
//! (a release build of HDF5 frees with `free`). It comes zeroed from the allocator
//! (`calloc`: a large block's pages are zero until written, so a chunk that claims a
//! large size costs no memory it does not fill), so no slice ever covers uninitialised
//! bytes.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use crate::callback::OutputBuffer;

/// Where a filter's output comes from: memory that HDF5 frees once the filter returns
/// it.
///
/// # Safety
/// [`Allocator::allocate`] returns null or a block of at least `len` writable bytes, all
/// zero, owned by the caller, that HDF5's free function and [`Allocator::free`] both
/// accept.
pub unsafe trait Allocator {
    /// A block of `len` zero bytes (`len` > 0), or null when memory is short.
    fn allocate(len: usize) -> *mut c_void;

    /// Frees a block.
    ///
    /// # Safety
    /// `block` came from this allocator, or from HDF5's (a chunk HDF5 handed the
    /// filter), and is freed once.
    unsafe fn free(block: *mut c_void);
}

/// The C library's `calloc` and `free`: what a plugin uses, as HDF5 itself allocates
/// with them in its release builds.
#[derive(Debug, Clone, Copy)]
pub struct LibcAllocator;

// SAFETY: calloc returns null or a block of `len` zero bytes owned by the caller, and
// HDF5's release builds free filter buffers with free.
unsafe impl Allocator for LibcAllocator {
    fn allocate(len: usize) -> *mut c_void {
        // SAFETY: calloc has no precondition.
        unsafe { libc::calloc(1, len) }
    }

    unsafe fn free(block: *mut c_void) {
        // SAFETY: the caller's contract: a block from malloc (HDF5's allocator is
        // malloc in its release builds), freed once.
        unsafe { libc::free(block) }
    }
}

/// A block of zeroed or written bytes from `A`, freed on drop unless handed to HDF5
/// with [`Buffer::into_raw`].
#[derive(Debug)]
pub(super) struct Buffer<A: Allocator> {
    ptr: NonNull<u8>,
    len: usize,
    allocator: PhantomData<A>,
}

impl<A: Allocator> Buffer<A> {
    /// Hands the block over: its address and length, for HDF5 to own and free.
    pub(super) fn into_raw(self) -> (*mut c_void, usize) {
        let this = ManuallyDrop::new(self);
        (this.ptr.as_ptr().cast::<c_void>(), this.len)
    }
}

impl<A: Allocator> OutputBuffer for Buffer<A> {
    fn zeroed(len: usize) -> Option<Self> {
        if len == 0 || isize::try_from(len).is_err() {
            return None;
        }
        // Zeroed by the allocator (its contract).
        let ptr = NonNull::new(A::allocate(len).cast::<u8>())?;
        Some(Self {
            ptr,
            len,
            allocator: PhantomData,
        })
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` starts a block of `len` bytes (at most isize::MAX) owned by
        // `self`, initialised since `zeroed` and written only through such slices since;
        // `&mut self` makes this borrow the only one.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<A: Allocator> Drop for Buffer<A> {
    fn drop(&mut self) {
        // SAFETY: the block came from `A` and `self` still owns it (`into_raw` skips
        // this drop), so it is freed once, by `A`.
        unsafe { A::free(self.ptr.as_ptr().cast::<c_void>()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_and_writable() {
        let mut buffer = Buffer::<LibcAllocator>::zeroed(4096);
        let bytes = buffer.as_mut().map(Buffer::bytes);
        assert!(bytes
            .as_ref()
            .is_some_and(|b| b.len() == 4096 && b.iter().all(|x| *x == 0)));
        if let Some(bytes) = bytes {
            bytes.fill(7);
        }
        assert!(Buffer::<LibcAllocator>::zeroed(0).is_none());
        assert!(Buffer::<LibcAllocator>::zeroed(usize::MAX).is_none());
    }
}
