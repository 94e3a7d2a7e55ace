//! The HDF5 calls nctools makes beside libnetcdf: error printing, the filter plugin search
//! path, filter availability, stored sizes of datasets, and direct chunk writes.

use std::cell::Cell;
use std::ffi::{c_int, c_uint, c_void, CStr, CString};

use hdf5_metno_sys::h5::{hsize_t, H5get_libversion, H5open};
use hdf5_metno_sys::h5d::{
    H5D_layout_t, H5Dclose, H5Dget_chunk_info, H5Dget_chunk_info_by_coord, H5Dget_create_plist,
    H5Dget_num_chunks, H5Dget_offset, H5Dget_space, H5Dget_storage_size, H5Dopen2, H5Dread_chunk,
    H5Dset_extent, H5Dwrite_chunk,
};
use hdf5_metno_sys::h5e::{H5Eset_auto2, H5E_DEFAULT};
use hdf5_metno_sys::h5f::{H5Fclose, H5Fopen, H5F_ACC_RDONLY, H5F_ACC_RDWR};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5l::H5Lexists;
use hdf5_metno_sys::h5p::{
    H5Pclose, H5Pget_chunk, H5Pget_filter_by_id2, H5Pget_layout, H5P_DEFAULT,
};
use hdf5_metno_sys::h5pl::{H5PLget, H5PLget_loading_state, H5PLsize, H5PL_FILTER_PLUGIN};
use hdf5_metno_sys::h5s::{H5Sclose, H5Sget_simple_extent_dims, H5Sget_simple_extent_ndims};
use hdf5_metno_sys::h5z::{H5Z_filter_t, H5Zfilter_avail};

use store::{ChunkPlace, StoredChunk, StoredLayout};

use super::{with_lib, Lib};

thread_local! {
    static SILENCED: Cell<bool> = const { Cell::new(false) };
}

/// Turns off HDF5's automatic error printing on this thread, once. libnetcdf does it on
/// the thread that initialises it; HDF5 keeps the setting per thread, and an expected miss
/// (an absent attribute) would otherwise print a stack of "HDF5-DIAG" lines.
pub(super) fn silence_errors(_lib: &Lib) {
    SILENCED.with(|done| {
        if !done.get() {
            // SAFETY: H5Eset_auto2 with no handler only changes this thread's error stack
            // settings; the lock is held.
            unsafe {
                H5Eset_auto2(H5E_DEFAULT, None, std::ptr::null_mut());
            }
            done.set(true);
        }
    });
}

/// Initialises HDF5 if needed (harmless when it already is).
pub(super) fn init(_lib: &Lib) {
    // SAFETY: H5open takes no arguments and may be called any number of times.
    unsafe { H5open() };
}

/// The version of the libhdf5 in use (`1.10.8`), as it reports it.
pub(crate) fn hdf5_version(lib: &Lib) -> Option<String> {
    init(lib);
    let (mut major, mut minor, mut release): (c_uint, c_uint, c_uint) = (0, 0, 0);
    // SAFETY: the three are live out-pointers to unsigned ints.
    let status = unsafe { H5get_libversion(&mut major, &mut minor, &mut release) };
    (status >= 0).then(|| format!("{major}.{minor}.{release}"))
}

/// The version text of the libnetcdf in use (`4.9.0 of ...`), as `nc_inq_libvers` gives it.
pub(crate) fn netcdf_version(_lib: &Lib) -> String {
    // SAFETY: nc_inq_libvers takes no arguments and returns a pointer to a static
    // NUL-terminated string (or NULL), copied at once.
    let text = unsafe { netcdf_sys::nc_inq_libvers() };
    if text.is_null() {
        return String::new();
    }
    // SAFETY: non-NULL, and NUL-terminated by libnetcdf.
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

/// HDF5's plugin search path, in order.
pub(crate) fn plugin_search_paths(lib: &Lib) -> Vec<String> {
    init(lib);
    let mut n: c_uint = 0;
    // SAFETY: n is a live out-pointer.
    if unsafe { H5PLsize(&mut n) } < 0 {
        return Vec::new();
    }
    (0..n)
        .filter_map(|i| {
            // First the length, then a buffer one byte longer for the NUL.
            // SAFETY: a NULL buffer of size 0 asks for the length only.
            let len = unsafe { H5PLget(i, std::ptr::null_mut(), 0) };
            let len = usize::try_from(len).ok()?;
            let mut buf = vec![0u8; len.checked_add(1)?];
            // SAFETY: buf holds buf.len() bytes, and HDF5 writes at most that many.
            let written = unsafe { H5PLget(i, buf.as_mut_ptr().cast(), buf.len()) };
            let written = usize::try_from(written).ok()?.min(len);
            buf.truncate(written);
            Some(String::from_utf8_lossy(&buf).into_owned())
        })
        .collect()
}

/// Whether HDF5 can use the filter `id`.
pub(crate) fn filter_available(lib: &Lib, id: u32) -> bool {
    let Ok(id) = H5Z_filter_t::try_from(id) else {
        return false;
    };
    init(lib);
    // SAFETY: H5Zfilter_avail only queries HDF5's filter table and plugin path.
    unsafe { H5Zfilter_avail(id) > 0 }
}

/// Whether HDF5 loads filter plugins at all.
pub(crate) fn filter_plugins_enabled(lib: &Lib) -> bool {
    init(lib);
    let mut flags: c_int = 0;
    // SAFETY: flags is a live out-pointer.
    let status = unsafe { H5PLget_loading_state(&mut flags) };
    status < 0 || (flags as c_uint) & H5PL_FILTER_PLUGIN != 0
}

/// An HDF5 object id closed when dropped.
pub(super) struct Object {
    pub(super) id: hid_t,
    pub(super) close: unsafe extern "C" fn(hid_t) -> hdf5_metno_sys::h5::herr_t,
}

impl Drop for Object {
    fn drop(&mut self) {
        with_lib(|_lib| {
            // SAFETY: the id was opened successfully and this is its only close.
            unsafe { (self.close)(self.id) };
        });
    }
}

/// Opens the file `path` with HDF5.
pub(super) fn open_file(_lib: &Lib, path: &CStr, flags: c_uint) -> Option<Object> {
    // SAFETY: path is NUL-terminated; the id is checked below.
    let id = unsafe { H5Fopen(path.as_ptr(), flags, H5P_DEFAULT) };
    (id >= 0).then_some(Object {
        id,
        close: H5Fclose,
    })
}

/// Opens the dataset `path` of `file`, if it exists.
fn open_dataset(_lib: &Lib, file: &Object, path: &str) -> Option<Object> {
    let path = CString::new(path).ok()?;
    // SAFETY: the file is open (`file` is alive); path is NUL-terminated. H5Lexists first,
    // so that a missing name is a plain "no" rather than an error.
    if unsafe { H5Lexists(file.id, path.as_ptr(), H5P_DEFAULT) } <= 0 {
        return None;
    }
    // SAFETY: as above; the id is checked below.
    let id = unsafe { H5Dopen2(file.id, path.as_ptr(), H5P_DEFAULT) };
    (id >= 0).then_some(Object {
        id,
        close: H5Dclose,
    })
}

/// The prefix netCDF-4 gives the dataset of a variable named like a dimension it does not
/// start with.
const NON_COORD_PREFIX: &str = "_nc4_non_coord_";

/// Opens the dataset of the variable `name` of `group` (`/g/h`, empty for the root): the
/// prefixed name first, since where it exists the plain name is the dimension's.
fn open_variable(lib: &Lib, file: &Object, group: &str, name: &str) -> Option<Object> {
    [
        format!("{group}/{NON_COORD_PREFIX}{name}"),
        format!("{group}/{name}"),
    ]
    .iter()
    .find_map(|path| open_dataset(lib, file, path))
}

/// The stored size in bytes of each variable (by full path: `/v`, `/g/v`) of the HDF5
/// file `path`; `None` where it cannot be told.
pub(crate) fn stored_sizes(lib: &Lib, path: &CStr, vars: &[String]) -> Vec<Option<u64>> {
    init(lib);
    let Some(file) = open_file(lib, path, H5F_ACC_RDONLY) else {
        return vec![None; vars.len()];
    };
    vars.iter()
        .map(|var| {
            let (group, name) = var.rsplit_once('/')?;
            let dataset = open_variable(lib, &file, group, name)?;
            // SAFETY: the dataset is open (`dataset` is alive).
            Some(unsafe { H5Dget_storage_size(dataset.id) })
        })
        .collect()
}

/// The dataset of one variable, open in HDF5 with the file that holds it.
pub(super) struct OpenVariable {
    // Field order: the dataset closes before the file.
    pub(super) dataset: Object,
    _file: Object,
    pub(super) rank: usize,
}

impl OpenVariable {
    /// Opens the variable `name` of `group` (`/g`, empty for the root) of the file `path`
    /// with the file access `flags`.
    pub(super) fn open(
        lib: &Lib,
        path: &CStr,
        flags: c_uint,
        group: &str,
        name: &str,
    ) -> Option<Self> {
        init(lib);
        let file = open_file(lib, path, flags)?;
        let dataset = open_variable(lib, &file, group, name)?;
        // SAFETY: the dataset is open; the dataspace id is checked and closed at once.
        let rank = unsafe {
            let space = H5Dget_space(dataset.id);
            if space < 0 {
                return None;
            }
            let rank = H5Sget_simple_extent_ndims(space);
            H5Sclose(space);
            rank
        };
        Some(Self {
            dataset,
            _file: file,
            rank: usize::try_from(rank).ok()?,
        })
    }

    /// The HDF5 file the dataset is in.
    pub(super) fn file_id(&self) -> hid_t {
        self._file.id
    }

    /// The parameter words HDF5 stores for the filter `id` of this dataset, as its
    /// set-local callback left them (libnetcdf reports fewer for szip); `None` when the
    /// dataset has no such filter or HDF5 fails. At most 32 words.
    fn filter_params(&self, _lib: &Lib, id: u32) -> Option<Vec<u32>> {
        const MAX_WORDS: usize = 32;
        let id = H5Z_filter_t::try_from(id).ok()?;
        let mut values: [c_uint; MAX_WORDS] = [0; MAX_WORDS];
        let mut count: usize = MAX_WORDS;
        let (mut flags, mut config): (c_uint, c_uint) = (0, 0);
        // SAFETY: the dataset is open; its creation property list id is checked and
        // closed at once. HDF5 writes at most `count` (= the array's length) words into
        // `values`, and the flags, count and configuration through live out-pointers; no
        // name is asked for (length 0, null buffer).
        let status = unsafe {
            let plist = H5Dget_create_plist(self.dataset.id);
            if plist < 0 {
                return None;
            }
            let status = H5Pget_filter_by_id2(
                plist,
                id,
                &mut flags,
                &mut count,
                values.as_mut_ptr(),
                0,
                std::ptr::null_mut(),
                &mut config,
            );
            H5Pclose(plist);
            status
        };
        (status >= 0).then(|| values[..count.min(MAX_WORDS)].to_vec())
    }
}

/// One dataset of a netCDF-4 file being written, open in HDF5 for direct chunk writes.
pub(crate) struct ChunkTarget {
    var: OpenVariable,
}

impl ChunkTarget {
    /// Opens the variable `name` of `group` (`/g`, empty for the root) of the file `path`.
    pub(crate) fn open(lib: &Lib, path: &CStr, group: &str, name: &str) -> Option<Self> {
        let var = OpenVariable::open(lib, path, H5F_ACC_RDWR, group, name)?;
        Some(Self { var })
    }

    /// The dataset's number of dimensions.
    pub(crate) fn rank(&self) -> usize {
        self.var.rank
    }

    /// The parameter words HDF5 stores for the filter `id` of this dataset, as its
    /// set-local callback made them when the variable was created (szip's four words);
    /// `None` when the dataset has no such filter or HDF5 fails.
    pub(crate) fn filter_params(&self, lib: &Lib, id: u32) -> Option<Vec<u32>> {
        self.var.filter_params(lib, id)
    }

    /// Sets the dataset's current shape (it must be extensible along the dimensions that
    /// grow: unlimited ones); false if HDF5 refused or the rank is wrong.
    pub(crate) fn set_extent(&self, _lib: &Lib, shape: &[usize]) -> bool {
        if shape.len() != self.var.rank {
            return false;
        }
        let shape: Vec<hsize_t> = shape.iter().map(|n| *n as hsize_t).collect();
        // SAFETY: the dataset is open; shape has one entry per dimension (checked above).
        unsafe { H5Dset_extent(self.var.dataset.id, shape.as_ptr()) >= 0 }
    }

    /// Writes one encoded chunk at `offset` (one entry per dimension), the filters
    /// whose bits are set in `filter_mask` skipped; false if HDF5 refused it or the
    /// offset has the wrong rank.
    pub(crate) fn write(
        &self,
        _lib: &Lib,
        offset: &[usize],
        filter_mask: u32,
        chunk: &[u8],
    ) -> bool {
        if offset.len() != self.var.rank {
            return false;
        }
        let offset: Vec<hsize_t> = offset.iter().map(|o| *o as hsize_t).collect();
        // SAFETY: the dataset is open; offset has one entry per dimension (checked above);
        // the buffer holds chunk.len() bytes, all initialised.
        let status = unsafe {
            H5Dwrite_chunk(
                self.var.dataset.id,
                H5P_DEFAULT,
                filter_mask,
                offset.as_ptr(),
                chunk.len(),
                chunk.as_ptr().cast::<c_void>(),
            )
        };
        status >= 0
    }
}

/// One dataset of a netCDF-4 file being read, open in HDF5 to read its chunks as they
/// are stored (encoded).
pub(crate) struct ChunkOrigin {
    var: OpenVariable,
    /// The bytes of the file, which every stored chunk lies within.
    file_bytes: u64,
    /// The most bytes one stored chunk may take: what the file really stores (its
    /// blocks, which a sparse file's holes do not take) and [`STORED_SLACK`], and at most
    /// twice the chunk's decoded size and [`STORED_SLACK`] (no filter grows a chunk more).
    max_stored_chunk: u64,
}

/// Room beyond what a file stores, or twice a chunk's decoded size, for one stored chunk.
const STORED_SLACK: u64 = 1 << 20;

extern "C" {
    /// `H5Dget_chunk_storage_size` (HDF5 1.10.2): the stored size of the chunk at
    /// `offset`, found by descending the chunk index, as `H5Dread_chunk` and `H5Dread`
    /// find it (0 when it was never written).
    fn H5Dget_chunk_storage_size(
        dataset: hid_t,
        offset: *const hsize_t,
        chunk_bytes: *mut hsize_t,
    ) -> hdf5_metno_sys::h5::herr_t;
}

/// How many places the chunk grid of `shape` in `chunks` has (saturating).
fn grid_cells(shape: &[hsize_t], chunks: &[hsize_t]) -> u64 {
    shape.iter().zip(chunks).fold(1u64, |n, (len, c)| {
        n.saturating_mul(len.div_ceil((*c).max(1)))
    })
}

/// HDF5's undefined address: a chunk that was never written.
const HADDR_UNDEF: u64 = u64::MAX;

impl ChunkOrigin {
    /// Opens the variable `name` of `group` (`/g`, empty for the root) of the file
    /// `path`, read-only.
    pub(crate) fn open(lib: &Lib, path: &CStr, group: &str, name: &str) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let var = OpenVariable::open(lib, path, H5F_ACC_RDONLY, group, name)?;
        let metadata = std::fs::metadata(path.to_str().ok()?).ok()?;
        let file_bytes = metadata.len();
        let stored = file_bytes.min(metadata.blocks().saturating_mul(512));
        let mut origin = Self {
            var,
            file_bytes,
            max_stored_chunk: stored.saturating_add(STORED_SLACK),
        };
        if let (Some((_, chunks)), Some(element)) = (origin.grid(), origin.element_size(lib)) {
            let decoded = chunks
                .iter()
                .fold(element as u64, |n, c| n.saturating_mul(*c));
            origin.max_stored_chunk = origin
                .max_stored_chunk
                .min(decoded.saturating_mul(2).saturating_add(STORED_SLACK));
        }
        Some(origin)
    }

    /// The dataset's filter pipeline as HDF5 stores it (libnetcdf reports a filter
    /// repeated in it once, which would shift the bits of a chunk's filter mask): each
    /// filter's id and parameters (at most 32 words); `None` when HDF5 fails.
    pub(crate) fn pipeline(&self, _lib: &Lib) -> Option<Vec<(u32, Vec<u32>)>> {
        const MAX_WORDS: usize = 32;
        // SAFETY: the dataset is open; its creation property list id is checked and
        // closed once; HDF5 writes at most `count` (= the array's length) words into
        // `values`, and the flags, count and configuration through live out-pointers; no
        // name is asked for (length 0, null buffer).
        unsafe {
            let plist = H5Dget_create_plist(self.var.dataset.id);
            if plist < 0 {
                return None;
            }
            let n = hdf5_metno_sys::h5p::H5Pget_nfilters(plist);
            let filters = (0..c_uint::try_from(n).unwrap_or(0))
                .map(|i| {
                    let mut values: [c_uint; MAX_WORDS] = [0; MAX_WORDS];
                    let mut count: usize = MAX_WORDS;
                    let (mut flags, mut config): (c_uint, c_uint) = (0, 0);
                    let id = hdf5_metno_sys::h5p::H5Pget_filter2(
                        plist,
                        i,
                        &mut flags,
                        &mut count,
                        values.as_mut_ptr(),
                        0,
                        std::ptr::null_mut(),
                        &mut config,
                    );
                    let id = u32::try_from(id).ok()?;
                    Some((id, values[..count.min(MAX_WORDS)].to_vec()))
                })
                .collect::<Option<Vec<_>>>();
            H5Pclose(plist);
            filters.filter(|_| n >= 0)
        }
    }

    /// At least the bytes of one stored element of the dataset's type; `None` when HDF5
    /// fails. HDF5 gives a type's size in memory, where a variable-length string is an
    /// 8-byte pointer; stored, it is a heap reference of up to 16 bytes (4 for the length,
    /// the file's address size, 4 for the index). So a type holding strings or sequences
    /// counts twice its memory size and 16 more, never less than what it stores.
    pub(crate) fn element_size(&self, _lib: &Lib) -> Option<usize> {
        use hdf5_metno_sys::h5t::{
            H5T_class_t, H5Tclose, H5Tdetect_class, H5Tget_class, H5Tget_size, H5Tis_variable_str,
        };
        // SAFETY: the dataset is open; the type id is checked and closed at once.
        unsafe {
            let file_type = hdf5_metno_sys::h5d::H5Dget_type(self.var.dataset.id);
            if file_type < 0 {
                return None;
            }
            let size = H5Tget_size(file_type);
            // A fixed-length string (netCDF's char, one byte) is held as stored; only
            // values of variable length take more decoded (red team s35 RB11: char chunks
            // weighed at 18 bytes a character refused honest 16 MB chunks).
            let fixed_string = H5Tget_class(file_type) == H5T_class_t::H5T_STRING
                && H5Tis_variable_str(file_type) == 0;
            let variable = !fixed_string
                && (H5Tdetect_class(file_type, H5T_class_t::H5T_VLEN) > 0
                    || H5Tdetect_class(file_type, H5T_class_t::H5T_STRING) > 0);
            H5Tclose(file_type);
            let size = if variable {
                size.checked_mul(2)?.checked_add(16)?
            } else {
                size
            };
            (size > 0).then_some(size)
        }
    }

    /// How many chunks are stored (were ever written); `None` when HDF5 fails.
    pub(crate) fn written(&self, _lib: &Lib) -> Option<u64> {
        let mut n: hsize_t = 0;
        // SAFETY: the dataset is open; its dataspace id is checked and closed at once
        // (HDF5 1.10 refuses H5S_ALL here); n is a live out-pointer.
        let status = unsafe {
            let space = H5Dget_space(self.var.dataset.id);
            if space < 0 {
                return None;
            }
            let status = H5Dget_num_chunks(self.var.dataset.id, space, &mut n);
            H5Sclose(space);
            status
        };
        (status >= 0).then_some(n)
    }

    /// The stored chunk whose first element is at `offset` (a multiple of the chunk
    /// shape): its filter mask and bytes. `Ok(None)` when it was never written; `Err(())`
    /// when HDF5 fails or the offset has the wrong rank.
    pub(crate) fn read(&self, _lib: &Lib, offset: &[usize]) -> Result<Option<StoredChunk>, ()> {
        if offset.len() != self.var.rank {
            return Err(());
        }
        let offset: Vec<hsize_t> = offset.iter().map(|o| *o as hsize_t).collect();
        // The size HDF5 finds by descending the index, as H5Dread_chunk does: one lookup
        // of a few steps (H5Dget_chunk_info_by_coord iterates the whole index in HDF5
        // 1.10, which made reading every chunk quadratic: an honest 4 MB file of 80,000
        // chunks took 127 s, red team s36 RE4), and the very entry the read uses (an
        // index holding two entries for one chunk once had H5Dread_chunk write a
        // 100,000-byte entry into a buffer sized from a 20-byte one).
        let mut size: hsize_t = 0;
        // SAFETY: the dataset is open; offset has one entry per dimension (checked above);
        // `size` is a live out-pointer.
        let status =
            unsafe { H5Dget_chunk_storage_size(self.var.dataset.id, offset.as_ptr(), &mut size) };
        if status < 0 || size == 0 {
            // HDF5 1.10 fails the lookup of a chunk never written: asked through the
            // index's iteration, a chunk with no address was never written, anything else
            // is a failure (only then is the index iterated).
            return if self.never_written(&offset) {
                Ok(None)
            } else {
                Err(())
            };
        }
        // A chunk lies within the file and what it stores: an index claiming more is not
        // allocated for (before, a 3.5 KB file claiming a 4 GiB chunk aborted the tool,
        // and a sparse 4 KB one claiming 1 GiB took 2.1 GB); HDF5 refuses to read past
        // the file's end.
        if size > self.max_stored_chunk || size > self.file_bytes {
            return Err(());
        }
        let len = usize::try_from(size).map_err(|_| ())?;
        let mut bytes = vec![0u8; len];
        let mut read_mask: u32 = 0;
        // SAFETY: the dataset is open; offset is as above; the buffer holds `size` bytes,
        // the stored size of this very chunk, which is what H5Dread_chunk writes.
        let status = unsafe {
            H5Dread_chunk(
                self.var.dataset.id,
                H5P_DEFAULT,
                offset.as_ptr(),
                &mut read_mask,
                bytes.as_mut_ptr().cast::<c_void>(),
            )
        };
        if status < 0 {
            return Err(());
        }
        Ok(Some(StoredChunk {
            filter_mask: read_mask,
            bytes,
        }))
    }
}

impl ChunkOrigin {
    /// Whether HDF5's chunk index has no address for the chunk at `offset` (one entry per
    /// dimension): it was never written.
    fn never_written(&self, offset: &[hsize_t]) -> bool {
        self.chunk_info_by_coord(offset)
            .is_some_and(|(_, address, _)| address == HADDR_UNDEF)
    }

    /// The filter mask, address and stored size HDF5's index iteration gives the chunk at
    /// `offset` (one entry per dimension; the address undefined for a chunk never
    /// written); `None` when HDF5 fails.
    fn chunk_info_by_coord(&self, offset: &[hsize_t]) -> Option<(c_uint, u64, hsize_t)> {
        if offset.len() != self.var.rank {
            return None;
        }
        let (mut mask, mut address, mut size): (c_uint, u64, hsize_t) = (0, 0, 0);
        // SAFETY: the dataset is open; offset has one entry per dimension (checked above);
        // the three out-pointers are live.
        let status = unsafe {
            H5Dget_chunk_info_by_coord(
                self.var.dataset.id,
                offset.as_ptr(),
                &mut mask,
                &mut address,
                &mut size,
            )
        };
        (status >= 0).then_some((mask, address, size))
    }

    /// Where the dataset's data lies in the file: its layout and, for a chunked dataset,
    /// every chunk ever written (at most `max_chunks`; `None` beyond), or for a contiguous
    /// one its single block. `None` when HDF5 fails.
    pub(crate) fn layout(&self, lib: &Lib, max_chunks: u64) -> Option<StoredLayout> {
        let dataset = self.var.dataset.id;
        // SAFETY: the dataset is open; its creation property list id is checked and
        // closed at once.
        let layout = unsafe {
            let plist = H5Dget_create_plist(dataset);
            if plist < 0 {
                return None;
            }
            let layout = H5Pget_layout(plist);
            H5Pclose(plist);
            layout
        };
        match layout {
            H5D_layout_t::H5D_COMPACT => Some(StoredLayout::Compact),
            H5D_layout_t::H5D_CONTIGUOUS => {
                // SAFETY: the dataset is open.
                let (address, size) =
                    unsafe { (H5Dget_offset(dataset), H5Dget_storage_size(dataset)) };
                Some(StoredLayout::Contiguous(
                    (address != HADDR_UNDEF && size > 0).then_some(ChunkPlace {
                        index: Vec::new(),
                        filter_mask: 0,
                        address,
                        size,
                    }),
                ))
            }
            H5D_layout_t::H5D_CHUNKED => {
                let count = self.written(lib)?;
                if count > max_chunks {
                    return None;
                }
                if count == 0 {
                    // Nothing was ever written: nothing to walk (a grid of millions of
                    // places asked one by one took most of a minute per variable).
                    return Some(StoredLayout::Chunked(Vec::new()));
                }
                // Two walks, the cheaper taken: HDF5 1.10 finds the i-th stored chunk by
                // walking its index from the start, so listing by index costs about
                // count²/2 steps; asking each place of the chunk grid costs one lookup
                // per place, whatever was written.
                let by_index_cost = count.saturating_mul(count) / 2;
                match self.grid() {
                    Some((shape, chunks))
                        if grid_cells(&shape, &chunks) <= max_chunks.min(by_index_cost) =>
                    {
                        self.chunk_places_by_grid(&shape, &chunks)
                            .map(StoredLayout::Chunked)
                    }
                    _ => self.chunk_places(count).map(|mut places| {
                        // In the grid walk's order (row-major), whichever walk ran.
                        places.sort_unstable_by(|a, b| a.index.cmp(&b.index));
                        StoredLayout::Chunked(places)
                    }),
                }
                .and_then(|layout| self.addressed_from_file_start(layout))
            }
            _ => Some(StoredLayout::Other),
        }
    }

    /// `layout`'s chunk addresses made offsets in the file: HDF5 1.10 gives a chunk's
    /// address from the file's base, after any user block (its contiguous offset is
    /// from the file's start already). Before, `--kerchunk` of a file with a 1,024-byte
    /// user block referenced each chunk 1,024 bytes early (red team s33 MG1).
    fn addressed_from_file_start(&self, layout: StoredLayout) -> Option<StoredLayout> {
        use hdf5_metno_sys::h5f::{H5Fclose, H5Fget_create_plist};
        use hdf5_metno_sys::h5i::H5Iget_file_id;
        use hdf5_metno_sys::h5p::H5Pget_userblock;
        let StoredLayout::Chunked(mut places) = layout else {
            return Some(layout);
        };
        let mut base: hsize_t = 0;
        // SAFETY: the dataset is open; the file and property list ids are checked and
        // closed at once; `base` is a valid place for the user block's size.
        let known = unsafe {
            let file = H5Iget_file_id(self.var.dataset.id);
            if file < 0 {
                return None;
            }
            let create = H5Fget_create_plist(file);
            let got = create >= 0 && H5Pget_userblock(create, &mut base) >= 0;
            if create >= 0 {
                H5Pclose(create);
            }
            H5Fclose(file);
            got
        };
        if !known {
            return None;
        }
        for place in &mut places {
            place.address = place.address.checked_add(base)?;
        }
        Some(StoredLayout::Chunked(places))
    }

    /// The chunked dataset's current shape and chunk shape; `None` when HDF5 fails.
    fn grid(&self) -> Option<(Vec<hsize_t>, Vec<hsize_t>)> {
        let rank = self.var.rank;
        let rank_c = c_int::try_from(rank).ok()?;
        let mut shape: Vec<hsize_t> = vec![0; rank.max(1)];
        let mut chunks: Vec<hsize_t> = vec![0; rank.max(1)];
        // SAFETY: the dataset is open; the dataspace and property list ids are checked and
        // closed at once; both buffers hold at least `rank` entries, which is what HDF5
        // writes (the dataset's rank, and at most `rank` chunk dimensions).
        let ok = unsafe {
            let space = H5Dget_space(self.var.dataset.id);
            if space < 0 {
                return None;
            }
            let got = H5Sget_simple_extent_dims(space, shape.as_mut_ptr(), std::ptr::null_mut());
            H5Sclose(space);
            let plist = H5Dget_create_plist(self.var.dataset.id);
            if plist < 0 {
                return None;
            }
            let chunk_rank = H5Pget_chunk(plist, rank_c, chunks.as_mut_ptr());
            H5Pclose(plist);
            got == rank_c && chunk_rank == rank_c
        };
        shape.truncate(rank);
        chunks.truncate(rank);
        (ok && !chunks.contains(&0)).then_some((shape, chunks))
    }

    /// The written chunks of the chunked dataset of `shape` and `chunks`, found by asking
    /// HDF5 for each place of the chunk grid in row-major order.
    fn chunk_places_by_grid(
        &self,
        shape: &[hsize_t],
        chunks: &[hsize_t],
    ) -> Option<Vec<ChunkPlace>> {
        let counts: Vec<hsize_t> = shape
            .iter()
            .zip(chunks)
            .map(|(n, c)| n.div_ceil(*c))
            .collect();
        let mut places = Vec::new();
        if counts.contains(&0) {
            return Some(places);
        }
        let mut cell: Vec<hsize_t> = vec![0; shape.len()];
        loop {
            let offset: Vec<hsize_t> = cell.iter().zip(chunks).map(|(i, c)| i * c).collect();
            let (mask, address, size) = self.chunk_info_by_coord(&offset)?;
            if address != HADDR_UNDEF {
                places.push(ChunkPlace {
                    index: offset,
                    filter_mask: mask,
                    address,
                    size,
                });
            }
            // The next place, the last dimension fastest.
            let mut axis = cell.len();
            loop {
                if axis == 0 {
                    return Some(places);
                }
                axis -= 1;
                cell[axis] += 1;
                if cell[axis] < counts[axis] {
                    break;
                }
                cell[axis] = 0;
            }
        }
    }

    /// The `count` chunks of the chunked dataset as HDF5's chunk index lists them; their
    /// `index` is the element offset of their first element.
    fn chunk_places(&self, count: u64) -> Option<Vec<ChunkPlace>> {
        let dataset = self.var.dataset.id;
        let mut places = Vec::with_capacity(usize::try_from(count.min(1 << 20)).ok()?);
        // SAFETY: the dataset is open; the dataspace id is checked and closed below.
        let space = unsafe { H5Dget_space(dataset) };
        if space < 0 {
            return None;
        }
        let mut offset: Vec<hsize_t> = vec![0; self.var.rank.max(1)];
        for i in 0..count {
            let (mut mask, mut address, mut size): (c_uint, u64, hsize_t) = (0, 0, 0);
            // SAFETY: the dataset and dataspace are open; `offset` holds one entry per
            // dimension (at least one), the other out-pointers are live.
            let status = unsafe {
                H5Dget_chunk_info(
                    dataset,
                    space,
                    i,
                    offset.as_mut_ptr(),
                    &mut mask,
                    &mut address,
                    &mut size,
                )
            };
            if status < 0 {
                // SAFETY: the dataspace was opened above and is closed once.
                unsafe { H5Sclose(space) };
                return None;
            }
            places.push(ChunkPlace {
                index: offset[..self.var.rank].to_vec(),
                filter_mask: mask,
                address,
                size,
            });
        }
        // SAFETY: the dataspace was opened above and is closed once.
        unsafe { H5Sclose(space) };
        Some(places)
    }
}
