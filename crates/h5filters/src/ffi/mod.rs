//! Every `unsafe` of h5filters, behind safe functions: the registration of the built-in
//! filters with HDF5 (their callbacks are `h5callbacks`'), and HDF5's allocator, which
//! their output comes from in-process. Each unsafe block states the invariant that
//! makes it sound, established right there; the rest of the crate is safe code.
#![deny(unsafe_op_in_unsafe_fn)]

mod memory;
mod register;

pub(crate) use register::{register_filter, register_placeholder};
