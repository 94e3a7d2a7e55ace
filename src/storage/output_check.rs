//! The output path of nccopy and ncgen, checked before any data moves (DECISIONS D7):
//! a target that could not be written, or whose writing would destroy something, is
//! refused with a message saying what to do, and nothing is created.
//!
//! The checks, in order:
//! - a target that is neither a regular file nor a directory (a pipe, a device, a
//!   socket, `/dev/stdout` leading to one) is refused, except the null device for a
//!   netCDF file: it is never replaced or removed;
//! - a symbolic link target is written through: what follows applies to the path it
//!   leads to, which the output replaces, and the link stays a link;
//! - the directory the output goes in exists, is a directory, and can be written in
//!   (the temporary output is created there, then renamed);
//! - a netCDF target that exists is a regular file (not a directory, not a device) that
//!   can be written;
//! - a Zarr target that exists is a directory that is a Zarr store (`.zgroup`, `.zarray`,
//!   `.zmetadata` or `zarr.json` at its top) or empty: the store replaces it whole;
//! - the target is not one of the inputs under another name (same device and inode:
//!   `./x.nc` for `x.nc`, a symbolic or hard link).
//!
//! A Zarr target in an object store must not be one of the inputs, nor inside one or
//! holding one (its writing removes what is under its prefix first); whether the prefix
//! holds a store or nothing is checked by the writer, which alone can list it. URLs
//! other than Zarr stores are left to the library.

use std::path::{Path, PathBuf};

use anyhow::bail;
use store::{is_url, Location, RemoteRoot, StoreRoot};

/// Checks the output `target` of a tool reading `inputs` (paths or URLs as given on the
/// command line; `-` and URLs are skipped).
pub fn check(target: &str, inputs: &[&str]) -> anyhow::Result<()> {
    let Ok(location) = Location::parse_output(target) else {
        // The writer reports a bad URL fragment in its own words.
        return Ok(());
    };
    match location {
        Location::File(path) if is_url(&path) => Ok(()),
        Location::File(path) => {
            let path = Path::new(&path);
            if check_special(target, path, false)? {
                // The null device: the output is made in the directory for temporary
                // files and discarded; nothing is created beside it.
                return Ok(());
            }
            let resolved = check_link(target, path)?;
            check_directory(target, &resolved)?;
            check_file_target(target, &resolved)?;
            check_not_an_input(target, &resolved, inputs)
        }
        Location::Zarr(zarr) => {
            let root = match zarr.root {
                StoreRoot::Directory(root) => root,
                StoreRoot::Remote(remote) => {
                    return check_remote_not_an_input(target, &remote, inputs)
                }
                // A zip archive is one file, replaced as a netCDF file is.
                StoreRoot::Zip(zip) => {
                    check_special(target, &zip.path, true)?;
                    let resolved = check_link(target, &zip.path)?;
                    check_directory(target, &resolved)?;
                    check_file_target(target, &resolved)?;
                    return check_not_an_input(target, &resolved, inputs);
                }
            };
            check_special(target, &root, true)?;
            let resolved = check_link(target, &root)?;
            check_directory(target, &resolved)?;
            check_zarr_target(target, &resolved)?;
            check_not_an_input(target, &resolved, inputs)
        }
    }
}

/// The error of creating the output `target` (its temporary file or directory),
/// explained when the system refused it (with its `errno`): the checks above cannot foresee everything (root may be refused
/// where permissions do not apply, as in `/proc`).
pub fn explain_create_error(target: &str, error: &store::StoreError) -> Option<anyhow::Error> {
    error.errno()?;
    let parent = Path::new(target.trim_end_matches('/'))
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let why = match error.message.find(" (os error") {
        Some(end) => &error.message[..end],
        None => &error.message,
    };
    Some(anyhow::anyhow!(
        "{target}: cannot create files in the directory {} ({why}); write the output to a \
         directory you can write to, or change the directory's permissions",
        parent.display(),
    ))
}

/// The system's reason for an I/O error, without Rust's ` (os error N)`.
fn reason(error: &std::io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

/// What a path that is neither a regular file nor a directory is, for messages: `None`
/// for a file or a directory.
fn special_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_file() || kind.is_dir() {
        None
    } else if kind.is_fifo() {
        Some("a pipe")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_block_device() {
        Some("a block device (a disk)")
    } else {
        Some("a device (a terminal or the like), not a file")
    }
}

/// Whether `meta` is the null device, `/dev/null` under any name.
fn is_null_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    meta.file_type().is_char_device()
        && std::fs::metadata("/dev/null")
            .is_ok_and(|null| null.file_type().is_char_device() && null.rdev() == meta.rdev())
}

/// A target that is neither a regular file nor a directory (a pipe, a device, a socket,
/// `/dev/stdout` when the standard output is one of those), reached through any links,
/// is never replaced or removed. A netCDF file cannot be streamed (its writing goes back
/// to bytes already written), nor a Zarr store (a directory), so the only one taken is
/// the null device for a netCDF file, as the reference does: the output is made (in the
/// directory for temporary files), checked, and discarded. The others are refused.
/// Returns whether `path` is the null device so taken.
fn check_special(target: &str, path: &Path, zarr: bool) -> anyhow::Result<bool> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(false);
    };
    let Some(kind) = special_kind(&meta) else {
        return Ok(false);
    };
    if zarr {
        bail!(
            "{target}: {} is {kind}; a Zarr store is a directory: give a path for one",
            path.display()
        );
    }
    if is_null_device(&meta) {
        return Ok(true);
    }
    bail!(
        "{target}: is {kind}, and a netCDF file can only be written to a file (its writing \
         goes back to bytes already written); write it to a file, then cat that file"
    )
}

/// The path the output replaces: `path`, or the file or directory a symbolic link there
/// leads to (written through: the link stays a link). A link whose end is not the file
/// the system reaches through it (a deleted file behind `/dev/stdout`) is refused.
fn check_link(target: &str, path: &Path) -> anyhow::Result<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    if let Some(link) = cleanup::protected_link_in_chain(path) {
        let which = if link == path {
            String::new()
        } else {
            format!(" leads through {}, which", link.display())
        };
        bail!(
            "{target}{which} is a symbolic link in a sticky, world-writable directory, owned \
             by another user: the system does not follow such links for you \
             (fs.protected_symlinks), and nctools does not write through it; remove it, or \
             name the file it leads to"
        );
    }
    let resolved = cleanup::resolve_links(path);
    if resolved == path {
        return Ok(resolved);
    }
    let same = match (std::fs::metadata(path), std::fs::metadata(&resolved)) {
        (Ok(through), Ok(end)) => (through.dev(), through.ino()) == (end.dev(), end.ino()),
        // A dangling link: the output is created where it points.
        (Err(e), Err(_)) => e.kind() == std::io::ErrorKind::NotFound,
        _ => false,
    };
    if !same {
        bail!(
            "{target}: is a link to {}, which does not name the file it leads to (a file \
             that was removed?); give the output file's own path",
            resolved.display()
        );
    }
    Ok(resolved)
}

/// The directory the output goes in must exist and take new files.
fn check_directory(target: &str, path: &Path) -> anyhow::Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let shown = parent.display();
    match std::fs::metadata(parent) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "{target}: the directory {shown} does not exist; create it first (mkdir -p \
             {shown}) or write the output elsewhere"
        ),
        Err(e) => bail!("{target}: cannot use the directory {shown}: {}", reason(&e)),
        Ok(meta) if !meta.is_dir() => {
            bail!("{target}: {shown} is not a directory; give a path in a directory")
        }
        Ok(_) => {}
    }
    if let Err(e) = check_writable(parent) {
        bail!(
            "{target}: cannot create files in the directory {shown} ({}); write the output \
             to a directory you can write to, or change the directory's permissions",
            reason(&e)
        );
    }
    Ok(())
}

/// The metadata of `path`, or `None` when nothing is there.
fn existing(target: &str, path: &Path) -> anyhow::Result<Option<std::fs::Metadata>> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bail!("{target}: cannot check the output path: {}", reason(&e)),
    }
}

/// A netCDF target that exists must be a regular file this process may replace.
fn check_file_target(target: &str, path: &Path) -> anyhow::Result<()> {
    let Some(meta) = existing(target, path)? else {
        return Ok(());
    };
    if meta.is_dir() {
        let inside = path.join("NAME.nc");
        bail!(
            "{target}: is a directory; give the output file's name (such as {}), or \
             another path",
            inside.display()
        );
    }
    if !meta.is_file() {
        // check_special took devices, pipes and sockets already.
        bail!(
            "{target}: is not a regular file (a device, a pipe or a socket); the output can \
             only be written to a file"
        );
    }
    if let Err(e) = check_writable(path) {
        bail!(
            "{target}: the existing file cannot be replaced ({}); make it writable (chmod \
             u+w {target}), remove it, or write the output elsewhere",
            reason(&e)
        );
    }
    Ok(())
}

/// A Zarr target that exists must be a store (or an empty directory): it is replaced.
fn check_zarr_target(target: &str, root: &Path) -> anyhow::Result<()> {
    let Some(meta) = existing(target, root)? else {
        return Ok(());
    };
    let shown = root.display();
    if !meta.is_dir() {
        bail!(
            "{target}: {shown} is a file, not a Zarr store; remove it or give another path \
             for the store"
        );
    }
    let is_store = kv::ZARR_MARKERS.iter().any(|m| root.join(m).is_file());
    let is_empty = std::fs::read_dir(root).is_ok_and(|mut d| d.next().is_none());
    if !is_store && !is_empty {
        bail!(
            "{target}: {shown} is a directory that is not a Zarr store (it has no .zgroup, \
             .zarray or zarr.json at its top), and writing the store would replace it with \
             all it holds; remove it yourself, or give another path for the store"
        );
    }
    Ok(())
}

/// The file or store an input names on disk, if any.
fn input_path(input: &str) -> Option<PathBuf> {
    if input == "-" {
        return None;
    }
    match Location::parse_input(input).ok()? {
        Location::Zarr(zarr) => zarr.root.local_path().map(Path::to_path_buf),
        Location::File(path) if is_url(&path) => None,
        Location::File(path) => Some(PathBuf::from(path)),
    }
}

/// A target in an object store must not be an input, nor inside one or holding one: the
/// same bucket and service and server, with one prefix a prefix of the other.
fn check_remote_not_an_input(
    target: &str,
    remote: &RemoteRoot,
    inputs: &[&str],
) -> anyhow::Result<()> {
    let within = |inner: &str, outer: &str| {
        outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}/"))
    };
    for input in inputs {
        let Ok(Location::Zarr(zarr)) = Location::parse_input(input) else {
            continue;
        };
        let StoreRoot::Remote(other) = zarr.root else {
            continue;
        };
        // A server the URL does not name is the environment's or the profile's, which
        // may be the one the other URL names: such a pair counts as the same server
        // (red team s35 RA14: `s3://bkt/x.zarr` with the endpoint in AWS_ENDPOINT_URL and
        // `http://ENDPOINT/bkt/x.zarr#mode=zarr,s3` were taken as two stores, and nccopy
        // deleted the input before failing).
        let same_server = match (&other.endpoint, &remote.endpoint) {
            (Some(a), Some(b)) => same_origin(a, b),
            _ => true,
        };
        let same_bucket =
            same_server && (other.service, &other.bucket) == (remote.service, &remote.bucket);
        if same_bucket
            && (within(&remote.prefix, &other.prefix) || within(&other.prefix, &remote.prefix))
        {
            bail!(
                "{target}: is the input {input}, or inside it or holding it; writing the \
                 store would remove the input first; give another prefix for the output"
            );
        }
    }
    Ok(())
}

/// Whether two servers `scheme://host[:port]` are the same, letter case and the spellings
/// of this machine (`localhost`, `127.0.0.1`, `[::1]`) aside.
fn same_origin(a: &str, b: &str) -> bool {
    let normal = |origin: &str| {
        let lower = origin.trim_end_matches('/').to_ascii_lowercase();
        let (scheme, rest) = lower.split_once("://").unwrap_or(("", &lower));
        let (host, port) = match rest.rsplit_once(':').filter(|(h, _)| !h.ends_with(':')) {
            Some((host, port)) if !port.contains(']') => (host.to_string(), Some(port.to_string())),
            _ => (rest.to_string(), None),
        };
        let host = match host.as_str() {
            "localhost" | "[::1]" | "127.0.0.1" => "loopback".to_string(),
            _ => host,
        };
        let port = port.unwrap_or_else(|| if scheme == "https" { "443" } else { "80" }.into());
        (host, port)
    };
    normal(a) == normal(b)
}

/// The target must not be an input under another name.
fn check_not_an_input(target: &str, path: &Path, inputs: &[&str]) -> anyhow::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Ok(out) = std::fs::metadata(path) else {
        return Ok(());
    };
    for input in inputs {
        let Some(input_path) = input_path(input) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&input_path) else {
            continue;
        };
        if (meta.dev(), meta.ino()) == (out.dev(), out.ino()) {
            let alias = if *input == target {
                String::new()
            } else {
                " (the same file under another name)".to_string()
            };
            bail!(
                "{target}: is the input {input}{alias}; writing the output there would \
                 replace the input: give the output another name (and move it over the \
                 input afterwards if that is what you want)"
            );
        }
    }
    Ok(())
}

/// `Ok` if this process may write to `path` (for a directory: create entries in it), as
/// the system decides it (`access(2)`: permission bits, ACLs, a read-only file system,
/// root's override), else the system's reason (`Permission denied`, `Read-only file
/// system`...).
fn check_writable(path: &Path) -> std::io::Result<()> {
    use rustix::fs::{access, Access};
    let mode = if path.is_dir() {
        Access::WRITE_OK | Access::EXEC_OK
    } else {
        Access::WRITE_OK
    };
    access(path, mode).map_err(std::io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    fn text(path: &Path) -> String {
        path.display().to_string()
    }

    #[test]
    fn a_new_file_in_an_existing_directory_is_fine() {
        let dir = scratch();
        assert!(check(&text(&dir.path().join("new.nc")), &[]).is_ok());
        assert!(check(&text(&dir.path().join("new.zarr")), &[]).is_ok());
    }

    #[test]
    fn a_missing_directory_is_named() {
        let dir = scratch();
        let target = text(&dir.path().join("missing/out.nc"));
        let error = check(&target, &[]).err().map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("does not exist")),
            "{error:?}"
        );
    }

    #[test]
    fn the_input_through_a_symbolic_link_is_refused() {
        let dir = scratch();
        let input = dir.path().join("in.nc");
        std::fs::write(&input, "x").unwrap_or_else(|e| panic!("{e}"));
        let link = dir.path().join("link.nc");
        std::os::unix::fs::symlink(&input, &link).unwrap_or_else(|e| panic!("{e}"));
        let error = check(&text(&link), &[&text(&input)])
            .err()
            .map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("another name")),
            "{error:?}"
        );
    }

    #[test]
    fn an_empty_directory_or_a_store_may_be_replaced_by_a_store() {
        let dir = scratch();
        let empty = dir.path().join("empty.zarr");
        std::fs::create_dir(&empty).unwrap_or_else(|e| panic!("{e}"));
        assert!(check(&text(&empty), &[]).is_ok());
        let store = dir.path().join("s.zarr");
        std::fs::create_dir(&store).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(store.join(".zgroup"), "{}").unwrap_or_else(|e| panic!("{e}"));
        assert!(check(&text(&store), &[]).is_ok());
        std::fs::write(empty.join("notes.txt"), "x").unwrap_or_else(|e| panic!("{e}"));
        assert!(check(&text(&empty), &[]).is_err());
    }

    #[test]
    fn a_link_to_an_open_file_that_was_removed_is_refused() {
        use std::os::fd::AsRawFd;
        let dir = scratch();
        let path = dir.path().join("gone.nc");
        let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{e}"));
        // Like /dev/stdout onto a file removed since: the link reads "PATH (deleted)".
        let link = format!("/proc/self/fd/{}", file.as_raw_fd());
        let error = check(&link, &[]).err().map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("which does not name the file it leads to")),
            "{error:?}"
        );
    }

    #[test]
    fn a_link_to_a_file_is_checked_where_it_leads() {
        let dir = scratch();
        std::fs::create_dir(dir.path().join("real")).unwrap_or_else(|e| panic!("{e}"));
        let link = dir.path().join("link.nc");
        // Dangling: the output is created in real/, which exists.
        std::os::unix::fs::symlink("real/new.nc", &link).unwrap_or_else(|e| panic!("{e}"));
        assert!(check(&text(&link), &[]).is_ok());
        // Leading into a directory that does not exist: that one is named.
        let lost = dir.path().join("lost.nc");
        std::os::unix::fs::symlink("nowhere/new.nc", &lost).unwrap_or_else(|e| panic!("{e}"));
        let error = check(&text(&lost), &[]).err().map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("nowhere does not exist")),
            "{error:?}"
        );
    }
}
