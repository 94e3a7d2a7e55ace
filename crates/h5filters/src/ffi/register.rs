//! The registration of a built-in filter with HDF5 (`H5Zregister`), and of placeholders
//! for filters nctools copies without running.

use std::ffi::CStr;

use hdf5_metno_sys::h5::H5open;
use hdf5_metno_sys::h5z::{H5Z_class2_t, H5Z_filter_t, H5Zregister, H5Z_CLASS_T_VERS};

use std::ffi::{c_uint, c_void};

use super::memory::Hdf5Allocator;

/// Registers the built-in filter `id` under `name`; whether HDF5 took it (also `false`
/// for an id that is not built in).
pub(crate) fn register_filter(id: u32, name: &'static CStr) -> bool {
    let Some(class) = h5callbacks::filter_class::<Hdf5Allocator>(id, name) else {
        return false;
    };
    let _guard = hdf5_metno_sys::LOCK.lock();
    // SAFETY: H5open has no precondition: it initialises the library, or does nothing
    // when it already is; the lock keeps this process's other HDF5 calls out meanwhile.
    unsafe { H5open() };
    // SAFETY: `class` is laid out as an H5Z_class2_t of the version HDF5 expects, alive
    // for the call, which copies it; the name it points to is static; the callbacks
    // have HDF5's signatures and honour its contracts (h5callbacks).
    unsafe { H5Zregister(class.as_ptr()) >= 0 }
}

/// The callback of a placeholder filter: it always fails (HDF5 reports a filter error),
/// so that a chunk is never encoded or decoded by it.
extern "C" fn refuse(
    _flags: c_uint,
    _cd_nelmts: usize,
    _cd_values: *const c_uint,
    _nbytes: usize,
    _buf_size: *mut usize,
    _buf: *mut *mut c_void,
) -> usize {
    0
}

/// Registers a placeholder for the filter `id` under `name`: a filter that HDF5 lets a
/// dataset declare but that fails whenever it is run. Whether HDF5 took it.
pub(crate) fn register_placeholder(id: u32, name: &'static CStr) -> bool {
    let Ok(id) = H5Z_filter_t::try_from(id) else {
        return false;
    };
    let class = H5Z_class2_t {
        version: H5Z_CLASS_T_VERS as i32,
        id,
        encoder_present: 1,
        decoder_present: 1,
        name: name.as_ptr(),
        can_apply: None,
        set_local: None,
        filter: Some(refuse),
    };
    let _guard = hdf5_metno_sys::LOCK.lock();
    // SAFETY: H5open has no precondition (see register_filter).
    unsafe { H5open() };
    // SAFETY: a complete H5Z_class2_t of HDF5's version, copied by the call; the name is
    // static; `refuse` has HDF5's callback signature and touches none of its arguments.
    unsafe { H5Zregister(std::ptr::from_ref(&class).cast()) >= 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codecs::wire::{BLOSC, BZIP2, LZ4, ZSTD};

    #[test]
    fn every_built_in_filter_registers_and_others_do_not() {
        for id in [BZIP2, BLOSC, LZ4, ZSTD] {
            assert!(register_filter(id, c"test"), "{id}");
        }
        assert!(!register_filter(1, c"deflate"));
    }
}
