//! What nctools checks in a netCDF-4 file with HDF5 before libnetcdf opens it, because
//! libnetcdf would act on it at once: objects that make HDF5 read another file
//! ([`super::foreign_storage`]), and variable-length attributes that would take more
//! memory than the file could hold ([`super::attribute_strings`]).

use std::ffi::CStr;

use hdf5_metno_sys::h5f::H5F_ACC_RDONLY;

use super::hdf5::{init, open_file};
use super::{attribute_strings, foreign_storage, Lib};

/// Why a file is refused before it is opened.
pub(crate) enum Refusal {
    /// An object reads another file (described for people).
    ReachesAnotherFile(String),
    /// The variable-length attributes would take more than their budget (the first
    /// attribute past it, described for people).
    OversizedAttributes(String),
}

/// Why the HDF5 file `path` is to be refused before libnetcdf opens it, its
/// variable-length attributes taking at most `attribute_budget` bytes once read; `None`
/// when it may be opened, or when it is not a file HDF5 opens (libnetcdf then says what
/// it is).
pub(crate) fn refusal_before_open(
    lib: &Lib,
    path: &CStr,
    attribute_budget: usize,
) -> Option<Refusal> {
    init(lib);
    let file = open_file(lib, path, H5F_ACC_RDONLY)?;
    if let Some(what) = foreign_storage::reaches_another_file(lib, &file) {
        return Some(Refusal::ReachesAnotherFile(what));
    }
    attribute_strings::oversized_attributes(lib, file.id, attribute_budget)
        .map(Refusal::OversizedAttributes)
}
