//! `ncgen` front end: compile CDL text into a netCDF file.

fn main() {
    std::process::exit(nctools::generate::main(std::env::args().collect()));
}
