//! `ncgen` front end (not implemented yet: prints its version or a clear error).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(nctools::stub::run("ncgen", &args));
}
