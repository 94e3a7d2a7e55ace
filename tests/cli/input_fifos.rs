//! Inputs that are not files: a FIFO (or a device) named as an input is refused at once,
//! with the words every input gives ("is not a regular file"), instead of blocking in
//! `open(2)` until a writer comes. Every place an input path is opened goes through the
//! store crate's non-blocking open (`store::input_file`).

use std::path::{Path, PathBuf};

use crate::bounded::run_ours;
use crate::support::{assert_rejected, scratch};

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
    assert_eq!(made.code, Some(0), "{}", made.stderr);
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
