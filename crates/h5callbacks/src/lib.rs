//! The HDF5 filter callbacks of nctools' codecs, linking no libhdf5, shared by the two
//! ways HDF5 gets them:
//!
//! - in-process, registered at start-up of nctools' binaries (the `h5filters` crate,
//!   which hands HDF5's allocator in as an [`Allocator`]);
//! - as HDF5 filter plugins, one library per filter (`crates/plugins/*`), which any
//!   program's libhdf5 loads from `HDF5_PLUGIN_PATH`; [`export_filter_plugin!`] defines
//!   the two functions such a library exports, with the C library's allocator
//!   ([`LibcAllocator`]), as the standard plugins use.
//!
//! A callback checks HDF5's pointers, decodes or encodes the chunk with `codecs::wire`
//! (bounded by `codecs::with_decoded_chunk_limit`) and runs inside
//! `std::panic::catch_unwind`: a corrupt chunk, one that decodes beyond the limit or a
//! panic make the filter fail (HDF5 reports a filter error), never crash the program.
//!
//! The crate calls no HDF5 function through the linker: blosc's `set_local`, the only
//! callback that queries HDF5, finds the functions it needs in the running process
//! (`dlsym`), so a plugin works with whichever libhdf5 loaded it and never brings a
//! second one in. All the crate's `unsafe` code is in one private module, `ffi`.

mod callback;
#[allow(unsafe_code)]
mod ffi;
pub mod host_memory;

pub use callback::in_filter_callback;
pub use ffi::{
    filter_class, Allocator, FilterClass, LibcAllocator, PluginClass, PLUGIN_TYPE_FILTER,
};

/// What ends the name a plugin library of nctools gives its filter (`zstd (nctools
/// plugin)`), as a literal for `concat!`.
#[doc(hidden)]
#[macro_export]
macro_rules! plugin_name_suffix {
    () => {
        " (nctools plugin)"
    };
}

/// What ends the name a plugin library of nctools gives its filter, which HDF5 records
/// in the files it writes and a plugin scan reads back.
pub const PLUGIN_NAME_SUFFIX: &str = plugin_name_suffix!();

/// Whether a filter plugin's name (from its `H5PLget_plugin_info`) is that of one of
/// nctools' plugin libraries.
pub fn is_nctools_plugin_name(name: &str) -> bool {
    name.ends_with(PLUGIN_NAME_SUFFIX)
}

/// Defines the two functions HDF5 looks up in a filter plugin library,
/// `H5PLget_plugin_type` (a filter) and `H5PLget_plugin_info` (its class: the id, the
/// name followed by [`PLUGIN_NAME_SUFFIX`], the callbacks of [`filter_class`] with the C
/// library's allocator). Use it once, in a `cdylib` crate of its own: HDF5 asks each
/// library for one filter.
///
/// ```ignore
/// h5callbacks::export_filter_plugin!(32015, "zstd");
/// ```
#[macro_export]
macro_rules! export_filter_plugin {
    ($id:expr, $name:literal) => {
        /// The class HDF5 copies when it loads this plugin.
        static PLUGIN_CLASS: $crate::PluginClass =
            $crate::PluginClass::new($crate::filter_class::<$crate::LibcAllocator>(
                $id,
                match ::std::ffi::CStr::from_bytes_with_nul(
                    concat!($name, $crate::plugin_name_suffix!(), "\0").as_bytes(),
                ) {
                    Ok(name) => name,
                    Err(_) => panic!("a plugin's name holds no NUL"),
                },
            ));

        /// What this library provides: a filter (`H5PL_TYPE_FILTER`).
        #[no_mangle]
        pub extern "C" fn H5PLget_plugin_type() -> ::std::ffi::c_int {
            $crate::PLUGIN_TYPE_FILTER
        }

        /// The filter's class, an `H5Z_class2_t` that lives as long as the library.
        #[no_mangle]
        pub extern "C" fn H5PLget_plugin_info() -> *const ::std::ffi::c_void {
            PLUGIN_CLASS.as_ptr()
        }
    };
}
