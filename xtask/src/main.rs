//! nctools' test harnesses, as one program: `cargo xtask corrupt ...` (see
//! docs/development.md). The scripts/ names are thin wrappers around it.

// A harness reports on standard output.
#![allow(clippy::print_stdout)]

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Corrupt(args) => corrupt::main(args),
        Command::Conformance(args) => conformance::main(args),
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
