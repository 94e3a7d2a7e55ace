//! Errors from libnetcdf, with what was being done: the storage boundary's error type.

pub use store::StoreError as NcError;
pub(crate) use store::NC_EHDFERR;
