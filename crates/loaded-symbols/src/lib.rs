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

pub use ffi::{find, Scope};
