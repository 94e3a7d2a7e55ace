//! The storage boundary of nctools. The three tools read and write datasets only through
//! the traits of this crate; each kind of store has a backend that implements them:
//!
//! - `ncio` (libnetcdf and libhdf5): netCDF-3 and netCDF-4/HDF5 files;
//! - `zarr` (pure Rust): NCZarr and Zarr stores, v2 and v3, whose keys and values live
//!   in a [`KeyValueStore`]: a directory ([`DirectoryStore`]), a zip archive ([`zip`]),
//!   memory, or an object store (`objstore`, reached through [`RemoteStores`], which
//!   the front end hands the backend).
//!
//! [`Location::parse_input`] and [`Location::parse_output`] are the one place that
//! decides which kind of store a path names; each backend states what it can hold and do
//! in its [`Capabilities`]. [`StoreReader`] reads a schema, hyperslabs and chunks;
//! [`StoreWriter`] defines a dataset and writes hyperslabs or chunks, atomically (under a
//! temporary name moved into place by [`StoreWriter::finish`], or with its metadata
//! last in an object store). Variables are named by their path ([`VarPath`]); errors
//! carry an [`ErrorKind`]. Nothing here links C.

pub mod budget;
mod capabilities;
mod chunks;
mod error;
pub mod grid;
mod location;
pub mod pipeline;
mod places;
mod raw;
mod region;
mod remote;
mod traits;

pub use capabilities::{
    Availability, Capabilities, ChunkForm, CodecSupport, MissingChunks, NoCodecs, StoredChunks,
    StringForm,
};
pub use chunks::{
    cut_from_chunk, extent_in, pad_to_chunk, ChunkFeed, ChunkJob, ChunkRead, ChunkWrite,
    DecodedChunkReader,
};
pub use error::{ErrorKind, StoreError};
pub use location::{
    check_profile, check_region, escape_for_message, escape_message, is_amazon_s3_host, is_url,
    redact_url, Location, LocationError, RemoteRoot, RemoteService, StoreRoot, ZarrFlavor,
    ZarrLocation, ZarrVersion, ZipLayout, ZipRoot,
};
pub use ncmodel::VarPath;
pub use places::{ChunkPlace, StoredLayout};
pub use raw::{is_raw_type, RawBuffer};
pub use region::Region;
pub use remote::{Access, NoRemoteStores, RemoteStores};
pub use traits::{ChunkSink, ChunkSource, StoreReader, StoreWriter, StoredChunk};
