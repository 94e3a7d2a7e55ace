//! `ncdump` front end: print a netCDF file as CDL.

fn main() {
    std::process::exit(nctools::dump::main(std::env::args().collect()));
}
