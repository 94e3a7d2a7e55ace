//! A memory manager for HDF5's variable-length reads that counts before it allocates.
//!
//! A netCDF-4 `string` element is a 16-byte reference into the file's heap, and nothing
//! stops every element from naming one large heap string, or an unwritten chunk from
//! taking a large fill value: 62 KB of file could materialise 60 GB. HDF5 asks this
//! manager for each string's memory (`H5Pset_vlen_mem_manager`), so the total is known
//! and refused past the budget before it is allocated. The blocks are Rust's own, handed
//! back as the strings' bytes without a copy.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;

use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5p::{H5Pclose, H5Pcreate, H5Pset_vlen_mem_manager, H5P_CLS_DATASET_XFER};

use super::hdf5::Object;

/// What one read has allocated, within `limit` bytes.
struct Ledger {
    limit: usize,
    used: usize,
    /// Set when an allocation was refused for the budget.
    refused: bool,
    /// The blocks handed to HDF5, by address.
    blocks: HashMap<usize, Box<[u8]>>,
}

/// The budget of one read: its transfer property list, and the blocks it handed out.
pub(super) struct VlenBudget {
    ledger: Box<RefCell<Ledger>>,
}

impl VlenBudget {
    /// A budget of `limit` bytes for the variable-length values of one read.
    pub(super) fn new(limit: usize) -> Self {
        Self {
            ledger: Box::new(RefCell::new(Ledger {
                limit,
                used: 0,
                refused: false,
                blocks: HashMap::new(),
            })),
        }
    }

    /// A dataset transfer property list whose variable-length memory comes from this
    /// budget; it must not outlive `self` (it holds a pointer to the ledger).
    pub(super) fn transfer_list(&self) -> Option<Object> {
        let info = std::ptr::from_ref::<RefCell<Ledger>>(&self.ledger)
            .cast_mut()
            .cast::<c_void>();
        // SAFETY: the class id is HDF5's (the library is initialised by the caller); the
        // list id is checked, and closed by `Object`; the callbacks have the signatures
        // HDF5 expects and `info` points to the boxed ledger, which does not move and
        // outlives every read made with the list (the caller's contract).
        unsafe {
            let list: hid_t = H5Pcreate(*H5P_CLS_DATASET_XFER);
            if list < 0 {
                return None;
            }
            let list = Object {
                id: list,
                close: H5Pclose,
            };
            let set = H5Pset_vlen_mem_manager(list.id, Some(allocate), info, Some(release), info);
            (set >= 0).then_some(list)
        }
    }

    /// Whether an allocation was refused because the budget was spent.
    pub(super) fn was_exceeded(&self) -> bool {
        self.ledger.borrow().refused
    }

    /// The bytes of the NUL-terminated string HDF5 wrote at `pointer`, a block of this
    /// budget's (taken out of it); `None` for a pointer that is not one.
    pub(super) fn take_string(&self, pointer: *const c_void) -> Option<Vec<u8>> {
        let block = self
            .ledger
            .borrow_mut()
            .blocks
            .remove(&(pointer as usize))?;
        let mut bytes = Vec::from(block);
        let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
        bytes.truncate(end);
        Some(bytes)
    }
}

/// HDF5's allocation callback: a zeroed block of `size` bytes, or null when the budget
/// would be exceeded.
///
/// # Safety
/// `info` is the ledger given with the callback by [`VlenBudget::transfer_list`].
unsafe extern "C" fn allocate(size: usize, info: *mut c_void) -> *mut c_void {
    // SAFETY: per the contract; no other borrow is alive while HDF5 runs a read.
    let ledger = unsafe { &*info.cast::<RefCell<Ledger>>() };
    let mut ledger = ledger.borrow_mut();
    let size = size.max(1);
    match ledger.used.checked_add(size) {
        Some(used) if used <= ledger.limit => ledger.used = used,
        _ => {
            ledger.refused = true;
            return std::ptr::null_mut();
        }
    }
    let mut block = vec![0u8; size].into_boxed_slice();
    let pointer = block.as_mut_ptr();
    ledger.blocks.insert(pointer as usize, block);
    pointer.cast()
}

/// HDF5's release callback: drops a block of the budget's.
///
/// # Safety
/// `info` is the ledger given with the callback by [`VlenBudget::transfer_list`].
unsafe extern "C" fn release(memory: *mut c_void, info: *mut c_void) {
    // SAFETY: per the contract.
    let ledger = unsafe { &*info.cast::<RefCell<Ledger>>() };
    ledger.borrow_mut().blocks.remove(&(memory as usize));
}
