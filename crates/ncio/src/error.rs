//! Errors from libnetcdf, with what was being done: the storage boundary's error type,
//! whose kind is stated here once for each libnetcdf status code ([`kind_of_status`]).

use std::ffi::c_int;

use store::ErrorKind;
pub use store::StoreError as NcError;

/// The kind of failure libnetcdf's status `code` reports. A positive code is the
/// system's `errno`, which libnetcdf passes on.
pub fn kind_of_status(code: c_int) -> ErrorKind {
    match code {
        1.. => ErrorKind::System { errno: Some(code) },
        // NC_ENOTVAR, NC_ENOTATT, NC_EBADDIM, NC_ENOTFOUND, NC_EBADGRPID, NC_ENOGRP
        -49 | -43 | -46 | -90 | -116 | -125 => ErrorKind::NotFound,
        // NC_ENOTNC
        -51 => ErrorKind::NotNetcdf,
        // NC_ETRUNC, NC_EFILEMETA..NC_EVARMETA (HDF5 metadata unreadable)
        -64 | -108..=-105 => ErrorKind::Corrupt,
        // NC_EBADID, NC_EINVAL, NC_EINVALCOORDS, NC_EEDGE, NC_ESTRIDE, NC_EMAXNAME,
        // NC_EBADNAME, NC_ERANGE, NC_EBADCHUNK
        -33 | -36 | -40 | -57 | -58 | -53 | -59 | -60 | -127 => ErrorKind::InvalidRequest,
        // NC_EBADTYPE, NC_ENOTNC4, NC_ESTRICTNC3, NC_ENOTBUILT
        -45 | -111 | -112 | -128 => ErrorKind::Unsupported,
        // NC_EFILTER
        -132 => ErrorKind::CodecFailed,
        // NC_ENOFILTER
        -136 => ErrorKind::CodecMissing,
        // NC_EHDFERR
        -101 => ErrorKind::LibraryFailed,
        // NC_EIO: the system failed, without saying how
        -68 => ErrorKind::System { errno: None },
        // NC_ENOMEM
        -61 => ErrorKind::System {
            errno: Some(libc::ENOMEM),
        },
        _ => ErrorKind::Other,
    }
}

/// The error of libnetcdf's status `code` while doing `context`, in its own words.
pub(crate) fn from_status(code: c_int, context: impl Into<String>) -> NcError {
    NcError::new(kind_of_status(code), crate::sys::message(code), context)
}
