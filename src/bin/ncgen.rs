//! `ncgen`, as `cargo build` makes it: compile CDL text into a netCDF file, whatever
//! the file is named. `scripts/install` installs `nctools` instead, with `ncgen` a link
//! to it (`nctools::multicall`).

fn main() {
    let args = std::env::args_os().skip(1).collect();
    std::process::exit(nctools::multicall::run_tool(
        nctools::multicall::Tool::Generate,
        args,
    ));
}
