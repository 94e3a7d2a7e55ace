//! The functions of a C library already loaded in this process, found at run time: the
//! plugins nctools builds for other programs (HDF5 filters, NCZarr codecs) call a few
//! functions of the HDF5 or netCDF-C library that loaded them, without linking either
//! (a program such as h5py or netCDF4-python may carry its own copy, loaded privately).
//!
//! [`find`] looks in the global scope first, then in the one loaded object whose path
//! the caller recognises; two candidates are refused rather than guessed between. All
//! the crate's `unsafe` code is in its module `ffi`.

#[allow(unsafe_code)]
mod ffi;

pub use ffi::{find, object_path_of, Scope};

/// The function `$name` (a C string literal) of a [`Scope`] as a function pointer of type
/// `$type`, or `return None` from the enclosing function when the scope has no such
/// symbol. The caller states, by the type it gives, the function's C prototype; it must
/// be the library's (the expansion is `unsafe`, so it belongs in an FFI module).
#[macro_export]
macro_rules! function {
    ($scope:expr, $name:literal, $type:ty) => {{
        let address = $scope.symbol($name);
        if address.is_null() {
            return None;
        }
        // SAFETY: `address` is the non-null address of the library's function `$name`,
        // whose C prototype the caller gives as `$type`; function and data pointers have
        // the same size on the platforms these libraries support.
        unsafe { ::std::mem::transmute::<*mut ::std::ffi::c_void, $type>(address) }
    }};
}
