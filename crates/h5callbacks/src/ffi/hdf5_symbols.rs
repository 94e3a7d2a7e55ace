//! The HDF5 functions blosc's `set_local` calls, found at run time in the process that
//! called the filter rather than linked: a plugin must work with whichever libhdf5
//! loaded it (the system's for netCDF-C's tools, a copy bundled in h5py's wheel) and
//! must never bring a second one into the process.
//!
//! They are looked up in the process's global scope (`dlsym(RTLD_DEFAULT)`), where a
//! program linked with libhdf5 has them. A library loaded without `RTLD_GLOBAL` (a
//! Python extension's bundled libhdf5) is not in that scope: then the one loaded object
//! whose file name starts with `libhdf5` and is not the high-level library is used, if
//! there is exactly one. Otherwise `set_local` fails, cleanly.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::abi::{Herr, Hid};

/// The functions, with the C prototypes of HDF5 1.10 to 2.x.
#[derive(Debug, Clone, Copy)]
pub(super) struct SetLocalFunctions {
    /// `H5Pget_filter_by_id2`.
    pub(super) get_filter_by_id: unsafe extern "C" fn(
        Hid,
        c_int,
        *mut c_uint,
        *mut usize,
        *mut c_uint,
        usize,
        *mut c_char,
        *mut c_uint,
    ) -> Herr,
    /// `H5Pget_chunk`.
    pub(super) get_chunk: unsafe extern "C" fn(Hid, c_int, *mut u64) -> c_int,
    /// `H5Pmodify_filter`.
    pub(super) modify_filter:
        unsafe extern "C" fn(Hid, c_int, c_uint, usize, *const c_uint) -> Herr,
    /// `H5Tget_size`.
    pub(super) type_size: unsafe extern "C" fn(Hid) -> usize,
    /// `H5Tget_class` (an `H5T_class_t`, an `int`).
    pub(super) type_class: unsafe extern "C" fn(Hid) -> c_int,
    /// `H5Tget_super`.
    pub(super) type_super: unsafe extern "C" fn(Hid) -> Hid,
    /// `H5Tclose`.
    pub(super) type_close: unsafe extern "C" fn(Hid) -> Herr,
}

/// The functions of the HDF5 library in this process, or `None` when none is found or
/// several could be the caller.
pub(super) fn set_local_functions() -> Option<SetLocalFunctions> {
    resolve(libc::RTLD_DEFAULT).or_else(|| {
        let handle = only_loaded_hdf5()?;
        let functions = resolve(handle.0);
        drop(handle);
        functions
    })
}

/// The address of the function `name` in `handle`'s scope, or null.
fn symbol(handle: *mut c_void, name: &CStr) -> *mut c_void {
    // SAFETY: `handle` is RTLD_DEFAULT or a handle from dlopen still open; `name` is a
    // NUL-terminated string alive for the call.
    unsafe { libc::dlsym(handle, name.as_ptr()) }
}

/// Reinterprets a symbol's address as a function pointer of type `F`.
macro_rules! function {
    ($handle:expr, $name:literal, $type:ty) => {{
        let address = symbol($handle, $name);
        if address.is_null() {
            return None;
        }
        // SAFETY: `address` is the non-null address of HDF5's function `$name`, whose C
        // prototype (HDF5 1.10 to 2.x, hid_t of 64 bits) is `$type`; a function
        // pointer and a data pointer have the same size on the platforms HDF5 supports.
        unsafe { std::mem::transmute::<*mut c_void, $type>(address) }
    }};
}

/// Every function from `handle`'s scope, or `None` when one is missing.
fn resolve(handle: *mut c_void) -> Option<SetLocalFunctions> {
    Some(SetLocalFunctions {
        get_filter_by_id: function!(
            handle,
            c"H5Pget_filter_by_id2",
            unsafe extern "C" fn(
                Hid,
                c_int,
                *mut c_uint,
                *mut usize,
                *mut c_uint,
                usize,
                *mut c_char,
                *mut c_uint,
            ) -> Herr
        ),
        get_chunk: function!(
            handle,
            c"H5Pget_chunk",
            unsafe extern "C" fn(Hid, c_int, *mut u64) -> c_int
        ),
        modify_filter: function!(
            handle,
            c"H5Pmodify_filter",
            unsafe extern "C" fn(Hid, c_int, c_uint, usize, *const c_uint) -> Herr
        ),
        type_size: function!(handle, c"H5Tget_size", unsafe extern "C" fn(Hid) -> usize),
        type_class: function!(handle, c"H5Tget_class", unsafe extern "C" fn(Hid) -> c_int),
        type_super: function!(handle, c"H5Tget_super", unsafe extern "C" fn(Hid) -> Hid),
        type_close: function!(handle, c"H5Tclose", unsafe extern "C" fn(Hid) -> Herr),
    })
}

/// A handle from `dlopen`, closed on drop (the library stays loaded: it was already).
struct Handle(*mut c_void);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle came from a successful dlopen and is closed once.
        unsafe { libc::dlclose(self.0) };
    }
}

/// A handle on the one libhdf5 loaded in this process (`RTLD_NOLOAD`: nothing is
/// loaded), or `None` when there is none or more than one.
fn only_loaded_hdf5() -> Option<Handle> {
    let mut names: Vec<CString> = Vec::new();
    // SAFETY: `collect_hdf5` has dl_iterate_phdr's callback signature and reads only
    // what the loader passes it; `names` outlives the call.
    unsafe {
        libc::dl_iterate_phdr(
            Some(collect_hdf5),
            std::ptr::from_mut(&mut names).cast::<c_void>(),
        )
    };
    let [name] = names.as_slice() else {
        return None;
    };
    // SAFETY: `name` is a NUL-terminated path of a loaded object; RTLD_NOLOAD only
    // returns a handle on it if it is already loaded (nothing is run).
    let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    (!handle.is_null()).then_some(Handle(handle))
}

/// Whether a loaded object's path names HDF5's main library (`libhdf5.so`,
/// `libhdf5_serial.so.103`, `libhdf5-9e18f0c6.so.320.0.0`), not its high-level, C++ or
/// Fortran libraries.
fn is_hdf5_library(path: &[u8]) -> bool {
    let file = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
    let Some(stem) = file
        .windows(3)
        .position(|w| w == b".so")
        .map(|at| &file[..at])
    else {
        return false;
    };
    let mut parts = stem.split(|b| *b == b'_' || *b == b'-');
    parts.next() == Some(b"libhdf5")
        && parts.all(|part| !matches!(part, b"hl" | b"cpp" | b"fortran" | b"f90cstub" | b"tools"))
}

/// The `dl_iterate_phdr` callback: adds each loaded libhdf5's path to the `Vec<CString>`
/// at `data`. Returns 0 (go on) always.
///
/// # Safety
/// The loader's contract: `info` points to a valid `dl_phdr_info` for the call, whose
/// `dlpi_name` is null or NUL-terminated; `data` is the pointer given to
/// `dl_iterate_phdr`, a `Vec<CString>` nothing else uses meanwhile.
unsafe extern "C" fn collect_hdf5(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    data: *mut c_void,
) -> c_int {
    if info.is_null() || data.is_null() {
        return 0;
    }
    // SAFETY: `info` is non-null and valid for the call (the contract).
    let name = unsafe { (*info).dlpi_name };
    if name.is_null() {
        return 0;
    }
    // SAFETY: a non-null `dlpi_name` is NUL-terminated (the contract).
    let path = unsafe { CStr::from_ptr(name) };
    if !is_hdf5_library(path.to_bytes()) {
        return 0;
    }
    // SAFETY: `data` is the `Vec<CString>` of `only_loaded_hdf5`, used by nothing else
    // during the walk (the contract).
    let names = unsafe { &mut *data.cast::<Vec<CString>>() };
    // A panic (short memory) must not unwind into the loader.
    let _ = catch_unwind(AssertUnwindSafe(|| names.push(path.to_owned())));
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hdf5s_main_library_is_told_from_the_others() {
        assert!(is_hdf5_library(
            b"/usr/lib/x86_64-linux-gnu/libhdf5_serial.so.103"
        ));
        assert!(is_hdf5_library(
            b"/venv/h5py.libs/libhdf5-9e18f0c6.so.320.0.0"
        ));
        assert!(is_hdf5_library(b"libhdf5.so"));
        assert!(!is_hdf5_library(
            b"/venv/h5py.libs/libhdf5_hl-69da89c9.so.320.0.0"
        ));
        assert!(!is_hdf5_library(b"/usr/lib/libhdf5_serial_hl.so.100"));
        assert!(!is_hdf5_library(b"/usr/lib/libnetcdf.so.19"));
    }

    #[test]
    fn a_process_without_hdf5_has_no_functions() {
        // This test binary links no libhdf5.
        assert!(set_local_functions().is_none());
    }
}
