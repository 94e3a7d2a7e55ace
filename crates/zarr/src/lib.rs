//! A pure-Rust Zarr storage backend for nctools: [`ZarrReader`] reads NCZarr (netCDF-C's
//! 4.9.0 form and the later ones), Zarr v2 stores written by zarr-python or xarray (with
//! or without consolidated `.zmetadata`) and Zarr v3 stores; [`ZarrWriter`] writes NCZarr
//! exactly as netCDF-C 4.9.0 does, pure Zarr v2, or Zarr v3. Chunks are encoded and
//! decoded with numcodecs' codecs on all cores. No libnetcdf is involved.

mod append_lock;
mod attrs;
mod capabilities;
mod chain;
mod chunk_reader;
mod codec;
mod dtype;
mod error;
mod json;
pub mod kerchunk;
mod meta;
mod plan;
mod pure;
mod quantized;
mod read;
mod reader;
mod region;
mod schema;
mod shard;
mod slab_picks;
mod source;
mod storage;
mod stored;
mod strings;
mod transpose;
mod values;
mod vlen;
mod wdata;
mod wmeta;
mod writer;
mod wshard;

pub use append_lock::{AppendLock, APPEND_LOCK_NAME};
pub use capabilities::{capabilities, ZarrCodecs};
pub use error::ZarrError;
pub use reader::ZarrReader;
pub use storage::Store;
pub use strings::StringTruncation;
pub use writer::ZarrWriter;
pub use wshard::{MAX_SHARD_BYTES, NOT_V3 as NOT_SHARDABLE};

/// The width in bytes of each value of a string variable with attributes `var_atts`
/// stored in Zarr, in a dataset whose root group has `root_atts`: its maximum string
/// length (`_nczarr_maxstrlen`, else the root's `_nczarr_default_maxstrlen`, else 128).
pub fn string_width(root_atts: &[ncmodel::Attribute], var_atts: &[ncmodel::Attribute]) -> usize {
    strings::var_maxstrlen(root_atts, var_atts)
}

/// Whether the HDF5 filter `id` can be written and read as a Zarr codec by nctools.
pub fn codec_available(id: u32) -> bool {
    codec::filter_available(id)
}

/// Whether nctools reads Zarr chunks written with the numcodecs codec `id` (`"gzip"`).
pub fn codec_id_available(id: &str) -> bool {
    codec::is_available(id)
}
