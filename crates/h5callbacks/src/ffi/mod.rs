//! Every `unsafe` of h5callbacks, behind safe functions: HDF5's filter ABI
//! (`H5Z_class2_t`), the filter callback, blosc's `set_local` and the memory a filter
//! hands back to HDF5. Each unsafe block states the invariant that makes it sound,
//! established right there; the rest of the crate is safe code.
//!
//! Every callback runs its whole body inside `std::panic::catch_unwind`: a panic becomes
//! a failure for HDF5, never an unwind into C.
#![deny(unsafe_op_in_unsafe_fn)]

mod abi;
mod filter;
mod hdf5_symbols;
mod memory;
mod set_local;

pub use abi::{filter_class, FilterClass, PluginClass, PLUGIN_TYPE_FILTER};
pub use memory::{Allocator, LibcAllocator};
