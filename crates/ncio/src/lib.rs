//! The only nctools crate that talks to libnetcdf (`h5filters` is the one for HDF5's filter
//! interface). Every `unsafe` call into libnetcdf and libhdf5 lives in one internal module,
//! `sys`, behind safe functions that check their own preconditions and take the shared
//! library lock as a token.
//!
//! - [`NcFile::open`] opens anything libnetcdf opens: netCDF-3 classic, 64-bit offset,
//!   CDF5, netCDF-4 (classic model or not) and NCZarr URLs such as
//!   `file:///tmp/x.zarr#mode=nczarr,file`;
//! - [`NcFile::schema`] reads the whole schema into an [`ncmodel::Dataset`];
//! - [`NcFile::read_slab`] reads a hyperslab of any variable as [`ncmodel::Values`];
//! - [`NcWriter`] creates a file from a schema and writes slabs, atomically;
//! - [`scan_plugins`] lists the filter plugins of HDF5's search path with their ids;
//!   [`stored_sizes`] tells how many bytes variables take on disk;
//! - [`RawBuffer`], [`NcFile::read_raw`] and [`NcWriter`]'s `StoreWriter::write_raw`
//!   move atomic data as raw bytes (nccopy's fast path).

mod attribute;
mod backend;
mod chunk_read;
mod chunk_write;
mod classic_names;
mod create;
mod decoded_chunks;
mod direct;
mod encode;
mod error;
mod file;
mod names;
mod plugin_codecs;
mod plugin_scan;
mod plugins;
mod raw;
mod read_pieces;
mod schema;
mod storage;
mod storage_size;
mod string_read;
#[allow(unsafe_code)]
mod sys;
mod var_cache;
mod var_ids;
mod zarr_names;

pub use backend::{capabilities, plugin_remedy, plugin_search_path, Hdf5Filters};
pub use classic_names::{longest_classic_name, MalformedHeader};
pub use create::NcWriter;
pub use direct::{direct_chunks_enabled, DirectChunkWriter, StoredChunkReader};
pub use error::NcError;
pub use file::NcFile;
pub use plugin_codecs::{load_plugin_codecs, plugin_codec_reports, PluginCodecReport};
pub use plugin_scan::{filter_plugins_enabled, scan_plugin_dirs, scan_plugins, PluginFile};
pub use plugins::{filter_available, library_versions, plugin_search_paths};
pub use raw::{is_raw_type, set_default_chunk_cache};
pub use storage_size::stored_sizes;
pub use sys::RawBuffer;
