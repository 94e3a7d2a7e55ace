//! Between netCDF-4 and Zarr, nccopy moves encoded chunks as they are when a codec's
//! chunk bytes are the same in both (shuffle, zlib/deflate, bz2/bzip2, zstd, blosc) and
//! the chunk shape is kept: every chunk file of the store holds exactly the bytes HDF5
//! stores for that chunk (read with h5py's `read_direct_chunk`), both ways, and the data
//! reads the same everywhere. The input's chunks are first re-encoded by other settings
//! than the variables declare (zlib 1, zstd 19, bzip2 blocks of 100 kB), so that a copy
//! that decoded and encoded them would hold other bytes (`--recode` shows it does).

use std::fs;
use std::path::Path;

use crate::support::{ok, run, scratch, zarr_python, Test};

/// Record variables (their chunks are kept), filtered with pipelines whose bytes are the
/// same in Zarr; `n` uses lz4, whose framing differs (it is decoded and encoded).
const CDL: &str = r#"netcdf same {
dimensions:
	t = UNLIMITED ;
	x = 1000 ;
variables:
	float v(t, x) ;
		v:_ChunkSizes = 2, 300 ;
		v:_DeflateLevel = 5 ;
		v:_Shuffle = "true" ;
	double w(t, x) ;
		w:_ChunkSizes = 1, 500 ;
		w:_Filter = "32015,3" ;
	int b(t, x) ;
		b:_ChunkSizes = 3, 1000 ;
		b:_Filter = "307,9" ;
	int n(t, x) ;
		n:_ChunkSizes = 3, 1000 ;
		n:_Filter = "32004" ;
data:
 v = V ;
 w = V ;
 b = V ;
 n = V ;
}
"#;

/// Compares, for each array of the store, every chunk file with the chunk h5py reads
/// raw from the netCDF-4 file; prints the arrays whose chunks all agree.
const COMPARE: &str = r#"
import os, sys, h5py
nc, store, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
with h5py.File(nc, "r") as f:
    for name in names:
        d = f[name]
        same = 0
        for i in range(0, d.shape[0], d.chunks[0]):
            for j in range(0, d.shape[1], d.chunks[1]):
                mask, stored = d.id.read_direct_chunk((i, j))
                key = f"{i // d.chunks[0]}.{j // d.chunks[1]}"
                with open(os.path.join(store, name, key), "rb") as chunk:
                    if chunk.read() == stored and mask == 0:
                        same += 1
        total = -(-d.shape[0] // d.chunks[0]) * -(-d.shape[1] // d.chunks[1])
        print(name, "same" if same == total else f"{same} of {total}")
"#;

/// Re-encodes every chunk of v (zlib, after shuffle), w (zstd) and b (bzip2) of a
/// netCDF-4 file with other settings: the same data, other bytes.
const REENCODE: &str = r#"
import bz2, sys, zlib, h5py, numcodecs
again = {
    "v": lambda b: zlib.compress(zlib.decompress(b), 1),
    "w": lambda b: bytes(numcodecs.Zstd(level=19).encode(numcodecs.Zstd().decode(b))),
    "b": lambda b: bz2.compress(bz2.decompress(b), 1),
}
with h5py.File(sys.argv[1], "r+") as f:
    for name, encode in again.items():
        d = f[name]
        for i in range(0, d.shape[0], d.chunks[0]):
            for j in range(0, d.shape[1], d.chunks[1]):
                mask, stored = d.id.read_direct_chunk((i, j))
                d.id.write_direct_chunk((i, j), encode(stored), mask)
"#;

fn nccopy(args: &[&str], input: &Path, output: &Path) -> String {
    let done = Test::ours("nccopy").args(args).arg(input).arg(output).run();
    assert_eq!(done.code, Some(0), "nccopy {args:?}: {}", done.stderr);
    done.stdout + &done.stderr
}

fn dump(file: &Path) -> String {
    let done = Test::ours("ncdump").args(["-n", "same"]).arg(file).run();
    ok("ncdump", &done);
    done.stdout
}

fn compare(python: &Path, nc: &Path, store: &Path) -> String {
    let done = run(std::process::Command::new(python)
        .args(["-c", COMPARE])
        .arg(nc)
        .arg(store)
        .arg("v,w,b,n"));
    ok("h5py", &done);
    done.stdout
}

#[test]
fn encoded_chunks_move_between_netcdf4_and_zarr_unchanged() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let values: Vec<String> = (0..6000).map(|i| ((i * 37) % 1001).to_string()).collect();
    let cdl = dir.path().join("same.cdl");
    fs::write(
        &cdl,
        CDL.replace(" = V ;", &format!(" = {} ;", values.join(", "))),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let nc = dir.path().join("same.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&cdl)
        .run();
    ok("ncgen", &made);
    let data = dump(&nc);
    let reencoded = run(std::process::Command::new(&python)
        .args(["-c", REENCODE])
        .arg(&nc));
    ok("h5py", &reencoded);
    assert!(dump(&nc) == data, "re-encoding changed the data");

    // Decoding and encoding again gives other bytes than the input's.
    let recoded = dir.path().join("recoded.zarr");
    nccopy(&["--recode"], &nc, &recoded);
    let differs = compare(&python, &nc, &recoded);
    for var in ["v", "w", "b"] {
        assert!(!differs.contains(&format!("{var} same")), "{differs}");
    }

    let store = dir.path().join("same.zarr");
    let plan = nccopy(&["--dry-run"], &nc, &store);
    for var in ["/v", "/w", "/b"] {
        let line = plan
            .lines()
            .find(|l| l.starts_with(var))
            .unwrap_or_default();
        assert!(line.ends_with("stored chunks copied"), "{plan}");
    }
    let lz4 = plan
        .lines()
        .find(|l| l.starts_with("/n"))
        .unwrap_or_default();
    assert!(!lz4.contains("stored chunks copied"), "{plan}");
    nccopy(&[], &nc, &store);
    // Every chunk of v, w and b is HDF5's, byte for byte; lz4's framing differs.
    assert_eq!(
        compare(&python, &nc, &store),
        "v same\nw same\nb same\nn 0 of 2\n"
    );

    // And back: the netCDF-4 file's chunks are the store's.
    let back = dir.path().join("back.nc");
    let plan = nccopy(&["--dry-run"], &store, &back);
    assert!(
        plan.lines()
            .filter(|l| l.ends_with("stored chunks copied"))
            .count()
            == 3,
        "{plan}"
    );
    nccopy(&[], &store, &back);
    assert_eq!(
        compare(&python, &back, &store),
        "v same\nw same\nb same\nn 0 of 2\n"
    );

    assert!(dump(&store) == data, "the store reads differently");
    assert!(dump(&back) == data, "the copy back reads differently");
}
