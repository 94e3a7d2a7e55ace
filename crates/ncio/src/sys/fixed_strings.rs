//! Variables whose HDF5 dataset holds fixed-length strings (netCDF-C reads them as
//! `string`), read with HDF5 itself: libnetcdf before 4.9.1 hands out such a slab as its
//! first string holding every byte, then null pointers, or bytes from elsewhere in memory.

use std::ffi::{c_int, CStr};

use hdf5_metno_sys::h5::hsize_t;
use hdf5_metno_sys::h5d::H5Dget_space;
use hdf5_metno_sys::h5d::{H5D_layout_t, H5Dget_create_plist, H5Dget_type, H5Dread};
use hdf5_metno_sys::h5f::H5F_ACC_RDONLY;
use hdf5_metno_sys::h5p::{H5Pclose, H5Pget_chunk, H5Pget_layout, H5P_DEFAULT};
use hdf5_metno_sys::h5s::{
    H5S_seloper_t, H5Sclose, H5Screate_simple, H5Sselect_hyperslab, H5S_ALL,
};
use hdf5_metno_sys::h5t::{
    H5T_class_t, H5T_str_t, H5Tclose, H5Tget_class, H5Tget_size, H5Tget_strpad, H5Tis_variable_str,
};

use super::hdf5::{Object, OpenVariable};
use super::Lib;

/// The most bytes one read of fixed-length strings may take (the width times the values
/// of the slab), before anything is allocated: 256 MiB, the chunk limit's default.
pub(crate) const MAX_READ_BYTES: usize = 256 << 20;

/// A dataset of fixed-length strings, open for reading.
pub(crate) struct FixedStrings {
    var: OpenVariable,
    /// The dataset's own type (its width and padding), used as the memory type too.
    file_type: Object,
    /// The bytes of one string.
    width: usize,
    /// Whether the strings are padded with blanks (else with NULs).
    space_padded: bool,
}

impl FixedStrings {
    /// The variable `name` of `group` (`/g`, empty for the root) of the HDF5 file `path`,
    /// when its dataset holds fixed-length strings; `None` otherwise (variable-length
    /// strings, which libnetcdf reads right, or anything HDF5 cannot answer).
    pub(crate) fn open(lib: &Lib, path: &CStr, group: &str, name: &str) -> Option<Self> {
        let var = OpenVariable::open(lib, path, H5F_ACC_RDONLY, group, name)?;
        // SAFETY: the dataset is open; the type id is checked, and closed by `Object`.
        let id = unsafe { H5Dget_type(var.dataset.id) };
        if id < 0 {
            return None;
        }
        let file_type = Object {
            id,
            close: H5Tclose,
        };
        // SAFETY: the type id is open (`file_type` is alive).
        let (class, variable, width, pad) = unsafe {
            (
                H5Tget_class(id),
                H5Tis_variable_str(id),
                H5Tget_size(id),
                H5Tget_strpad(id),
            )
        };
        if class != H5T_class_t::H5T_STRING || variable != 0 || width == 0 {
            return None;
        }
        Some(Self {
            var,
            file_type,
            width,
            space_padded: pad == H5T_str_t::H5T_STR_SPACEPAD,
        })
    }

    /// The strings of the hyperslab `start`/`count` (empty for a scalar), each without
    /// its padding; `Err` with what went wrong when HDF5 fails or the slab would take more
    /// than [`MAX_READ_BYTES`].
    pub(crate) fn read(
        &self,
        _lib: &Lib,
        start: &[usize],
        count: &[usize],
    ) -> Result<Vec<Option<Vec<u8>>>, String> {
        if start.len() != self.var.rank || count.len() != self.var.rank {
            return Err(format!(
                "a slab of rank {} for a dataset of rank {}",
                count.len(),
                self.var.rank
            ));
        }
        let n = count
            .iter()
            .try_fold(1usize, |n, c| n.checked_mul(*c))
            .ok_or("the slab's size overflows")?;
        let bytes = n
            .checked_mul(self.width)
            .filter(|b| *b <= MAX_READ_BYTES)
            .ok_or_else(|| {
                format!(
                    "{n} fixed-length strings of {} bytes each take more than the \
                     {MAX_READ_BYTES} bytes nctools reads at once",
                    self.width
                )
            })?;
        if n == 0 {
            return Ok(Vec::new());
        }
        let mut buffer = vec![0u8; bytes];
        let to_hsize = |v: &[usize]| -> Vec<hsize_t> { v.iter().map(|x| *x as hsize_t).collect() };
        let (start, count) = (to_hsize(start), to_hsize(count));
        // nctools' filters decode no chunk beyond the dataset's chunk size (before: a
        // 5 KB file of 3-byte chunks, each a bzip2 stream of 268 MB, took 2.1 GB).
        let mut read = || self.read_into(&start, &count, &mut buffer);
        let status = match self.chunk_bytes() {
            Some(limit) => codecs::with_decoded_chunk_limit(
                limit.min(codecs::partial::decoded_chunk_cap()),
                read,
            ),
            None => read(),
        }?;
        if status < 0 {
            return Err("HDF5 could not read the strings (H5Dread)".into());
        }
        Ok(buffer
            .chunks_exact(self.width)
            .map(|s| Some(self.unpadded(s).to_vec()))
            .collect())
    }

    /// The bytes of one chunk of the dataset, when it is chunked.
    fn chunk_bytes(&self) -> Option<usize> {
        let rank = self.var.rank;
        let mut dims: Vec<hsize_t> = vec![0; rank.max(1)];
        // SAFETY: the dataset is open; the property list is checked and closed once; the
        // dimensions array holds `rank` values, as many as H5Pget_chunk writes.
        let got = unsafe {
            let dcpl = H5Dget_create_plist(self.var.dataset.id);
            if dcpl < 0 {
                return None;
            }
            let got = if H5Pget_layout(dcpl) == H5D_layout_t::H5D_CHUNKED {
                H5Pget_chunk(dcpl, c_int::try_from(rank).ok()?, dims.as_mut_ptr())
            } else {
                -1
            };
            H5Pclose(dcpl);
            got
        };
        if got < 0 {
            return None;
        }
        dims[..rank]
            .iter()
            .try_fold(self.width, |a, d| a.checked_mul(usize::try_from(*d).ok()?))
    }

    /// Reads the slab `start`/`count` (the whole of a scalar) into `buffer`; HDF5's
    /// status.
    fn read_into(
        &self,
        start: &[hsize_t],
        count: &[hsize_t],
        buffer: &mut [u8],
    ) -> Result<i32, String> {
        let status = if self.var.rank == 0 {
            // SAFETY: the dataset and its type are open; the buffer holds one string of
            // the type's width.
            unsafe {
                H5Dread(
                    self.var.dataset.id,
                    self.file_type.id,
                    H5S_ALL,
                    H5S_ALL,
                    H5P_DEFAULT,
                    buffer.as_mut_ptr().cast(),
                )
            }
        } else {
            self.read_slab(start, count, buffer)?
        };
        Ok(status)
    }

    /// Reads the hyperslab into `buffer` (room for its strings); HDF5's status.
    fn read_slab(
        &self,
        start: &[hsize_t],
        count: &[hsize_t],
        buffer: &mut [u8],
    ) -> Result<i32, String> {
        // SAFETY: the dataset is open; each dataspace id is checked and closed below;
        // start and count have one entry per dimension (checked by the caller); the
        // buffer holds the slab's strings of the type's width.
        unsafe {
            let file_space = H5Dget_space(self.var.dataset.id);
            if file_space < 0 {
                return Err("HDF5 could not give the dataset's dataspace".into());
            }
            let selected = H5Sselect_hyperslab(
                file_space,
                H5S_seloper_t::H5S_SELECT_SET,
                start.as_ptr(),
                std::ptr::null(),
                count.as_ptr(),
                std::ptr::null(),
            );
            let rank = i32::try_from(count.len()).unwrap_or(i32::MAX);
            let memory_space = H5Screate_simple(rank, count.as_ptr(), std::ptr::null());
            let status = if selected < 0 || memory_space < 0 {
                -1
            } else {
                H5Dread(
                    self.var.dataset.id,
                    self.file_type.id,
                    memory_space,
                    file_space,
                    H5P_DEFAULT,
                    buffer.as_mut_ptr().cast(),
                )
            };
            if memory_space >= 0 {
                H5Sclose(memory_space);
            }
            H5Sclose(file_space);
            Ok(status)
        }
    }

    /// One stored string without its padding: up to its first NUL, and without trailing
    /// blanks when the type pads with blanks.
    fn unpadded<'s>(&self, stored: &'s [u8]) -> &'s [u8] {
        let text = stored.split(|b| *b == 0).next().unwrap_or_default();
        if self.space_padded {
            let end = text.iter().rposition(|b| *b != b' ').map_or(0, |i| i + 1);
            &text[..end]
        } else {
            text
        }
    }
}
