//! Integration tests: the binaries driven as a user would, and differential tests against
//! the reference netCDF-C tools. One test binary; each module reads like a user's session.

mod bad_input;
mod bounded;
mod completions;
mod decoded_reads;
mod filters_inspect;
mod filters_interop;
mod harness_selftest;
mod hostile_stores;
mod install;
mod limits;
mod names;
mod nccopy;
mod nccopy_errors;
mod nccopy_filters;
mod nccopy_stored;
mod ncdump;
mod ncgen;
mod ncgen_code;
mod ncgen_errors;
mod output_safety;
mod reference_filter_text;
mod safety;
mod stored_zarr;
mod support;
mod try_filters;
mod versions;
mod zarr_codecs;
mod zarr_foreign;
mod zarr_interop;
mod zarr_outputs;
mod zarr_strings;
