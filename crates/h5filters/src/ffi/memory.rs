//! HDF5's own allocator (`H5allocate_memory`, `H5free_memory`): where the built-in
//! filters' output comes from in-process, so that HDF5 frees it with its own allocator
//! whatever the build.

use std::ffi::c_void;

use hdf5_metno_sys::h5::{H5allocate_memory, H5free_memory};

/// HDF5's allocator, for `h5callbacks`' callbacks.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hdf5Allocator;

// SAFETY: H5allocate_memory(len, 1) returns null or a block of `len` zero bytes owned by the
// caller, which HDF5 frees with H5free_memory, its own free function.
unsafe impl h5callbacks::Allocator for Hdf5Allocator {
    fn allocate(len: usize) -> *mut c_void {
        // SAFETY: H5allocate_memory has no precondition (1: cleared, with calloc).
        unsafe { H5allocate_memory(len, 1) }
    }

    unsafe fn free(block: *mut c_void) {
        // SAFETY: the caller's contract: a block from HDF5's allocator, freed once.
        unsafe { H5free_memory(block) };
    }
}
