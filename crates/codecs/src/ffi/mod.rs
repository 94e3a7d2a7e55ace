//! Every `unsafe` of the codecs crate, behind safe functions: the calls into c-blosc and
//! into libaec's szip interface.
//! Each unsafe block states the invariant that makes it sound, established right there;
//! the rest of the crate is safe code.
#![deny(unsafe_op_in_unsafe_fn)]

pub(crate) mod blosc;
pub(crate) mod szip;
