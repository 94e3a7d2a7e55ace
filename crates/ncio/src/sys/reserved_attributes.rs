//! The attributes libnetcdf and libhdf5's dimension-scale functions read into buffers
//! sized by what they expect, not by what the file holds: each must have the shape they
//! assume before HDF5 is asked to read it (red team s34 RH1–RH3: 2,000 values of one of
//! them, from an otherwise honest 7–40 KB file, overflowed a buffer of one, SIGSEGV or
//! SIGABRT in the reference tools too; RH2: a dimension id of 200,000,000 made libnetcdf
//! grow a list to it, 1.6 GB from 733 bytes).

use hdf5_metno_sys::h5a::H5Aread;
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5t::{
    H5T_class_t, H5T_direction_t, H5T_sign_t, H5Tclose, H5Tget_class, H5Tget_native_type,
    H5Tget_sign, H5Tget_size, H5Tis_variable_str,
};

use super::hdf5::Object;

/// The largest dimension id nctools lets libnetcdf read (`_Netcdf4Dimid`): libnetcdf
/// keeps a table of pointers up to the largest id, 8 MiB at this one; a file has one
/// id per dimension, numbered from 0.
const MAX_DIMENSION_ID: i64 = 1 << 20;

/// The names whose one value libnetcdf reads into one `int` (`H5T_NATIVE_INT`).
const ONE_INTEGER: [&[u8]; 4] = [
    b"_Netcdf4Dimid",
    b"_QuantizeBitGroomNumberOfSignificantDigits",
    b"_QuantizeGranularBitRoundNumberOfSignificantDigits",
    b"_QuantizeBitRoundNumberOfSignificantBits",
];

/// The names whose one value is read into one fixed-length string's buffer (by
/// libnetcdf, `_NCProperties`; by libhdf5's `H5DSis_scale` and `H5DSget_scale_name`,
/// `CLASS` and `NAME`), and by nctools too (`NAME`, of a dimension without a variable).
const ONE_STRING: [&[u8]; 3] = [b"_NCProperties", b"CLASS", b"NAME"];

/// Refuses the attribute `name` (open as `attribute`, of `file_type`, with `points`
/// values) when it is one of the attributes above without the shape its reader assumes:
/// one integer, one string, or (`_Netcdf4Coordinates`) integers of at most 4 bytes, as
/// many as its dataset has dimensions (libnetcdf checks the count, reads them with the
/// file's type into an `int` each). `Err` says what is wrong.
///
/// # Safety
/// `attribute` and `file_type` are open.
pub(super) unsafe fn check(
    attribute: hid_t,
    name: &[u8],
    file_type: hid_t,
    points: usize,
) -> Result<(), String> {
    // SAFETY: per the contract.
    let (class, size) = unsafe { (H5Tget_class(file_type), H5Tget_size(file_type)) };
    if ONE_STRING.contains(&name) {
        if points != 1 || class != H5T_class_t::H5T_STRING {
            return Err(format!(
                "{points} value(s) of class {class:?}, where libnetcdf and HDF5 read one \
                 string into a buffer of one"
            ));
        }
        return Ok(());
    }
    if name == b"_Netcdf4Coordinates" {
        if class != H5T_class_t::H5T_INTEGER || size > 4 {
            return Err(
                "not integers of 4 bytes at most, which libnetcdf reads with the \
                        file's type into one int per dimension"
                    .into(),
            );
        }
        return Ok(());
    }
    if !ONE_INTEGER.contains(&name) {
        return Ok(());
    }
    if points != 1 || class != H5T_class_t::H5T_INTEGER || size > 8 {
        return Err(format!(
            "{points} value(s) of class {class:?} and {size} bytes, where libnetcdf \
             reads one integer into one int"
        ));
    }
    if name == b"_Netcdf4Dimid" {
        // SAFETY: per the contract; one integer of at most 8 bytes, checked above.
        let id =
            unsafe { one_integer(attribute, file_type) }.ok_or("its one value cannot be read")?;
        if !(0..MAX_DIMENSION_ID).contains(&id) {
            return Err(format!(
                "a dimension id of {id}, outside 0 to \
                 {MAX_DIMENSION_ID} (libnetcdf keeps a table up to the largest id)"
            ));
        }
    }
    Ok(())
}

/// The one integer value (of at most 8 bytes) of `attribute`, read in its native form.
///
/// # Safety
/// `attribute` and `file_type` are open; the attribute holds one integer of at most 8
/// bytes.
unsafe fn one_integer(attribute: hid_t, file_type: hid_t) -> Option<i64> {
    // SAFETY: per the contract; the native type is as large as the file's (at most 8
    // bytes), and the buffer holds 8.
    unsafe {
        if H5Tis_variable_str(file_type) > 0 {
            return None;
        }
        let native = H5Tget_native_type(file_type, H5T_direction_t::H5T_DIR_DEFAULT);
        if native < 0 {
            return None;
        }
        let native = Object {
            id: native,
            close: H5Tclose,
        };
        let size = H5Tget_size(native.id);
        if size == 0 || size > 8 {
            return None;
        }
        let mut bytes = [0u8; 8];
        if H5Aread(attribute, native.id, bytes.as_mut_ptr().cast()) < 0 {
            return None;
        }
        let unsigned = u64::from_ne_bytes(bytes);
        let bits = 8 * size as u32;
        let value = if H5Tget_sign(native.id) == H5T_sign_t::H5T_SGN_2 && bits < 64 {
            // Sign-extend the low `bits` bits.
            ((unsigned << (64 - bits)) as i64) >> (64 - bits)
        } else {
            i64::try_from(unsigned).unwrap_or(i64::MAX)
        };
        Some(value)
    }
}
