//! Inputs that are not files: a FIFO (or a device) named as an input is refused at once,
//! with the words every input gives ("is not a regular file"), instead of blocking in
//! `open(2)` until a writer comes. Every place an input path is opened goes through the
//! store crate's non-blocking open (`kv::input_file`). ncgen, which reads a CDL
//! stream (standard input, a FIFO), copies it into `$TMPDIR` up to a limit only.

use std::path::{Path, PathBuf};

use crate::bounded::run_ours;
use crate::support::{assert_rejected, ok, scratch};

/// The words every tool gives an input that is not a regular file.
const NOT_REGULAR: &str = "is not a regular file";

/// Makes a FIFO at `path` through the libc (no `mkfifo` program).
pub fn make_fifo(path: &Path) {
    let made = nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600));
    assert!(made.is_ok(), "mkfifo {}: {made:?}", path.display());
}

/// Runs `tool` with `args` under the bounded helper (a blocked run is killed, and the test
/// fails naming it) and checks it refused the FIFO in the words of every input.
fn assert_fifo_refused(tool: &str, args: &[String], what: &str) {
    let bounded = run_ours(tool, args);
    let run = bounded.assert_within(300, 30);
    assert_rejected(run, what);
    assert!(run.stderr.contains(NOT_REGULAR), "{what}: {}", run.stderr);
}

/// Before: `ncdump 'file:///FIFO#mode=zarr,zip'` and `nccopy --kerchunk refs.json FIFO`
/// blocked in open(2) for ever (the bounded helper killed them after 60 s); a FIFO named
/// as a netCDF file was called "empty file".
#[test]
fn a_fifo_named_as_any_input_is_refused_without_blocking() {
    let dir = scratch();
    let fifo = dir.path().join("f");
    make_fifo(&fifo);
    let path = fifo.display().to_string();
    let zip_url = format!("file://{path}#mode=zarr,zip");
    let nczarr_zip_url = format!("file://{path}#mode=nczarr,zip");
    let out: PathBuf = dir.path().join("out.nc");
    let refs: PathBuf = dir.path().join("refs.json");
    let out = out.display().to_string();
    let refs_text = refs.display().to_string();
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        ("ncdump", vec![path.clone()], "ncdump FIFO"),
        (
            "ncdump",
            vec!["-h".into(), zip_url.clone()],
            "ncdump zarr,zip FIFO",
        ),
        (
            "ncdump",
            vec![nczarr_zip_url.clone()],
            "ncdump nczarr,zip FIFO",
        ),
        ("nccopy", vec![path.clone(), out.clone()], "nccopy FIFO"),
        (
            "nccopy",
            vec![zip_url.clone(), out.clone()],
            "nccopy zarr,zip FIFO",
        ),
        (
            "nccopy",
            vec!["--kerchunk".into(), refs_text.clone(), path.clone()],
            "nccopy --kerchunk FIFO",
        ),
    ];
    for (tool, args, what) in &cases {
        assert_fifo_refused(tool, args, what);
    }
    assert!(!refs.exists(), "references written for a FIFO");
    assert!(!Path::new(&out).exists(), "a copy written from a FIFO");
}

/// A kerchunk input list of a good file and a FIFO: refused at the FIFO, nothing written.
/// Before: blocked in open(2) on the FIFO after reading the first file.
#[test]
fn a_fifo_among_kerchunk_inputs_is_refused() {
    let dir = scratch();
    let good = dir.path().join("good.nc");
    let made = crate::support::Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&good)
        .arg(crate::ncgen::case("ncgen", "records"))
        .run();
    ok("made", &made);
    let fifo = dir.path().join("f.nc");
    make_fifo(&fifo);
    let refs = dir.path().join("refs.json");
    let args: Vec<String> = vec![
        "--kerchunk".into(),
        refs.display().to_string(),
        "--concat".into(),
        "time".into(),
        good.display().to_string(),
        fifo.display().to_string(),
    ];
    assert_fifo_refused("nccopy", &args, "kerchunk inputs with a FIFO");
    assert!(!refs.exists());
}

/// A device named as ncgen's CDL file (`/dev/zero`, `/dev/urandom`) is refused at once
/// (before: read until killed, spooled to `$TMPDIR` at hundreds of MB a second; found by
/// review); standard input under its device name still reads.
#[test]
fn ncgen_refuses_a_device_named_as_its_cdl_file() {
    let dir = scratch();
    for device in ["/dev/zero", "/dev/urandom"] {
        let done = crate::support::Test::ours("ncgen")
            .arg("-o")
            .arg(dir.path().join("x.nc"))
            .arg(device)
            .run();
        assert_eq!(done.code, Some(1), "{device}: {}", done.stderr);
        assert!(
            done.stderr.contains("is a device, not a CDL file"),
            "{}",
            done.stderr
        );
        assert!(!dir.path().join("x.nc").exists());
    }
}

/// The spool limit the stream tests give ncgen (`NCTOOLS_CDL_SPOOL_LIMIT`).
const SPOOL_LIMIT: u64 = 1 << 20;

/// The most a producer writes before giving up on the reader (so that a reader that
/// never stops does not fill the disk of the test).
const PRODUCER_STOPS_AT: u64 = 256 << 20;

/// Writes a CDL start then spaces without end into `sink` until it is closed (or
/// [`PRODUCER_STOPS_AT`]); how many bytes it took.
fn produce_without_end(mut sink: impl std::io::Write) -> u64 {
    let mut written = 0u64;
    let block = [b' '; 1 << 16];
    if sink.write_all(b"netcdf endless {\n").is_err() {
        return written;
    }
    while written < PRODUCER_STOPS_AT {
        match sink.write(&block) {
            Ok(n) if n > 0 => written += n as u64,
            _ => break,
        }
    }
    written
}

/// Waits for `child` at most a minute (killed past it); its exit code and standard error.
fn wait_bounded(mut child: std::process::Child) -> (Option<i32>, String) {
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < std::time::Duration::from_secs(60) => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                break child.wait().ok();
            }
        }
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
    }
    (status.and_then(|s| s.code()), stderr)
}

/// ncgen reading CDL from a stream that never ends (its standard input, or a FIFO named
/// as the CDL file, as a shell's `<(...)` is) stops at the spool limit, exit 1, naming
/// it, and leaves nothing in `$TMPDIR`.
/// Before: the stream was copied into `$TMPDIR` without a limit (here until the producer
/// gave up at 256 MiB; a producer that does not give up fills the disk).
#[test]
fn ncgen_refuses_a_cdl_stream_past_the_spool_limit() {
    use std::process::{Command, Stdio};
    let dir = scratch();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap_or_else(|e| panic!("{e}"));
    let fifo = dir.path().join("cdl");
    make_fifo(&fifo);
    let limit = SPOOL_LIMIT.to_string();
    for from_fifo in [false, true] {
        let out = dir.path().join("out.nc");
        let mut command = Command::new(crate::support::ours_path("ncgen"));
        command
            .env("NCTOOLS_CDL_SPOOL_LIMIT", &limit)
            .env("TMPDIR", &tmp)
            .arg("-o")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if from_fifo {
            command.arg(&fifo).stdin(Stdio::null());
        } else {
            command.stdin(Stdio::piped());
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("starting ncgen: {e}"));
        let (sent, took) = std::sync::mpsc::channel();
        if from_fifo {
            let fifo = fifo.clone();
            // Opening a FIFO to write waits for its reader; a thread left blocked there
            // (ncgen failed before opening it) only fails the test below.
            std::thread::spawn(move || {
                let written = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&fifo)
                    .map_or(0, produce_without_end);
                let _ = sent.send(written);
            });
        } else {
            let stdin = child.stdin.take();
            std::thread::spawn(move || {
                let _ = sent.send(stdin.map_or(0, produce_without_end));
            });
        }
        let (code, stderr) = wait_bounded(child);
        let written = took
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or(u64::MAX);
        let what = if from_fifo {
            "a FIFO"
        } else {
            "standard input"
        };
        assert_eq!(code, Some(1), "{what}: {stderr}");
        assert!(
            stderr.contains(&format!("more than {SPOOL_LIMIT} bytes"))
                && stderr.contains("NCTOOLS_CDL_SPOOL_LIMIT"),
            "{what}: {stderr}"
        );
        // What ncgen took: the limit and a byte, plus what a pipe buffers.
        assert!(
            written < SPOOL_LIMIT + (4 << 20),
            "{what}: ncgen read {written} bytes"
        );
        let left: Vec<_> = std::fs::read_dir(&tmp)
            .map(|d| d.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{what}: left in $TMPDIR: {left:?}");
        assert!(!out.exists(), "{what}: an output was made");
    }
}
