//! nctools' test harnesses, as one program: `cargo xtask corrupt|conformance|bench ...` (see
//! docs/development.md). The scripts/ names are thin wrappers around it.

// A harness reports on standard output.
#![allow(clippy::print_stdout)]

mod bench;
mod build;
mod conformance;
mod corpus;
mod corrupt;
mod limits;
mod parallel;
mod report;
mod runner;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// nctools' harnesses.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "nctools' test harnesses")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run ncdump and nccopy on truncated and bit-flipped copies of every corpus file,
    /// and count clean exits, panics, crashes, hangs and leftover outputs.
    Corrupt(corrupt::CorruptArgs),
    /// The conformance check against the reference tools (the port of
    /// scripts/conformance; so far the ncdump mode).
    Conformance(conformance::ConformanceArgs),
    /// Timings of nctools against the reference tools and the peers (ncks, h5repack,
    /// cdo, zarr-python), as ratios.
    Bench(bench::BenchArgs),
    /// Runs one program and prints its wall time and peak memory (used by bench).
    #[command(hide = true)]
    MeasureChild {
        /// The program and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<std::ffi::OsString>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Corrupt(args) => corrupt::main(args),
        Command::Conformance(args) => conformance::main(args),
        Command::Bench(args) => bench::main(args),
        Command::MeasureChild { command } => bench::measure::child_main(&command),
    };
    match result {
        Ok(0) => ExitCode::SUCCESS,
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::from(2)
        }
    }
}
