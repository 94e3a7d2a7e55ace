//! The functions of plugin libraries that netCDF-C pairs for NCZarr: an HDF5 filter
//! plugin's filter function (`H5PLget_plugin_info` → `H5Z_class2_t`) and an NCZarr codec
//! library's translators (`NCZ_get_codec_info`, `NCZ_codec_info_defaults` →
//! `NCZ_codec_t`). A library that provides either stays loaded for the rest of the
//! process (its functions are kept); one that provides neither is closed at once.
//!
//! Every call made here runs with the library lock held and marked as a plugin call
//! for the crash guard ([`crash_guard`]); what a plugin returns is copied into
//! owned memory and freed the way netCDF-C and HDF5 free it.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};

use hdf5_metno_sys::h5::{H5allocate_memory, H5free_memory};
use hdf5_metno_sys::h5z::{H5Z_class2_t, H5Z_CLASS_T_VERS, H5Z_FLAG_REVERSE};

use super::Lib;

/// `H5PL_TYPE_FILTER`.
const PLUGIN_TYPE_FILTER: c_int = 0;
/// `NCZ_CODEC_CLASS_VER`, the only `NCZ_codec_t` layout netCDF-C knows.
const CODEC_CLASS_VERSION: c_int = 1;
/// `NCZ_CODEC_HDF5`: a codec that converts to and from an HDF5 filter's parameters.
const CODEC_SORT_HDF5: c_int = 1;
/// Most entries read from one `NCZ_codec_info_defaults` list (it is NULL-terminated;
/// this bounds a list that is not).
const MAX_CODECS_PER_LIBRARY: usize = 1024;
/// Most parameter words a codec library may make of one codec's JSON.
const MAX_PARAMS: usize = 4096;

/// The filter function of an HDF5 plugin (`H5Z_func_t`).
type FilterFn = unsafe extern "C" fn(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize;

/// `NCZ_codec_t`, netCDF-C's `netcdf_filter_build.h` (version 1, sort HDF5).
#[repr(C)]
struct CodecClass {
    version: c_int,
    sort: c_int,
    codecid: *const c_char,
    hdf5id: c_uint,
    initialize: Option<unsafe extern "C" fn()>,
    finalize: Option<unsafe extern "C" fn()>,
    to_hdf5: Option<unsafe extern "C" fn(*const c_char, *mut usize, *mut *mut c_uint) -> c_int>,
    hdf5_to_codec: Option<unsafe extern "C" fn(usize, *const c_uint, *mut *mut c_char) -> c_int>,
    modify_parameters: Option<unsafe extern "C" fn()>,
}

/// An HDF5 filter a plugin library provides, kept loaded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PluginFilter {
    /// The filter id.
    pub(crate) id: u32,
    /// Whether it encodes.
    pub(crate) encodes: bool,
    /// Whether it decodes.
    pub(crate) decodes: bool,
    function: FilterFn,
}

/// An NCZarr codec a codec library provides, kept loaded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PluginCodecClass {
    class: *const CodecClass,
}

// SAFETY: the class is a static of a library that is never unloaded, read only; its
// functions are called only with the library lock held (`Lib`).
unsafe impl Send for PluginCodecClass {}
// SAFETY: as above.
unsafe impl Sync for PluginCodecClass {}

/// One codec entry of a codec library: its ids, or why it cannot be used.
#[derive(Debug)]
pub(crate) struct CodecOffer {
    /// The numcodecs id.
    pub(crate) codec_id: String,
    /// The HDF5 filter id it pairs with.
    pub(crate) hdf5_id: u32,
    /// Its functions, or why they cannot be used.
    pub(crate) class: Result<PluginCodecClass, String>,
}

/// What one plugin library provides. As netCDF-C reads it, a library that exports
/// `NCZ_codec_info_defaults` is a defaults library and nothing else; any other may have
/// a filter and one codec (`NCZ_get_codec_info`).
#[derive(Debug, Default)]
pub(crate) struct PluginParts {
    /// Its HDF5 filter, if it is a filter plugin with a usable class.
    pub(crate) filter: Option<PluginFilter>,
    /// Its NCZarr codec (`NCZ_get_codec_info`).
    pub(crate) codec: Option<CodecOffer>,
    /// The codecs of a defaults library (`NCZ_codec_info_defaults`), used only for the
    /// filters no other library has a codec for.
    pub(crate) defaults: Vec<CodecOffer>,
    /// Why the library, or a part of it, cannot be used.
    pub(crate) problems: Vec<String>,
}

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl
    // call; it is copied at once.
    let text = unsafe { libc::dlerror() };
    if text.is_null() {
        return "unknown error".into();
    }
    // SAFETY: non-null and NUL-terminated (above).
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

/// Loads the library `path` and reads the filter and codecs it provides. The library
/// stays loaded when it provides either (the functions are used later), and is closed
/// otherwise. Loading runs its initialisers, as HDF5's and netCDF-C's loading do.
pub(crate) fn load_plugin_parts(_lib: &Lib, path: &CStr) -> Result<PluginParts, String> {
    // SAFETY: path is NUL-terminated; the handle is checked below.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!("does not load: {}", dl_error()));
    }
    let mut parts = PluginParts::default();
    // SAFETY: the handle is live and stays so while these are read.
    unsafe {
        if !read_defaults(handle, &mut parts) {
            read_filter(handle, &mut parts);
            read_codec(handle, &mut parts);
        }
    }
    if parts.filter.is_none() && parts.codec.is_none() && parts.defaults.is_empty() {
        // SAFETY: nothing read from the library is kept; it is closed once.
        unsafe { libc::dlclose(handle) };
    } else {
        LIBRARIES_KEPT.fetch_add(1, Ordering::Relaxed);
    }
    Ok(parts)
}

/// Reads the filter class of a plugin library, if it is a filter plugin.
///
/// # Safety
/// `handle` is a live `dlopen` handle that is never closed once a filter was read.
unsafe fn read_filter(handle: *mut c_void, parts: &mut PluginParts) {
    // SAFETY: the handle is live; the name is a NUL-terminated literal.
    let kind = unsafe { libc::dlsym(handle, c"H5PLget_plugin_type".as_ptr()) };
    if !kind.is_null() {
        // SAFETY: HDF5's plugin interface declares `H5PL_type_t H5PLget_plugin_type(void)`.
        let kind: unsafe extern "C" fn() -> c_int = unsafe { std::mem::transmute(kind) };
        // SAFETY: a plain call without arguments.
        if unsafe { kind() } != PLUGIN_TYPE_FILTER {
            return;
        }
    }
    // SAFETY: as above.
    let info = unsafe { libc::dlsym(handle, c"H5PLget_plugin_info".as_ptr()) };
    if info.is_null() {
        return;
    }
    // SAFETY: HDF5 declares `const void *H5PLget_plugin_info(void)`.
    let info: unsafe extern "C" fn() -> *const c_void = unsafe { std::mem::transmute(info) };
    // SAFETY: a plain call without arguments.
    let class = unsafe { info() }.cast::<H5Z_class2_t>();
    if class.is_null() {
        parts
            .problems
            .push("H5PLget_plugin_info returned nothing".into());
        return;
    }
    // SAFETY: a filter plugin returns a static H5Z_class2_t (or an H5Z_class1_t, which
    // starts with its id where class 2 has its version: told apart as HDF5 does).
    let class = unsafe { &*class };
    if class.version as c_uint != H5Z_CLASS_T_VERS {
        parts
            .problems
            .push("an HDF5 1.6 filter plugin (H5Z_class1_t), which nctools does not run".into());
        return;
    }
    let (Some(function), Ok(id)) = (class.filter, u32::try_from(class.id)) else {
        parts
            .problems
            .push("its filter class has no filter function".into());
        return;
    };
    parts.filter = Some(PluginFilter {
        id,
        encodes: class.encoder_present != 0,
        decodes: class.decoder_present != 0,
        function,
    });
}

/// Reads the codec of a codec library, the one `NCZ_get_codec_info` returns.
///
/// # Safety
/// `handle` is a live `dlopen` handle that is never closed once a codec was read.
unsafe fn read_codec(handle: *mut c_void, parts: &mut PluginParts) {
    // SAFETY: the handle is live; the name is a NUL-terminated literal.
    let single = unsafe { libc::dlsym(handle, c"NCZ_get_codec_info".as_ptr()) };
    if !single.is_null() {
        // SAFETY: netCDF-C declares `const void* NCZ_get_codec_info(void)`.
        let single: unsafe extern "C" fn() -> *const c_void =
            unsafe { std::mem::transmute(single) };
        // SAFETY: a plain call without arguments.
        let class = unsafe { single() };
        if class.is_null() {
            parts
                .problems
                .push("NCZ_get_codec_info returned nothing".into());
        } else {
            // SAFETY: a non-null result is a static NCZ_codec_t.
            parts.codec = Some(unsafe { read_codec_class(class.cast()) });
        }
    }
}

/// Reads the codecs of a defaults library, the NULL-terminated list
/// `NCZ_codec_info_defaults` returns; whether the library is one.
///
/// # Safety
/// `handle` is a live `dlopen` handle that is never closed once a codec was read.
unsafe fn read_defaults(handle: *mut c_void, parts: &mut PluginParts) -> bool {
    // SAFETY: the handle is live; the name is a NUL-terminated literal.
    let list = unsafe { libc::dlsym(handle, c"NCZ_codec_info_defaults".as_ptr()) };
    if list.is_null() {
        return false;
    }
    // SAFETY: netCDF-C declares `const void* NCZ_codec_info_defaults(void)`, a
    // NULL-terminated array of `NCZ_codec_t*`.
    let list: unsafe extern "C" fn() -> *const *const c_void = unsafe { std::mem::transmute(list) };
    // SAFETY: a plain call without arguments.
    let entries = unsafe { list() };
    if entries.is_null() {
        return true;
    }
    for index in 0..MAX_CODECS_PER_LIBRARY {
        // SAFETY: the list is NULL-terminated and read up to its terminator only.
        let class = unsafe { *entries.add(index) };
        if class.is_null() {
            break;
        }
        // SAFETY: each non-null entry is a static NCZ_codec_t.
        parts
            .defaults
            .push(unsafe { read_codec_class(class.cast()) });
    }
    true
}

/// Reads one `NCZ_codec_t`.
///
/// # Safety
/// `class` is non-null and points to an `NCZ_codec_t` of a library kept loaded.
unsafe fn read_codec_class(class: *const CodecClass) -> CodecOffer {
    // SAFETY: per the contract; the version and sort fields come first in every layout.
    let codec = unsafe { &*class };
    let codec_id = if codec.codecid.is_null() {
        String::new()
    } else {
        // SAFETY: non-null and NUL-terminated, owned by the library; copied at once.
        unsafe { CStr::from_ptr(codec.codecid) }
            .to_string_lossy()
            .into_owned()
    };
    let unusable = if codec.version != CODEC_CLASS_VERSION {
        Some(format!(
            "NCZ_codec_t version {} (netCDF-C knows {CODEC_CLASS_VERSION})",
            codec.version
        ))
    } else if codec.sort != CODEC_SORT_HDF5 {
        Some(format!(
            "NCZ_codec_t sort {} (netCDF-C knows {CODEC_SORT_HDF5})",
            codec.sort
        ))
    } else if codec_id.is_empty() {
        Some("NCZ_codec_t has no codec id".into())
    } else if codec.to_hdf5.is_none() || codec.hdf5_to_codec.is_none() {
        Some("NCZ_codec_t lacks NCZ_codec_to_hdf5 or NCZ_hdf5_to_codec".into())
    } else if codec.modify_parameters.is_some() {
        Some(
            "it needs NCZ_modify_parameters, which takes a libnetcdf file id that \
             nctools' Zarr backend does not have"
                .into(),
        )
    } else {
        None
    };
    CodecOffer {
        codec_id,
        hdf5_id: codec.hdf5id,
        class: match unusable {
            Some(why) => Err(why),
            None => Ok(PluginCodecClass { class }),
        },
    }
}

impl PluginCodecClass {
    /// Calls the codec's `NCZ_codec_initialize`, if it has one.
    pub(crate) fn initialize(&self, _lib: &Lib) {
        // SAFETY: the class is a static of a loaded library.
        if let Some(initialize) = unsafe { &*self.class }.initialize {
            // SAFETY: netCDF-C calls it once, without arguments, before any other.
            unsafe { initialize() };
        }
    }

    /// `NCZ_codec_to_hdf5`: the HDF5 parameters of the codec's JSON text.
    pub(crate) fn params_of_codec(&self, _lib: &Lib, json: &str) -> Result<Vec<u32>, String> {
        let json = CString::new(json).map_err(|_| "the codec's JSON holds a NUL byte")?;
        // SAFETY: the class is a static of a loaded library; checked non-null at load.
        let Some(to_hdf5) = (unsafe { &*self.class }).to_hdf5 else {
            return Err("no NCZ_codec_to_hdf5".into());
        };
        let mut count: usize = 0;
        let mut params: *mut c_uint = std::ptr::null_mut();
        // SAFETY: the text is NUL-terminated and outlives the call; the out-pointers are
        // valid; netCDF-C's contract: on success `params` is malloc'd (or NULL) and holds
        // `count` words, which the caller frees.
        let status = unsafe { to_hdf5(json.as_ptr(), &mut count, &mut params) };
        let words = if params.is_null() || count == 0 || count > MAX_PARAMS {
            Vec::new()
        } else {
            // SAFETY: non-null, `count` words per the contract.
            unsafe { std::slice::from_raw_parts(params, count) }.to_vec()
        };
        if !params.is_null() {
            // SAFETY: allocated by the library with malloc, as netCDF-C frees it.
            unsafe { libc::free(params.cast()) };
        }
        if status != 0 {
            return Err(format!(
                "NCZ_codec_to_hdf5 refused the codec (netCDF status {status})"
            ));
        }
        if count > MAX_PARAMS {
            return Err(format!("NCZ_codec_to_hdf5 made {count} parameters"));
        }
        if count > 0 && params.is_null() {
            return Err(format!(
                "NCZ_codec_to_hdf5 said {count} parameters but gave none"
            ));
        }
        Ok(words)
    }

    /// `NCZ_hdf5_to_codec`: the codec's JSON text for HDF5 parameters.
    pub(crate) fn codec_of_params(&self, _lib: &Lib, params: &[u32]) -> Result<String, String> {
        // SAFETY: as above.
        let Some(to_codec) = (unsafe { &*self.class }).hdf5_to_codec else {
            return Err("no NCZ_hdf5_to_codec".into());
        };
        let mut text: *mut c_char = std::ptr::null_mut();
        let words = if params.is_empty() {
            std::ptr::null()
        } else {
            params.as_ptr()
        };
        // SAFETY: `words` holds `params.len()` words (or is NULL for none, as netCDF-C
        // passes it); on success the library sets `text` to a malloc'd NUL-terminated
        // string the caller frees.
        let status = unsafe { to_codec(params.len(), words, &mut text) };
        let json = (!text.is_null()).then(|| {
            // SAFETY: non-null and NUL-terminated per the contract; copied at once.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        });
        if !text.is_null() {
            // SAFETY: malloc'd by the library (strdup), freed once.
            unsafe { libc::free(text.cast()) };
        }
        match (status, json) {
            (0, Some(json)) => Ok(json),
            (0, None) => Err("NCZ_hdf5_to_codec made no text".into()),
            (status, _) => Err(format!(
                "NCZ_hdf5_to_codec refused the parameters {params:?} (netCDF status {status})"
            )),
        }
    }
}

/// What a contained decode may map beyond the output it may make: a filter's own
/// buffers and tables (several times its output for some), and its libraries' start-up.
const CONTAINED_ROOM: usize = 64 << 20;

/// The worker's side of [`PluginFilter::decode_contained`]: the filter function's
/// address, the output bound, the parameters and the chunk, in the request's bytes.
fn decode_request(lib: &Lib, request: &[u8]) -> Result<Vec<u8>, String> {
    let word = |i: usize| -> Result<u64, String> {
        let bytes = request.get(i * 8..i * 8 + 8).ok_or("a short request")?;
        let mut w = [0u8; 8];
        w.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(w))
    };
    let (address, max_output, count) = (word(0)?, word(1)?, word(2)?);
    let max_output = usize::try_from(max_output).map_err(|e| e.to_string())?;
    let count = usize::try_from(count).map_err(|e| e.to_string())?;
    let params_end = count
        .checked_mul(4)
        .and_then(|n| n.checked_add(24))
        .filter(|end| *end <= request.len())
        .ok_or("a short request")?;
    let params: Vec<u32> = request[24..params_end]
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let address = usize::try_from(address).map_err(|e| e.to_string())?;
    if address == 0 {
        return Err("no filter function".into());
    }
    // SAFETY: the address is a `FilterFn` of a library the tool loaded before it forked
    // this worker (the worker is remade whenever another library is kept), sent by the
    // tool itself over the worker's private socket; it is valid in this copy of the
    // tool's address space.
    let function = unsafe { std::mem::transmute::<usize, FilterFn>(address) };
    let filter = PluginFilter {
        id: 0,
        encodes: false,
        decodes: true,
        function,
    };
    filter.run(lib, &params, &request[params_end..], true, max_output)
}

/// How many plugin libraries this process has kept loaded: a contained decode's worker,
/// forked with the libraries loaded then, is remade when this changes.
static LIBRARIES_KEPT: AtomicU64 = AtomicU64::new(0);

/// The bytes the block `buffer`, from HDF5's allocator (`malloc` in a release build of
/// HDF5), really holds.
fn allocated(buffer: *mut c_void) -> usize {
    // SAFETY: the block is live and came from malloc through H5allocate_memory (a decoded
    // chunk, in the worker process of `decode_contained`, where a misjudgement ends the
    // worker only).
    unsafe { libc::malloc_usable_size(buffer) }
}

/// How [`PluginFilter::run`]'s error for a chunk decoded beyond its bound begins.
pub(crate) const DECODED_PAST: &str = "the filter decoded the chunk to";

impl PluginFilter {
    /// Decodes one chunk of an untrusted file as [`Self::run`] does, in a worker process
    /// ([`super::contained`]) that may map three times `max_output` and
    /// [`CONTAINED_ROOM`] more than it does: the plugin allocates what the chunk's header
    /// claims, and nothing can check that before it runs.
    pub(crate) fn decode_contained(
        &self,
        lib: &Lib,
        params: &[u32],
        input: &[u8],
        max_output: usize,
    ) -> Result<Vec<u8>, super::contained::ContainedError> {
        let allowance = max_output.saturating_mul(3).saturating_add(CONTAINED_ROOM);
        let mut request = Vec::with_capacity(24 + params.len() * 4 + input.len());
        request.extend_from_slice(&(self.function as usize as u64).to_le_bytes());
        request.extend_from_slice(&(max_output as u64).to_le_bytes());
        request.extend_from_slice(&(params.len() as u64).to_le_bytes());
        for word in params {
            request.extend_from_slice(&word.to_le_bytes());
        }
        request.extend_from_slice(input);
        super::contained::run_contained(
            lib,
            "plugin filter",
            LIBRARIES_KEPT.load(Ordering::Relaxed),
            decode_request,
            &request,
            allowance,
            max_output,
        )
        .map_err(|e| match e {
            super::contained::ContainedError::Work(m) if !m.starts_with(DECODED_PAST) => {
                super::contained::ContainedError::Work(format!(
                    "{m}, given {} MiB of memory to decode it in",
                    allowance >> 20
                ))
            }
            other => other,
        })
    }

    /// Runs the filter function on one chunk, forward or in `reverse` (decoding), in a
    /// buffer from HDF5's allocator (a filter may free and replace it, as HDF5 lets
    /// it). A result larger than `max_output` bytes, or than the buffer the filter says
    /// it returns, is an error.
    pub(crate) fn run(
        &self,
        _lib: &Lib,
        params: &[u32],
        input: &[u8],
        reverse: bool,
        max_output: usize,
    ) -> Result<Vec<u8>, String> {
        let flags = if reverse { H5Z_FLAG_REVERSE } else { 0 };
        // SAFETY: H5allocate_memory returns NULL or a block of at least the size asked.
        let mut buffer = unsafe { H5allocate_memory(input.len().max(1), 0) };
        if buffer.is_null() {
            return Err(format!("no memory for a chunk of {} bytes", input.len()));
        }
        // SAFETY: the block holds at least input.len() bytes and does not overlap input.
        unsafe {
            std::ptr::copy_nonoverlapping(input.as_ptr(), buffer.cast::<u8>(), input.len());
        }
        let mut buffer_size = input.len().max(1);
        let words = if params.is_empty() {
            std::ptr::null()
        } else {
            params.as_ptr()
        };
        // SAFETY: HDF5's filter contract: the buffer holds `nbytes` bytes of input in a
        // block of `buffer_size` from HDF5's allocator; the filter may replace the block
        // (updating both pointers) and returns the bytes of output, 0 on failure.
        let produced = unsafe {
            (self.function)(
                flags,
                params.len(),
                words,
                input.len(),
                &mut buffer_size,
                &mut buffer,
            )
        };
        let result = if produced == 0 && !input.is_empty() {
            Err("the filter failed on the chunk".to_string())
        } else if buffer.is_null() {
            Err("the filter returned no buffer".to_string())
        } else if produced > buffer_size && !(reverse && produced <= allocated(buffer)) {
            // Some plugins decode into a new block without saying its size (Debian's
            // lz4): HDF5 takes their word; here the block's allocation must hold it.
            Err(format!(
                "the filter returned {produced} bytes in a buffer of {buffer_size}"
            ))
        } else if produced > max_output {
            Err(format!(
                "{DECODED_PAST} {produced} bytes, more than its {max_output}"
            ))
        } else {
            // SAFETY: the buffer holds at least `produced` bytes (checked above).
            Ok(unsafe { std::slice::from_raw_parts(buffer.cast::<u8>(), produced) }.to_vec())
        };
        if !buffer.is_null() {
            // SAFETY: the block is HDF5's (ours, or the filter's replacement from HDF5's
            // allocator), freed once.
            unsafe { H5free_memory(buffer) };
        }
        result
    }
}
