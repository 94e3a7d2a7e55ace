//! The filter plugins in HDF5's plugin search path: each file is loaded as HDF5 would load
//! it (`dlopen`), and its exported `H5PLget_plugin_info` tells the filter id and name. A
//! file that does not load (an undefined symbol, not a shared object) is reported with its
//! error, never a crash.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::sys::{dlopen_filter_info, with_lib, PluginInfo};

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
    with_lib(crate::sys::filter_plugins_enabled)
}

/// The files HDF5 considers in `dir`: names starting with `lib` and holding `.so`, sorted.
pub(crate) fn plugin_files(dir: &Path) -> Vec<PathBuf> {
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

fn failed(path: &Path, error: String) -> PluginFile {
    PluginFile {
        path: path.to_path_buf(),
        id: None,
        name: None,
        error: Some(error),
    }
}

/// Loads one plugin file and reads its filter id and name.
fn inspect(path: &Path) -> PluginFile {
    let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
        return failed(path, "the path holds a NUL byte".to_string());
    };
    match with_lib(|lib| dlopen_filter_info(lib, &c_path)) {
        PluginInfo::Unusable(why) => failed(path, why),
        PluginInfo::Filter { id, name } => match u32::try_from(id) {
            Ok(id) => PluginFile {
                path: path.to_path_buf(),
                id: Some(id),
                name,
                error: None,
            },
            Err(_) => failed(path, format!("invalid filter id {id}")),
        },
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
