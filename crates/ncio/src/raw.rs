//! Raw transfer of fixed-size atomic data: bytes in the machine's representation, moved
//! from a file to a file without decoding them into [`ncmodel::Values`]. This is nccopy's
//! fast path; strings and user-defined types go through `Values`.

use std::ffi::{c_int, c_void};

use ncmodel::{Layout, TypeRef};
use netcdf_sys::{
    nc_get_vara, nc_inq_type, nc_inq_varndims, nc_inq_vartype, nc_put_vara, nc_set_chunk_cache,
    nc_set_var_chunk_cache, nc_type,
};

use crate::create::NcWriter;
use crate::error::NcError;
use crate::ffi::{check, locked};
use crate::file::NcFile;

/// A byte buffer aligned for any atomic type (it is backed by `u64` words).
#[derive(Debug, Default)]
pub struct RawBuffer {
    words: Vec<u64>,
    len: usize,
}

impl RawBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes the buffer `bytes` long, reusing its memory when it is large enough.
    pub fn resize(&mut self, bytes: usize) {
        let words = bytes.div_ceil(8);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
        self.len = bytes;
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the words hold at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }

    fn as_mut_ptr(&mut self) -> *mut c_void {
        self.words.as_mut_ptr().cast()
    }

    fn as_ptr(&self) -> *const c_void {
        self.words.as_ptr().cast()
    }
}

/// Whether values of `type_ref` can move as raw bytes: atomic types other than `string`.
pub fn is_raw_type(type_ref: TypeRef) -> bool {
    matches!(type_ref, TypeRef::Atomic(t) if t != ncmodel::AtomicType::String)
}

/// Sets libnetcdf's default chunk cache for files opened or created afterwards: `size`
/// bytes and `nelems` chunk slots per variable (nccopy's `-h` and `-e`).
pub fn set_default_chunk_cache(size: usize, nelems: usize) -> Result<(), NcError> {
    // SAFETY: plain call setting a library default.
    let status = locked(|| unsafe { nc_set_chunk_cache(size, nelems, 0.75) });
    check(status, || "setting the chunk cache".to_string())
}

/// The number of values of a hyperslab.
fn values_in(count: &[usize]) -> usize {
    count.iter().product()
}

/// What libnetcdf says of a variable that raw transfers rely on: its number of
/// dimensions and the size of one value. Must be called with the library lock held.
fn raw_shape(
    ncid: c_int,
    varid: c_int,
    owner: &dyn Fn() -> String,
) -> Result<(usize, usize), NcError> {
    let mut ndims: c_int = 0;
    let mut xtype: nc_type = 0;
    let mut size: usize = 0;
    // SAFETY: plain queries with valid out-pointers (a NULL name is allowed).
    unsafe {
        check(nc_inq_varndims(ncid, varid, &mut ndims), owner)?;
        check(nc_inq_vartype(ncid, varid, &mut xtype), owner)?;
        check(
            nc_inq_type(ncid, xtype, std::ptr::null_mut(), &mut size),
            owner,
        )?;
    }
    if !is_raw_type(TypeRef::Atomic(
        ncmodel::AtomicType::from_nc_type(xtype).unwrap_or(ncmodel::AtomicType::String),
    )) {
        return Err(NcError {
            code: -45,
            message: "not an atomic type of fixed size".into(),
            context: owner(),
        });
    }
    Ok((usize::try_from(ndims).unwrap_or(0), size))
}

/// Fails unless `start` and `count` have one entry per dimension (`ndims`).
fn check_rank(
    ndims: usize,
    start: &[usize],
    count: &[usize],
    owner: &dyn Fn() -> String,
) -> Result<(), NcError> {
    if start.len() == ndims && count.len() == ndims {
        return Ok(());
    }
    Err(NcError {
        code: -40,
        message: format!(
            "a hyperslab of {} dimensions for a variable of {ndims}",
            count.len()
        ),
        context: owner(),
    })
}

impl NcFile {
    /// Reads the hyperslab `start`/`count` of the variable `varid` of the group
    /// `group_ncid` into `buf` as raw values; the variable must be of an atomic type other
    /// than `string` ([`is_raw_type`]). The rank and type are checked here.
    pub fn read_raw(
        &self,
        group_ncid: c_int,
        varid: c_int,
        start: &[usize],
        count: &[usize],
        buf: &mut RawBuffer,
    ) -> Result<(), NcError> {
        let owner = || format!("{}: reading variable id {varid}", self.path());
        locked(|| {
            let (ndims, size) = raw_shape(group_ncid, varid, &owner)?;
            check_rank(ndims, start, count, &owner)?;
            buf.resize(values_in(count) * size);
            let ptr = buf.as_mut_ptr();
            // SAFETY: start/count have one entry per dimension of the variable and the
            // buffer holds count's product of values of its type (both checked above).
            let status =
                unsafe { nc_get_vara(group_ncid, varid, start.as_ptr(), count.as_ptr(), ptr) };
            check(status, owner)
        })
    }

    /// Sets the chunk cache of one variable of a netCDF-4 file to `bytes` (0 turns caching
    /// off, which also frees what the cache held).
    pub fn set_var_cache(
        &self,
        group_ncid: c_int,
        varid: c_int,
        bytes: usize,
    ) -> Result<(), NcError> {
        set_var_cache(group_ncid, varid, bytes, || self.path().to_string())
    }
}

fn set_var_cache(
    ncid: c_int,
    varid: c_int,
    bytes: usize,
    owner: impl FnOnce() -> String,
) -> Result<(), NcError> {
    let slots = if bytes == 0 { 1 } else { 1009 };
    // SAFETY: plain call on an open variable.
    let status = locked(|| unsafe { nc_set_var_chunk_cache(ncid, varid, bytes, slots, 0.75) });
    check(status, || format!("{}: setting a chunk cache", owner()))
}

/// A variable of a file being written, as [`NcWriter::handle`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarHandle {
    pub(crate) ncid: c_int,
    pub(crate) varid: c_int,
}

impl NcWriter {
    /// The handle of the variable `name` of the group at `group_path`, once defined.
    pub fn handle(&self, group_path: &[String], name: &str) -> Option<VarHandle> {
        self.slot(group_path, name)
            .map(|(ncid, varid)| VarHandle { ncid, varid })
    }

    /// Sets the chunk cache of one variable to `bytes` (see [`NcFile::set_var_cache`]).
    pub fn set_var_cache(&self, var: VarHandle, bytes: usize) -> Result<(), NcError> {
        set_var_cache(var.ncid, var.varid, bytes, || self.target().to_string())
    }

    /// Writes raw values (as [`NcFile::read_raw`] reads them) to the hyperslab
    /// `start`/`count` of the variable. The rank, type and buffer length are checked here.
    pub fn write_raw(
        &self,
        var: VarHandle,
        start: &[usize],
        count: &[usize],
        buf: &RawBuffer,
    ) -> Result<(), NcError> {
        let owner = || format!("{}: writing variable id {}", self.target(), var.varid);
        locked(|| {
            let (ndims, size) = raw_shape(var.ncid, var.varid, &owner)?;
            check_rank(ndims, start, count, &owner)?;
            if buf.len() < values_in(count) * size {
                return Err(NcError {
                    code: -40,
                    message: "the buffer is shorter than the hyperslab".into(),
                    context: owner(),
                });
            }
            let ptr = buf.as_ptr();
            // SAFETY: start/count have one entry per dimension and the buffer holds at
            // least count's product of values of the variable's type (checked above).
            let status =
                unsafe { nc_put_vara(var.ncid, var.varid, start.as_ptr(), count.as_ptr(), ptr) };
            check(status, owner)
        })
    }

    /// The layout the library gave the variable (chunk sizes included); classic files
    /// answer [`Layout::Contiguous`].
    pub fn layout(&self, var: VarHandle) -> Result<Layout, NcError> {
        let owner = || format!("{}: chunking", self.target());
        locked(|| {
            let mut ndims: c_int = 0;
            // SAFETY: plain query with a valid out-pointer.
            check(
                unsafe { nc_inq_varndims(var.ncid, var.varid, &mut ndims) },
                owner,
            )?;
            let ndims = usize::try_from(ndims).unwrap_or(0);
            crate::storage::read_layout(var.ncid, var.varid, ndims, &owner)
        })
    }
}
