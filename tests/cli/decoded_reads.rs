//! ncdump and nccopy decode the stored chunks of filtered netCDF-4 variables themselves,
//! on every core, when every filter of the variable is one nctools implements. What they
//! read must be exactly what HDF5's pipeline gives (NCTOOLS_DIRECT_CHUNKS=0 sends every
//! read through it): for each filter, with the filters HDF5 skipped, big-endian values,
//! chunks cut by the edges, chunks that span two of ncdump's slabs, chunks never written
//! (read as fill), and for any number of threads.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{ok, scratch, Test};

/// Variables with every pipeline nctools decodes. `big` (2 x 600 x 1000 shorts) is over
/// ncdump's slab of 2^20 values, and its chunks (2 x 7 x 300) span both slabs; `partial`
/// has only its first chunk written.
const CDL: &str = r#"netcdf decoded {
dimensions:
	t = 2 ;
	y = 600 ;
	x = 1000 ;
	n = 1001 ;
variables:
	short big(t, y, x) ;
		big:_ChunkSizes = 2, 7, 300 ;
		big:_DeflateLevel = 4 ;
		big:_Shuffle = "true" ;
	float bz(n) ;
		bz:_ChunkSizes = 300 ;
		bz:_Filter = "307,9" ;
		bz:_Shuffle = "true" ;
	double zs(n) ;
		zs:_ChunkSizes = 128 ;
		zs:_Filter = "32015,3" ;
		zs:_Endianness = "big" ;
	int lz(n) ;
		lz:_ChunkSizes = 1000 ;
		lz:_Filter = "32004" ;
		lz:_Fletcher32 = "true" ;
	float bl(n) ;
		bl:_ChunkSizes = 256 ;
		bl:_Filter = "32001,0,0,0,0,5,1,1" ;
	int partial(n) ;
		partial:_ChunkSizes = 100 ;
		partial:_FillValue = -5 ;
		partial:_DeflateLevel = 1 ;
data:
 big = BIG ;
 bz = N ;
 zs = N ;
 lz = N ;
 bl = N ;
 partial = 1, 2, 3 ;
}
"#;

/// [`CDL`] with its data, as a netCDF-4 file in `dir`.
fn input(dir: &Path) -> PathBuf {
    let big: Vec<String> = (0..1_200_000).map(|i| (i % 30_011).to_string()).collect();
    let n: Vec<String> = (0..1001)
        .map(|i| format!("{}", f64::from(i) / 4.0))
        .collect();
    let cdl = CDL
        .replace("BIG", &big.join(", "))
        .replace(" = N ;", &format!(" = {} ;", n.join(", ")));
    let cdl_path = dir.join("decoded.cdl");
    let nc = dir.join("decoded.nc");
    fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("{e}"));
    let done = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&cdl_path)
        .run();
    ok("ncgen", &done);
    nc
}

fn dump(file: &Path, env: &[(&str, &str)], jobs: &str) -> String {
    let done = Test::ours("ncdump")
        .envs(env)
        .args(["-j", jobs])
        .arg(file)
        .run();
    ok("ncdump", &done);
    done.stdout
}

#[test]
fn chunks_decoded_here_read_as_hdf5_reads_them() {
    let dir = scratch();
    let nc = input(dir.path());
    let through_hdf5 = dump(&nc, &[("NCTOOLS_DIRECT_CHUNKS", "0")], "1");
    assert!(
        through_hdf5.contains(" partial = 1, 2, 3, _, _,"),
        "{}",
        &through_hdf5[..200]
    );
    for jobs in ["1", "2", "3"] {
        let decoded = dump(&nc, &[], jobs);
        assert!(
            decoded == through_hdf5,
            "ncdump -j {jobs} differs from HDF5's reading"
        );
    }
    // nccopy reads the same way: undoing the filters gives the same data.
    for (env, name) in [
        (&[][..], "here.nc"),
        (&[("NCTOOLS_DIRECT_CHUNKS", "0")][..], "hdf5.nc"),
    ] {
        let out = dir.path().join(name);
        let done = Test::ours("nccopy")
            .envs(env)
            .args(["-F", "none"])
            .arg(&nc)
            .arg(&out)
            .run();
        ok("nccopy", &done);
    }
    let (here, hdf5) = (dir.path().join("here.nc"), dir.path().join("hdf5.nc"));
    let unfiltered = dump(&here, &[], "2");
    assert!(
        unfiltered.replace("netcdf here", "") == dump(&hdf5, &[], "2").replace("netcdf hdf5", ""),
        "nccopy -F none reads differently"
    );
    assert!(
        unfiltered.replace("netcdf here", "") == through_hdf5.replace("netcdf decoded", ""),
        "the unfiltered copy does not hold the input's data"
    );
}
