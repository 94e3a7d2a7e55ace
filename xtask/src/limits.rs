//! Resource limits on this process, which every program it runs inherits: no core dumps,
//! a cap on the size of any file written (a program past it gets SIGXFSZ), and a cap on
//! address space (a corrupt header can ask for terabytes).

use anyhow::{Context, Result};
use nix::sys::resource::{getrlimit, setrlimit, Resource};

/// Sets the soft limit of `resource` to `value` (or to the hard limit, if lower).
fn set_soft(resource: Resource, value: u64) -> Result<()> {
    let (_, hard) = getrlimit(resource).with_context(|| format!("getrlimit {resource:?}"))?;
    setrlimit(resource, value.min(hard), hard).with_context(|| format!("setrlimit {resource:?}"))
}

/// No core files; files of at most `file_bytes`; at most `memory_bytes` of address space.
pub fn apply(file_bytes: u64, memory_bytes: u64) -> Result<()> {
    set_soft(Resource::RLIMIT_CORE, 0)?;
    set_soft(Resource::RLIMIT_FSIZE, file_bytes)?;
    set_soft(Resource::RLIMIT_AS, memory_bytes)?;
    Ok(())
}

/// Files of at most `file_bytes` (the other limits unchanged).
pub fn set_file_cap(file_bytes: u64) -> Result<()> {
    set_soft(Resource::RLIMIT_FSIZE, file_bytes)
}
