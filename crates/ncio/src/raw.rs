//! Raw transfer of fixed-size atomic data: bytes in the machine's representation, moved
//! from a file to a file without decoding them into [`ncmodel::Values`]. This is nccopy's
//! fast path; strings and user-defined types go through `Values`.

use std::ffi::c_int;

use ncmodel::Layout;

use crate::create::NcWriter;
use crate::error::NcError;
use crate::file::NcFile;
use crate::sys::{define, values, with_lib, RawBuffer};

pub use store::is_raw_type;

/// Sets libnetcdf's default chunk cache for files opened or created afterwards: `size`
/// bytes and `nelems` chunk slots per variable (nccopy's `-h` and `-e`).
pub fn set_default_chunk_cache(size: usize, nelems: usize) -> Result<(), NcError> {
    with_lib(|lib| {
        define::set_default_chunk_cache(lib, size, nelems, &|| {
            "setting the chunk cache".to_string()
        })
    })
}

fn foreign_group(path: &str, ncid: c_int) -> NcError {
    NcError {
        kind: store::ErrorKind::InvalidRequest,
        message: format!("group id {ncid} is not one of this file's"),
        context: path.to_string(),
    }
}

impl NcFile {
    /// Reads the hyperslab `start`/`count` of the variable `varid` of the group
    /// `group_ncid` into `buf` as raw values; the variable must be of an atomic type other
    /// than `string` ([`is_raw_type`]). The group, rank and type are checked here.
    pub fn read_raw(
        &self,
        group_ncid: c_int,
        varid: c_int,
        start: &[usize],
        count: &[usize],
        buf: &mut RawBuffer,
    ) -> Result<(), NcError> {
        if let Some(bytes) = self.read_decoded(group_ncid, varid, start, count)? {
            buf.resize(bytes.len());
            buf.as_bytes_mut().copy_from_slice(&bytes);
            return Ok(());
        }
        let context = || format!("{}: reading variable id {varid}", self.path());
        let grp = self
            .open_file()
            .group(group_ncid)
            .ok_or_else(|| foreign_group(self.path(), group_ncid))?;
        let pieces = crate::read_pieces::pieces(start, count, &self.chunk_shape(group_ncid, varid));
        if pieces.len() > 1 {
            // Each piece read, then placed after the ones before (row-major order).
            let mut piece = RawBuffer::new();
            buf.resize(0);
            for (piece_start, piece_count) in &pieces {
                self.read_raw(group_ncid, varid, piece_start, piece_count, &mut piece)?;
                let at = buf.len();
                buf.resize(at + piece.len());
                buf.as_bytes_mut()[at..].copy_from_slice(piece.as_bytes());
            }
            return Ok(());
        }
        with_lib(|lib| values::get_vara_raw(lib, grp, varid, start, count, buf, &context))
    }

    /// The chunk shape of the variable `varid` of the group `group_ncid`; empty when it is
    /// not chunked (or its chunking cannot be read).
    pub(crate) fn chunk_shape(&self, group_ncid: c_int, varid: c_int) -> Vec<usize> {
        let Some(grp) = self.open_file().group(group_ncid) else {
            return Vec::new();
        };
        with_lib(|lib| crate::sys::inquire::var_chunking(lib, grp, varid, &String::new))
            .ok()
            .filter(|(layout, _)| *layout == 0)
            .map(|(_, chunks)| chunks)
            .unwrap_or_default()
    }

    /// Sets the chunk cache of one variable of a netCDF-4 file to `bytes` (0 turns caching
    /// off, which also frees what the cache held).
    pub fn set_var_cache(
        &self,
        group_ncid: c_int,
        varid: c_int,
        bytes: usize,
    ) -> Result<(), NcError> {
        let grp = self
            .open_file()
            .group(group_ncid)
            .ok_or_else(|| foreign_group(self.path(), group_ncid))?;
        let context = || format!("{}: setting a chunk cache", self.path());
        with_lib(|lib| define::set_var_chunk_cache(lib, grp, varid, bytes, &context))
    }
}

/// A variable of a file being written, by libnetcdf's ids (what a [`store::VarPath`]
/// resolves to here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct VarHandle {
    /// The group's id.
    pub(crate) group: c_int,
    /// The variable's id in its group.
    pub(crate) var: c_int,
}

impl NcWriter {
    /// The handle of the variable `name` of the group at `group_path`, once defined.
    pub(crate) fn handle(&self, group_path: &[String], name: &str) -> Option<VarHandle> {
        self.slot(group_path, name)
            .map(|(group, var)| VarHandle { group, var })
    }

    /// Sets the chunk cache of one variable to `bytes` (see [`NcFile::set_var_cache`]).
    pub(crate) fn set_var_cache(&self, var: VarHandle, bytes: usize) -> Result<(), NcError> {
        let file = self.open_file()?;
        let grp = self.group_of(file, var.group)?;
        let context = || format!("{}: setting a chunk cache", self.target());
        with_lib(|lib| define::set_var_chunk_cache(lib, grp, var.var, bytes, &context))
    }

    /// Writes raw values (as [`NcFile::read_raw`] reads them) to the hyperslab
    /// `start`/`count` of the variable. The rank, type and buffer length are checked here.
    pub(crate) fn write_raw(
        &self,
        var: VarHandle,
        start: &[usize],
        count: &[usize],
        buf: &RawBuffer,
    ) -> Result<(), NcError> {
        let context = || format!("{}: writing variable id {}", self.target(), var.var);
        let file = self.open_file()?;
        let grp = self.group_of(file, var.group)?;
        with_lib(|lib| values::put_vara_raw(lib, grp, var.var, start, count, buf, &context))
    }

    /// The value one element of the variable (of a fixed-size atomic type of `size` bytes)
    /// reads as where nothing is written, when fill is on for it.
    pub(crate) fn unwritten_value(
        &self,
        var: VarHandle,
        size: usize,
    ) -> Result<Option<Vec<u8>>, NcError> {
        let context = || format!("{}: fill value of variable id {}", self.target(), var.var);
        let file = self.open_file()?;
        let grp = self.group_of(file, var.group)?;
        with_lib(|lib| crate::sys::inquire::var_fill_value(lib, grp, var.var, size, &context))
    }

    /// The layout the library gave the variable (chunk sizes included); classic files
    /// answer [`Layout::Contiguous`].
    pub(crate) fn layout(&self, var: VarHandle) -> Result<Layout, NcError> {
        let context = || format!("{}: chunking", self.target());
        let file = self.open_file()?;
        let grp = self.group_of(file, var.group)?;
        with_lib(|lib| crate::storage::read_layout(lib, grp, var.var, &context))
    }
}
