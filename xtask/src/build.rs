//! Builds the project's own binaries before a harness runs them.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

/// Runs `cargo build --release` for the root package's binaries `bins`, in `root`.
pub fn release_binaries(root: &Path, bins: &[&str]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["build", "--release", "--quiet", "--package", "nctools"]);
    for bin in bins {
        cmd.args(["--bin", bin]);
    }
    let status = cmd.status().context("cannot run cargo build")?;
    if !status.success() {
        bail!("cargo build --release failed ({status})");
    }
    Ok(())
}
