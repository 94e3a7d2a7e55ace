//! Blosc's `set_local` callback (`H5Z_set_local_func_t`): records the filter revision,
//! format version, element size and chunk size in bytes in the first four parameters,
//! as the standard plugin does. The HDF5 queries are here; the parameters are computed
//! by [`codecs::blosc::set_local_params`].

use std::ffi::{c_int, c_uint};
use std::panic::catch_unwind;
use std::ptr;

use hdf5_metno_sys::h5::{herr_t, hsize_t};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5p::{H5Pget_chunk, H5Pget_filter_by_id2, H5Pmodify_filter};
use hdf5_metno_sys::h5t::{H5T_class_t, H5Tclose, H5Tget_class, H5Tget_size, H5Tget_super};
use hdf5_metno_sys::h5z::H5Z_filter_t;

use crate::callback::InFilter;
use codecs::wire::BLOSC;

/// How many parameters are read, as the standard plugin does.
const MAX_PARAMS: usize = 8;

/// HDF5's largest rank (`H5S_MAX_RANK`).
const MAX_RANK: usize = 32;

/// The callback: 0 (or HDF5's status) on success, -1 on a failure or a panic.
pub(super) extern "C" fn blosc_set_local(dcpl: hid_t, type_id: hid_t, _space: hid_t) -> herr_t {
    let call = || {
        let _marker = InFilter::enter();
        set_local(dcpl, type_id).unwrap_or(-1)
    };
    catch_unwind(call).unwrap_or(-1)
}

fn set_local(dcpl: hid_t, type_id: hid_t) -> Option<herr_t> {
    let (flags, given) = filter_params(dcpl)?;
    let dims = chunk_dims(dcpl)?;
    let size = type_size(type_id)?;
    let params = codecs::blosc::set_local_params(&given, size, base_size(type_id, size), &dims);
    Some(modify_filter(dcpl, flags, &params))
}

/// The filter's flags and parameters as the user gave them.
fn filter_params(dcpl: hid_t) -> Option<(c_uint, Vec<u32>)> {
    let mut flags: c_uint = 0;
    let mut count: usize = MAX_PARAMS;
    let mut values = [0 as c_uint; MAX_PARAMS];
    // SAFETY: `flags` and `count` are live locals; `values` holds `count` elements, the
    // most HDF5 copies; the name buffer is null with length 0 and the configuration
    // pointer null, which HDF5 takes as "not wanted".
    let status = unsafe {
        H5Pget_filter_by_id2(
            dcpl,
            BLOSC as H5Z_filter_t,
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
fn chunk_dims(dcpl: hid_t) -> Option<Vec<u64>> {
    let mut dims = [0 as hsize_t; MAX_RANK];
    // SAFETY: `dims` holds MAX_RANK elements, the `max_ndims` given, the most HDF5 writes.
    let ndims = unsafe { H5Pget_chunk(dcpl, MAX_RANK as c_int, dims.as_mut_ptr()) };
    let ndims = usize::try_from(ndims).ok().filter(|n| *n > 0)?;
    dims.get(..ndims).map(<[u64]>::to_vec)
}

/// The size of a type, if HDF5 knows the identifier.
fn type_size(type_id: hid_t) -> Option<usize> {
    // SAFETY: the identifier is passed by value; HDF5 checks it (0 when it is not a type).
    let size = unsafe { H5Tget_size(type_id) };
    (size > 0).then_some(size)
}

/// The size of an array type's elements, or `size` for another type (0 when HDF5 cannot
/// tell, as the standard plugin would record).
fn base_size(type_id: hid_t, size: usize) -> usize {
    // SAFETY: the identifier is passed by value; HDF5 checks it.
    if unsafe { H5Tget_class(type_id) } != H5T_class_t::H5T_ARRAY {
        return size;
    }
    // SAFETY: as above; the super type returned is closed below.
    let sup = unsafe { H5Tget_super(type_id) };
    if sup < 0 {
        return 0;
    }
    let base = type_size(sup).unwrap_or(0);
    // SAFETY: `sup` is a type identifier HDF5 opened for this call (checked valid above).
    unsafe { H5Tclose(sup) };
    base
}

/// Replaces the filter's parameters.
fn modify_filter(dcpl: hid_t, flags: c_uint, params: &[u32]) -> herr_t {
    // SAFETY: `params` holds `params.len()` values, which HDF5 copies.
    unsafe {
        H5Pmodify_filter(
            dcpl,
            BLOSC as H5Z_filter_t,
            flags,
            params.len(),
            params.as_ptr(),
        )
    }
}
