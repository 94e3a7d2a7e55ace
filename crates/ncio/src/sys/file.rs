//! Open files, their groups, and names read back from libnetcdf.

use std::ffi::{c_char, c_int, CStr};
use std::marker::PhantomData;

use netcdf_sys::{nc_abort, nc_close, nc_create, nc_enddef, nc_open, nc_set_fill};

use super::{check, Lib};
use crate::error::NcError;

/// `NC_MAX_NAME`: the longest name libnetcdf lets a writer define.
pub(crate) use ncmodel::names::NC_MAX_NAME;

/// The longest name an HDF5 attribute can have: its length is stored in 16 bits. Names in
/// netCDF-4 and NCZarr files are read into buffers of this size (plus the NUL).
pub(crate) const HDF5_MAX_NAME: usize = 65_535;

/// How many bytes, NUL included, a name read from a file can take. libnetcdf copies names
/// of any length into the caller's buffer (it trusts `NC_MAX_NAME`, which files need not
/// respect), so the buffer is sized from what the format allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameCapacity(usize);

impl NameCapacity {
    /// Room for names of netCDF-4/HDF5 and NCZarr files.
    pub(crate) const NETCDF4: Self = Self(HDF5_MAX_NAME + 1);

    /// Room for names of netCDF-4 files, or for names of `bytes` bytes if that is more
    /// (names of a Zarr store, bounded by the size of its metadata files).
    pub(crate) fn at_least(bytes: u64) -> Self {
        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        Self(bytes.saturating_add(1).max(Self::NETCDF4.0))
    }

    /// Room for names of a classic file whose longest name in its header is `longest`
    /// bytes. libnetcdf may normalise names (NFC), which can lengthen them, so four times
    /// that is allowed.
    pub(crate) fn classic(longest: usize) -> Self {
        Self(longest.max(NC_MAX_NAME).saturating_mul(4).saturating_add(1))
    }

    /// The buffer size in bytes.
    fn bytes(self) -> usize {
        self.0
    }
}

/// A dataset open in libnetcdf. Closed when dropped, unless [`OpenFile::close`] or
/// [`OpenFile::abort`] did it first.
#[derive(Debug)]
pub(crate) struct OpenFile {
    ncid: c_int,
    names: NameCapacity,
    open: bool,
}

/// A group of an open file (the root group included). It borrows the file, so it cannot
/// outlive it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grp<'f> {
    ncid: c_int,
    names: NameCapacity,
    file: PhantomData<&'f OpenFile>,
}

/// The file part of an ncid: libnetcdf keeps the group index in the low 16 bits.
fn file_part(ncid: c_int) -> c_int {
    ncid >> 16
}

impl OpenFile {
    /// Opens `path` (a path or URL) with libnetcdf's `mode`.
    pub(crate) fn open(
        _lib: &Lib,
        path: &CStr,
        mode: c_int,
        names: NameCapacity,
    ) -> Result<Self, c_int> {
        let mut ncid: c_int = -1;
        // SAFETY: path is NUL-terminated and outlives the call; ncid is a live out-pointer;
        // the lock is held (`_lib`).
        let status = unsafe { nc_open(path.as_ptr(), mode, &mut ncid) };
        if status != 0 {
            return Err(status);
        }
        Ok(Self {
            ncid,
            names,
            open: true,
        })
    }

    /// Creates `path` with libnetcdf's `mode`.
    pub(crate) fn create(_lib: &Lib, path: &CStr, mode: c_int) -> Result<Self, c_int> {
        let mut ncid: c_int = -1;
        // SAFETY: path is NUL-terminated and outlives the call; ncid is a live out-pointer;
        // the lock is held (`_lib`).
        let status = unsafe { nc_create(path.as_ptr(), mode, &mut ncid) };
        if status != 0 {
            return Err(status);
        }
        Ok(Self {
            ncid,
            names: NameCapacity::NETCDF4,
            open: true,
        })
    }

    /// The root group.
    pub(crate) fn root(&self) -> Grp<'_> {
        Grp {
            ncid: self.ncid,
            names: self.names,
            file: PhantomData,
        }
    }

    /// The group with libnetcdf id `ncid`, if the id belongs to this file (libnetcdf checks
    /// the group part itself on every call).
    pub(crate) fn group(&self, ncid: c_int) -> Option<Grp<'_>> {
        (file_part(ncid) == file_part(self.ncid)).then_some(Grp {
            ncid,
            names: self.names,
            file: PhantomData,
        })
    }

    /// libnetcdf's id of the root group (for the model's `Group::ncid`).
    pub(crate) fn raw_id(&self) -> c_int {
        self.ncid
    }

    /// Leaves define mode.
    pub(crate) fn enddef(&self, _lib: &Lib) -> c_int {
        // SAFETY: the file is open (self is alive and not closed); the lock is held.
        unsafe { nc_enddef(self.ncid) }
    }

    /// Turns fill mode off for the whole file.
    pub(crate) fn set_no_fill(&self, _lib: &Lib) -> c_int {
        const NC_NOFILL: c_int = 0x100;
        let mut old: c_int = 0;
        // SAFETY: the file is open; old is a live out-pointer; the lock is held.
        unsafe { nc_set_fill(self.ncid, NC_NOFILL, &mut old) }
    }

    /// Closes the file, keeping what was written.
    pub(crate) fn close(mut self, _lib: &Lib) -> c_int {
        self.open = false;
        // SAFETY: the file is open and, `open` now being false, closed only here.
        unsafe { nc_close(self.ncid) }
    }

    /// Closes a file being created without keeping it.
    pub(crate) fn abort(mut self, _lib: &Lib) -> c_int {
        self.open = false;
        // SAFETY: the file is open and, `open` now being false, closed only here.
        unsafe { nc_abort(self.ncid) }
    }
}

impl Drop for OpenFile {
    fn drop(&mut self) {
        if self.open {
            super::with_lib(|_lib| {
                // SAFETY: the file is open and this is its last use; the lock is held.
                unsafe { nc_close(self.ncid) }
            });
        }
    }
}

impl Grp<'_> {
    /// libnetcdf's id of the group.
    pub(crate) fn id(self) -> c_int {
        self.ncid
    }

    /// A group of the same file found by libnetcdf (a child's id).
    pub(crate) fn sibling(self, ncid: c_int) -> Self {
        Self { ncid, ..self }
    }

    /// Reads a name that `call` copies into the buffer it is given, which is as large as
    /// the file's format allows ([`NameCapacity`]).
    pub(crate) fn read_name(
        self,
        call: impl FnOnce(*mut c_char) -> c_int,
        context: impl FnOnce() -> String,
    ) -> Result<String, NcError> {
        let mut buffer = vec![0u8; self.names.bytes()];
        check(call(buffer.as_mut_ptr().cast::<c_char>()), context)?;
        let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
        Ok(String::from_utf8_lossy(&buffer[..end]).into_owned())
    }
}
