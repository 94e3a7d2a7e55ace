//! The number of threads a tool works on (`-j N`, default: every core, at most 8): the
//! threads nccopy encodes chunks on, and the pool that decodes chunks and formats text.
//! The output never depends on it.

/// The most threads used when `-j` is not given.
const DEFAULT_MAX: usize = 8;

/// The threads used when `-j` is not given and a store behind a network is read or
/// written: its requests mostly wait, so that as many are kept in flight as object-store
/// clients keep (zarr-python, tensorstore), whatever the number of cores. What they hold
/// is bounded by bytes, not by threads.
const NETWORK_THREADS: usize = 16;

/// Sets the number of worker threads from `-j` (or every core, at most 8; at least
/// [`NETWORK_THREADS`] when `over_network`, a store behind a network being read or
/// written) for the rest of the run, and returns it.
pub fn configure(jobs: Option<u16>, over_network: bool) -> usize {
    let threads = jobs.map_or_else(
        || {
            let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            default_threads(cores, over_network)
        },
        usize::from,
    );
    // Only the first call of a process sets the pool; a later one changes nothing.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("nctools-worker-{i}"))
        .build_global();
    threads
}

/// The threads used without `-j` on a machine of `cores` cores: every core, at most
/// [`DEFAULT_MAX`]; at least [`NETWORK_THREADS`] `over_network`.
fn default_threads(cores: usize, over_network: bool) -> usize {
    let threads = cores.clamp(1, DEFAULT_MAX);
    if over_network {
        threads.max(NETWORK_THREADS)
    } else {
        threads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_behind_a_network_gets_more_threads_than_cores() {
        assert_eq!(default_threads(2, false), 2);
        assert_eq!(default_threads(64, false), DEFAULT_MAX);
        assert_eq!(default_threads(2, true), NETWORK_THREADS);
        assert_eq!(default_threads(64, true), NETWORK_THREADS);
        assert!(crate::storage::over_network("s3://bkt/x.zarr"));
        assert!(crate::storage::over_network("https://h/x.zarr#mode=zarr"));
        assert!(!crate::storage::over_network("x.zarr"));
        assert!(!crate::storage::over_network(
            "file:///tmp/x.zarr#mode=zarr"
        ));
        assert!(!crate::storage::over_network("https://h/dap/x"));
    }
}
