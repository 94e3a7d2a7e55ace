//! The number of threads a tool works on (`-j N`, default: every core, at most 8): the
//! threads nccopy encodes chunks on, and the pool that decodes chunks and formats text.
//! The output never depends on it.

/// The most threads used when `-j` is not given.
const DEFAULT_MAX: usize = 8;

/// Sets the number of worker threads from `-j` (or every core, at most 8) for the rest of
/// the run, and returns it.
pub fn configure(jobs: Option<u16>) -> usize {
    let threads = jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get().min(DEFAULT_MAX)),
        usize::from,
    );
    // Only the first call of a process sets the pool; a later one changes nothing.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("nctools-worker-{i}"))
        .build_global();
    threads
}
