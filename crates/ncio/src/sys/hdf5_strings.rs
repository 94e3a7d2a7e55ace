//! netCDF-4 `string` variables read with HDF5 itself, not libnetcdf:
//!
//! - fixed-length strings (files of h5py, HDF5 programs, netCDF-C's own `tst_fixedstring`):
//!   libnetcdf before 4.9.1 hands out such a slab as its first string holding every byte,
//!   then null pointers, or bytes from elsewhere in memory;
//! - variable-length strings, whose elements are references into the file's heap: all of
//!   them may name one large heap string, or take a large fill value, and libnetcdf would
//!   materialise each copy. Read here, every string's memory comes from a budget
//!   ([`VlenBudget`]) and a slab that would take more is refused before it is allocated.

use std::ffi::{c_int, c_void, CStr};

use hdf5_metno_sys::h5i::hid_t;

use hdf5_metno_sys::h5::hsize_t;
use hdf5_metno_sys::h5d::H5Dget_space;
use hdf5_metno_sys::h5d::{H5D_layout_t, H5Dget_create_plist, H5Dget_type, H5Dread};
use hdf5_metno_sys::h5f::H5F_ACC_RDONLY;
use hdf5_metno_sys::h5p::{H5Pclose, H5Pget_chunk, H5Pget_layout, H5P_DEFAULT};
use hdf5_metno_sys::h5s::{
    H5S_seloper_t, H5Sclose, H5Screate_simple, H5Sselect_hyperslab, H5S_ALL,
};
use hdf5_metno_sys::h5t::{
    H5T_class_t, H5T_direction_t, H5T_str_t, H5Tclose, H5Tcopy, H5Tdetect_class, H5Tget_class,
    H5Tget_cset, H5Tget_native_type, H5Tget_size, H5Tget_strpad, H5Tis_variable_str, H5Tset_cset,
    H5Tset_size, H5T_C_S1, H5T_VARIABLE,
};

use super::hdf5::{Object, OpenVariable};
use super::heap_references::{references_at_depth, FileHeap, Shape};
use super::vlen_budget::VlenBudget;
use super::Lib;

/// The most bytes one read of fixed-length strings may take (the width times the values
/// of the slab), before anything is allocated: 256 MiB, the chunk limit's default.
pub(crate) const MAX_READ_BYTES: usize = 256 << 20;

/// Why a read of strings failed.
#[derive(Debug)]
pub(crate) enum StringReadError {
    /// The slab's strings would take more than nctools reads at once, or than the file
    /// could hold: a corrupt or hostile file.
    TooLarge(String),
    /// HDF5 failed, or the request did not fit the dataset.
    Failed(String),
}

/// A [`StringReadError::Failed`] with `message`.
fn failed(message: &str) -> StringReadError {
    StringReadError::Failed(message.to_string())
}

/// A dataset of strings, open for reading.
pub(crate) struct HdfStrings {
    // Field order: what reads the file's heap goes before the file closes.
    references: Option<HeapCheck>,
    var: OpenVariable,
    form: Form,
}

/// How the heap references of a dataset's values are read and checked before HDF5 reads
/// the values: one read per depth of sequences (a sequence of sequences keeps its inner
/// references in its heap object, read by the next depth once the first is checked).
struct HeapCheck {
    /// For each depth, the memory type reading its references, and where they lie.
    depths: Vec<(Object, Shape)>,
    /// Whether the values nest sequences deeper than [`MAX_DEPTH`] (refused).
    too_deep: bool,
    heap: FileHeap,
}

/// The most depths of sequences whose references are checked; deeper values are refused.
const MAX_DEPTH: usize = 8;

/// How a dataset's strings are stored, and read.
enum Form {
    /// Fixed-length strings, read with the dataset's own type.
    Fixed {
        /// The dataset's own type (its width and padding), used as the memory type too.
        file_type: Object,
        /// The bytes of one string.
        width: usize,
        /// Whether the strings are padded with blanks (else with NULs).
        space_padded: bool,
    },
    /// Variable-length strings, read as C strings from a budget.
    Variable {
        /// A variable-length C string in the file's character set.
        memory_type: Object,
        /// The most bytes the strings of one read may take.
        budget: usize,
    },
    /// A user type holding variable-length values (sequences, or strings in a compound),
    /// which libnetcdf reads: each slab is first read here within a budget, to measure
    /// it, and the values are dropped.
    Measured {
        /// The type's native memory form.
        memory_type: Object,
        /// The most bytes the variable-length values of one read may take.
        budget: usize,
    },
}

impl HdfStrings {
    /// The variable `name` of `group` (`/g`, empty for the root) of the HDF5 file `path`,
    /// when its dataset holds strings, or variable-length values to measure; `None` for
    /// other datasets and anything HDF5 cannot answer. The variable-length values of one
    /// read may take `budget` bytes.
    pub(crate) fn open(
        lib: &Lib,
        path: &CStr,
        group: &str,
        name: &str,
        budget: usize,
    ) -> Option<Self> {
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
        // The variable-length values' heap references, read and checked before HDF5
        // reads the values (top-level ones: those inside a sequence's heap object are
        // not in reach of the conversion).
        let references = if class == H5T_class_t::H5T_STRING && variable == 0 {
            None
        } else {
            super::heap_references::register(lib);
            let depths: Vec<(Object, Shape)> = (0..=MAX_DEPTH)
                .map_while(|depth| references_at_depth(file_type.id, depth))
                .collect();
            let too_deep = depths.len() > MAX_DEPTH;
            FileHeap::of_file(lib, var.file_id()).map(|heap| HeapCheck {
                depths,
                too_deep,
                heap,
            })
        };
        let form = if class != H5T_class_t::H5T_STRING {
            // The sequences' bytes as HDF5 reads them, what nctools holds of them
            // decoded within the budget.
            let factor = super::type_weight::sequence_factor(file_type.id);
            Form::Measured {
                memory_type: native_with_variable_values(&file_type)?,
                budget: budget / factor,
            }
        } else if variable > 0 {
            Form::Variable {
                memory_type: variable_c_string(&file_type)?,
                budget,
            }
        } else if variable == 0 && width > 0 {
            Form::Fixed {
                file_type,
                width,
                space_padded: pad == H5T_str_t::H5T_STR_SPACEPAD,
            }
        } else {
            return None;
        };
        Some(Self {
            references,
            var,
            form,
        })
    }

    /// The strings of the hyperslab `start`/`count` (empty for a scalar), fixed-length
    /// ones without their padding; `Err` with what went wrong when HDF5 fails or the slab
    /// would take more than [`MAX_READ_BYTES`] (fixed-length) or the budget
    /// (variable-length).
    pub(crate) fn read(
        &self,
        _lib: &Lib,
        start: &[usize],
        count: &[usize],
    ) -> Result<Vec<Option<Vec<u8>>>, StringReadError> {
        let n = self.slab_values(start, count)?;
        if n == 0 {
            return Ok(Vec::new());
        }
        let to_hsize = |v: &[usize]| -> Vec<hsize_t> { v.iter().map(|x| *x as hsize_t).collect() };
        let (start, count) = (to_hsize(start), to_hsize(count));
        match &self.form {
            Form::Fixed {
                file_type,
                width,
                space_padded,
            } => self.read_fixed(n, &start, &count, file_type, *width, *space_padded),
            Form::Variable {
                memory_type,
                budget,
            } => self.read_variable(n, &start, &count, memory_type, *budget),
            Form::Measured { .. } => Err(failed("not a dataset of strings")),
        }
    }

    /// Whether this is a dataset of a user type whose slabs are to be [`Self::measure`]d.
    pub(crate) fn is_measured(&self) -> bool {
        matches!(self.form, Form::Measured { .. })
    }

    /// Reads the slab `start`/`count` of a [`Form::Measured`] dataset within its budget
    /// and drops the values: `Err` when they would take more than the budget, or HDF5
    /// fails.
    pub(crate) fn measure(
        &self,
        _lib: &Lib,
        start: &[usize],
        count: &[usize],
    ) -> Result<(), StringReadError> {
        let Form::Measured {
            memory_type,
            budget,
        } = &self.form
        else {
            return Ok(());
        };
        let n = self.slab_values(start, count)?;
        // SAFETY: the memory type is open.
        let size = unsafe { H5Tget_size(memory_type.id) };
        let bytes = n
            .checked_mul(size)
            .ok_or_else(|| failed("the slab's size overflows"))?;
        if n == 0 || bytes == 0 {
            return Ok(());
        }
        // u64 words keep the values aligned for any member.
        let mut words: Vec<u64> = Vec::new();
        words
            .try_reserve_exact(bytes.div_ceil(8))
            .map_err(|_| failed("the slab does not fit in memory"))?;
        words.resize(bytes.div_ceil(8), 0);
        let to_hsize = |v: &[usize]| -> Vec<hsize_t> { v.iter().map(|x| *x as hsize_t).collect() };
        self.check_references(n, &to_hsize(start), &to_hsize(count), *budget)?;
        let values = VlenBudget::new(*budget);
        let list = values
            .transfer_list()
            .ok_or_else(|| failed("HDF5 could not make a transfer property list"))?;
        let status = self.bounded(size.max(16), || {
            self.read_into(
                &to_hsize(start),
                &to_hsize(count),
                memory_type,
                list.id,
                words.as_mut_ptr().cast(),
            )
        })?;
        drop(list);
        if values.was_exceeded() {
            return Err(StringReadError::TooLarge(format!(
                "its {n} values of variable length would take more than {budget} bytes, \
                 more than the file holds (its elements repeat one stored value, or a long \
                 fill value): the file is probably corrupt or hostile"
            )));
        }
        if status < 0 {
            return Err(failed("HDF5 could not read the values (H5Dread)"));
        }
        Ok(())
    }

    /// Reads the heap references of the `n` values of the slab `start`/`count`, depth by
    /// depth, and checks them against the file's heap: `Err` when one names an object
    /// that does not match it (libhdf5 1.10 would write past its buffer reading it), the
    /// sequences nest too deep, or HDF5 fails. What the deeper reads take comes from
    /// `budget`.
    fn check_references(
        &self,
        n: usize,
        start: &[hsize_t],
        count: &[hsize_t],
        budget: usize,
    ) -> Result<(), StringReadError> {
        let Some(check) = &self.references else {
            return Ok(());
        };
        if check.too_deep {
            return Err(StringReadError::TooLarge(format!(
                "its values nest sequences more than {MAX_DEPTH} deep, which nctools \
                 does not check: the file is probably corrupt or hostile"
            )));
        }
        for (depth, (memory_type, shape)) in check.depths.iter().enumerate() {
            // SAFETY: the memory type is open.
            let size = unsafe { H5Tget_size(memory_type.id) };
            let bytes = n
                .checked_mul(size)
                .ok_or_else(|| failed("the slab's size overflows"))?;
            // u64 words keep the values aligned for any member.
            let mut words: Vec<u64> = Vec::new();
            words
                .try_reserve_exact(bytes.div_ceil(8))
                .map_err(|_| failed("the slab does not fit in memory"))?;
            words.resize(bytes.div_ceil(8), 0);
            let sequences = VlenBudget::new(budget);
            let list = sequences
                .transfer_list()
                .ok_or_else(|| failed("HDF5 could not make a transfer property list"))?;
            let transfer = if depth == 0 { H5P_DEFAULT } else { list.id };
            let status = self.bounded(16, || {
                self.read_into(
                    start,
                    count,
                    memory_type,
                    transfer,
                    words.as_mut_ptr().cast(),
                )
            })?;
            drop(list);
            if sequences.was_exceeded() {
                return Err(StringReadError::TooLarge(format!(
                    "its {n} values' sequences would take more than {budget} bytes, more \
                     than the file holds: the file is probably corrupt or hostile"
                )));
            }
            if status < 0 {
                return Err(failed(
                    "HDF5 could not read the values' heap references (H5Dread)",
                ));
            }
            let mut found = Vec::new();
            let base = words.as_ptr().cast::<u8>();
            for i in 0..n {
                // SAFETY: HDF5 wrote `n` values of the memory type, `size` bytes apart,
                // whose sequences' elements are blocks of `sequences` (alive here).
                unsafe { shape.collect(base.add(i * size), &mut found) };
            }
            drop(words);
            check.heap.check(&mut found).map_err(|wrong| {
                StringReadError::TooLarge(format!(
                    "{wrong}; HDF5 is not asked to read it: the file is probably corrupt or \
                     hostile"
                ))
            })?;
        }
        Ok(())
    }

    /// The number of values of the slab `start`/`count`, checked against the rank.
    fn slab_values(&self, start: &[usize], count: &[usize]) -> Result<usize, StringReadError> {
        if start.len() != self.var.rank || count.len() != self.var.rank {
            return Err(StringReadError::Failed(format!(
                "a slab of rank {} for a dataset of rank {}",
                count.len(),
                self.var.rank
            )));
        }
        count
            .iter()
            .try_fold(1usize, |n, c| n.checked_mul(*c))
            .ok_or_else(|| failed("the slab's size overflows"))
    }

    /// The `n` fixed-length strings of the slab, each without its padding.
    fn read_fixed(
        &self,
        n: usize,
        start: &[hsize_t],
        count: &[hsize_t],
        file_type: &Object,
        width: usize,
        space_padded: bool,
    ) -> Result<Vec<Option<Vec<u8>>>, StringReadError> {
        let bytes = n
            .checked_mul(width)
            .filter(|b| *b <= MAX_READ_BYTES)
            .ok_or_else(|| {
                StringReadError::TooLarge(format!(
                    "{n} fixed-length strings of {width} bytes each take more than the \
                     {MAX_READ_BYTES} bytes nctools reads at once"
                ))
            })?;
        let mut buffer = vec![0u8; bytes];
        let status = self.bounded(width, || {
            self.read_into(
                start,
                count,
                file_type,
                H5P_DEFAULT,
                buffer.as_mut_ptr().cast(),
            )
        })?;
        if status < 0 {
            return Err(failed("HDF5 could not read the strings (H5Dread)"));
        }
        Ok(buffer
            .chunks_exact(width)
            .map(|s| Some(unpadded(s, space_padded).to_vec()))
            .collect())
    }

    /// The `n` variable-length strings of the slab (`None` for a null string), whose
    /// bytes may total `budget`.
    fn read_variable(
        &self,
        n: usize,
        start: &[hsize_t],
        count: &[hsize_t],
        memory_type: &Object,
        budget: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, StringReadError> {
        self.check_references(n, start, count, budget)?;
        let mut pointers: Vec<*mut c_void> = vec![std::ptr::null_mut(); n];
        let strings = VlenBudget::new(budget);
        let list = strings
            .transfer_list()
            .ok_or_else(|| failed("HDF5 could not make a transfer property list"))?;
        // A chunk holds 16-byte heap references.
        let status = self.bounded(16, || {
            self.read_into(
                start,
                count,
                memory_type,
                list.id,
                pointers.as_mut_ptr().cast(),
            )
        })?;
        drop(list);
        if strings.was_exceeded() {
            return Err(StringReadError::TooLarge(format!(
                "its {n} strings would take more than {budget} bytes, more than the file \
                 holds (its elements repeat one stored string, or a long fill value): the \
                 file is probably corrupt or hostile"
            )));
        }
        if status < 0 {
            return Err(failed("HDF5 could not read the strings (H5Dread)"));
        }
        pointers
            .into_iter()
            .map(|p| {
                if p.is_null() {
                    Ok(None)
                } else {
                    strings
                        .take_string(p)
                        .map(Some)
                        .ok_or_else(|| failed("HDF5 gave a string nctools did not allocate"))
                }
            })
            .collect()
    }

    /// Runs `read` with nctools' filters decoding no chunk beyond the dataset's chunk size
    /// (`element` bytes a value; before: a 5 KB file of 3-byte chunks, each a bzip2
    /// stream of 268 MB, took 2.1 GB).
    fn bounded<T>(&self, element: usize, read: impl FnOnce() -> T) -> T {
        match self.chunk_bytes(element) {
            Some(limit) => codecs::with_decoded_chunk_limit(
                limit.min(codecs::partial::decoded_chunk_cap()),
                read,
            ),
            None => read(),
        }
    }

    /// The bytes of one chunk of the dataset (`element` bytes a value), when it is
    /// chunked.
    fn chunk_bytes(&self, element: usize) -> Option<usize> {
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
            .try_fold(element, |a, d| a.checked_mul(usize::try_from(*d).ok()?))
    }

    /// Reads the slab `start`/`count` (the whole of a scalar) as `memory_type` with the
    /// transfer list `transfer` into `buffer`, which must have room for the slab's values
    /// of that type; HDF5's status.
    fn read_into(
        &self,
        start: &[hsize_t],
        count: &[hsize_t],
        memory_type: &Object,
        transfer: hid_t,
        buffer: *mut c_void,
    ) -> Result<i32, StringReadError> {
        let status = if self.var.rank == 0 {
            // SAFETY: the dataset and the memory type are open; the buffer holds one
            // value of the type (the caller's contract).
            unsafe {
                H5Dread(
                    self.var.dataset.id,
                    memory_type.id,
                    H5S_ALL,
                    H5S_ALL,
                    transfer,
                    buffer,
                )
            }
        } else {
            self.read_slab(start, count, memory_type, transfer, buffer)?
        };
        Ok(status)
    }

    /// Reads the hyperslab into `buffer` (room for its values of `memory_type`); HDF5's
    /// status.
    fn read_slab(
        &self,
        start: &[hsize_t],
        count: &[hsize_t],
        memory_type: &Object,
        transfer: hid_t,
        buffer: *mut c_void,
    ) -> Result<i32, StringReadError> {
        // SAFETY: the dataset is open; each dataspace id is checked and closed below;
        // start and count have one entry per dimension (checked by the caller); the
        // buffer holds the slab's values of the memory type (the caller's contract).
        unsafe {
            let file_space = H5Dget_space(self.var.dataset.id);
            if file_space < 0 {
                return Err(failed("HDF5 could not give the dataset's dataspace"));
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
                    memory_type.id,
                    memory_space,
                    file_space,
                    transfer,
                    buffer,
                )
            };
            if memory_space >= 0 {
                H5Sclose(memory_space);
            }
            H5Sclose(file_space);
            Ok(status)
        }
    }
}

/// One stored fixed-length string without its padding: up to its first NUL, and without
/// trailing blanks when the type pads with blanks.
fn unpadded(stored: &[u8], space_padded: bool) -> &[u8] {
    let text = stored.split(|b| *b == 0).next().unwrap_or_default();
    if space_padded {
        let end = text.iter().rposition(|b| *b != b' ').map_or(0, |i| i + 1);
        &text[..end]
    } else {
        text
    }
}

/// A variable-length C string type in the character set of `file_type`.
fn variable_c_string(file_type: &Object) -> Option<Object> {
    // SAFETY: H5T_C_S1 is HDF5's (initialised by the caller's open); the copy's id is
    // checked, and closed by `Object`; the file type is open.
    unsafe {
        let id = H5Tcopy(*H5T_C_S1);
        if id < 0 {
            return None;
        }
        let memory_type = Object {
            id,
            close: H5Tclose,
        };
        let cset = H5Tget_cset(file_type.id);
        let sized = H5Tset_size(id, H5T_VARIABLE) >= 0 && H5Tset_cset(id, cset) >= 0;
        sized.then_some(memory_type)
    }
}

/// The native memory form of `file_type` when it holds variable-length values (sequences
/// or strings, at any depth); `None` for a type without them.
fn native_with_variable_values(file_type: &Object) -> Option<Object> {
    // SAFETY: the file type is open; the native type's id is checked, and closed by
    // `Object`.
    unsafe {
        let variable = H5Tdetect_class(file_type.id, H5T_class_t::H5T_VLEN) > 0
            || H5Tdetect_class(file_type.id, H5T_class_t::H5T_STRING) > 0;
        if !variable {
            return None;
        }
        let id = H5Tget_native_type(file_type.id, H5T_direction_t::H5T_DIR_DEFAULT);
        (id >= 0).then_some(Object {
            id,
            close: H5Tclose,
        })
    }
}
