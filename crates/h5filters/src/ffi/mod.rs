//! Every `unsafe` of h5filters, behind safe functions: the callbacks HDF5 calls for the
//! built-in filters and their registration, and the memory a filter hands back to HDF5.
//! Each unsafe block states the invariant that makes it sound, established right there;
//! the rest of the crate is safe code.
//!
//! Every callback runs its whole body inside `std::panic::catch_unwind`: a panic becomes
//! a failure for HDF5, never an unwind into C.
#![deny(unsafe_op_in_unsafe_fn)]

mod filter;
mod memory;
mod register;
mod set_local;

pub(crate) use register::{register_filter, register_placeholder};
