//! Where HDF5 looks for filter plugins, and whether a filter is available.

use std::ffi::c_uint;

use hdf5_metno_sys::h5pl::{H5PLget, H5PLsize};

use crate::ffi::locked;

/// HDF5's plugin search path, in order (HDF5_PLUGIN_PATH replaces the compiled-in default).
pub fn plugin_search_paths() -> Vec<String> {
    locked(|| {
        let mut n: c_uint = 0;
        // SAFETY: n is a valid out-pointer.
        if unsafe { H5PLsize(&mut n) } < 0 {
            return Vec::new();
        }
        (0..n)
            .filter_map(|i| {
                let mut buf = vec![0u8; 4096];
                // SAFETY: buf holds buf.len() bytes; HDF5 writes a NUL-terminated path.
                let len = unsafe { H5PLget(i, buf.as_mut_ptr().cast(), buf.len()) };
                let len = usize::try_from(len).ok()?.min(buf.len());
                buf.truncate(len);
                Some(String::from_utf8_lossy(&buf).into_owned())
            })
            .collect()
    })
}
