//! Whether this process may write somewhere, as the system decides it (`access(2)`):
//! permission bits, ACLs, a read-only file system, root's override.

use std::ffi::CString;
use std::path::Path;

/// `Ok` if this process may write to `path` (for a directory: create entries in it),
/// else the system's reason (`Permission denied`, `Read-only file system`...).
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mode = if path.is_dir() {
        libc::W_OK | libc::X_OK
    } else {
        libc::W_OK
    };
    // SAFETY: c_path is a valid NUL-terminated string that outlives the call.
    let status = unsafe { libc::access(c_path.as_ptr(), mode) };
    if status == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
