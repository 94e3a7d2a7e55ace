//! The C side of the codec library: the `NCZ_codec_t` descriptions (netCDF-C's
//! `netcdf_filter_build.h`, struct version 1, sort `NCZ_CODEC_HDF5`), the exported
//! `NCZ_codec_info_defaults`, and the callbacks, one instance per filter id. Every
//! callback checks its pointers and lengths, runs inside `catch_unwind` and returns a
//! netCDF-C error code; memory it hands over comes from the C library's `malloc` (netCDF-C
//! frees it with `free`).
//!
//! blosc's working parameters need the variable's value and chunk sizes: `nc_inq_var`,
//! `nc_inq_type` and `nc_inq_var_chunking` are found in the running process (the global
//! scope, else the one loaded `libnetcdf*` object, as a Python extension loads it
//! locally), never linked.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use loaded_symbols::Scope;

/// `NCZ_CODEC_CLASS_VER`.
const CODEC_CLASS_VERSION: c_int = 1;
/// `NCZ_CODEC_HDF5`: a codec that converts to and from HDF5 parameters.
const CODEC_SORT_HDF5: c_int = 1;
/// netCDF-C's `NC_NOERR`.
const NC_NOERR: c_int = 0;
/// netCDF-C's `NC_ENOMEM`.
const NC_ENOMEM: c_int = -61;
/// netCDF-C's `NC_EFILTER`.
const NC_EFILTER: c_int = -132;
/// The most parameters a codec of this library has (blosc: 7), with room to spare.
const MAX_PARAMS: usize = 64;
/// The most dimensions netCDF-C allows a variable (`NC_MAX_VAR_DIMS`).
const MAX_DIMS: usize = 1024;

/// `NCZ_codec_to_hdf5`.
type CodecToHdf5 = unsafe extern "C" fn(*const c_char, *mut usize, *mut *mut c_uint) -> c_int;
/// `NCZ_hdf5_to_codec`.
type Hdf5ToCodec = unsafe extern "C" fn(usize, *const c_uint, *mut *mut c_char) -> c_int;
/// `NCZ_modify_parameters`.
type ModifyParameters = unsafe extern "C" fn(
    c_int,
    c_int,
    *mut usize,
    *mut *mut c_uint,
    *mut usize,
    *mut *mut c_uint,
) -> c_int;

/// netCDF-C's `NCZ_codec_t`, field for field.
#[repr(C)]
struct NczCodec {
    version: c_int,
    sort: c_int,
    codec_id: *const c_char,
    hdf5_id: c_uint,
    initialize: Option<extern "C" fn()>,
    finalize: Option<extern "C" fn()>,
    codec_to_hdf5: Option<CodecToHdf5>,
    hdf5_to_codec: Option<Hdf5ToCodec>,
    modify_parameters: Option<ModifyParameters>,
}

/// The descriptions and the null-terminated list of pointers to them that
/// `NCZ_codec_info_defaults` returns; built once, never freed (netCDF-C keeps the pointers
/// while the library is loaded).
struct Table {
    _ids: Vec<CString>,
    _codecs: Vec<NczCodec>,
    list: Vec<*const NczCodec>,
}

// SAFETY: the table is immutable once built; its pointers point into its own vectors'
// and strings' heap blocks (never reallocated after), which live as long as the static.
unsafe impl Sync for Table {}
// SAFETY: as above: nothing in it is mutated or tied to a thread.
unsafe impl Send for Table {}

/// The three callbacks of the HDF5 filter `id`, monomorphised per slot (a callback is
/// not told which codec it serves): slot `n` for the `n`th of [`crate::exported_filters`].
fn callbacks(id: u32) -> Option<(CodecToHdf5, Hdf5ToCodec, ModifyParameters)> {
    let slot = crate::exported_filters().position(|f| f == id)?;
    Some((
        codecs::by_slot!(slot, to_hdf5)?,
        codecs::by_slot!(slot, to_codec)?,
        codecs::by_slot!(slot, modify)?,
    ))
}

/// The HDF5 id of the filter in slot `slot`.
fn filter_in_slot(slot: usize) -> Option<u32> {
    crate::exported_filters().nth(slot)
}

/// The table, built on first use from the registry's codecs.
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut ids = Vec::new();
        let mut codecs = Vec::new();
        for id in crate::exported_filters() {
            let (Some((to_hdf5, to_codec, modify)), Ok(name)) =
                (callbacks(id), crate::codec_id(id))
            else {
                continue;
            };
            let Ok(name) = CString::new(name) else {
                continue;
            };
            codecs.push(NczCodec {
                version: CODEC_CLASS_VERSION,
                sort: CODEC_SORT_HDF5,
                codec_id: name.as_ptr(),
                hdf5_id: id,
                initialize: None,
                finalize: None,
                codec_to_hdf5: Some(to_hdf5),
                hdf5_to_codec: Some(to_codec),
                modify_parameters: Some(modify),
            });
            ids.push(name);
        }
        let mut list: Vec<*const NczCodec> = codecs.iter().map(std::ptr::from_ref).collect();
        list.push(std::ptr::null());
        Table {
            _ids: ids,
            _codecs: codecs,
            list,
        }
    })
}

/// The Codec API's entry point for a library of several codecs: a null-terminated vector
/// of `NCZ_codec_t*` (netCDF-C attaches each to the HDF5 plugin of its filter that has no
/// codec of its own). Null if building the table panicked.
#[no_mangle]
pub extern "C" fn NCZ_codec_info_defaults() -> *const c_void {
    catch_unwind(|| table().list.as_ptr().cast::<c_void>()).unwrap_or(std::ptr::null())
}

/// Runs a callback's body, turning a panic into `NC_EFILTER`.
fn guarded(body: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(NC_EFILTER)
}

/// `params` copied into a block from `malloc` (at least one byte, so never null on
/// success), or `None` when out of memory.
fn malloc_params(params: &[u32]) -> Option<*mut c_uint> {
    let bytes = size_of_val(params).max(1);
    // SAFETY: malloc of a non-zero size; the result is checked for null.
    let block = unsafe { libc::malloc(bytes) }.cast::<c_uint>();
    if block.is_null() {
        return None;
    }
    // SAFETY: `block` holds `params.len()` words (just allocated); the regions differ.
    unsafe { std::ptr::copy_nonoverlapping(params.as_ptr(), block, params.len()) };
    Some(block)
}

/// The words at `params`, `count` of them, when the pointer and the length are sane.
///
/// # Safety
/// A non-null `params` points to at least `count` readable words (netCDF-C's contract).
unsafe fn words<'a>(params: *const c_uint, count: usize) -> Option<&'a [u32]> {
    if count == 0 {
        return Some(&[]);
    }
    if params.is_null() || count > MAX_PARAMS || !params.is_aligned() {
        return None;
    }
    // SAFETY: non-null, aligned, `count` words readable (the contract).
    Some(unsafe { std::slice::from_raw_parts(params, count) })
}

/// `NCZ_codec_to_hdf5` of the filter in slot `SLOT`: the codec JSON `codec` to the visible
/// parameters, stored in `*nparams` and `*params` (a block from `malloc`).
///
/// # Safety
/// netCDF-C's contract: `codec` is null or NUL-terminated; `nparams` and `params` are
/// null or writable.
unsafe extern "C" fn to_hdf5<const SLOT: usize>(
    codec: *const c_char,
    nparams: *mut usize,
    params: *mut *mut c_uint,
) -> c_int {
    guarded(|| {
        let Some(id) = filter_in_slot(SLOT) else {
            return NC_EFILTER;
        };
        if codec.is_null() || nparams.is_null() || params.is_null() {
            return NC_EFILTER;
        }
        // SAFETY: non-null and NUL-terminated (the contract).
        let Ok(json) = unsafe { CStr::from_ptr(codec) }.to_str() else {
            return NC_EFILTER;
        };
        let Ok(words) = crate::codec_to_params(id, json) else {
            return NC_EFILTER;
        };
        let Some(block) = malloc_params(&words) else {
            return NC_ENOMEM;
        };
        // SAFETY: both non-null and writable (the contract).
        unsafe {
            *nparams = words.len();
            *params = block;
        }
        NC_NOERR
    })
}

/// `NCZ_hdf5_to_codec` of the filter in slot `SLOT`: the visible parameters to the codec JSON,
/// stored in `*codec` (a NUL-terminated string from `malloc`).
///
/// # Safety
/// netCDF-C's contract: a non-null `params` has `nparams` readable words; `codec` is
/// null or writable.
unsafe extern "C" fn to_codec<const SLOT: usize>(
    nparams: usize,
    params: *const c_uint,
    codec: *mut *mut c_char,
) -> c_int {
    guarded(|| {
        let Some(id) = filter_in_slot(SLOT) else {
            return NC_EFILTER;
        };
        if codec.is_null() {
            return NC_EFILTER;
        }
        // SAFETY: the contract.
        let Some(words) = (unsafe { words(params, nparams) }) else {
            return NC_EFILTER;
        };
        let Ok(text) = crate::params_to_codec(id, words) else {
            return NC_EFILTER;
        };
        let Ok(text) = CString::new(text) else {
            return NC_EFILTER;
        };
        let bytes = text.as_bytes_with_nul();
        // SAFETY: malloc of a non-zero size; the result is checked for null.
        let block = unsafe { libc::malloc(bytes.len()) }.cast::<u8>();
        if block.is_null() {
            return NC_ENOMEM;
        }
        // SAFETY: `block` holds `bytes.len()` bytes (just allocated); `codec` is non-null
        // and writable (the contract).
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), block, bytes.len());
            *codec = block.cast::<c_char>();
        }
        NC_NOERR
    })
}

/// `NCZ_modify_parameters` of the filter in slot `SLOT`: the working parameters of variable `varid`
/// of group `ncid` from the visible ones (left as they are), stored in `*wnparams` and
/// `*wparams` (a block from `malloc`; a previous block there is freed).
///
/// # Safety
/// netCDF-C's contract: the pointers are null or valid; `*vparams` has `*vnparams` words;
/// a non-null `*wparams` came from `malloc`.
unsafe extern "C" fn modify<const SLOT: usize>(
    ncid: c_int,
    varid: c_int,
    vnparams: *mut usize,
    vparams: *mut *mut c_uint,
    wnparams: *mut usize,
    wparams: *mut *mut c_uint,
) -> c_int {
    guarded(|| {
        let Some(id) = filter_in_slot(SLOT) else {
            return NC_EFILTER;
        };
        if vnparams.is_null() || vparams.is_null() || wnparams.is_null() || wparams.is_null() {
            return NC_EFILTER;
        }
        // SAFETY: non-null and valid (the contract).
        let visible = unsafe { words(*vparams, *vnparams) };
        let Some(visible) = visible else {
            return NC_EFILTER;
        };
        let Some((element, chunk_bytes)) = variable_sizes(ncid, varid) else {
            return NC_EFILTER;
        };
        let Ok(working) = crate::working_params(id, visible, element, chunk_bytes) else {
            return NC_EFILTER;
        };
        let Some(block) = malloc_params(&working) else {
            return NC_ENOMEM;
        };
        // SAFETY: both non-null and writable; a non-null old block came from malloc and
        // is replaced here, so freed once (the contract).
        unsafe {
            if !(*wparams).is_null() {
                libc::free((*wparams).cast::<c_void>());
            }
            *wparams = block;
            *wnparams = working.len();
        }
        NC_NOERR
    })
}

/// The netCDF-C functions `modify` calls.
#[derive(Clone, Copy)]
struct NetcdfFunctions {
    /// `nc_inq_var(ncid, varid, name, xtype, ndims, dimids, natts)`.
    inq_var: unsafe extern "C" fn(
        c_int,
        c_int,
        *mut c_char,
        *mut c_int,
        *mut c_int,
        *mut c_int,
        *mut c_int,
    ) -> c_int,
    /// `nc_inq_type(ncid, xtype, name, size)`.
    inq_type: unsafe extern "C" fn(c_int, c_int, *mut c_char, *mut usize) -> c_int,
    /// `nc_inq_var_chunking(ncid, varid, storage, chunksizes)`.
    inq_var_chunking: unsafe extern "C" fn(c_int, c_int, *mut c_int, *mut usize) -> c_int,
}

/// The variable's value size and chunk size in bytes, asked of the netCDF-C library in
/// the process.
fn variable_sizes(ncid: c_int, varid: c_int) -> Option<(usize, usize)> {
    let nc = netcdf_functions()?;
    let (mut xtype, mut ndims) = (0, 0);
    let no_int = std::ptr::null_mut();
    // SAFETY: the prototype of nc_inq_var; the outputs asked for are live locals, the
    // others null (netCDF-C skips them).
    let status = unsafe {
        (nc.inq_var)(
            ncid,
            varid,
            std::ptr::null_mut(),
            &mut xtype,
            &mut ndims,
            no_int,
            no_int,
        )
    };
    let ndims = usize::try_from(ndims).ok().filter(|n| *n <= MAX_DIMS)?;
    if status != NC_NOERR {
        return None;
    }
    let mut element = 0usize;
    // SAFETY: the prototype of nc_inq_type; `element` is a live local, the name null.
    if unsafe { (nc.inq_type)(ncid, xtype, std::ptr::null_mut(), &mut element) } != NC_NOERR {
        return None;
    }
    let mut chunks = vec![0usize; ndims.max(1)];
    let mut storage = 0;
    // SAFETY: the prototype of nc_inq_var_chunking; `chunks` holds one size per
    // dimension (at least one).
    let status = unsafe { (nc.inq_var_chunking)(ncid, varid, &mut storage, chunks.as_mut_ptr()) };
    if status != NC_NOERR {
        return None;
    }
    let chunk_bytes = chunks[..ndims]
        .iter()
        .try_fold(element, |bytes, n| bytes.checked_mul(*n))?;
    Some((element, chunk_bytes))
}

/// The netCDF-C functions, from the global scope, else from the one loaded object whose
/// file name starts with `libnetcdf`.
fn netcdf_functions() -> Option<NetcdfFunctions> {
    loaded_symbols::find(is_netcdf_library, resolve)
}

/// The functions in `scope`, or `None` when one is missing.
fn resolve(scope: &Scope) -> Option<NetcdfFunctions> {
    Some(NetcdfFunctions {
        inq_var: loaded_symbols::function!(
            scope,
            c"nc_inq_var",
            unsafe extern "C" fn(
                c_int,
                c_int,
                *mut c_char,
                *mut c_int,
                *mut c_int,
                *mut c_int,
                *mut c_int,
            ) -> c_int
        ),
        inq_type: loaded_symbols::function!(
            scope,
            c"nc_inq_type",
            unsafe extern "C" fn(c_int, c_int, *mut c_char, *mut usize) -> c_int
        ),
        inq_var_chunking: loaded_symbols::function!(
            scope,
            c"nc_inq_var_chunking",
            unsafe extern "C" fn(c_int, c_int, *mut c_int, *mut usize) -> c_int
        ),
    })
}

/// Whether a loaded object's path names netCDF-C's library (`libnetcdf.so.19`,
/// `libnetcdf-5e7b1f2a.so.22`).
fn is_netcdf_library(path: &[u8]) -> bool {
    let file = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
    let Some(rest) = file.strip_prefix(b"libnetcdf") else {
        return false;
    };
    rest.starts_with(b".so") || rest.starts_with(b"-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netcdfs_library_is_told_from_others() {
        assert!(is_netcdf_library(
            b"/usr/lib/x86_64-linux-gnu/libnetcdf.so.19"
        ));
        assert!(is_netcdf_library(
            b"/venv/netCDF4.libs/libnetcdf-5e7b1f2a.so.22"
        ));
        assert!(!is_netcdf_library(b"/usr/lib/libnetcdff.so.7"));
        assert!(!is_netcdf_library(b"/usr/lib/libhdf5.so"));
    }

    #[test]
    fn every_exported_filter_has_callbacks() {
        for id in crate::exported_filters() {
            assert!(callbacks(id).is_some(), "filter {id}");
        }
        let list = &table().list;
        assert_eq!(list.len(), crate::exported_filters().count() + 1);
        assert!(list.last().is_some_and(|p| p.is_null()));
    }
}
