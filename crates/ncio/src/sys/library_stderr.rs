//! What libnetcdf writes on standard error while it reads a remote dataset, caught.
//!
//! libnetcdf's DAP client reports some failures only there: a `.dods` answer holding fewer
//! values than its DDS declares is logged (`Error:DAP DATADDS packet is apparently too
//! short`) and the read still returns success with a buffer it never filled, and a DDS it
//! cannot parse is echoed with the server's bytes as they came (terminal controls
//! included). Once a URL has been opened through libnetcdf, every call into the library
//! runs with descriptor 2 pointed at an anonymous memory file: afterwards the text is
//! passed on to the real standard error with its controls escaped, and a data read during
//! which the library logged an error fails ([`logged_error_since`]). Files on disk never
//! turn this on. The crash guard writes to the real standard error meanwhile.

use std::cell::RefCell;
use std::ffi::c_int;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};

/// How much of the caught text is passed on (the rest is counted).
const SHOWN_BYTES: u64 = 64 << 10;

/// Whether a URL was opened through libnetcdf in this process.
static CATCHING: AtomicBool = AtomicBool::new(false);

/// The capture of this thread's outermost library call, if one is running.
struct Capture {
    /// The anonymous file descriptor 2 points at.
    text: File,
    /// The real standard error.
    saved: OwnedFd,
}

thread_local! {
    static ACTIVE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// Turns catching on for every later library call (a URL is about to be opened).
pub(crate) fn catch_from_now_on() {
    CATCHING.store(true, Ordering::SeqCst);
}

/// The capture of one library call: descriptor 2 is restored and the text passed on when
/// it is dropped.
pub(crate) struct Catching {
    installed: bool,
}

/// Starts catching for the library call about to be made, unless catching is off or an
/// outer call of this thread already catches. If descriptor 2 cannot be redirected, the
/// call runs uncaught.
pub(crate) fn begin() -> Catching {
    if !CATCHING.load(Ordering::SeqCst) || ACTIVE.with(|a| a.borrow().is_some()) {
        return Catching { installed: false };
    }
    let Some(capture) = redirect() else {
        return Catching { installed: false };
    };
    crash_guard::set_report_fd(capture.saved.as_raw_fd());
    ACTIVE.with(|a| *a.borrow_mut() = Some(capture));
    Catching { installed: true }
}

/// Points descriptor 2 at a new anonymous file, keeping a duplicate of the old one.
fn redirect() -> Option<Capture> {
    // SAFETY: memfd_create takes a NUL-terminated name and flags; it returns a new
    // descriptor or -1.
    let memfd =
        unsafe { libc::memfd_create(c"nctools-library-stderr".as_ptr(), libc::MFD_CLOEXEC) };
    if memfd < 0 {
        return None;
    }
    // SAFETY: memfd is a descriptor this function just opened and nothing else owns.
    let text = unsafe { File::from_raw_fd(memfd) };
    // SAFETY: F_DUPFD_CLOEXEC on descriptor 2 returns a new descriptor (>= 3) or -1.
    let saved = unsafe { libc::fcntl(2, libc::F_DUPFD_CLOEXEC, 3) };
    if saved < 0 {
        return None;
    }
    // SAFETY: saved is a descriptor this function just made and nothing else owns.
    let saved = unsafe { OwnedFd::from_raw_fd(saved) };
    // SAFETY: dup2 with two open descriptors; it only replaces descriptor 2.
    if unsafe { libc::dup2(text.as_raw_fd(), 2) } < 0 {
        return None;
    }
    Some(Capture { text, saved })
}

impl Drop for Catching {
    fn drop(&mut self) {
        if !self.installed {
            return;
        }
        let Some(capture) = ACTIVE.with(|a| a.borrow_mut().take()) else {
            return;
        };
        // SAFETY: dup2 with two open descriptors (saved is owned by `capture`, alive).
        unsafe { libc::dup2(capture.saved.as_raw_fd(), 2) };
        crash_guard::set_report_fd(2);
        let (text, more) = read_from(&capture.text, 0);
        if !text.is_empty() || more > 0 {
            let text = store::redact_url(&String::from_utf8_lossy(&text));
            let mut shown = store::escape_message(&text);
            if more > 0 {
                shown.push_str(&format!(
                    "\n({more} more bytes from the library not shown)\n"
                ));
            }
            let _ = std::io::stderr().write_all(shown.as_bytes());
        }
    }
}

/// Up to [`SHOWN_BYTES`] of the caught text from `offset`, and how many bytes follow them.
fn read_from(text: &File, offset: u64) -> (Vec<u8>, u64) {
    let end = text.metadata().map(|m| m.len()).unwrap_or(0);
    let wanted = end.saturating_sub(offset).min(SHOWN_BYTES);
    let mut buffer = vec![0u8; usize::try_from(wanted).unwrap_or(0)];
    let read = text.read_at(&mut buffer, offset).unwrap_or(0);
    buffer.truncate(read);
    let more = end.saturating_sub(offset).saturating_sub(read as u64);
    (buffer, more)
}

/// Where the caught text of this thread's call ends now, if it is being caught.
pub(crate) fn mark() -> Option<u64> {
    ACTIVE.with(|a| {
        a.borrow()
            .as_ref()
            .map(|c| c.text.metadata().map(|m| m.len()).unwrap_or(0))
    })
}

/// The first error line (`Error:...`, libnetcdf's log prefix for errors) the library
/// wrote after `mark`, if any.
pub(crate) fn logged_error_since(mark: Option<u64>) -> Option<String> {
    let mark = mark?;
    ACTIVE.with(|a| {
        let active = a.borrow();
        let (text, _) = read_from(&active.as_ref()?.text, mark);
        String::from_utf8_lossy(&text)
            .lines()
            .find(|line| line.starts_with("Error:") || line.starts_with("Error "))
            .map(str::to_string)
    })
}

/// A status for a data read that returned `status` while the library logged `logged`:
/// a success with a logged error is libnetcdf's DAP client returning an unfilled buffer.
pub(crate) fn status_with_log(status: c_int, logged: Option<String>) -> c_int {
    match logged {
        Some(_) if status == 0 => netcdf_sys::NC_EDATADDS,
        _ => status,
    }
}
