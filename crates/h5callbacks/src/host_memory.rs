//! What our filters may add to the memory of a program that is not nctools.
//!
//! HDF5 tells a filter neither the chunk's size nor when it frees the chunk, and its chunk
//! cache counts a chunk at its declared size: a file of tiny chunks, each a few hundred
//! bytes that decode to 200 MB, had the reference `ncdump`, `h5dump` and h5py keep every
//! one (3.15 GB from 6 KB, and without end but the address space for more chunks; red
//! team s35 RB14), and chunks just under any size left out of the rule did the same in
//! more of them (s36 RD2: 200 chunks of 16 MiB from 21 KB). So in a program other than
//! nctools (no chunk size set by nctools for the variable being read, see
//! `codecs::with_decoded_chunk_limit`), a chunk that decodes past [`SMALL_CHUNK`] at more
//! than [`SUSPECT_GROWTH`] times its stored size is refused once the program's resident
//! memory and the chunk together pass the limit: what the program held when our filters
//! first met such a chunk, plus [`DEFAULT_GROWTH`] (`NCTOOLS_PLUGIN_MEMORY_LIMIT` sets the
//! limit itself instead). A cache holds one chunk per slot (a few hundred to a few
//! thousand slots), so the chunks below [`SMALL_CHUNK`] add at most a few tens of MB.
//! Chunks of ordinary data are never refused; nctools itself bounds every chunk by its
//! variable's chunk size instead.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Decoded chunks up to this size are never refused.
pub const SMALL_CHUNK: usize = 64 << 10;

/// How many times its stored size a large chunk may grow to before it is suspect.
pub const SUSPECT_GROWTH: usize = 64;

/// How much suspect chunks may grow a program past what it held when our filters first
/// met one.
pub const DEFAULT_GROWTH: usize = 512 << 20;

/// Whether the program may take a chunk of `stored` bytes decoded to `decoded` bytes.
/// Says why on standard error, once per process, when it may not.
pub(crate) fn may_take(filter_id: u32, stored: usize, decoded: usize) -> bool {
    if !in_another_program() || decoded <= SMALL_CHUNK || decoded / stored.max(1) <= SUSPECT_GROWTH
    {
        return true;
    }
    let held = resident_bytes().unwrap_or(0);
    let limit = settings::plugin_memory_limit()
        .unwrap_or_else(|| baseline(held).saturating_add(DEFAULT_GROWTH));
    if held.saturating_add(decoded) <= limit {
        return true;
    }
    explain_once(filter_id, stored, decoded, held, limit);
    false
}

/// What the program held when our filters first met a suspect chunk (`now`, the first
/// time).
fn baseline(now: usize) -> usize {
    static FIRST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *FIRST.get_or_init(|| now)
}

/// The program's resident memory in bytes (`VmRSS` of `/proc/self/status`).
fn resident_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Prints why a chunk was refused, the first time one is.
fn explain_once(filter_id: u32, stored: usize, decoded: usize, held: usize, limit: usize) {
    say_once(
        filter_id,
        &format!(
            "refused a chunk of {stored} bytes that decodes to {decoded} bytes while this \
             program holds {} MiB: HDF5's chunk cache would keep it at its declared size. \
             For a file you trust, set {}={}M or more (now {} MiB), or read with the chunk \
             cache off.",
            held >> 20,
            settings::PLUGIN_MEMORY_LIMIT,
            (held.saturating_add(decoded) >> 20) + 1,
            limit >> 20,
        ),
    );
}

/// Says on standard error, the first time in the process a filter refuses a chunk, what
/// the filter `filter_id` refused and why (`what`): HDF5 itself reports only "filter
/// returned failure".
pub(crate) fn say_once(filter_id: u32, what: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if SAID.swap(true, Ordering::SeqCst) {
        return;
    }
    let name =
        codecs::registry::codec_of_hdf5_id(filter_id).map_or("?", |c| c.entry().numcodecs_id);
    let _ = writeln!(
        std::io::stderr(),
        "nctools' HDF5 filter {filter_id} ({name}): {what}"
    );
}

/// Whether the program is another than nctools (or nctools reading a variable whose chunk
/// size it did not set): HDF5 then tells our filters no chunk size.
pub(crate) fn in_another_program() -> bool {
    codecs::decoded_chunk_limit().is_none()
}
