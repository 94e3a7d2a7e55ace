//! nctools: netCDF's `nccopy`, `ncgen` and `ncdump`, re-implemented in Rust, with
//! compression filters as a first-class feature.
//!
//! The binaries in `src/bin` are thin front ends: `nctools`, the one program installed,
//! runs a tool by the name it was started by or by its first argument ([`multicall`]);
//! `ncdump`, `ncgen` and `nccopy` are the same program under the tools' names, for
//! `cargo build` and `cargo run`. Their logic lives here, one module per tool, on top of
//! the workspace crates (`filterspec`, `cdl`, `ncmodel`, `ncio`).

/// The version line every tool prints after its name.
pub const VERSION: &str = concat!("(nctools) ", env!("CARGO_PKG_VERSION"));

pub mod completion_values;
pub mod copy;
pub mod dump;
pub mod exit;
pub mod formats;
pub mod generate;
pub mod interrupt;
pub mod inventory;
pub mod jobs;
pub mod manual;
pub mod multicall;
pub mod plugins;
pub mod storage;
