//! `dl_iterate_phdr`, `dlopen(RTLD_NOLOAD)`, `dlsym`, `dladdr` and `dlclose` behind safe
//! functions.
#![deny(unsafe_op_in_unsafe_fn)]

use std::ffi::{c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Where symbols are looked up: the global scope, or one loaded object.
#[derive(Debug)]
pub struct Scope {
    handle: *mut c_void,
}

impl Scope {
    /// The address of the symbol `name` in this scope, or null when there is none. Using
    /// it as a function is the caller's business (and its `unsafe`).
    pub fn symbol(&self, name: &CStr) -> *mut c_void {
        // SAFETY: `handle` is RTLD_DEFAULT or a handle from a successful dlopen, still
        // open for the life of the scope; `name` is NUL-terminated and alive for the call.
        unsafe { libc::dlsym(self.handle, name.as_ptr()) }
    }
}

/// What `resolve` makes of the global scope, else of the one loaded object whose path
/// `is_library` accepts; `None` when neither gives it, or when several loaded objects
/// could be the library.
pub fn find<T>(is_library: fn(&[u8]) -> bool, resolve: impl Fn(&Scope) -> Option<T>) -> Option<T> {
    let global = Scope {
        handle: libc::RTLD_DEFAULT,
    };
    resolve(&global).or_else(|| {
        let names = loaded_objects(is_library);
        let [name] = names.as_slice() else {
            return None;
        };
        // SAFETY: `name` is a NUL-terminated path of a loaded object; RTLD_NOLOAD only
        // returns a handle on it when it is loaded already (nothing is loaded or run).
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
        if handle.is_null() {
            return None;
        }
        let found = resolve(&Scope { handle });
        // SAFETY: a handle from a successful dlopen, closed once; the object stays loaded
        // (whoever loaded it first holds it).
        unsafe { libc::dlclose(handle) };
        found
    })
}

/// The path of the loaded object (program or library) that holds the code or data at
/// `address` (a pointer's value),
/// as it was loaded; `None` when no loaded object holds it. A library calls it with one
/// of its own functions to learn its file's name.
pub fn object_path_of(address: usize) -> Option<CString> {
    // SAFETY: a zeroed Dl_info is a valid "nothing found" value of plain pointers.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only compares `address` with the loaded objects' ranges (it never
    // reads through it) and writes into `info`, a live local.
    let found = unsafe { libc::dladdr(address as *const c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is non-null and points to the NUL-terminated path the dynamic
    // loader keeps for the object, alive while it is loaded; it is copied at once.
    Some(unsafe { CStr::from_ptr(info.dli_fname) }.to_owned())
}

/// What the walk over the loaded objects collects.
struct Walk {
    is_library: fn(&[u8]) -> bool,
    names: Vec<CString>,
}

/// The paths of the loaded objects `is_library` accepts.
fn loaded_objects(is_library: fn(&[u8]) -> bool) -> Vec<CString> {
    let mut walk = Walk {
        is_library,
        names: Vec::new(),
    };
    // SAFETY: `collect` has dl_iterate_phdr's callback signature and reads only what
    // the loader passes it; `walk` outlives the call and nothing else uses it meanwhile.
    unsafe {
        libc::dl_iterate_phdr(
            Some(collect),
            std::ptr::from_mut(&mut walk).cast::<c_void>(),
        )
    };
    walk.names
}

/// The `dl_iterate_phdr` callback: adds the object's path to the [`Walk`] at `data` when
/// the walk accepts it. Returns 0 (go on) always.
///
/// # Safety
/// The loader's contract: `info` points to a valid `dl_phdr_info` for the call, whose
/// `dlpi_name` is null or NUL-terminated; `data` is the `Walk` given to
/// `dl_iterate_phdr`, which nothing else uses meanwhile.
unsafe extern "C" fn collect(
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
    // SAFETY: `data` is the `Walk` of `loaded_objects` (the contract).
    let walk = unsafe { &mut *data.cast::<Walk>() };
    if (walk.is_library)(path.to_bytes()) {
        // A panic (short memory) must not unwind into the loader.
        let _ = catch_unwind(AssertUnwindSafe(|| walk.names.push(path.to_owned())));
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_object_of_an_address_is_found() {
        // libc's own function lives in libc; this test's function in the test program.
        let strlen = libc::strlen as *const () as usize;
        let path = object_path_of(strlen).map(CString::into_bytes);
        assert!(path.is_some_and(|p| is_libc(&p)));
        let here = object_path_of(the_object_of_an_address_is_found as *const () as usize);
        assert!(here.is_some_and(|p| !p.as_bytes().is_empty()));
        assert_eq!(object_path_of(0), None);
    }

    fn is_libc(path: &[u8]) -> bool {
        let file = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
        file.starts_with(b"libc.so")
    }

    #[test]
    fn functions_are_found_globally_or_in_the_one_loaded_object() {
        // libc's `strlen` is in the global scope of every process.
        let found = find(is_libc, |scope| {
            let address = scope.symbol(c"strlen");
            (!address.is_null()).then_some(address as usize)
        });
        assert!(found.is_some());
        // Found only in the loaded object when the global scope is skipped.
        let first = std::cell::Cell::new(true);
        let found = find(is_libc, |scope| {
            if first.replace(false) {
                return None;
            }
            let address = scope.symbol(c"strlen");
            (!address.is_null()).then_some(())
        });
        assert_eq!(found, Some(()));
        // No object of that name: nothing.
        assert_eq!(find(|_| false, |_| None::<()>), None);
        assert!(loaded_objects(is_libc).len() == 1);
    }
}
