//! `cargo xtask bench`: side-by-side timings of nctools against the reference netCDF-C
//! tools and the peers users would pick instead (ncks, h5repack, cdo, zarr-python).
//!
//! Each case runs our side and the other side in alternation (ours, other, ours, ...)
//! `--runs` times, and prints the median wall time of each, the ratio ours / other (below
//! 1.0: we are faster) and the peak resident memory of each. The machine is shared and
//! noisy: only the ratios of one run mean anything, and tests never assert timings. The
//! cases and their inputs are described in docs/development.md ("Benchmarks").

mod cases;
mod catalog;
mod classic_gen;
mod inputs;
pub mod measure;
mod s3;
mod self_test;

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::build;
use cases::{CaseBuilder, Side};
use catalog::{Peer, CASES, GROUPS};
use inputs::Inputs;
use measure::Measured;

/// The options of `cargo xtask bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Runs of each side per case (the median is shown).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Size of the generated data in MB (default: 200; the nccopy cases 1000, the filter
    /// cases 200, the unlimited-time file of the zarr, unlim, stored and classic cases 500).
    #[arg(long, value_name = "MB")]
    size: Option<String>,
    /// Run our tools with -j N.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Do not run `cargo build --release` first.
    #[arg(long)]
    no_build: bool,
    /// List the cases and exit.
    #[arg(long)]
    list: bool,
    /// Check the harness itself: the reference tools timed against themselves on small
    /// generated files, and a broken stand-in that must be reported as failed.
    #[arg(long)]
    self_test: bool,
    /// The cases (or groups of cases) to time.
    #[arg(value_name = "CASE")]
    cases: Vec<String>,
}

/// The times and peak memory of one side of a case, and on the S3 server the requests of
/// its last run.
#[derive(Debug, Default)]
struct SideTimes {
    seconds: Vec<f64>,
    peak_kib: u64,
    requests: Option<s3::RequestCounts>,
}

impl SideTimes {
    fn add(&mut self, seconds: f64, peak_kib: u64) {
        self.seconds.push(seconds);
        self.peak_kib = self.peak_kib.max(peak_kib);
    }
}

/// The median of `values` (the mean of the middle two for an even count).
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The table's header line, for ours (with `-j N` if given) against `peer`; with
/// `requests`, two more columns: the requests of a run of each side.
fn header_line(jobs: Option<usize>, peer: Peer, requests: bool) -> String {
    let ours = match jobs {
        Some(j) => format!("ours(-j {j})_s"),
        None => "ours_s".to_string(),
    };
    let p = peer.label();
    let line = format!(
        "{:<25} {ours:>10} {:>14} {:>8} {:>12} {:>19}",
        "case",
        format!("{p}_s"),
        "ratio",
        "ours_peak_MB",
        format!("{p}_peak_MB")
    );
    if requests {
        format!(
            "{line} {:>13} {:>21}",
            "ours_requests",
            format!("{p}_requests")
        )
    } else {
        line
    }
}

/// A row of the table.
fn row_line(case: &str, ours: &SideTimes, other: &SideTimes) -> String {
    let (o, r) = (median(&ours.seconds), median(&other.seconds));
    let ratio = if r > 0.0 {
        format!("{:.2}", o / r)
    } else {
        "n/a".to_string()
    };
    let line = format!(
        "{case:<25} {o:>10.2} {r:>14.2} {ratio:>8} {:>12.1} {:>19.1}",
        ours.peak_kib as f64 / 1024.0,
        other.peak_kib as f64 / 1024.0
    );
    match (&ours.requests, &other.requests) {
        (Some(a), Some(b)) => format!("{line} {:>13} {:>21}", s3::total(a), s3::total(b)),
        _ => line,
    }
}

/// The requests of each side by method, the line under an S3 case's row; `None` for
/// other cases.
fn requests_line(ours: &SideTimes, other: &SideTimes, peer: Peer) -> Option<String> {
    let (a, b) = (ours.requests.as_ref()?, other.requests.as_ref()?);
    Some(format!(
        "  requests by method: ours {}; {} {}",
        s3::describe(a),
        peer.label(),
        s3::describe(b)
    ))
}

/// Where a directory comes from: the environment variable, or `default`.
fn dir_from_env(var: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(var).map_or(default, PathBuf::from)
}

/// Runs `cargo xtask bench`. Returns the exit status: 0, or 1 when a run failed.
pub fn main(args: BenchArgs) -> Result<i32> {
    if args.list {
        // Written by hand so that `--list | head` ends quietly on a closed pipe.
        let mut out = std::io::stdout().lock();
        let lines = CASES
            .iter()
            .copied()
            .chain(GROUPS.iter().map(|(n, a, _)| (*n, *a)));
        for (name, about) in lines {
            if writeln!(out, "{name:<26} {about}").is_err() {
                break;
            }
        }
        return Ok(0);
    }
    if args.self_test {
        return self_test::run();
    }
    let root = crate::corpus::repo_root();
    if args.cases.is_empty() {
        bail!("name a case (see --list)");
    }
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    if let Some(size) = &args.size {
        match size.parse::<f64>() {
            Ok(mb) if mb > 0.0 => {}
            _ => bail!("--size {size}: give a positive number of MB"),
        }
    }
    let selected = catalog::expand(&args.cases)?;
    let ours_env = std::env::var_os("NCTOOLS_BENCH_OURS_DIR");
    let ours_dir = match ours_env {
        Some(dir) => PathBuf::from(dir),
        None => build::release_tools(&root, !args.no_build)?,
    };
    let data_dir = dir_from_env("NCTOOLS_BENCH_DATA_DIR", root.join("target/bench-data"));
    std::fs::create_dir_all(&data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    let venv_python = root.join(".venv/bin/python3");
    let inputs = Inputs {
        data_dir,
        ours_dir,
        ref_dir: dir_from_env("NCTOOLS_BENCH_REF_DIR", PathBuf::from("/usr/bin")),
        python: if crate::runner::is_executable(&venv_python) {
            venv_python
        } else {
            PathBuf::from("python3")
        },
        size: args.size.clone(),
    };
    if selected.iter().any(|c| c.starts_with("filter-")) {
        println!("filter-*: ours = our nccopy with its built-in filters, ref = our nccopy with");
        println!(
            "NCTOOLS_BUILTIN_FILTERS=0 and HDF5_PLUGIN_PATH={};",
            inputs.external_plugins()?
        );
        println!("both NCTOOLS_DIRECT_CHUNKS=0 (one chunk at a time through HDF5's pipeline)");
    }
    let mut builder = CaseBuilder::new(inputs);
    let mut failed = false;
    let mut shown_peer = None;
    if selected.iter().any(|c| catalog::on_s3(c)) {
        println!("zarr-s3-*: both sides talk to moto's S3 server on 127.0.0.1 through a counting");
        println!(
            "proxy (one Python process each, single-threaded moto): the S3 ratios measure them"
        );
        println!("too; the requests are those of one run");
    }
    for case in selected {
        let peer = catalog::peer(case);
        let on_s3 = catalog::on_s3(case);
        if peer.is_zarr() {
            let more = match (peer, on_s3) {
                (Peer::Tensorstore, _) => ", tensorstore",
                (Peer::ZarrsPython, _) => ", zarrs",
                _ => "",
            };
            builder.inputs.check_zarr_python(more)?;
            if on_s3 {
                builder
                    .inputs
                    .check_zarr_python(", s3fs, boto3, moto.server")?;
            }
        }
        if shown_peer != Some((peer, on_s3)) {
            println!("{}", header_line(args.jobs, peer, on_s3));
            shown_peer = Some((peer, on_s3));
        }
        match time_case(&mut builder, case, args.runs, args.jobs)? {
            Ok((ours, other)) => {
                println!("{}", row_line(case, &ours, &other));
                if let Some(line) = requests_line(&ours, &other, peer) {
                    println!("{line}");
                }
            }
            Err(why) => {
                println!("{case}: {why}");
                failed = true;
            }
        }
    }
    Ok(i32::from(failed))
}

/// Times `case` `runs` times on each side, alternating. The inner error is a failed run,
/// said in a line.
fn time_case(
    builder: &mut CaseBuilder,
    case: &str,
    runs: usize,
    jobs: Option<usize>,
) -> Result<Result<(SideTimes, SideTimes), String>> {
    // The inputs are made before any timing.
    builder.prepare(case, Side::Ours)?;
    builder.prepare(case, Side::Other)?;
    let (mut ours, mut other) = (SideTimes::default(), SideTimes::default());
    for _ in 0..runs {
        for side in [Side::Ours, Side::Other] {
            let prepared = builder.prepare(case, side)?;
            builder.remove_outputs(&prepared)?;
            let mut inv = prepared.invocation;
            if let (Side::Ours, true, Some(j)) = (side, inv.takes_jobs, jobs) {
                inv = inv.with_jobs(j);
            }
            let before = builder.request_counts()?;
            let measured = measure::measure(&inv)?;
            let requests = match (before, builder.request_counts()?) {
                (Some(before), Some(after)) if catalog::on_s3(case) => {
                    Some(s3::difference(&before, &after))
                }
                _ => None,
            };
            match measured {
                Measured::Ran { seconds, peak_kib } => {
                    let times = match side {
                        Side::Ours => &mut ours,
                        Side::Other => &mut other,
                    };
                    times.add(seconds, peak_kib);
                    times.requests = requests;
                }
                Measured::Failed { status, first_line } => {
                    let who = match side {
                        Side::Ours => "ours",
                        Side::Other => catalog::peer(case).label(),
                    };
                    return Ok(Err(format!("{who} failed ({status}): {first_line}")));
                }
            }
        }
    }
    Ok(Ok((ours, other)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_are_the_middle_value_or_the_mean_of_the_middle_two() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
    }

    #[test]
    fn rows_line_up_under_the_header() {
        let mut ours = SideTimes::default();
        ours.add(1.0, 2048);
        let mut other = SideTimes::default();
        other.add(4.0, 4096);
        let header = header_line(None, Peer::Reference, false);
        let row = row_line("classic-ncdump-ref", &ours, &other);
        assert_eq!(header.len(), row.len(), "{header}\n{row}");
        assert!(row.contains(" 0.25 "), "{row}");
        assert!(row.ends_with("                4.0"), "{row}");
        assert!(header_line(Some(2), Peer::ZarrPython, false).contains("ours(-j 2)_s"));
        ours.requests = Some([("GET".to_string(), 12)].into());
        other.requests = Some([("GET".to_string(), 30), ("PUT".to_string(), 2)].into());
        let header = header_line(None, Peer::Tensorstore, true);
        let row = row_line("zarr-s3-read-tensorstore", &ours, &other);
        assert_eq!(header.len(), row.len(), "{header}\n{row}");
        assert!(
            row.ends_with("            12                    32"),
            "{row}"
        );
        assert_eq!(
            requests_line(&ours, &other, Peer::Tensorstore).as_deref(),
            Some("  requests by method: ours GET 12; tensorstore GET 30, PUT 2")
        );
    }
}
