//! `ncdump`, as `cargo build` makes it: print a netCDF file as CDL, whatever
//! the file is named. `scripts/install` installs `nctools` instead, with `ncdump` a link
//! to it (`nctools::multicall`).

fn main() {
    let args = std::env::args_os().skip(1).collect();
    std::process::exit(nctools::multicall::run_tool(
        nctools::multicall::Tool::Dump,
        args,
    ));
}
