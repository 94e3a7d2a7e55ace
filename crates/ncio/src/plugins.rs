//! Where HDF5 looks for filter plugins, and whether a filter is available.

use crate::sys::with_lib;

/// HDF5's plugin search path, in order (HDF5_PLUGIN_PATH replaces the compiled-in default).
pub fn plugin_search_paths() -> Vec<String> {
    with_lib(crate::sys::plugin_search_paths)
}

/// Whether HDF5 can use the filter `id`: built in, registered, or loadable as a plugin
/// from the search path. Works whatever files are open (netCDF-3 ones included).
pub fn filter_available(id: u32) -> bool {
    with_lib(|lib| crate::sys::filter_available(lib, id))
}

/// The versions of the C libraries in use: libnetcdf's text (`4.9.0 of ...`) and
/// libhdf5's (`1.10.8`, `None` when it does not say).
pub fn library_versions() -> (String, Option<String>) {
    with_lib(|lib| {
        (
            crate::sys::netcdf_version(lib),
            crate::sys::hdf5_version(lib),
        )
    })
}
