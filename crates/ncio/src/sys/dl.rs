//! Loading a filter plugin file as HDF5 would (`dlopen`) to read the filter id and name
//! it exports through `H5PLget_plugin_info`.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use hdf5_metno_sys::h5z::{H5Z_filter_t, H5Z_CLASS_T_VERS};

use super::Lib;

/// What a plugin file said of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PluginInfo {
    /// A filter plugin: its id and name.
    Filter {
        /// The filter id.
        id: H5Z_filter_t,
        /// The name it gives its filter.
        name: Option<String>,
    },
    /// Not usable, and why.
    Unusable(String),
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

/// The text of the last `dlerror`, or `fallback`.
fn dl_error(fallback: &str) -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl call,
    // and it is copied at once.
    let text = unsafe { libc::dlerror() };
    if text.is_null() {
        return fallback.to_string();
    }
    // SAFETY: non-null and NUL-terminated (above).
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

/// A `dlopen` handle, closed when dropped.
struct Library(*mut c_void);

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle came from a successful dlopen, everything read from the object
        // was copied into owned values first, and it is closed once.
        unsafe { libc::dlclose(self.0) };
    }
}

/// Loads the shared object `path` and reads its filter class. Loading runs the object's
/// initialisers, as HDF5's own plugin loading does; RTLD_LOCAL keeps its symbols to itself.
pub(crate) fn dlopen_filter_info(_lib: &Lib, path: &CStr) -> PluginInfo {
    // SAFETY: path is NUL-terminated; the handle is checked below.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return PluginInfo::Unusable(format!("does not load: {}", dl_error("unknown error")));
    }
    let library = Library(handle);
    // SAFETY: the handle is live; the name is a NUL-terminated literal.
    let kind = unsafe { libc::dlsym(library.0, c"H5PLget_plugin_type".as_ptr()) };
    if !kind.is_null() {
        // SAFETY: HDF5's plugin interface declares `H5PL_type_t H5PLget_plugin_type(void)`
        // under this name.
        let kind: extern "C" fn() -> c_int = unsafe { std::mem::transmute(kind) };
        if kind() != PLUGIN_TYPE_FILTER {
            return PluginInfo::Unusable("not a filter plugin".to_string());
        }
    }
    // SAFETY: as above.
    let info = unsafe { libc::dlsym(library.0, c"H5PLget_plugin_info".as_ptr()) };
    if info.is_null() {
        return PluginInfo::Unusable("not an HDF5 plugin: no H5PLget_plugin_info".to_string());
    }
    // SAFETY: HDF5's plugin interface declares `const void *H5PLget_plugin_info(void)`
    // under this name.
    let info: extern "C" fn() -> *const c_void = unsafe { std::mem::transmute(info) };
    let class = info();
    if class.is_null() {
        return PluginInfo::Unusable("H5PLget_plugin_info returned nothing".to_string());
    }
    // SAFETY: a filter plugin returns a pointer to a static H5Z_class2_t (or, for old
    // plugins, an H5Z_class1_t, told apart by the version field as HDF5 does); both start
    // with fields readable as these prefixes.
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
        // before the library is closed.
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    });
    PluginInfo::Filter { id, name }
}
