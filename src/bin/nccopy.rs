//! `nccopy`, as `cargo build` makes it: copy a netCDF file, converting its format,
//! filters or chunking, whatever the file is named. `scripts/install` installs `nctools`
//! instead, with `nccopy` a link to it (`nctools::multicall`).

fn main() {
    let args = std::env::args_os().skip(1).collect();
    std::process::exit(nctools::multicall::run_tool(
        nctools::multicall::Tool::Copy,
        args,
    ));
}
