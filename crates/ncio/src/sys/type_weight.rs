//! What one value of an HDF5 type takes once nctools has decoded it
//! ([`ncmodel::weight`]'s model), and how deep the type nests, measured from the type
//! HDF5 gives before anything converts a value of it.
//!
//! Each step down a nested HDF5 type copies the whole rest of it (`H5Tget_super`,
//! `H5Tget_member_type`), and HDF5's native-type and conversion calls do so at every
//! level: an attribute of an array of an array ... 2,000 deep of strings, 40 KB, took
//! 3.4 GB in `ncdump -h`. The walk here keeps at most [`MAX_TYPE_DEPTH`] levels open,
//! a chain's parent closed before its base is weighed, and refuses deeper types.

use hdf5_metno_sys::h5::hsize_t;
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5t::{
    H5T_class_t, H5Tclose, H5Tget_array_dims2, H5Tget_array_ndims, H5Tget_class,
    H5Tget_member_type, H5Tget_nmembers, H5Tget_size, H5Tget_super, H5Tis_variable_str,
};
use ncmodel::types::AtomicType;
use ncmodel::weight::{self, Weight, MAX_TYPE_DEPTH};

use super::hdf5::Object;

/// The weight of one decoded value of the open type `t`; `Err` says why it cannot be
/// read (it nests deeper than [`MAX_TYPE_DEPTH`], or HDF5 cannot describe it).
pub(super) fn weigh(t: hid_t) -> Result<Weight, String> {
    weigh_at(t, 0)
}

fn weigh_at(t: hid_t, depth: usize) -> Result<Weight, String> {
    if depth > MAX_TYPE_DEPTH {
        return Err(format!(
            "its type nests more than {MAX_TYPE_DEPTH} deep, which no netCDF library \
             writes (HDF5 copies the rest of such a type at every level)"
        ));
    }
    let unreadable = || "HDF5 cannot describe its type".to_string();
    let opened = |id: hid_t| {
        (id >= 0)
            .then_some(Object {
                id,
                close: H5Tclose,
            })
            .ok_or_else(unreadable)
    };
    // SAFETY: `t` is an open type (the caller's); every id made here is checked, and
    // closed by `Object` before the caller's next step.
    unsafe {
        let size = H5Tget_size(t);
        Ok(match H5Tget_class(t) {
            H5T_class_t::H5T_STRING if H5Tis_variable_str(t) > 0 => {
                weight::atomic(AtomicType::String)
            }
            H5T_class_t::H5T_ENUM => weight::ENUM,
            H5T_class_t::H5T_OPAQUE => weight::opaque(size),
            H5T_class_t::H5T_VLEN => {
                // Its elements are counted where they are read; its depth counts here.
                let base = opened(H5Tget_super(t))?;
                weigh_at(base.id, depth + 1)?;
                weight::SEQUENCE
            }
            H5T_class_t::H5T_ARRAY => {
                let (count, element) = array(t, depth)?;
                Weight {
                    inline: count.saturating_mul(element.inline),
                    heap: count.saturating_mul(element.heap),
                }
            }
            H5T_class_t::H5T_COMPOUND => {
                let members = u32::try_from(H5Tget_nmembers(t)).map_err(|_| unreadable())?;
                let mut fields = Vec::new();
                for i in 0..members {
                    let member = opened(H5Tget_member_type(t, i))?;
                    fields.push(if H5Tget_class(member.id) == H5T_class_t::H5T_ARRAY {
                        array(member.id, depth + 1)?
                    } else {
                        (1, weigh_at(member.id, depth + 1)?)
                    });
                }
                weight::compound(&fields)
            }
            _ => Weight {
                inline: size,
                heap: 0,
            },
        })
    }
}

/// How many times more the elements of the type `t`'s variable-length sequences take
/// decoded than stored (1 for atomic elements; a sequence of one-byte compounds about
/// 110): a sequence's elements are counted from their stored bytes where they are
/// read, which this factor makes what nctools holds (s33b HH7: 50,000 sequences of 1,000
/// one-byte compounds naming one heap object passed a bound on stored bytes, and
/// aborted the tools at 3.7 GB). 1 when `t` holds no sequence or cannot be described.
pub(super) fn sequence_factor(t: hid_t) -> usize {
    factor_at(t, 0).unwrap_or(1).max(1)
}

fn factor_at(t: hid_t, depth: usize) -> Option<usize> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    let opened = |id: hid_t| {
        (id >= 0).then_some(Object {
            id,
            close: H5Tclose,
        })
    };
    // SAFETY: `t` is an open type (the caller's); every id made here is checked, and
    // closed by `Object`.
    unsafe {
        match H5Tget_class(t) {
            H5T_class_t::H5T_VLEN => {
                let base = opened(H5Tget_super(t))?;
                let stored = H5Tget_size(base.id).max(1);
                let decoded = weigh_at(base.id, depth + 1).ok()?.total();
                let inner = factor_at(base.id, depth + 1).unwrap_or(1);
                Some(decoded.div_ceil(stored).max(inner))
            }
            H5T_class_t::H5T_ARRAY => factor_at(opened(H5Tget_super(t))?.id, depth + 1),
            H5T_class_t::H5T_COMPOUND => {
                let members = u32::try_from(H5Tget_nmembers(t)).ok()?;
                (0..members)
                    .filter_map(|i| factor_at(opened(H5Tget_member_type(t, i))?.id, depth + 1))
                    .max()
            }
            _ => Some(1),
        }
    }
}

/// The element count and the weight of one element of the array type `t`.
///
/// # Safety
/// `t` is an open array type.
unsafe fn array(t: hid_t, depth: usize) -> Result<(usize, Weight), String> {
    let unreadable = || "HDF5 cannot describe its type".to_string();
    // SAFETY: per the contract; the base's id is checked, and closed by `Object`.
    unsafe {
        let rank = usize::try_from(H5Tget_array_ndims(t)).map_err(|_| unreadable())?;
        let mut dims: Vec<hsize_t> = vec![0; rank.max(1)];
        if H5Tget_array_dims2(t, dims.as_mut_ptr()) < 0 {
            return Err(unreadable());
        }
        let count = dims[..rank].iter().fold(1usize, |n, d| {
            n.saturating_mul(usize::try_from(*d).unwrap_or(usize::MAX))
        });
        let base = H5Tget_super(t);
        if base < 0 {
            return Err(unreadable());
        }
        let base = Object {
            id: base,
            close: H5Tclose,
        };
        Ok((count, weigh_at(base.id, depth + 1)?))
    }
}
