//! `nccopy` front end: copy a netCDF file, converting its format, filters or chunking.

fn main() {
    std::process::exit(nctools::copy::main(std::env::args().collect()));
}
