//! Builds the project's own program before a harness runs it, and gives the tools the
//! names the harnesses run them by.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The tools, each a link to the one program `nctools` (src/multicall.rs).
const TOOLS: [&str; 3] = ["ncdump", "ncgen", "nccopy"];

/// Our tools as `scripts/install` installs them, from the release build: the directory
/// `target/release/tools`, holding `ncdump`, `ncgen` and `nccopy` as links to
/// `../nctools`. With `build`, runs `cargo build --release --bin nctools` in `root`
/// first. The links are made in any case; without a build they point at whatever
/// `target/release/nctools` there is (or at nothing, which the harnesses report).
pub fn release_tools(root: &Path, build: bool) -> Result<PathBuf> {
    if build {
        release_nctools(root)?;
    }
    let dir = root.join("target/release/tools");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let program = Path::new("../nctools");
    for tool in TOOLS {
        let link = dir.join(tool);
        if std::fs::read_link(&link).is_ok_and(|to| to == program) {
            continue;
        }
        // A new link renamed over the old one: a harness running at the same time never
        // finds the name missing.
        let fresh = dir.join(format!(".{tool}.{}", std::process::id()));
        let _ = std::fs::remove_file(&fresh);
        std::os::unix::fs::symlink(program, &fresh)
            .and_then(|()| std::fs::rename(&fresh, &link))
            .with_context(|| format!("cannot link {} to {}", link.display(), program.display()))?;
    }
    Ok(dir)
}

/// Runs `cargo build --release --bin nctools` in `root`.
fn release_nctools(root: &Path) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "--quiet", "--package", "nctools"])
        .args(["--bin", "nctools"])
        .status()
        .context("cannot run cargo build")?;
    if !status.success() {
        bail!("cargo build --release failed ({status})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_are_links_to_nctools_made_again_when_wrong() -> Result<()> {
        let root = tempfile::tempdir()?;
        let dir = release_tools(root.path(), false)?;
        assert_eq!(dir, root.path().join("target/release/tools"));
        std::fs::remove_file(dir.join("ncgen"))?;
        std::os::unix::fs::symlink("elsewhere", dir.join("ncgen"))?;
        std::fs::write(root.path().join("target/release/nctools"), "")?;
        release_tools(root.path(), false)?;
        for tool in TOOLS {
            assert_eq!(std::fs::read_link(dir.join(tool))?, Path::new("../nctools"));
            assert!(dir.join(tool).exists(), "{tool} leads nowhere");
        }
        let left: Vec<_> = std::fs::read_dir(&dir)?.collect();
        assert_eq!(left.len(), TOOLS.len(), "no temporary link is left");
        Ok(())
    }
}
