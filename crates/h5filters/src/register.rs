//! The built-in filters registered with HDF5 (`H5Zregister`) at start-up of each binary, so
//! that bzip2 (307), blosc (32001), lz4 (32004) and zstd (32015) work with no plugin
//! installed. Blosc's `set_local` rewrites its first four parameters as the standard
//! plugin does. Their
//! chunks are those of the standard plugins (see [`crate::wire`]). Buffers handed to HDF5
//! come from HDF5's allocator; corrupt input makes the filter fail (HDF5 reports a filter
//! error), never crash.
#![allow(unsafe_code)]

use std::ffi::{c_uint, c_void, CStr};

use hdf5_metno_sys as hdf5_sys;
use hdf5_sys::h5::herr_t;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5z::{H5Z_class2_t, H5Z_filter_t, H5Z_CLASS_T_VERS, H5Z_FLAG_REVERSE};

use crate::wire::{self, Direction};

thread_local! {
    static IN_FILTER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is inside a built-in filter called by HDF5: a panic there is
/// caught and becomes a filter error, so a panic hook should stay quiet.
pub fn in_filter_callback() -> bool {
    IN_FILTER.with(std::cell::Cell::get)
}

/// Runs `f` marked as inside a filter callback.
fn in_filter<T>(f: impl FnOnce() -> T) -> T {
    IN_FILTER.with(|flag| flag.set(true));
    let result = f();
    IN_FILTER.with(|flag| flag.set(false));
    result
}

/// The environment variable that turns the built-in filters off (`0`), so that external
/// plugins can be tested.
pub const DISABLE_VARIABLE: &str = "NCTOOLS_BUILTIN_FILTERS";

/// The type of HDF5 filter callbacks.
type FilterFn = unsafe extern "C" fn(
    c_uint,
    usize,
    *const c_uint,
    usize,
    *mut usize,
    *mut *mut c_void,
) -> usize;

/// A filter nctools carries.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinFilter {
    /// The HDF5 filter id.
    pub id: u32,
    /// The name HDF5 records with the filter.
    pub name: &'static CStr,
    callback: FilterFn,
}

/// The filters nctools carries, in id order.
pub const BUILTIN_FILTERS: [BuiltinFilter; 4] = [
    BuiltinFilter {
        id: wire::BZIP2,
        name: c"bzip2 (nctools built-in)",
        callback: filter::<{ wire::BZIP2 }>,
    },
    BuiltinFilter {
        id: wire::BLOSC,
        name: c"blosc (nctools built-in)",
        callback: filter::<{ wire::BLOSC }>,
    },
    BuiltinFilter {
        id: wire::LZ4,
        name: c"lz4 (nctools built-in)",
        callback: filter::<{ wire::LZ4 }>,
    },
    BuiltinFilter {
        id: wire::ZSTD,
        name: c"zstd (nctools built-in)",
        callback: filter::<{ wire::ZSTD }>,
    },
];

/// Whether the built-in filters are turned on (`NCTOOLS_BUILTIN_FILTERS` is not `0`).
pub fn builtins_enabled() -> bool {
    std::env::var(DISABLE_VARIABLE).map_or(true, |v| v.trim() != "0")
}

/// Registers every built-in filter with HDF5, unless `NCTOOLS_BUILTIN_FILTERS=0`. Returns
/// the ids registered. Safe to call more than once.
pub fn register_builtin_filters() -> Vec<u32> {
    if !builtins_enabled() {
        return Vec::new();
    }
    let _guard = hdf5_sys::LOCK.lock();
    // SAFETY: H5open initialises the library; harmless when it already is.
    unsafe { hdf5_sys::h5::H5open() };
    BUILTIN_FILTERS
        .iter()
        .filter(|f| {
            let class = H5Z_class2_t {
                version: H5Z_CLASS_T_VERS as i32,
                id: f.id as H5Z_filter_t,
                encoder_present: 1,
                decoder_present: 1,
                name: f.name.as_ptr(),
                can_apply: None,
                set_local: (f.id == wire::BLOSC).then_some(blosc_set_local as SetLocalFn),
                filter: Some(f.callback),
            };
            // SAFETY: the class is fully initialised; HDF5 copies it; the name is static.
            unsafe { hdf5_sys::h5z::H5Zregister((&class as *const H5Z_class2_t).cast()) >= 0 }
        })
        .map(|f| f.id)
        .collect()
}

type SetLocalFn = extern "C" fn(hid_t, hid_t, hid_t) -> herr_t;

/// Blosc's `set_local`: records the filter revision, format version, element size and
/// chunk size in bytes in the first four parameters, as the standard plugin does.
extern "C" fn blosc_set_local(dcpl: hid_t, type_id: hid_t, _space: hid_t) -> herr_t {
    use hdf5_sys::h5p::{H5Pget_chunk, H5Pget_filter_by_id2, H5Pmodify_filter};
    use hdf5_sys::h5t::{H5T_class_t, H5Tclose, H5Tget_class, H5Tget_size, H5Tget_super};
    let mut flags: c_uint = 0;
    let mut count: usize = 8;
    let mut values = [0 as c_uint; 8];
    let mut dims = [0 as hdf5_sys::h5::hsize_t; 32];
    // SAFETY: all out-pointers are valid and sized as declared to HDF5.
    unsafe {
        let status = H5Pget_filter_by_id2(
            dcpl,
            wire::BLOSC as H5Z_filter_t,
            &mut flags,
            &mut count,
            values.as_mut_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        if status < 0 {
            return -1;
        }
        let ndims = H5Pget_chunk(dcpl, dims.len() as i32, dims.as_mut_ptr());
        let size = H5Tget_size(type_id);
        if ndims <= 0 || size == 0 {
            return -1;
        }
        let mut base = size;
        if H5Tget_class(type_id) == H5T_class_t::H5T_ARRAY {
            let sup = H5Tget_super(type_id);
            base = H5Tget_size(sup);
            H5Tclose(sup);
        }
        if base > 255 {
            base = 1;
        }
        let chunk_bytes = dims[..ndims as usize]
            .iter()
            .fold(size as u64, |b, d| b.saturating_mul(*d));
        let given = &values[..count.min(values.len())];
        let params = crate::blosc::local_params(
            given,
            base as u32,
            chunk_bytes.min(u64::from(u32::MAX)) as u32,
        );
        H5Pmodify_filter(
            dcpl,
            wire::BLOSC as H5Z_filter_t,
            flags,
            params.len(),
            params.as_ptr(),
        )
    }
}

/// The callback HDF5 calls for the built-in filter `ID`.
///
/// # Safety
/// HDF5's filter-callback contract (see [`run`]).
unsafe extern "C" fn filter<const ID: u32>(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    in_filter(|| run(ID, flags, cd_nelmts, cd_values, nbytes, buf_size, buf))
}

/// One call of a filter by HDF5: reads `nbytes` of `*buf`, replaces `*buf` with a new
/// buffer from HDF5's allocator holding the result, and returns its length (0 on failure,
/// which HDF5 reports as a filter error).
///
/// # Safety
/// HDF5's filter-callback contract: `*buf` holds at least `nbytes` bytes allocated by
/// HDF5, `cd_values` holds `cd_nelmts` values, `buf_size` and `buf` are valid pointers.
unsafe fn run(
    id: u32,
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    if buf.is_null() || (*buf).is_null() || buf_size.is_null() {
        return 0;
    }
    let params: &[u32] = if cd_values.is_null() || cd_nelmts == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(cd_values, cd_nelmts)
    };
    let input = std::slice::from_raw_parts((*buf).cast::<u8>(), nbytes);
    let direction = if flags & H5Z_FLAG_REVERSE != 0 {
        Direction::Decode
    } else {
        Direction::Encode
    };
    // Decoding with a known size writes straight into HDF5's memory (no copy).
    if direction == Direction::Decode {
        if let Some(size) = wire::decoded_size(id, input) {
            let out = hdf5_sys::h5::H5allocate_memory(size.max(1), 0);
            if out.is_null() {
                return 0;
            }
            let target = std::slice::from_raw_parts_mut(out.cast::<u8>(), size);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                wire::decode_into(id, input, target)
            }));
            if !matches!(result, Ok(Ok(_))) {
                hdf5_sys::h5::H5free_memory(out);
                return 0;
            }
            hdf5_sys::h5::H5free_memory(*buf);
            *buf = out;
            *buf_size = size.max(1);
            return size;
        }
    }
    // Encoding with a known bound also writes straight into HDF5's memory.
    if direction == Direction::Encode {
        if let Some(bound) = wire::encoded_bound(id, params, nbytes) {
            let out = hdf5_sys::h5::H5allocate_memory(bound.max(1), 0);
            if out.is_null() {
                return 0;
            }
            let target = std::slice::from_raw_parts_mut(out.cast::<u8>(), bound);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                wire::encode_into(id, params, input, target)
            }));
            let Ok(Ok(written)) = result else {
                hdf5_sys::h5::H5free_memory(out);
                return 0;
            };
            hdf5_sys::h5::H5free_memory(*buf);
            *buf = out;
            *buf_size = bound.max(1);
            return written;
        }
    }
    // A panic must not cross into C: it becomes a filter failure.
    let result = std::panic::catch_unwind(|| wire::apply(id, direction, params, input));
    let Ok(Ok(output)) = result else {
        return 0;
    };
    let out = hdf5_sys::h5::H5allocate_memory(output.len().max(1), 0);
    if out.is_null() {
        return 0;
    }
    std::ptr::copy_nonoverlapping(output.as_ptr(), out.cast::<u8>(), output.len());
    hdf5_sys::h5::H5free_memory(*buf);
    *buf = out;
    *buf_size = output.len().max(1);
    output.len()
}
