//! The HDF5 filter plugin library of nctools' codecs. HDF5 (1.10 and later) asks each
//! library in its plugin path for one filter (`H5PLget_plugin_info`), so the library is
//! installed once per filter nctools carries (`codecs::registry::carried_codecs`),
//! as `libnctools_h5NAME.so` (`libnctools_h5zstd.so`), and each copy answers for the
//! filter its file is named after. A filter added to the registry gets its plugin with
//! no change here. The callbacks are `h5callbacks`' (panic-safe and bounded), with the C
//! library's allocator, as the standard plugins use; nothing links libhdf5.
//!
//! A copy under a name that is no filter's tells HDF5 it is no filter plugin, and is
//! skipped: HDF5 1.10 stops its whole search at a plugin that answers no class.
// `#[no_mangle]` on the two functions HDF5 looks up is all the unsafe code here.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_void, CString};
use std::path::Path;
use std::sync::OnceLock;

use codecs::registry::{self, Codec};
use h5callbacks::{filter_class, LibcAllocator, PluginClass, PLUGIN_TYPE_FILTER};

/// What a plugin library's file name starts with.
const FILE_PREFIX: &str = "libnctools_h5";

/// What a plugin library's file name ends with.
const FILE_SUFFIX: &str = ".so";

/// What `H5PLget_plugin_type` answers from a copy whose name is no filter's: a type no
/// HDF5 release searches for (filters are 0, VOL connectors 1, file drivers 2).
const NO_PLUGIN_TYPE: c_int = 99;

/// One plugin library: the file it is installed as and the filter it answers for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    /// The file name, `libnctools_h5zstd.so`.
    pub file_name: String,
    /// The filter's name (`zstd`).
    pub name: &'static str,
    /// The HDF5 filter id.
    pub id: u32,
}

/// Every plugin library to install: one per filter nctools carries, in the registry's
/// order.
pub fn plugins() -> Vec<Plugin> {
    registry::carried_codecs().filter_map(plugin_of).collect()
}

fn plugin_of(codec: &'static dyn Codec) -> Option<Plugin> {
    let name = registry::plugin_name(codec)?;
    Some(Plugin {
        file_name: format!("{FILE_PREFIX}{name}{FILE_SUFFIX}"),
        name,
        id: codec.entry().hdf5_id?,
    })
}

/// The plugin a library file named `file_name` answers for.
pub fn plugin_of_file(file_name: &str) -> Option<Plugin> {
    plugins().into_iter().find(|p| p.file_name == file_name)
}

/// The class this copy of the library hands HDF5, made on first use from its file name;
/// `None` when the name is no filter's.
fn class() -> Option<&'static PluginClass> {
    static CLASS: OnceLock<Option<PluginClass>> = OnceLock::new();
    CLASS
        .get_or_init(|| {
            // A private function's address: an exported one may resolve to another
            // copy's when a host loads the copies into its global scope.
            let path = loaded_symbols::object_path_of(class as *const () as usize)?;
            let path = path.into_string().ok()?;
            let file_name = Path::new(&path).file_name()?.to_str()?;
            let plugin = plugin_of_file(file_name)?;
            let name = CString::new(format!(
                "{}{}",
                plugin.name,
                h5callbacks::PLUGIN_NAME_SUFFIX
            ))
            .ok()?;
            // The class lives as long as the library; so does its name.
            let name = Box::leak(name.into_boxed_c_str());
            filter_class::<LibcAllocator>(plugin.id, name).map(PluginClass::new)
        })
        .as_ref()
}

/// What this library provides: a filter (`H5PL_TYPE_FILTER`), when its file is named
/// after one.
#[no_mangle]
pub extern "C" fn H5PLget_plugin_type() -> c_int {
    match std::panic::catch_unwind(class) {
        Ok(Some(_)) => PLUGIN_TYPE_FILTER,
        _ => NO_PLUGIN_TYPE,
    }
}

/// The filter's class, an `H5Z_class2_t` that lives as long as the library; null when
/// the file is named after no filter (HDF5 then never asks, see
/// [`H5PLget_plugin_type`]).
#[no_mangle]
pub extern "C" fn H5PLget_plugin_info() -> *const c_void {
    match std::panic::catch_unwind(class) {
        Ok(Some(class)) => class.as_ptr(),
        _ => std::ptr::null(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_carried_filter_has_a_plugin_named_after_it() {
        let plugins = plugins();
        let names: Vec<&str> = plugins.iter().map(|p| p.file_name.as_str()).collect();
        for name in [
            "libnctools_h5bzip2.so",
            "libnctools_h5zstd.so",
            "libnctools_h5lz4.so",
            "libnctools_h5blosc.so",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        assert_eq!(plugins.len(), registry::carried_codecs().count());
        assert_eq!(
            plugin_of_file("libnctools_h5zstd.so").map(|p| p.id),
            Some(codecs::wire::ZSTD)
        );
        assert_eq!(plugin_of_file("libnctools_h5plugin.so"), None);
        assert_eq!(plugin_of_file("libh5zstd.so"), None);
    }

    #[test]
    fn the_test_program_is_no_plugin() {
        // Linked into this test program, the library's file name is the program's.
        assert_eq!(H5PLget_plugin_type(), NO_PLUGIN_TYPE);
        assert!(H5PLget_plugin_info().is_null());
    }
}
