//! Work run in a separate process whose address space is limited: how a plugin filter
//! nctools did not write decodes a chunk of an untrusted file for the chunk check. A
//! plugin allocates what the chunk's own header claims before anything can look at its
//! output (hdf5plugin's Blosc2 took 1.99 GB to decode a 3.7 KB file's one chunk); in the
//! worker that allocation fails against the limit, or the worker dies, and the tool goes
//! on with a refusal.
//!
//! The worker is forked once, on first use, and kept: forking for every chunk cost 2 ms a
//! chunk (a 5,000-chunk file took 11 s to print, against 1 s). It is forked with the
//! library lock held (callers are inside [`super::with_lib`]), so no other thread is
//! inside libnetcdf or libhdf5, and it only runs the handler it was made with, one
//! request at a time, on its one thread. Before each request it sets its address-space
//! limit (`RLIMIT_AS`, soft) to what it has mapped plus the request's allowance. It gives
//! its crash signals their default action (a crash ends the worker only), writes nothing
//! to standard output, and leaves by `_exit` when the tool closes its socket. A worker
//! that died is reaped and replaced at the next request.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Mutex;

/// Why contained work gave no output.
#[derive(Debug)]
pub(crate) enum ContainedError {
    /// The work itself reported an error (its message).
    Work(String),
    /// The worker ended without answering: killed by a signal (a crash, or an abort
    /// when memory ran out), or it answered more than it may.
    Ended(String),
    /// The worker could not be made (no fork, no socket).
    Unavailable(String),
}

/// What a worker runs for each request: the request's bytes in, its output out.
pub(crate) type Handler = fn(&super::Lib, &[u8]) -> Result<Vec<u8>, String>;

/// The crash signals the worker gives back to their default action.
const CRASH_SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
];

/// The answer's first byte: the work succeeded, and its output follows.
const ANSWER_OK: u8 = b'O';
/// The answer's first byte: the work failed, and its message follows.
const ANSWER_ERR: u8 = b'E';
/// The longest error message a worker may answer with.
const MESSAGE_ROOM: u64 = 64 * 1024;

/// A running worker: its process and the tool's end of its socket.
struct Worker {
    pid: libc::pid_t,
    name: &'static str,
    image: u64,
    socket: UnixStream,
}

/// The worker of this process, made on first use.
static WORKER: Mutex<Option<Worker>> = Mutex::new(None);

/// Runs `handler` on `request` in the worker (made on first use with this handler, and
/// remade if a handler of another `name` is asked for, or the process `image` the
/// handler needs has changed since: a library loaded after the fork is not in it),
/// which may map at most `allowance` bytes more than it has mapped when the request
/// comes, and returns its output, which may be at most `output_cap` bytes. Called with
/// the library lock held (`lib`).
pub(crate) fn run_contained(
    lib: &super::Lib,
    name: &'static str,
    image: u64,
    handler: Handler,
    request: &[u8],
    allowance: usize,
    output_cap: usize,
) -> Result<Vec<u8>, ContainedError> {
    let mut slot = WORKER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(worker) = slot.take() {
        // One that ended on its own is reaped by `has_ended` (its pid is not signalled
        // after that: it may belong to another process by then).
        if has_ended(worker.pid) {
            drop(worker);
        } else if (worker.name, worker.image) != (name, image) {
            retire(worker);
        } else {
            *slot = Some(worker);
        }
    }
    let worker = match slot.as_mut() {
        Some(worker) => worker,
        None => slot.insert(spawn(lib, name, image, handler)?),
    };
    match exchange(&mut worker.socket, request, allowance, output_cap) {
        Err(Exchange::Silent) => {
            // It closed its socket without answering: it is ending, and says how.
            let how = slot
                .take()
                .map_or_else(String::new, |dead| ended_how(dead.pid));
            Err(ContainedError::Ended(how))
        }
        Err(Exchange::Failed(e)) => {
            if let Some(dead) = slot.take() {
                retire(dead);
            }
            Err(e)
        }
        Ok(answer) => answer,
    }
}

/// How an exchange with the worker went wrong.
enum Exchange {
    /// The worker closed its socket without answering (it crashed or aborted).
    Silent,
    /// Anything else; the worker is not to be used again.
    Failed(ContainedError),
}

/// Waits for the worker `pid`, which closed its socket, and says how it ended.
fn ended_how(pid: libc::pid_t) -> String {
    let mut status: libc::c_int = 0;
    // SAFETY: `pid` is our child, not reaped yet; `status` is a valid place for its
    // status. It has closed its socket, so it is leaving.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    if waited != pid {
        return "it ended without answering".into();
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let name = match signal {
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGBUS => "SIGBUS",
            libc::SIGFPE => "SIGFPE",
            libc::SIGILL => "SIGILL",
            libc::SIGABRT => "SIGABRT, as when the memory it may use runs out",
            libc::SIGKILL => "SIGKILL",
            _ => "a signal",
        };
        format!("it crashed (signal {signal}, {name})")
    } else {
        format!(
            "it ended without answering (exit status {})",
            libc::WEXITSTATUS(status)
        )
    }
}

/// Sends one request and reads its answer (capped at `output_cap` bytes of output): the
/// work's output or error, or how the exchange failed.
fn exchange(
    socket: &mut UnixStream,
    request: &[u8],
    allowance: usize,
    output_cap: usize,
) -> Result<Result<Vec<u8>, ContainedError>, Exchange> {
    let failed = |e: std::io::Error| {
        Exchange::Failed(ContainedError::Ended(format!("it stopped answering ({e})")))
    };
    let mut header = Vec::with_capacity(24);
    header.extend_from_slice(&(allowance as u64).to_le_bytes());
    header.extend_from_slice(&(output_cap as u64).to_le_bytes());
    header.extend_from_slice(&(request.len() as u64).to_le_bytes());
    socket.write_all(&header).map_err(failed)?;
    socket.write_all(request).map_err(failed)?;
    let mut head = [0u8; 9];
    socket.read_exact(&mut head).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Exchange::Silent,
        _ => failed(e),
    })?;
    let mut length = [0u8; 8];
    length.copy_from_slice(&head[1..]);
    let length = u64::from_le_bytes(length);
    let cap = match head[0] {
        ANSWER_OK => output_cap as u64,
        ANSWER_ERR => MESSAGE_ROOM,
        _ => {
            return Err(Exchange::Failed(ContainedError::Ended(
                "it answered out of turn".into(),
            )))
        }
    };
    if length > cap {
        return Err(Exchange::Failed(ContainedError::Ended(format!(
            "it answered {length} bytes, more than {cap}"
        ))));
    }
    let mut body = Vec::new();
    socket.take(length).read_to_end(&mut body).map_err(failed)?;
    if body.len() as u64 != length {
        return Err(Exchange::Silent);
    }
    Ok(match head[0] {
        ANSWER_OK => Ok(body),
        _ => Err(ContainedError::Work(
            String::from_utf8_lossy(&body).into_owned(),
        )),
    })
}

/// Forks a worker that serves requests with `handler`.
fn spawn(
    lib: &super::Lib,
    name: &'static str,
    image: u64,
    handler: Handler,
) -> Result<Worker, ContainedError> {
    let (ours, theirs) = UnixStream::pair()
        .map_err(|e| ContainedError::Unavailable(format!("no socket pair: {e}")))?;
    // SAFETY: fork has no preconditions. The child only runs `serve`: the handler, which
    // uses the library lock this thread holds (no other thread can hold it) and the
    // allocator (glibc's is fork-safe), then `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(ContainedError::Unavailable(format!(
            "no worker process: {}",
            std::io::Error::last_os_error()
        )));
    }
    if pid == 0 {
        drop(ours);
        serve(lib, handler, theirs);
    }
    drop(theirs);
    Ok(Worker {
        pid,
        name,
        image,
        socket: ours,
    })
}

/// The worker's side: serves requests until the tool closes its socket, then leaves.
fn serve(lib: &super::Lib, handler: Handler, mut socket: UnixStream) -> ! {
    for signal in CRASH_SIGNALS {
        // SAFETY: setting a signal's disposition to its default is always valid.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: a valid rlimit value; /dev/null is opened and duplicated onto standard
    // output so that nothing a plugin prints joins the tool's output.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 1);
            libc::close(null);
        }
    }
    loop {
        let mut header = [0u8; 24];
        if socket.read_exact(&mut header).is_err() {
            break;
        }
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&header[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let (allowance, output_cap, length) = (word(0), word(1), word(2));
        // The request itself is read under this request's limit (before, the limit of
        // the previous, smaller one refused a large chunk).
        if limit_to(allowance.saturating_add(length)).is_err() {
            break;
        }
        let mut request = Vec::new();
        if (&mut socket)
            .take(length)
            .read_to_end(&mut request)
            .is_err()
            || request.len() as u64 != length
        {
            break;
        }
        let answer = match limit_to(allowance) {
            Err(e) => Err(e),
            Ok(()) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(lib, &request)))
                    .unwrap_or_else(|_| Err("it panicked".into()))
            }
        };
        let (tag, body) = match answer {
            Ok(output) if output.len() as u64 <= output_cap => (ANSWER_OK, output),
            Ok(output) => (
                ANSWER_ERR,
                format!("it made {} bytes, more than {output_cap}", output.len()).into_bytes(),
            ),
            Err(message) => {
                let mut message = message.into_bytes();
                message.truncate(MESSAGE_ROOM as usize);
                (ANSWER_ERR, message)
            }
        };
        let mut head = vec![tag];
        head.extend_from_slice(&(body.len() as u64).to_le_bytes());
        if socket.write_all(&head).is_err() || socket.write_all(&body).is_err() {
            break;
        }
    }
    // SAFETY: leaving the worker without running the tool's exit handlers.
    unsafe { libc::_exit(0) }
}

/// Sets this process's soft address-space limit to what it maps now plus `allowance`.
fn limit_to(allowance: u64) -> Result<(), String> {
    let limit = mapped_bytes()?.saturating_add(allowance);
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `current` is a valid place for the limits.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut current) } != 0 {
        return Err("cannot read the memory limit".into());
    }
    let wanted = libc::rlimit {
        rlim_cur: limit.min(current.rlim_max),
        rlim_max: current.rlim_max,
    };
    // SAFETY: a valid rlimit value, the soft limit within the hard one.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &wanted) } != 0 {
        return Err("cannot set the memory limit".into());
    }
    Ok(())
}

/// Whether the worker `pid` has ended (and reaps it if so).
fn has_ended(pid: libc::pid_t) -> bool {
    let mut status: libc::c_int = 0;
    // SAFETY: `pid` is our child; `status` is a valid place for its status.
    unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) != 0 }
}

/// Ends a worker no longer wanted (or that failed a request) and reaps it.
fn retire(worker: Worker) {
    drop(worker.socket);
    let mut status: libc::c_int = 0;
    // SAFETY: signalling and reaping our own child, which has not been reaped (a dead
    // one is a zombie until then, so its pid is still its own).
    unsafe {
        libc::kill(worker.pid, libc::SIGKILL);
        libc::waitpid(worker.pid, &mut status, 0);
    }
}

/// How many bytes of address space this process has mapped (`/proc/self/statm`).
fn mapped_bytes() -> Result<u64, String> {
    let statm = std::fs::read_to_string("/proc/self/statm")
        .map_err(|e| format!("cannot read /proc/self/statm: {e}"))?;
    let pages: u64 = statm
        .split_whitespace()
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or("/proc/self/statm says no size")?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Ok(pages.saturating_mul(u64::try_from(page).unwrap_or(4096)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test handler: the request names a size to make (8 bytes) and whether to make
    /// it by allocation that may fail (byte 8 = 0) or that aborts (1), or to fail (2).
    fn handler(_lib: &super::super::Lib, request: &[u8]) -> Result<Vec<u8>, String> {
        let mut size = [0u8; 8];
        size.copy_from_slice(&request[..8]);
        let size = usize::try_from(u64::from_le_bytes(size)).map_err(|e| e.to_string())?;
        match request[8] {
            0 => {
                let mut out: Vec<u8> = Vec::new();
                out.try_reserve_exact(size).map_err(|e| e.to_string())?;
                out.resize(size, 7);
                Ok(out)
            }
            1 => Ok(vec![1u8; size]),
            _ => Err("no".into()),
        }
    }

    fn ask(size: u64, how: u8, allowance: usize, cap: usize) -> Result<Vec<u8>, ContainedError> {
        let mut request = size.to_le_bytes().to_vec();
        request.push(how);
        super::super::with_lib(|lib| {
            run_contained(lib, "test", 0, handler, &request, allowance, cap)
        })
    }

    #[test]
    fn a_worker_answers_refuses_and_survives_or_is_replaced() {
        // Output comes back, a failure says why, and the worker serves the next request.
        assert_eq!(
            ask(100_000, 0, 64 << 20, 1 << 20).ok(),
            Some(vec![7u8; 100_000])
        );
        assert!(matches!(ask(1, 2, 64 << 20, 1 << 20), Err(ContainedError::Work(m)) if m == "no"));
        // An allocation past the allowance fails in the worker, not in this process.
        let refused = ask(1 << 30, 0, 64 << 20, 2 << 30);
        assert!(
            matches!(refused, Err(ContainedError::Work(_))),
            "{refused:?}"
        );
        // An aborting allocation ends the worker; the next request gets a new one.
        let aborted = ask(1 << 30, 1, 64 << 20, 2 << 30);
        assert!(
            matches!(aborted, Err(ContainedError::Ended(_))),
            "{aborted:?}"
        );
        assert_eq!(ask(10, 0, 64 << 20, 1000).ok(), Some(vec![7u8; 10]));
        // An answer past the cap is refused.
        let past = ask(200_000, 0, 64 << 20, 1000);
        assert!(matches!(past, Err(ContainedError::Work(_))), "{past:?}");
        // A request larger than the previous one's allowance is read under its own
        // (s32b EM1: a 48 MB chunk after a small one was refused).
        let mut large = 10u64.to_le_bytes().to_vec();
        large.push(0);
        large.resize(100 << 20, 0);
        let answered = super::super::with_lib(|lib| {
            run_contained(lib, "test", 0, handler, &large, 64 << 20, 1000)
        });
        assert_eq!(answered.ok(), Some(vec![7u8; 10]));
    }
}
