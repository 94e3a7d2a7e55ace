//! The filter plugins in HDF5's plugin search path: each file is loaded as HDF5 would load
//! it (`dlopen`), and its exported `H5PLget_plugin_info` tells the filter id and name. A
//! file that does not load (an undefined symbol, not a shared object) is reported with its
//! error, never a crash.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use hdf5_metno_sys::h5pl::{H5PLget_loading_state, H5PL_FILTER_PLUGIN};
use hdf5_metno_sys::h5z::{H5Z_filter_t, H5Z_CLASS_T_VERS};

use crate::ffi::locked;

/// One file of the plugin search path that HDF5 would try to load as a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginFile {
    /// The shared object's path.
    pub path: PathBuf,
    /// The filter id it provides, when it loaded and is a filter plugin.
    pub id: Option<u32>,
    /// The name the plugin gives its filter, if any.
    pub name: Option<String>,
    /// Why it could not be used, when it could not.
    pub error: Option<String>,
}

/// Every plugin file in HDF5's plugin search path ([`crate::plugin_search_paths`]), in
/// search order (directories in order, files by name within one), each loaded to read
/// its filter id and name.
pub fn scan_plugins() -> Vec<PluginFile> {
    let dirs: Vec<PathBuf> = crate::plugin_search_paths()
        .into_iter()
        .map(PathBuf::from)
        .collect();
    scan_plugin_dirs(&dirs)
}

/// The plugin files of the directories `dirs`, in order, each loaded to read its filter
/// id and name. A missing or unreadable directory has none.
pub fn scan_plugin_dirs(dirs: &[PathBuf]) -> Vec<PluginFile> {
    dirs.iter()
        .flat_map(|dir| plugin_files(dir))
        .map(|path| inspect(&path))
        .collect()
}

/// Whether HDF5 loads filter plugins at all (`HDF5_PLUGIN_PRELOAD=::` turns it off).
pub fn filter_plugins_enabled() -> bool {
    locked(|| {
        let mut flags: c_int = 0;
        // SAFETY: H5open initialises the library if needed; flags is a valid out-pointer.
        let status = unsafe {
            hdf5_metno_sys::h5::H5open();
            H5PLget_loading_state(&mut flags)
        };
        status < 0 || (flags as c_uint) & H5PL_FILTER_PLUGIN != 0
    })
}

/// The files HDF5 considers in `dir`: names starting with `lib` and holding `.so`, sorted.
fn plugin_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("lib") && name.contains(".so")
        })
        .map(|e| e.path())
        .filter(|p| !p.is_dir())
        .collect();
    files.sort();
    files
}

/// `H5Z_class1_t`, the layout of plugins built for HDF5 1.6 (no version field).
#[repr(C)]
struct FilterClass1 {
    id: H5Z_filter_t,
    name: *const c_char,
}

/// The start of `H5Z_class2_t`, up to the name.
#[repr(C)]
struct FilterClass2 {
    version: c_int,
    id: H5Z_filter_t,
    encoder_present: c_uint,
    decoder_present: c_uint,
    name: *const c_char,
}

/// `H5PL_TYPE_FILTER`.
const PLUGIN_TYPE_FILTER: c_int = 0;

fn failed(path: &Path, error: String) -> PluginFile {
    PluginFile {
        path: path.to_path_buf(),
        id: None,
        name: None,
        error: Some(error),
    }
}

/// The text of the last `dlerror`, or `fallback`.
fn dl_error(fallback: &str) -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next call.
    let text = unsafe { libc::dlerror() };
    if text.is_null() {
        fallback.to_string()
    } else {
        // SAFETY: non-null, NUL-terminated (above).
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Loads one plugin file and reads its filter id and name.
fn inspect(path: &Path) -> PluginFile {
    let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
        return failed(path, "the path holds a NUL byte".to_string());
    };
    locked(|| {
        // SAFETY: c_path is a valid C string. Loading runs the object's initialisers, as
        // HDF5's own plugin loading does; RTLD_LOCAL keeps its symbols to itself.
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return failed(
                path,
                format!("does not load: {}", dl_error("unknown error")),
            );
        }
        let result = read_info(path, handle);
        // SAFETY: handle came from dlopen above; everything read from the object was
        // copied into owned values first.
        unsafe { libc::dlclose(handle) };
        result
    })
}

/// Reads the filter class of a loaded plugin (the lock is held by the caller).
fn read_info(path: &Path, handle: *mut c_void) -> PluginFile {
    // SAFETY: handle is a live dlopen handle; the names are NUL-terminated literals.
    let kind = unsafe { libc::dlsym(handle, c"H5PLget_plugin_type".as_ptr()) };
    if !kind.is_null() {
        // SAFETY: HDF5's plugin interface declares `H5PL_type_t H5PLget_plugin_type(void)`.
        let kind: extern "C" fn() -> c_int = unsafe { std::mem::transmute(kind) };
        if kind() != PLUGIN_TYPE_FILTER {
            return failed(path, "not a filter plugin".to_string());
        }
    }
    // SAFETY: as above.
    let info = unsafe { libc::dlsym(handle, c"H5PLget_plugin_info".as_ptr()) };
    if info.is_null() {
        return failed(
            path,
            "not an HDF5 plugin: no H5PLget_plugin_info".to_string(),
        );
    }
    // SAFETY: HDF5's plugin interface declares `const void *H5PLget_plugin_info(void)`.
    let info: extern "C" fn() -> *const c_void = unsafe { std::mem::transmute(info) };
    let class = info();
    if class.is_null() {
        return failed(path, "H5PLget_plugin_info returned nothing".to_string());
    }
    // SAFETY: a filter plugin returns a pointer to a static H5Z_class2_t (or, for old
    // plugins, an H5Z_class1_t, told apart by the version field as HDF5 does).
    let (id, name) = unsafe {
        let class2 = &*class.cast::<FilterClass2>();
        if class2.version as c_uint == H5Z_CLASS_T_VERS {
            (class2.id, class2.name)
        } else {
            let class1 = &*class.cast::<FilterClass1>();
            (class1.id, class1.name)
        }
    };
    let name = (!name.is_null()).then(|| {
        // SAFETY: a non-null name is a NUL-terminated string owned by the plugin, copied
        // before the plugin is closed.
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    });
    match u32::try_from(id) {
        Ok(id) => PluginFile {
            path: path.to_path_buf(),
            id: Some(id),
            name,
            error: None,
        },
        Err(_) => failed(path, format!("invalid filter id {id}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_shared_object_is_reported_not_loaded() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let fake = dir.path().join("libfake.so");
        std::fs::write(&fake, b"not an ELF file").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("README"), b"ignored").unwrap_or_else(|e| panic!("{e}"));
        let found = scan_plugin_dirs(&[dir.path().to_path_buf()]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, fake);
        assert_eq!(found[0].id, None);
        assert!(found[0].error.is_some());
    }

    #[test]
    fn a_missing_directory_has_no_plugins() {
        assert!(scan_plugin_dirs(&[PathBuf::from("/nonexistent/plugins")]).is_empty());
    }
}
