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

/// Whether HDF5 can use the filter `id`: built in, registered, or loadable as a plugin
/// from the search path. Works whatever files are open (netCDF-3 ones included).
pub fn filter_available(id: u32) -> bool {
    let Ok(id) = hdf5_metno_sys::h5z::H5Z_filter_t::try_from(id) else {
        return false;
    };
    // SAFETY: H5open initialises the library if needed; H5Zfilter_avail only queries
    // HDF5's filter table and plugin path.
    locked(|| unsafe {
        hdf5_metno_sys::h5::H5open();
        hdf5_metno_sys::h5z::H5Zfilter_avail(id) > 0
    })
}
