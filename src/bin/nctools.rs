//! `nctools`: the one program behind the three tools. Started as `ncdump`, `ncgen` or
//! `nccopy` (the installed names are links to it) it is that tool; otherwise it takes
//! `nctools dump|gen|copy ARGS` (see `nctools::multicall`).

fn main() {
    std::process::exit(nctools::multicall::main(std::env::args_os().collect()));
}
