//! The limits nctools sets on what one input may make it hold, and the environment
//! variables that move them: stated once here, for the readers, the writers and ncgen.

/// The environment variable that sets [`decoded_chunk_cap`], in bytes (or with a `K`,
/// `M` or `G` suffix, powers of 1024).
pub const CHUNK_LIMIT_VARIABLE: &str = "NCTOOLS_CHUNK_LIMIT";

/// The default of [`decoded_chunk_cap`]: 256 MiB.
pub const DEFAULT_CHUNK_LIMIT: usize = 256 << 20;

/// The most bytes one chunk may decode to whole when a reader needs less of it than its
/// declared size (the chunk reaches past the array's end, or its pipeline cannot be
/// decoded in pieces): `NCTOOLS_CHUNK_LIMIT`, else [`DEFAULT_CHUNK_LIMIT`]. A value that
/// does not parse is ignored.
pub fn decoded_chunk_cap() -> usize {
    std::env::var(CHUNK_LIMIT_VARIABLE)
        .ok()
        .and_then(|v| parse_size(&v))
        .unwrap_or(DEFAULT_CHUNK_LIMIT)
}

/// The most bytes one value of a user-defined type may take: a sixteenth of
/// [`decoded_chunk_cap`] (16 MiB by default). libnetcdf and HDF5 hold several copies of
/// one value while a variable is defined and read (its fill value, property list copies,
/// conversion buffers: about five), so a value just under the chunk limit took 1.3 GB of
/// a 1.5 KB file.
pub fn value_cap() -> usize {
    decoded_chunk_cap() / 16
}

/// `123`, `64K`, `256M`, `2G` (powers of 1024) as bytes: how every `NCTOOLS_*_LIMIT`
/// environment variable is read. `None` for anything else.
pub fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, shift) = match text.char_indices().last()? {
        (at, 'k' | 'K') => (&text[..at], 10),
        (at, 'm' | 'M') => (&text[..at], 20),
        (at, 'g' | 'G') => (&text[..at], 30),
        _ => (text, 0),
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(1 << shift)
}
