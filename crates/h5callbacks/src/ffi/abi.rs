//! HDF5's filter ABI, as its headers define it and every release since 1.10 keeps it:
//! the filter class (`H5Z_class2_t`), the callback types and identifier types, and what
//! a plugin library answers HDF5 (`H5PL_TYPE_FILTER`).

use std::ffi::{c_int, c_uint, c_void, CStr};

use super::filter::{filter_callback, slot_of};
use super::memory::Allocator;
use super::set_local::set_local_callback;

/// An HDF5 identifier (`hid_t`, 64 bits since HDF5 1.10).
pub(crate) type Hid = i64;

/// An HDF5 status (`herr_t`): negative for a failure.
pub(crate) type Herr = c_int;

/// HDF5's flag telling a filter callback to decode (`H5Z_FLAG_REVERSE`).
pub(crate) const FLAG_REVERSE: c_uint = 0x0100;

/// The version of `H5Z_class2_t` (`H5Z_CLASS_T_VERS`).
const CLASS_VERSION: c_int = 1;

/// What `H5PLget_plugin_type` answers for a filter (`H5PL_TYPE_FILTER`).
pub const PLUGIN_TYPE_FILTER: c_int = 0;

/// A filter callback (`H5Z_func_t`): flags, parameters, the chunk's length, the
/// buffer's allocated size and the buffer; returns the result's length, 0 on a failure.
pub(crate) type FilterFn = unsafe extern "C" fn(
    c_uint,
    usize,
    *const c_uint,
    usize,
    *mut usize,
    *mut *mut c_void,
) -> usize;

/// A `set_local` callback (`H5Z_set_local_func_t`): dataset creation property list,
/// type and space; a negative status for a failure.
pub(crate) type SetLocalFn = extern "C" fn(i64, i64, i64) -> c_int;

/// A `can_apply` callback (`H5Z_can_apply_func_t`); nctools' filters have none.
type CanApplyFn = extern "C" fn(i64, i64, i64) -> c_int;

/// A filter class, laid out as HDF5's `H5Z_class2_t`, to register (`H5Zregister`) or to
/// hand out from a plugin (`H5PLget_plugin_info`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct FilterClass {
    version: c_int,
    id: c_int,
    encoder_present: c_uint,
    decoder_present: c_uint,
    name: *const std::ffi::c_char,
    can_apply: Option<CanApplyFn>,
    set_local: Option<SetLocalFn>,
    filter: Option<FilterFn>,
}

impl FilterClass {
    /// The class as HDF5 takes it, for `H5Zregister`: valid while `self` is.
    pub fn as_ptr(&self) -> *const c_void {
        std::ptr::from_ref(self).cast()
    }
}

/// The class of the filter `id` nctools carries (`codecs::registry::carried_codecs`)
/// under `name`, its output in memory from `A`, with a `set_local` where the codec has
/// one (`Codec::hdf5_set_local`: blosc's, LZF's). `None` for another id.
pub fn filter_class<A: Allocator>(id: u32, name: &'static CStr) -> Option<FilterClass> {
    let filter = filter_callback::<A>(id)?;
    let set_local = set_local_callback(slot_of(id)?);
    Some(FilterClass {
        version: CLASS_VERSION,
        id: c_int::try_from(id).ok()?,
        encoder_present: 1,
        decoder_present: 1,
        name: name.as_ptr(),
        can_apply: None,
        set_local,
        filter: Some(filter),
    })
}

/// A filter class that lives as long as a plugin library, for `H5PLget_plugin_info`.
#[derive(Debug)]
pub struct PluginClass(FilterClass);

// SAFETY: the class is never written after it is made; its name points to a static
// string and its callbacks are plain functions, so any thread may read it.
unsafe impl Sync for PluginClass {}

// SAFETY: as for Sync: nothing in the class is tied to a thread (a static name, plain
// functions), so it may be made on one thread and read from others.
unsafe impl Send for PluginClass {}

impl PluginClass {
    /// A plugin's class, from [`filter_class`].
    pub fn new(class: FilterClass) -> Self {
        Self(class)
    }

    /// The class, as `H5PLget_plugin_info` returns it.
    pub fn as_ptr(&self) -> *const c_void {
        self.0.as_ptr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LibcAllocator;
    use codecs::wire::{BLOSC, BZIP2, LZ4, ZSTD};

    #[test]
    fn the_class_has_hdf5s_layout() {
        // H5Z_class2_t on a 64-bit target: 4 ints, then 4 pointers.
        assert_eq!(size_of::<FilterClass>(), 16 + 4 * 8);
        assert_eq!(std::mem::offset_of!(FilterClass, name), 16);
        assert_eq!(std::mem::offset_of!(FilterClass, filter), 40);
    }

    #[test]
    fn carried_filters_have_a_class_with_a_set_local_where_their_codec_has_one() {
        for id in [BZIP2, LZ4, ZSTD, BLOSC] {
            let class = filter_class::<LibcAllocator>(id, c"x");
            assert!(class.is_some_and(|c| c.id as u32 == id
                && c.filter.is_some()
                && (c.set_local.is_some() == (id == BLOSC))));
        }
        for codec in codecs::registry::carried_codecs() {
            let id = codec.entry().hdf5_id.unwrap_or_default();
            let has_set_local = codec.hdf5_set_local(&[], 4, 4, &[10]).is_some();
            let class = filter_class::<LibcAllocator>(id, c"x");
            assert_eq!(
                class.map(|c| c.set_local.is_some()),
                Some(has_set_local),
                "{id}"
            );
        }
        assert!(filter_class::<LibcAllocator>(1, c"deflate").is_none());
    }

    #[test]
    fn every_carried_filter_has_a_slot() {
        let carried = codecs::registry::carried_codecs().count();
        assert!(
            carried <= codecs::registry::SLOTS,
            "{carried} filters are carried into HDF5 but there are {} callback slots: add slots to `codecs::by_slot!`",
            codecs::registry::SLOTS
        );
    }

    #[test]
    fn every_filter_the_registry_carries_into_hdf5_has_a_class() {
        let carried: Vec<u32> = codecs::registry::carried_into_hdf5().collect();
        assert!(!carried.is_empty());
        for id in carried {
            assert!(filter_class::<LibcAllocator>(id, c"x").is_some(), "{id}");
        }
        for id in [1u32, 2, 3, 4, 32000, 32008, 32013, 32026] {
            assert_eq!(
                filter_class::<LibcAllocator>(id, c"x").is_some(),
                codecs::registry::is_carried_into_hdf5(id),
                "{id}"
            );
        }
    }
}
