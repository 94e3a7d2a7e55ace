//! Crash containment: a fault inside libnetcdf or libhdf5 (SIGSEGV, SIGBUS, SIGFPE,
//! SIGILL, SIGABRT), typically on a corrupt file, ends the tool with one paragraph
//!
//! ```text
//! ncdump: bad.nc: crashed inside the netCDF/HDF5 library while reading variable /v
//! (signal 11, SIGSEGV); the file is probably corrupt
//! ```
//!
//! and exit 1, after removing the temporary outputs registered in
//! [`cleanup`], instead of a core dump and a half-written file.
//!
//! The handler runs on an alternate signal stack (so that a stack overflow is caught
//! too) and only makes async-signal-safe calls: `write(2)`, `open(2)`, `getdents64(2)`,
//! `unlinkat(2)`, `close(2)` and `_exit(2)`. What it prints was prepared beforehand in
//! fixed buffers: the tool's name ([`install`]), the file ([`set_file`]) and what the
//! tool is doing ([`set_activity`], set at coarse points: opening, reading the schema,
//! reading or writing a variable). Whether the fault happened inside the library is known
//! from a per-thread count kept by the library lock (`LibraryCall`).
//!
//! Limits: a fault that corrupts memory without a signal is not seen; a fault in another
//! thread while the first is handled waits for the process to end; with several threads
//! the activity is the one set last.
//!
//! This is a process-wide facility of the tools, not of a backend: the front ends say what
//! they are doing ([`set_file`], [`set_activity`]); the backends that call C mark their
//! calls ([`LibraryCall`], [`PluginCall`]). Its `unsafe` code is the signal handling.

#![allow(unsafe_code)]

use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The signals that mean a crash.
const CRASH_SIGNALS: [c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
];

/// Size of the alternate signal stack given to a thread that has none.
const ALT_STACK_BYTES: usize = 64 << 10;

/// What the file is to the tool, which decides the advice of the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A file being read: a crash there means it is probably corrupt.
    Input,
    /// A file being written: a crash there is a bug to report.
    Output,
}

/// A fixed buffer of text that a signal handler can read at any time.
struct Text<const N: usize> {
    bytes: [AtomicU8; N],
    len: AtomicUsize,
}

impl<const N: usize> Text<N> {
    const fn new() -> Self {
        Self {
            bytes: [const { AtomicU8::new(0) }; N],
            len: AtomicUsize::new(0),
        }
    }

    /// Stores `text`, cut to the buffer's size (on a character boundary).
    fn set(&self, text: &str) {
        let mut end = text.len().min(N);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.len.store(0, Ordering::SeqCst);
        for (slot, byte) in self.bytes.iter().zip(&text.as_bytes()[..end]) {
            slot.store(*byte, Ordering::Relaxed);
        }
        self.len.store(end, Ordering::SeqCst);
    }

    /// Appends the text to `out`.
    fn append_to(&self, out: &mut Message) {
        let len = self.len.load(Ordering::SeqCst).min(N);
        for slot in &self.bytes[..len] {
            out.push(slot.load(Ordering::Relaxed));
        }
    }

    fn is_empty(&self) -> bool {
        self.len.load(Ordering::SeqCst) == 0
    }
}

/// The tool's name, `ncdump` and the like.
static TOOL: Text<16> = Text::new();
/// The file the message names.
static FILE: Text<1024> = Text::new();
/// What the file is to the tool.
static FILE_IS_OUTPUT: AtomicBool = AtomicBool::new(false);
/// What the tool is doing, in a few ring slots: a setter writes the next one, then
/// publishes it, so that the handler never reads one being written (unless four are set
/// while it reads).
static ACTIVITY: [Text<512>; 4] = [const { Text::new() }; 4];
/// The plugin library whose function runs (set by [`PluginCall`]).
static PLUGIN: Text<512> = Text::new();
static ACTIVITY_NOW: AtomicUsize = AtomicUsize::new(0);
static ACTIVITY_NEXT: Mutex<usize> = Mutex::new(0);
/// Whether the activity names a variable (where the test hook strikes).
static ON_VARIABLE: AtomicBool = AtomicBool::new(false);
/// The signal the test hook raises (`NCTOOLS_TEST_CRASH`), 0 for none, -1 for a stack
/// overflow.
static TEST_CRASH: AtomicI32 = AtomicI32::new(0);
/// Set by the first thread to enter the handler.
static HANDLING: AtomicBool = AtomicBool::new(false);
/// Set while the temporaries are being removed (their buffers are shared).
static REMOVING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// How deep this thread is in calls of a plugin library's functions (constant-
    /// initialised, no destructor, like [`IN_LIBRARY`]).
    static IN_PLUGIN: Cell<usize> = const { Cell::new(0) };
    /// How deep this thread is in library calls (constant-initialised, no destructor:
    /// reading it is a plain thread-local load, safe in a signal handler).
    static IN_LIBRARY: Cell<usize> = const { Cell::new(0) };
}

/// Marks a call into libnetcdf/libhdf5 on this thread while it lives.
pub struct LibraryCall(());

impl LibraryCall {
    /// Enters a library call; the test hook strikes here.
    pub fn enter() -> Self {
        IN_LIBRARY.with(|depth| depth.set(depth.get() + 1));
        test_hook();
        Self(())
    }
}

impl Drop for LibraryCall {
    fn drop(&mut self) {
        IN_LIBRARY.with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Marks a call of a plugin library's function on this thread while it lives, so that
/// a crash there names the plugin rather than the file.
pub struct PluginCall(());

impl PluginCall {
    /// Enters a call of a function of the plugin `provider` (its files, for people).
    pub fn enter(provider: &str) -> Self {
        PLUGIN.set(provider);
        IN_PLUGIN.with(|depth| depth.set(depth.get() + 1));
        Self(())
    }
}

impl Drop for PluginCall {
    fn drop(&mut self) {
        IN_PLUGIN.with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Installs the crash handlers for the tool `tool` (once per process; later calls only
/// change the name). Also reads the test hook `NCTOOLS_TEST_CRASH`: set to a signal name
/// (`SIGSEGV`, `SIGBUS`, `SIGFPE`, `SIGILL`, `SIGABRT`) or `stack`, it makes the first
/// library call made while the activity names a variable raise that signal, or overflow
/// the stack (for the tests of this handler).
pub fn install(tool: &str) {
    TOOL.set(tool);
    if let Some(value) = settings::test_crash() {
        TEST_CRASH.store(test_signal(&value), Ordering::SeqCst);
    }
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    ensure_alt_stack();
    for signal in CRASH_SIGNALS {
        sys::set_handler(signal);
    }
}

/// The signal of a value of `NCTOOLS_TEST_CRASH`.
fn test_signal(value: &str) -> i32 {
    match value.trim().to_ascii_uppercase().as_str() {
        "SIGSEGV" | "SEGV" => libc::SIGSEGV,
        "SIGBUS" | "BUS" => libc::SIGBUS,
        "SIGFPE" | "FPE" => libc::SIGFPE,
        "SIGILL" | "ILL" => libc::SIGILL,
        "SIGABRT" | "ABRT" => libc::SIGABRT,
        "STACK" => -1,
        _ => 0,
    }
}

/// Gives the calling thread an alternate signal stack if it has none (threads started by
/// Rust's standard library have one; others may not).
pub fn ensure_alt_stack() {
    if sys::has_alt_stack() {
        return;
    }
    let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT_STACK_BYTES].into_boxed_slice());
    sys::set_alt_stack(stack);
}

/// Where the paragraph is written: standard error, or the descriptor [`set_report_fd`]
/// named while standard error is redirected.
static REPORT_FD: AtomicI32 = AtomicI32::new(2);

/// Makes the paragraph go to `fd` (a duplicate of the real standard error) while a
/// backend has pointed descriptor 2 elsewhere to catch what a C library writes there;
/// `2` again when it is done.
pub fn set_report_fd(fd: c_int) {
    REPORT_FD.store(fd, Ordering::SeqCst);
}

/// Sets the file the crash message names, and whether the tool reads or writes it.
pub fn set_file(path: &str, role: Role) {
    FILE.set(path);
    FILE_IS_OUTPUT.store(role == Role::Output, Ordering::SeqCst);
}

/// Sets what the tool is doing, for the crash message: `opening the file`, `reading
/// variable /g/v`... (`while ACTIVITY`). Call it at coarse points only: it takes a lock.
pub fn set_activity(activity: &str) {
    let mut next = ACTIVITY_NEXT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let slot = *next % ACTIVITY.len();
    ACTIVITY[slot].set(activity);
    ACTIVITY_NOW.store(slot, Ordering::SeqCst);
    ON_VARIABLE.store(activity.contains("variable "), Ordering::SeqCst);
    *next = slot + 1;
}

/// Removes every registered temporary output (files, and directories with what they
/// hold); async-signal-safe, so a crash handler can do it, and usable anywhere else.
pub fn remove_temporaries() {
    if REMOVING.swap(true, Ordering::SeqCst) {
        return;
    }
    for slot in cleanup::slots() {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            sys::remove_path(path);
        }
    }
    REMOVING.store(false, Ordering::SeqCst);
}

/// The test hook: raises the chosen signal inside a library call about a variable.
fn test_hook() {
    let signal = TEST_CRASH.load(Ordering::Relaxed);
    if signal == 0 || !ON_VARIABLE.load(Ordering::Relaxed) {
        return;
    }
    if signal < 0 {
        overflow(0);
    } else {
        sys::raise(signal);
    }
}

/// Recurses until the stack overflows (the test hook's `stack`).
fn overflow(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 64]);
    if std::hint::black_box(depth) == u64::MAX {
        return frame[7];
    }
    std::hint::black_box(overflow(depth + 1)) + frame[7]
}

/// The name of a crash signal.
fn signal_name(signal: c_int) -> &'static [u8] {
    match signal {
        libc::SIGSEGV => b"SIGSEGV",
        libc::SIGBUS => b"SIGBUS",
        libc::SIGFPE => b"SIGFPE",
        libc::SIGILL => b"SIGILL",
        libc::SIGABRT => b"SIGABRT",
        _ => b"?",
    }
}

/// The message being built by the handler, in a fixed buffer.
struct Message {
    bytes: [u8; 2048],
    len: usize,
}

impl Message {
    fn push(&mut self, byte: u8) {
        if self.len < self.bytes.len() {
            self.bytes[self.len] = byte;
            self.len += 1;
        }
    }

    fn push_all(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.push(*b);
        }
    }

    fn push_number(&mut self, mut n: u32) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push_all(&digits[i..]);
    }
}

/// The buffer of the one handler that runs (guarded by [`HANDLING`]).
struct MessageCell(UnsafeCell<Message>);

// SAFETY: only the thread that set HANDLING (once per process) touches the cell.
unsafe impl Sync for MessageCell {}

static MESSAGE: MessageCell = MessageCell(UnsafeCell::new(Message {
    bytes: [0; 2048],
    len: 0,
}));

/// What the handler does: the message, the removal, the exit.
fn on_crash(signal: c_int, message: &mut Message) {
    let in_library = IN_LIBRARY.with(Cell::get) > 0;
    let had_temporaries = cleanup::outputs_registered() > 0;
    TOOL.append_to(message);
    message.push_all(b": ");
    if !FILE.is_empty() {
        FILE.append_to(message);
        message.push_all(b": ");
    }
    let in_plugin = IN_PLUGIN.with(Cell::get) > 0;
    if in_plugin {
        message.push_all(b"crashed inside the plugin ");
        PLUGIN.append_to(message);
    } else if in_library {
        message.push_all(b"crashed inside the netCDF/HDF5 library");
    } else {
        message.push_all(b"crashed");
    }
    let activity = &ACTIVITY[ACTIVITY_NOW.load(Ordering::SeqCst) % ACTIVITY.len()];
    if !activity.is_empty() {
        message.push_all(b" while ");
        activity.append_to(message);
    }
    message.push_all(b" (signal ");
    message.push_number(signal.unsigned_abs());
    message.push_all(b", ");
    message.push_all(signal_name(signal));
    message.push_all(b"); ");
    if in_plugin {
        message.push_all(
            b"the plugin is at fault or the data is corrupt: remove the plugin from \
              HDF5_PLUGIN_PATH, or report it to its authors",
        );
    } else if in_library && !FILE_IS_OUTPUT.load(Ordering::SeqCst) {
        message.push_all(b"the file is probably corrupt");
    } else {
        message.push_all(
            b"a fault in the library or in nctools: please report it with the command \
              you ran",
        );
    }
    if had_temporaries {
        message.push_all(b"; no output was written");
    }
    message.push(b'\n');
    sys::write_stderr(&message.bytes[..message.len]);
    remove_temporaries();
}

/// The `unsafe` half: signal handlers, the alternate stack, and the removal of paths
/// with system calls only.
mod sys {
    use super::*;

    /// The handler of every crash signal.
    extern "C" fn handler(signal: c_int) {
        if HANDLING.swap(true, Ordering::SeqCst) {
            // Another thread is reporting its crash and will end the process.
            loop {
                // SAFETY: pause(2) is async-signal-safe and takes no arguments.
                unsafe { libc::pause() };
            }
        }
        // SAFETY: HANDLING was false, so this is the only thread that ever gets here, and
        // the only one touching MESSAGE.
        let message = unsafe { &mut *MESSAGE.0.get() };
        on_crash(signal, message);
        // SAFETY: _exit(2) is async-signal-safe; no exit handlers run, which is the point:
        // the library's state is not to be trusted.
        unsafe { libc::_exit(1) };
    }

    /// Installs [`handler`] for `signal`, on the alternate stack.
    pub(super) fn set_handler(signal: c_int) {
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = handler as extern "C" fn(c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_ONSTACK;
        // SAFETY: the mask is a valid sigset_t inside `action`.
        unsafe { libc::sigemptyset(&mut action.sa_mask) };
        // SAFETY: `action` is a valid sigaction and the old one is not asked for; the
        // handler only makes async-signal-safe calls.
        unsafe { libc::sigaction(signal, &action, std::ptr::null_mut()) };
    }

    /// Whether the calling thread has an alternate signal stack.
    pub(super) fn has_alt_stack() -> bool {
        // SAFETY: a zeroed stack_t is a valid value to be overwritten.
        let mut current: libc::stack_t = unsafe { std::mem::zeroed() };
        // SAFETY: only queries the current stack into `current`.
        let status = unsafe { libc::sigaltstack(std::ptr::null(), &mut current) };
        status == 0 && current.ss_flags & libc::SS_DISABLE == 0
    }

    /// Makes `stack` the calling thread's alternate signal stack.
    pub(super) fn set_alt_stack(stack: &'static mut [u8]) {
        let new = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: stack.len(),
        };
        // SAFETY: the stack is memory of 'static lifetime that nothing else uses.
        unsafe { libc::sigaltstack(&new, std::ptr::null_mut()) };
    }

    /// Raises `signal` in the calling thread.
    pub(super) fn raise(signal: c_int) {
        // SAFETY: raise(3) with a valid signal number.
        unsafe { libc::raise(signal) };
    }

    /// Writes `bytes` to standard error, whole unless it fails.
    pub(super) fn write_stderr(mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let fd = REPORT_FD.load(Ordering::SeqCst);
            // SAFETY: the pointer and length describe `bytes`; a closed `fd` only fails.
            let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
            if n <= 0 {
                return;
            }
            bytes = &bytes[n.unsigned_abs()..];
        }
    }

    fn errno() -> c_int {
        // SAFETY: __errno_location returns this thread's errno, always valid.
        unsafe { *libc::__errno_location() }
    }

    /// Removes the file or directory tree at `path` (a NUL-terminated string that lives
    /// for the whole process, from [`cleanup`]).
    pub(super) fn remove_path(path: *const c_char) {
        // SAFETY: `path` is a valid NUL-terminated string (see above).
        if unsafe { libc::unlink(path) } == 0 {
            return;
        }
        if matches!(errno(), libc::EISDIR | libc::EPERM) {
            remove_tree(path);
        }
    }

    /// Scratch buffers of [`remove_tree`] (guarded by REMOVING).
    struct TreeBuffers {
        path: [u8; 4096],
        entries: [u8; 4096],
    }

    struct TreeCell(UnsafeCell<TreeBuffers>);

    // SAFETY: only the holder of REMOVING touches the buffers.
    unsafe impl Sync for TreeCell {}

    static TREE: TreeCell = TreeCell(UnsafeCell::new(TreeBuffers {
        path: [0; 4096],
        entries: [0; 4096],
    }));

    /// Removes the directory `root` and everything in it, depth first, with a path
    /// buffer and a directory-entry buffer of fixed size, and a bound on the work.
    fn remove_tree(root: *const c_char) {
        // SAFETY: remove_temporaries holds REMOVING, so this thread alone uses TREE.
        let buffers = unsafe { &mut *TREE.0.get() };
        let TreeBuffers { path, entries } = buffers;
        // SAFETY: `root` is NUL-terminated (see remove_path).
        let root_len = unsafe { libc::strlen(root) };
        if root_len + 1 > path.len() {
            return;
        }
        // SAFETY: `root` has root_len bytes and `path` room for them and the NUL.
        unsafe { std::ptr::copy_nonoverlapping(root.cast::<u8>(), path.as_mut_ptr(), root_len) };
        path[root_len] = 0;
        let mut len = root_len;
        let mut budget = 100_000u32;
        while budget > 0 {
            budget -= 1;
            match empty_one(path, len, entries) {
                Step::Descend(new_len) => len = new_len,
                Step::Again => {}
                Step::Gone if len == root_len => return,
                Step::Empty | Step::Gone => {
                    // SAFETY: path[..len] is NUL-terminated at len.
                    let removed = unsafe { libc::rmdir(path.as_ptr().cast()) } == 0;
                    if len == root_len {
                        if removed || errno() == libc::ENOENT {
                            return;
                        }
                        continue;
                    }
                    // Back to the parent directory.
                    while len > root_len && path[len - 1] != b'/' {
                        len -= 1;
                    }
                    len -= 1;
                    path[len] = 0;
                }
            }
        }
    }

    enum Step {
        /// Went into a subdirectory; the path is now this long.
        Descend(usize),
        /// Removed entries; look again.
        Again,
        /// The directory holds nothing.
        Empty,
        /// The directory cannot be opened.
        Gone,
    }

    /// Removes what it can of the directory `path[..len]`: files and empty
    /// subdirectories, or goes into the first subdirectory that is not empty.
    fn empty_one(path: &mut [u8; 4096], len: usize, entries: &mut [u8; 4096]) -> Step {
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: path[..len] is NUL-terminated at len.
        let fd = unsafe { libc::open(path.as_ptr().cast(), flags) };
        if fd < 0 {
            return Step::Gone;
        }
        let mut step = Step::Empty;
        'read: loop {
            // SAFETY: the buffer and its length are `entries`; fd is an open directory.
            let n = unsafe {
                libc::syscall(
                    libc::SYS_getdents64,
                    fd,
                    entries.as_mut_ptr(),
                    entries.len(),
                )
            };
            if n <= 0 {
                break;
            }
            let n = usize::try_from(n).unwrap_or(0).min(entries.len());
            let mut at = 0;
            // linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
            while at + 19 < n {
                let reclen = usize::from(u16::from_ne_bytes([entries[at + 16], entries[at + 17]]));
                if reclen == 0 || at + reclen > n {
                    break 'read;
                }
                let field = &entries[at + 19..at + reclen];
                at += reclen;
                // A name without its NUL inside the record is not one to pass on.
                let Some(name_len) = field.iter().position(|b| *b == 0) else {
                    continue;
                };
                let name = &field[..name_len];
                if name.is_empty() || name == b"." || name == b".." {
                    continue;
                }
                let c_name = entries[at - reclen + 19..].as_ptr().cast::<c_char>();
                // SAFETY: c_name points at a NUL-terminated name inside `entries`.
                if unsafe { libc::unlinkat(fd, c_name, 0) } == 0 {
                    step = Step::Again;
                    continue;
                }
                // SAFETY: as above.
                if unsafe { libc::unlinkat(fd, c_name, libc::AT_REMOVEDIR) } == 0 {
                    step = Step::Again;
                    continue;
                }
                if errno() == libc::ENOTEMPTY && len + 1 + name_len < path.len() {
                    path[len] = b'/';
                    path[len + 1..len + 1 + name_len].copy_from_slice(name);
                    path[len + 1 + name_len] = 0;
                    step = Step::Descend(len + 1 + name_len);
                    break 'read;
                }
            }
        }
        // SAFETY: fd is open and closed once.
        unsafe { libc::close(fd) };
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_directory_tree_is_removed_whole() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join(".s.zarr.nctools-1.tmp");
        for sub in ["a/b/c", "a/d", "e"] {
            std::fs::create_dir_all(root.join(sub)).unwrap_or_else(|e| panic!("{e}"));
        }
        for file in ["a/b/c/0.0", "a/b/x", "a/d/.zarray", ".zgroup", "e/1"] {
            std::fs::write(root.join(file), "x").unwrap_or_else(|e| panic!("{e}"));
        }
        let file = dir.path().join(".f.nc.nctools-1.tmp");
        std::fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
        let held = [cleanup::register(&root), cleanup::register(&file)];
        remove_temporaries();
        drop(held);
        assert!(!root.exists() && !file.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).map(Iterator::count).ok(),
            Some(0)
        );
    }

    #[test]
    fn the_test_hook_names_are_signals() {
        assert_eq!(test_signal("sigsegv"), libc::SIGSEGV);
        assert_eq!(test_signal("stack"), -1);
        assert_eq!(test_signal("nonsense"), 0);
    }
}
