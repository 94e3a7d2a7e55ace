//! Every `NCTOOLS_*` environment variable the tools read, named and read here once, so
//! that what moves a limit or turns a path off is listed in one place (docs/security.md
//! and docs/development.md name them for users). The variables that only tests use are
//! honoured only in debug builds (the tests'); a release build ignores them.

/// Sets the chunk limit ([`chunk_limit`]), in bytes or with a `K`, `M` or `G` suffix.
pub const CHUNK_LIMIT: &str = "NCTOOLS_CHUNK_LIMIT";

/// Sets how much memory a program other than nctools may hold before nctools' HDF5
/// plugins refuse a chunk that grows far past its stored size ([`plugin_memory_limit`]).
pub const PLUGIN_MEMORY_LIMIT: &str = "NCTOOLS_PLUGIN_MEMORY_LIMIT";

/// Sets how much CDL ncgen copies from a stream ([`cdl_spool_limit`]).
pub const CDL_SPOOL_LIMIT: &str = "NCTOOLS_CDL_SPOOL_LIMIT";

/// Set to `0`, turns the built-in filters off, so that external plugins can be tested.
pub const BUILTIN_FILTERS: &str = "NCTOOLS_BUILTIN_FILTERS";

/// Set to `0`, turns direct chunk reads and writes off: everything then goes through
/// HDF5's filter pipeline.
pub const DIRECT_CHUNKS: &str = "NCTOOLS_DIRECT_CHUNKS";

/// Set to `0`, skips the check of HDF5 global heaps before libhdf5 opens a file (the
/// tests use it to let libhdf5 meet a corrupt heap).
pub const HDF5_HEAP_CHECK: &str = "NCTOOLS_HDF5_HEAP_CHECK";

/// Set to `libnetcdf`, sends classic files to libnetcdf instead of nctools' reader (for
/// comparing the two: `scripts/bench`).
pub const CLASSIC_READER: &str = "NCTOOLS_CLASSIC_READER";

/// A test hook (debug builds only): a signal name makes the first library call that
/// names a variable raise it ([`test_crash`]).
pub const TEST_CRASH: &str = "NCTOOLS_TEST_CRASH";

/// A test hook (debug builds only): fixes the variable part of the first temporary name
/// a process picks, so that a test can plant something there ([`test_temporary_suffix`]).
pub const TEST_TEMPORARY_SUFFIX: &str = "NCTOOLS_TEST_TEMPORARY_SUFFIX";

/// `123`, `64K`, `256M`, `2G` (powers of 1024) as bytes: how every size variable is
/// read. `None` for anything else.
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

/// The size `variable` gives, when it is set and parses ([`parse_size`]).
fn size(variable: &str) -> Option<usize> {
    std::env::var(variable).ok().and_then(|v| parse_size(&v))
}

/// Whether `variable` is set to `0` (a path turned off).
fn turned_off(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|v| v.trim() == "0")
}

/// The chunk limit [`CHUNK_LIMIT`] sets, if it does.
pub fn chunk_limit() -> Option<usize> {
    size(CHUNK_LIMIT)
}

/// The plugins' memory limit [`PLUGIN_MEMORY_LIMIT`] sets, if it does.
pub fn plugin_memory_limit() -> Option<usize> {
    size(PLUGIN_MEMORY_LIMIT)
}

/// The CDL spool limit [`CDL_SPOOL_LIMIT`] sets, if it does.
pub fn cdl_spool_limit() -> Option<usize> {
    size(CDL_SPOOL_LIMIT)
}

/// Whether the built-in filters are on (unless [`BUILTIN_FILTERS`] is `0`).
pub fn builtin_filters() -> bool {
    !turned_off(BUILTIN_FILTERS)
}

/// Whether direct chunk reads and writes are on (unless [`DIRECT_CHUNKS`] is `0`).
pub fn direct_chunks() -> bool {
    !turned_off(DIRECT_CHUNKS)
}

/// Whether HDF5 global heaps are checked before libhdf5 opens a file (unless
/// [`HDF5_HEAP_CHECK`] is `0`).
pub fn hdf5_heap_check() -> bool {
    !turned_off(HDF5_HEAP_CHECK)
}

/// Whether classic files go to libnetcdf ([`CLASSIC_READER`] is `libnetcdf`).
pub fn classic_by_libnetcdf() -> bool {
    std::env::var(CLASSIC_READER).is_ok_and(|v| v == "libnetcdf")
}

/// The value of the test hook [`TEST_CRASH`], in debug builds.
pub fn test_crash() -> Option<String> {
    test_hook(TEST_CRASH)
}

/// The value of the test hook [`TEST_TEMPORARY_SUFFIX`], in debug builds, when not empty.
pub fn test_temporary_suffix() -> Option<String> {
    test_hook(TEST_TEMPORARY_SUFFIX)
}

/// The value of a test hook: only in debug builds, and only when not empty.
fn test_hook(variable: &str) -> Option<String> {
    if !cfg!(debug_assertions) {
        return None;
    }
    std::env::var(variable).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_suffixes() {
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size(" 64K "), Some(64 << 10));
        assert_eq!(parse_size("256m"), Some(256 << 20));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size(""), None);
    }
}
