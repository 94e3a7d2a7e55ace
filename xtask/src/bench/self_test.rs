//! `cargo xtask bench --self-test`: checks the harness, not our speed.
//!
//! 1. The reference tools stand in for ours (`NCTOOLS_BENCH_OURS_DIR`), timed against
//!    themselves with one run per side on 2 MB inputs made in a temporary directory: every
//!    input generator, the classic-to-netCDF-4 conversions, the CDL, the timing and the
//!    memory measure are exercised, and every row must hold times and peaks (above zero).
//! 2. A stand-in ncdump that exits 3 must make its case a failure: a line saying so, and
//!    exit status 1.
//! 3. A missing program fails its case as exit 127, and the next case still runs.
//! 4. The S3 harness: `zarr-s3-read` with zarr-python standing in for our nccopy (the
//!    peers' script reading the store), so that moto and the counting proxy start on
//!    127.0.0.1, the store is uploaded, both sides read it through the proxy, and the
//!    row holds each side's requests (above zero) and the line of requests by method.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::inputs::ZARR_PEERS_SCRIPT;

/// The cases of the first check: one per input generator and kind of side.
const CASES: &[&str] = &[
    "ncdump",
    "ncdump-h",
    "ncgen",
    "nccopy-plain",
    "nccopy-d1s",
    "unlim-ncdump",
    "unlim-ncgen",
    "classic-ncdump",
    "classic-nccopy",
    "classic-ncdump-ref",
];

/// Runs this program's `bench` with `args`, ours from `ours_dir`, data in `data_dir`.
fn bench(ours_dir: &Path, data_dir: &Path, args: &[&str]) -> Result<(i32, String)> {
    let exe = std::env::current_exe().context("cannot find this program")?;
    let out = Command::new(exe)
        .args(["bench", "--runs", "1", "--size", "2", "--no-build"])
        .args(args)
        .env("NCTOOLS_BENCH_OURS_DIR", ours_dir)
        .env("NCTOOLS_BENCH_DATA_DIR", data_dir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run bench")?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

/// Whether `line` is a row for `case` with two times and two peaks above zero.
fn is_good_row(line: &str, case: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |i: usize| words.get(i).and_then(|w| w.parse::<f64>().ok());
    words.first() == Some(&case)
        && words.len() == 6
        && [1, 2].iter().all(|&i| number(i).is_some_and(|v| v >= 0.0))
        && [4, 5].iter().all(|&i| number(i).is_some_and(|v| v > 0.0))
        && words[3] != "n/a"
}

/// Whether `line` is an S3 case's row for `case`: as [`is_good_row`], with two request
/// counts above zero after it.
fn is_good_s3_row(line: &str, case: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.len() == 8
        && is_good_row(&words[..6].join(" "), case)
        && words[6..]
            .iter()
            .all(|w| w.parse::<u64>().is_ok_and(|n| n > 0))
}

/// The fourth check: `zarr-s3-read` with zarr-python standing in for our nccopy.
fn s3_harness(tmp: &Path, data: &Path) -> Result<bool> {
    let python = crate::corpus::repo_root().join(".venv/bin/python3");
    if !crate::runner::is_executable(&python) {
        bail!("{} is missing (run scripts/setup)", python.display());
    }
    let script = tmp.join("zarr_peers.py");
    fs::write(&script, ZARR_PEERS_SCRIPT)?;
    let bin = tmp.join("s3-bin");
    fs::create_dir(&bin)?;
    let stand_in = bin.join("nccopy");
    // Our side is `nccopy -F none STORE OUT.nc`.
    fs::write(
        &stand_in,
        format!(
            "#!/bin/sh\nexec '{}' '{}' zarr-python read \"$3\" \"$4\"\n",
            python.display(),
            script.display()
        ),
    )?;
    fs::set_permissions(&stand_in, fs::Permissions::from_mode(0o755))?;
    let (code, out) = bench(&bin, data, &["zarr-s3-read"])?;
    let row = out.lines().any(|l| is_good_s3_row(l, "zarr-s3-read"));
    let by_method = out
        .lines()
        .any(|l| l.starts_with("  requests by method: ours GET "));
    if code == 0 && row && by_method {
        println!("ok    the S3 harness: moto, the counting proxy and an upload; requests counted");
        Ok(true)
    } else {
        println!("FAIL  the S3 harness: exit {code}, output:\n{out}");
        Ok(false)
    }
}

/// Runs the self-test; returns 0 when every check passed, 1 otherwise.
pub fn run() -> Result<i32> {
    let ref_dir = std::env::var_os("NCTOOLS_BENCH_REF_DIR").unwrap_or_else(|| "/usr/bin".into());
    let ref_dir = Path::new(&ref_dir);
    for tool in ["ncdump", "ncgen", "nccopy"] {
        if !crate::runner::is_executable(&ref_dir.join(tool)) {
            bail!(
                "the reference {tool} is missing from {} (run scripts/setup)",
                ref_dir.display()
            );
        }
    }
    let tmp = tempfile::tempdir().context("cannot make a temporary directory")?;
    let data = tmp.path().join("data");
    fs::create_dir(&data)?;
    let mut failed = 0;

    let (code, out) = bench(ref_dir, &data, CASES)?;
    let missing: Vec<&str> = CASES
        .iter()
        .copied()
        .filter(|case| !out.lines().any(|l| is_good_row(l, case)))
        .collect();
    for line in out.lines() {
        println!("      {line}");
    }
    if code == 0 && missing.is_empty() {
        println!(
            "ok    the reference against itself: {} rows with times and peaks",
            CASES.len()
        );
    } else {
        println!("FAIL  the reference against itself: exit {code}, rows missing or wrong: {missing:?}; its output:\n{out}");
        failed += 1;
    }

    let bin = tmp.path().join("bin");
    fs::create_dir(&bin)?;
    let stand_in = bin.join("ncdump");
    fs::write(
        &stand_in,
        "#!/bin/sh\necho 'stand-in: broken' >&2\nexit 3\n",
    )?;
    fs::set_permissions(&stand_in, fs::Permissions::from_mode(0o755))?;
    let (code, out) = bench(&bin, &data, &["ncdump-h"])?;
    let want = "ncdump-h: ours failed (exit 3): stand-in: broken";
    if code == 1 && out.lines().any(|l| l == want) {
        println!("ok    a broken stand-in: exit 1 and \"{want}\"");
    } else {
        println!("FAIL  a broken stand-in: exit {code} (1 expected), output:\n{out}");
        failed += 1;
    }
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty)?;
    let (code, out) = bench(&empty, &data, &["ncdump-h", "ncdump"])?;
    let want = "ncdump-h: ours failed (exit 127): cannot run ";
    let rows = out.lines().filter(|l| l.starts_with("ncdump")).count();
    if code == 1 && out.lines().any(|l| l.starts_with(want)) && rows == 2 {
        println!("ok    a missing program: exit 127 for its case, the next case still run, exit 1");
    } else {
        println!("FAIL  a missing program: exit {code} (1 expected), output:\n{out}");
        failed += 1;
    }
    if !s3_harness(tmp.path(), &data)? {
        failed += 1;
    }
    Ok(i32::from(failed > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_recognised() {
        let row = "ncdump                     0.05           0.05     1.00         10.1                10.2";
        assert!(is_good_row(row, "ncdump"));
        assert!(!is_good_row(row, "ncdump-h"));
        assert!(!is_good_row("ncdump: ours failed (exit 3): x", "ncdump"));
        let no_peak = "ncdump                     0.00           0.05     0.00          0.0                10.2";
        assert!(!is_good_row(no_peak, "ncdump"));
        let s3 = "zarr-s3-read     0.19     1.51     0.12     33.0     101.3     38     49";
        assert!(is_good_s3_row(s3, "zarr-s3-read"));
        assert!(!is_good_s3_row(&s3.replace(" 38 ", " 0 "), "zarr-s3-read"));
        assert!(!is_good_s3_row(row, "ncdump"));
    }
}
