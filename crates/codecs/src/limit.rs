//! The size limit on decoded chunks, so that a small chunk in a hostile file cannot make
//! a filter allocate gigabytes (a decompression bomb).
//!
//! HDF5 does not tell a filter callback the size of the dataset's chunks, so the caller
//! that knows it (the code around each libnetcdf read or write of a variable) sets it
//! for the current thread with [`with_decoded_chunk_limit`]; HDF5 runs the filters on
//! the calling thread. Without a limit (our HDF5 plugins loaded by another program), a
//! chunk may decode to [`crate::partial::decoded_chunk_cap`].

use std::cell::Cell;

/// HDF5's largest chunk, in bytes (2^32 - 1): no limit is ever above it.
pub const HDF5_MAX_CHUNK_BYTES: usize = u32::MAX as usize;

/// What a filter callback may produce beyond the chunk size: 1/8 of it plus 4 KiB.
///
/// When several filters are stacked, each but the last one decoded produces an
/// intermediate stream, which for incompressible data is a little larger than the chunk
/// (at worst about 1% + 600 bytes for bzip2, less for deflate, zstd, lz4 and blosc);
/// the slack covers that generously, a few layers deep.
pub fn with_slack(chunk_bytes: usize) -> usize {
    chunk_bytes
        .saturating_add(chunk_bytes / 8)
        .saturating_add(4096)
}

thread_local! {
    static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Restores the previous limit when dropped, also when `f` panics.
struct Restore(Option<usize>);

impl Drop for Restore {
    fn drop(&mut self) {
        LIMIT.with(|limit| limit.set(self.0));
    }
}

/// Runs `f` with decoded chunks limited to `bytes` on this thread (HDF5 runs filters on
/// the calling thread).
///
/// `bytes` is the size of one chunk of the variable before filtering: the product of its
/// chunk lengths and the size of its type in the file (16 bytes per element for
/// variable-length types and strings, whose chunks hold heap references). Inside a
/// built-in filter the limit is then [`with_slack`]`(bytes)`; a chunk that would decode
/// to more makes the filter fail, which HDF5 reports as a filter error. Calls nest: the
/// innermost limit applies, and the previous one is restored when `f` returns or panics.
pub fn with_decoded_chunk_limit<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    let _restore = Restore(LIMIT.with(|limit| limit.replace(Some(bytes))));
    f()
}

/// The chunk size set on this thread by [`with_decoded_chunk_limit`], if any.
pub fn decoded_chunk_limit() -> Option<usize> {
    LIMIT.with(Cell::get)
}

/// The most a built-in filter called by HDF5 on this thread may decode a chunk to: the
/// limit set with its slack, or, when none is set (our HDF5 plugins in another program,
/// which HDF5 does not tell the chunk size), [`crate::partial::decoded_chunk_cap`]
/// (`NCTOOLS_CHUNK_LIMIT`, 256 MiB by default), within [`HDF5_MAX_CHUNK_BYTES`].
pub fn callback_limit() -> usize {
    decoded_chunk_limit().map_or_else(
        || crate::partial::decoded_chunk_cap().min(HDF5_MAX_CHUNK_BYTES),
        with_slack,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_chunk_limit() {
        // Before: 4 294 967 295 (HDF5's largest chunk), so our plugins let a 785-byte
        // bzip2 chunk decode to gigabytes in any program.
        assert_eq!(decoded_chunk_limit(), None);
        assert_eq!(callback_limit(), crate::partial::decoded_chunk_cap());
    }

    #[test]
    fn limits_nest_and_are_restored() {
        let seen = with_decoded_chunk_limit(1000, || {
            let inner = with_decoded_chunk_limit(8, callback_limit);
            (inner, callback_limit())
        });
        // 8 + 8/8 + 4096 and 1000 + 1000/8 + 4096.
        assert_eq!(seen, (4105, 5221));
        assert_eq!(decoded_chunk_limit(), None);
    }

    #[test]
    fn a_panic_restores_the_limit() {
        let result = std::panic::catch_unwind(|| {
            with_decoded_chunk_limit(64, || -> usize { panic!("inside") })
        });
        assert!(result.is_err());
        assert_eq!(decoded_chunk_limit(), None);
    }

    #[test]
    fn the_limit_is_per_thread() {
        with_decoded_chunk_limit(64, || {
            let other = std::thread::spawn(decoded_chunk_limit)
                .join()
                .ok()
                .flatten();
            assert_eq!(other, None);
            assert_eq!(decoded_chunk_limit(), Some(64));
        });
    }

    #[test]
    fn the_slack_saturates() {
        assert_eq!(with_slack(usize::MAX), usize::MAX);
        assert_eq!(with_slack(0), 4096);
    }
}
