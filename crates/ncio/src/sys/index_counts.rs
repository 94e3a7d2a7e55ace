//! The counts a group's or an object's index states, checked against what it holds:
//! libhdf5 sizes a table of links or attributes by the count its name index (a version 2
//! B-tree) states, fills it with what the heap holds and sorts it, and a count larger
//! than what is held leaves empty entries it then reads (red team s34 RH12: a count of
//! 20,000,000 over 12 links or attributes, 2 to 7 KB files, SIGSEGV in ours and in the
//! reference when libnetcdf iterates in creation order). nctools counts them in the
//! index's own order, which builds no table, and compares.

use std::ffi::{c_char, c_void};

use hdf5_metno_sys::h5::{herr_t, hsize_t, H5_index_t, H5_iter_order_t};
use hdf5_metno_sys::h5g::{H5G_info_t, H5Gget_info_by_name};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5l::{H5L_info1_t, H5Literate_by_name1};
use hdf5_metno_sys::h5o::{H5O_info1_t, H5Oget_info_by_name2, H5O_INFO_NUM_ATTRS};
use hdf5_metno_sys::h5p::H5P_DEFAULT;

/// Refuses the object `name` of `root` when the number of attributes its index states
/// differs from `held`, the number an iteration in native order met.
///
/// # Safety
/// `root` is open and `name` NUL-terminated and one of its objects.
pub(super) unsafe fn check_attributes(
    root: hid_t,
    name: *const c_char,
    held: u64,
) -> Result<(), String> {
    // SAFETY: per the contract; `info` is written by HDF5 on success only.
    let stated = unsafe {
        let mut info = std::mem::zeroed::<H5O_info1_t>();
        if H5Oget_info_by_name2(root, name, &mut info, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) < 0 {
            return Ok(());
        }
        info.num_attrs
    };
    if stated != held {
        return Err(format!(
            "its attribute index counts {stated} attributes where it holds {held} (libhdf5 \
             sizes a table by the count, then reads its empty entries)"
        ));
    }
    Ok(())
}

/// Refuses the group `name` of `root` when the number of links its index states differs
/// from the number an iteration in native order meets.
///
/// # Safety
/// `root` is open and `name` NUL-terminated and one of its groups.
pub(super) unsafe fn check_links(root: hid_t, name: *const c_char) -> Result<(), String> {
    // SAFETY: per the contract; `info` is written by HDF5 on success only; the callback
    // has H5Literate's signature and `held` outlives the synchronous call.
    let (stated, held) = unsafe {
        let mut info = std::mem::zeroed::<H5G_info_t>();
        if H5Gget_info_by_name(root, name, &mut info, H5P_DEFAULT) < 0 {
            return Ok(());
        }
        let mut held: u64 = 0;
        let mut index: hsize_t = 0;
        let iterated = H5Literate_by_name1(
            root,
            name,
            H5_index_t::H5_INDEX_NAME,
            H5_iter_order_t::H5_ITER_NATIVE,
            &mut index,
            Some(count_link),
            std::ptr::from_mut(&mut held).cast(),
            H5P_DEFAULT,
        );
        if iterated < 0 {
            return Ok(());
        }
        (info.nlinks, held)
    };
    if stated != held {
        return Err(format!(
            "its link index counts {stated} links where it holds {held} (libhdf5 sizes a \
             table by the count, then reads its empty entries)"
        ));
    }
    Ok(())
}

/// H5Literate's callback: counts one link in the `u64` behind `data`.
extern "C" fn count_link(
    _group: hid_t,
    _name: *const c_char,
    _info: *const H5L_info1_t,
    data: *mut c_void,
) -> herr_t {
    if !data.is_null() {
        // SAFETY: `data` is the `u64` check_links gives H5Literate (the only caller).
        unsafe { *data.cast::<u64>() += 1 };
    }
    0
}
