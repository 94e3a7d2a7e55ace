//! The HDF5 filter plugin of nctools' bzip2 (filter 307), `libnctools_h5bzip2.so`: HDF5
//! loads it from its plugin path (`HDF5_PLUGIN_PATH`) when a dataset uses the filter.
//! Its chunks are those of the standard plugin; see the `h5callbacks` crate.
// `#[no_mangle]` on the two functions HDF5 looks up is all the unsafe code here.
#![allow(unsafe_code)]

h5callbacks::export_filter_plugin!(codecs::wire::BZIP2, "bzip2");
