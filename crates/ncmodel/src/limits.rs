//! The limits nctools sets on what one input may make it hold, and the environment
//! variables that move them: stated once here, for the readers, the writers and ncgen.

pub use settings::{parse_size, CHUNK_LIMIT as CHUNK_LIMIT_VARIABLE};

/// The default of [`decoded_chunk_cap`]: 256 MiB.
pub const DEFAULT_CHUNK_LIMIT: usize = 256 << 20;

/// The most bytes one chunk may decode to whole when a reader needs less of it than its
/// declared size (the chunk reaches past the array's end, or its pipeline cannot be
/// decoded in pieces): `NCTOOLS_CHUNK_LIMIT`, else [`DEFAULT_CHUNK_LIMIT`]. A value that
/// does not parse is ignored.
pub fn decoded_chunk_cap() -> usize {
    settings::chunk_limit().unwrap_or(DEFAULT_CHUNK_LIMIT)
}

/// The most bytes one value of a user-defined type may take: a sixteenth of
/// [`decoded_chunk_cap`] (16 MiB by default). libnetcdf and HDF5 hold several copies of
/// one value while a variable is defined and read (its fill value, property list copies,
/// conversion buffers: about five), so a value just under the chunk limit took 1.3 GB of
/// a 1.5 KB file.
pub fn value_cap() -> usize {
    decoded_chunk_cap() / 16
}
