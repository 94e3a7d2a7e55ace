//! The `set_local` callback (`H5Z_set_local_func_t`) of the carried filters that have
//! one (blosc records the filter revision, format version, element size and chunk size
//! in bytes; LZF its versions and the chunk size), as their standard plugins do. The
//! HDF5 queries are here, through the functions found in the running process
//! (`super::hdf5_symbols`); the parameters are computed by the codec
//! (`codecs::registry::Codec::hdf5_set_local`).

use std::ffi::{c_int, c_uint};
use std::panic::catch_unwind;
use std::ptr;

use super::abi::SetLocalFn;
use super::abi::{Herr, Hid};
use super::filter::carried_id;
use super::hdf5_symbols::{set_local_functions, SetLocalFunctions};
use crate::callback::InFilter;
use codecs::registry::Codec;

/// How many parameters are read, as the standard plugin does.
const MAX_PARAMS: usize = 8;

/// HDF5's largest rank (`H5S_MAX_RANK`).
const MAX_RANK: usize = 32;

/// HDF5's class of array types (`H5T_ARRAY`).
const ARRAY_CLASS: c_int = 10;

/// The codec in slot `slot` (`codecs::registry::SLOTS`).
fn carried_codec(slot: usize) -> Option<&'static dyn Codec> {
    codecs::registry::carried_codecs().nth(slot)
}

/// The `set_local` callback of the carried filter in slot `slot`, when its codec has one.
pub(crate) fn set_local_callback(slot: usize) -> Option<SetLocalFn> {
    let codec = carried_codec(slot)?;
    codec.hdf5_set_local(&[], 1, 1, &[1])?;
    codecs::by_slot!(slot, set_local_in_slot)
}

/// The `set_local` of the filter in slot `SLOT`: 0 (or HDF5's status) on success, -1 on
/// a failure, a panic, or when the HDF5 functions it needs are not found in the process.
extern "C" fn set_local_in_slot<const SLOT: usize>(dcpl: i64, type_id: i64, _space: i64) -> c_int {
    let call = || {
        let _marker = InFilter::enter();
        let codec = carried_codec(SLOT)?;
        let id = c_int::try_from(carried_id(SLOT)?).ok()?;
        let hdf5 = set_local_functions()?;
        set_local(&hdf5, codec, id, dcpl, type_id)
    };
    catch_unwind(call).ok().flatten().unwrap_or(-1)
}

fn set_local(
    hdf5: &SetLocalFunctions,
    codec: &dyn Codec,
    id: c_int,
    dcpl: Hid,
    type_id: Hid,
) -> Option<Herr> {
    let (flags, given) = filter_params(hdf5, id, dcpl)?;
    let dims = chunk_dims(hdf5, dcpl)?;
    let size = type_size(hdf5, type_id)?;
    let base = base_size(hdf5, type_id, size);
    let params = codec.hdf5_set_local(&given, size, base, &dims)?;
    Some(modify_filter(hdf5, id, dcpl, flags, &params))
}

/// The filter's flags and parameters as the user gave them.
fn filter_params(hdf5: &SetLocalFunctions, id: c_int, dcpl: Hid) -> Option<(c_uint, Vec<u32>)> {
    let mut flags: c_uint = 0;
    let mut count: usize = MAX_PARAMS;
    let mut values = [0 as c_uint; MAX_PARAMS];
    // SAFETY: HDF5's H5Pget_filter_by_id2; `flags` and `count` are live locals; `values`
    // holds `count` elements, the most HDF5 copies; the name buffer is null with length
    // 0 and the configuration pointer null, which HDF5 takes as "not wanted".
    let status = unsafe {
        (hdf5.get_filter_by_id)(
            dcpl,
            id,
            &mut flags,
            &mut count,
            values.as_mut_ptr(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    (status >= 0).then(|| (flags, values[..count.min(MAX_PARAMS)].to_vec()))
}

/// The chunk's lengths.
fn chunk_dims(hdf5: &SetLocalFunctions, dcpl: Hid) -> Option<Vec<u64>> {
    let mut dims = [0u64; MAX_RANK];
    // SAFETY: HDF5's H5Pget_chunk; `dims` holds MAX_RANK elements, the `max_ndims`
    // given, the most HDF5 writes.
    let ndims = unsafe { (hdf5.get_chunk)(dcpl, MAX_RANK as c_int, dims.as_mut_ptr()) };
    let ndims = usize::try_from(ndims).ok().filter(|n| *n > 0)?;
    dims.get(..ndims).map(<[u64]>::to_vec)
}

/// The size of a type, if HDF5 knows the identifier.
fn type_size(hdf5: &SetLocalFunctions, type_id: Hid) -> Option<usize> {
    // SAFETY: HDF5's H5Tget_size; the identifier is passed by value and HDF5 checks it
    // (0 when it is not a type).
    let size = unsafe { (hdf5.type_size)(type_id) };
    (size > 0).then_some(size)
}

/// The size of an array type's elements, or `size` for another type (0 when HDF5 cannot
/// tell, as the standard plugin would record).
fn base_size(hdf5: &SetLocalFunctions, type_id: Hid, size: usize) -> usize {
    // SAFETY: HDF5's H5Tget_class; the identifier is passed by value; HDF5 checks it.
    if unsafe { (hdf5.type_class)(type_id) } != ARRAY_CLASS {
        return size;
    }
    // SAFETY: HDF5's H5Tget_super, as above; the super type returned is closed below.
    let sup = unsafe { (hdf5.type_super)(type_id) };
    if sup < 0 {
        return 0;
    }
    let base = type_size(hdf5, sup).unwrap_or(0);
    // SAFETY: HDF5's H5Tclose on `sup`, a type identifier HDF5 opened for this call
    // (checked valid above), closed once.
    unsafe { (hdf5.type_close)(sup) };
    base
}

/// Replaces the filter's parameters.
fn modify_filter(
    hdf5: &SetLocalFunctions,
    id: c_int,
    dcpl: Hid,
    flags: c_uint,
    params: &[u32],
) -> Herr {
    // SAFETY: HDF5's H5Pmodify_filter; `params` holds `params.len()` values, which HDF5
    // copies.
    unsafe { (hdf5.modify_filter)(dcpl, id, flags, params.len(), params.as_ptr()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_hdf5_in_the_process_set_local_fails_cleanly() {
        let Some(blosc) = super::super::filter::slot_of(codecs::wire::BLOSC) else {
            panic!("blosc is carried");
        };
        let Some(callback) = set_local_callback(blosc) else {
            panic!("blosc has a set_local");
        };
        assert_eq!(callback(1, 2, 3), -1);
    }
}
