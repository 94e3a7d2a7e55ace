//! The list of the bench's cases and groups, and who each case compares ours with.

use anyhow::{bail, Result};

/// What a case compares ours with; its label heads the table's other columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// The reference netCDF-C tools, or (the filter cases) our nccopy with the external
    /// HDF5 plugins.
    Reference,
    /// Our tool with libnetcdf reading classic files.
    Libnetcdf,
    /// zarr-python (with h5py).
    ZarrPython,
    /// tensorstore (with h5py).
    Tensorstore,
    /// zarrs-python: zarr-python with the zarrs crate's codec pipeline (with h5py).
    ZarrsPython,
    /// HDF5's h5repack.
    H5repack,
    /// NCO's ncks.
    Ncks,
    /// CDO.
    Cdo,
    /// kerchunk (SingleHdf5ToZarr, MultiZarrToZarr).
    Kerchunk,
}

impl Peer {
    /// Whether it is one of the Zarr peers, run by the bench's Python script.
    pub fn is_zarr(self) -> bool {
        matches!(
            self,
            Peer::ZarrPython | Peer::Tensorstore | Peer::ZarrsPython
        )
    }

    /// The column label.
    pub fn label(self) -> &'static str {
        match self {
            Peer::Reference => "ref",
            Peer::Libnetcdf => "libnetcdf",
            Peer::ZarrPython => "zarr-python",
            Peer::Tensorstore => "tensorstore",
            Peer::ZarrsPython => "zarrs-python",
            Peer::H5repack => "h5repack",
            Peer::Ncks => "ncks",
            Peer::Cdo => "cdo",
            Peer::Kerchunk => "kerchunk",
        }
    }
}

/// A case that can be timed: its name and a line about it.
pub type CaseLine = (&'static str, &'static str);

/// Every case, with a line of description.
pub const CASES: &[CaseLine] = &[
    ("ncdump", "ncdump of a netCDF-4 file of float and double variables, to /dev/null"),
    ("ncdump-h", "ncdump -h (header only) of the same file"),
    ("ncgen", "ncgen -k nc4 of the CDL (reference ncdump output) of the same file"),
    ("nccopy-plain", "nccopy (no option) of a netCDF-4 file of chunked float variables (1 GB by default)"),
    ("nccopy-d1s", "nccopy -d 1 -s of the same file"),
    ("nccopy-bzip2", "nccopy -F '*,307,9' (bzip2, level 9) of the same file"),
    ("filter-bzip2-c", "our nccopy -F 'orog&temp&precip&wind,307,9' of the nccopy input (200 MB by default): built-in vs plugin"),
    ("filter-bzip2-d", "our nccopy -F none of that file compressed with bzip2: built-in vs plugin"),
    ("filter-zstd-c", "the same with zstd (32015,3)"),
    ("filter-zstd-d", "the same, decompressing"),
    ("filter-lz4-c", "the same with lz4 (32004)"),
    ("filter-lz4-d", "the same, decompressing"),
    ("filter-blosc-c", "the same with blosc (32001,0,0,0,0,5,1,1)"),
    ("filter-blosc-d", "the same, decompressing"),
    ("zarr-write", "our nccopy -F '*,zstd,3' in.nc out.zarr vs zarr-python writing the same arrays (Zstd 3, same chunks)"),
    ("zarr-read", "our nccopy -F none store.zarr out.nc vs zarr-python decoding every chunk of the same store, h5py writing it"),
    ("zarr-write-shards", "our nccopy -F '*,zstd,3' --shards '*:64M' in.nc to Zarr v3 vs zarr-python writing the same shards"),
    ("zarr-read-shards", "our nccopy -F none of a sharded Zarr v3 store (zarr-python's, shards of 64 MB) to out.nc vs zarr-python reading it, h5py writing it"),
    ("zarr-s3-write", "zarr-write to s3://bench/ on a local moto server (through a counting proxy) vs zarr-python with s3fs"),
    ("zarr-s3-read", "zarr-read of the store on the local moto server vs zarr-python with s3fs"),
    ("zarr-s3-write-shards", "zarr-write-shards to the local moto server vs zarr-python with s3fs"),
    ("zarr-s3-read-shards", "zarr-read-shards of the sharded store on the local moto server (ranged reads) vs zarr-python with s3fs"),
    ("zarr-write-tensorstore", "zarr-write vs tensorstore's zarr driver (zstd 3, same chunks)"),
    ("zarr-read-tensorstore", "zarr-read vs tensorstore decoding every chunk of the same store, h5py writing it"),
    ("zarr-s3-write-tensorstore", "zarr-s3-write vs tensorstore's s3 kvstore driver"),
    ("zarr-s3-read-tensorstore", "zarr-s3-read vs tensorstore's s3 kvstore driver"),
    ("zarr-write-zarrs", "zarr-write vs zarrs-python (zarr-python with the zarrs crate's codec pipeline)"),
    ("zarr-read-zarrs", "zarr-read vs zarrs-python decoding every chunk of the same store, h5py writing it"),
    ("zarr-write-shards-zarrs", "zarr-write-shards vs zarrs-python"),
    ("zarr-read-shards-zarrs", "zarr-read-shards vs zarrs-python (no S3 rows: zarrs-python takes local stores only)"),
    ("unlim-d1s", "nccopy -d 1 -s of the unlimited-time file (the zarr cases' input)"),
    ("unlim-d1s-ncks", "the same job: our nccopy -d 1 -s vs ncks -4 -L 1 (deflate 1, shuffle)"),
    ("unlim-d1s-h5repack", "the same job: our nccopy -d 1 -s vs h5repack -f SHUF -f GZIP=1"),
    ("unlim-d1s-cdo", "the same job: our nccopy -d 1 -s vs cdo -f nc4 -z zip_1 copy (no shuffle)"),
    ("unlim-bzip2", "nccopy -F '*,307,9' (bzip2, level 9) of the unlimited-time file"),
    ("unlim-bzip2-h5repack", "the same job: our nccopy vs h5repack -f UD=307,0,1,9"),
    ("unlim-ncdump", "ncdump of the unlimited-time file, to /dev/null"),
    ("unlim-ncdump-bzip2", "ncdump of the unlimited-time file compressed with bzip2, to /dev/null"),
    ("unlim-ncgen", "ncgen -k nc4 of the CDL (reference ncdump output) of the unlimited-time file"),
    ("rechunkless-zstd", "nccopy -F '*,32015,3' (zstd 3) of the unlimited-time file deflated (level 1): same chunks, new filters"),
    ("rechunkless-bzip2", "the same with -F '*,307,9' (bzip2, level 9)"),
    ("stored-bzip2", "nccopy (no option) of the unlimited-time file compressed with bzip2 (307,9)"),
    ("stored-bzip2-h5repack", "the same copy: our nccopy vs h5repack (not the reference tools)"),
    ("stored-zstd-v", "nccopy -v tas (one of two variables) of the unlimited-time file compressed with zstd (32015,3)"),
    ("classic-ncdump", "our ncdump of the unlimited-time file as a 64-bit offset classic file: our reader vs libnetcdf's"),
    ("classic-nccopy", "our nccopy -k nc4 of the same classic file: our reader vs libnetcdf's"),
    ("classic-ncdump-ref", "ncdump of the same classic file: ours vs the reference"),
    ("kerchunk-one", "nccopy --kerchunk refs.json of the unlimited-time file deflated (level 1) vs kerchunk's SingleHdf5ToZarr"),
    ("kerchunk-multi", "nccopy --kerchunk refs.json --concat time of that file split into 4 by time vs SingleHdf5ToZarr of each and MultiZarrToZarr"),
];

/// Names that stand for several cases, in order: name, description, members.
pub const GROUPS: &[(&str, &str, &[&str])] = &[
    (
        "nccopy",
        "the three nccopy-* cases, each a row",
        &["nccopy-plain", "nccopy-d1s", "nccopy-bzip2"],
    ),
    (
        "filters",
        "the built-in filters vs the external plugins, the filter-* cases, each a row",
        &[
            "filter-bzip2-c",
            "filter-bzip2-d",
            "filter-zstd-c",
            "filter-zstd-d",
            "filter-lz4-c",
            "filter-lz4-d",
            "filter-blosc-c",
            "filter-blosc-d",
        ],
    ),
    (
        "zarr",
        "the zarr-* cases, each a row: ours against zarr-python, tensorstore and zarrs-python (not the reference tools), locally and on a local S3 server",
        &[
            "zarr-write",
            "zarr-read",
            "zarr-write-shards",
            "zarr-read-shards",
            "zarr-s3-write",
            "zarr-s3-read",
            "zarr-s3-write-shards",
            "zarr-s3-read-shards",
            "zarr-write-tensorstore",
            "zarr-read-tensorstore",
            "zarr-s3-write-tensorstore",
            "zarr-s3-read-tensorstore",
            "zarr-write-zarrs",
            "zarr-read-zarrs",
            "zarr-write-shards-zarrs",
            "zarr-read-shards-zarrs",
        ],
    ),
    (
        "stored",
        "the stored-chunk cases, each a row",
        &["stored-bzip2", "stored-bzip2-h5repack", "stored-zstd-v"],
    ),
    (
        "unlim",
        "the unlim-* cases, each a row: the jobs users run most, on the unlimited-time file",
        &[
            "unlim-d1s",
            "unlim-d1s-ncks",
            "unlim-d1s-h5repack",
            "unlim-d1s-cdo",
            "unlim-bzip2",
            "unlim-bzip2-h5repack",
            "unlim-ncdump",
            "unlim-ncdump-bzip2",
            "unlim-ncgen",
        ],
    ),
    (
        "classic",
        "the classic-* cases, each a row: nctools' own classic reader against libnetcdf's",
        &["classic-ncdump", "classic-nccopy", "classic-ncdump-ref"],
    ),
    (
        "kerchunk",
        "the kerchunk-* cases, each a row: virtual references, ours against kerchunk's",
        &["kerchunk-one", "kerchunk-multi"],
    ),
];

/// The named cases, groups expanded, in order.
pub fn expand(names: &[String]) -> Result<Vec<&'static str>> {
    let mut out = Vec::new();
    for name in names {
        if let Some((_, _, members)) = GROUPS.iter().find(|(g, _, _)| g == name) {
            out.extend_from_slice(members);
        } else if let Some((case, _)) = CASES.iter().find(|(c, _)| c == name) {
            out.push(*case);
        } else {
            bail!("unknown case {name} (see --list)");
        }
    }
    Ok(out)
}

/// Whether a case runs against the local S3 server (both sides through its counting
/// proxy).
pub fn on_s3(case: &str) -> bool {
    case.starts_with("zarr-s3-")
}

/// Who a case compares ours with.
pub fn peer(case: &str) -> Peer {
    if case.starts_with("zarr-") && case.ends_with("-tensorstore") {
        Peer::Tensorstore
    } else if case.starts_with("zarr-") && case.ends_with("-zarrs") {
        Peer::ZarrsPython
    } else if case.starts_with("zarr-") {
        Peer::ZarrPython
    } else if case.ends_with("-h5repack") {
        Peer::H5repack
    } else if case.ends_with("-ncks") {
        Peer::Ncks
    } else if case.ends_with("-cdo") {
        Peer::Cdo
    } else if case.starts_with("kerchunk-") {
        Peer::Kerchunk
    } else if case == "classic-ncdump" || case == "classic-nccopy" {
        Peer::Libnetcdf
    } else {
        Peer::Reference
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_expand_in_order_and_every_member_is_a_case() -> Result<()> {
        let names = expand(&["classic".into(), "ncdump".into()])?;
        assert_eq!(
            names,
            [
                "classic-ncdump",
                "classic-nccopy",
                "classic-ncdump-ref",
                "ncdump"
            ]
        );
        for (_, _, members) in GROUPS {
            for m in *members {
                assert!(CASES.iter().any(|(c, _)| c == m), "{m}");
            }
        }
        assert!(expand(&["nope".into()]).is_err());
        Ok(())
    }

    #[test]
    fn every_case_is_in_a_group_or_stands_alone_and_has_a_peer() {
        assert_eq!(peer("zarr-read"), Peer::ZarrPython);
        assert_eq!(peer("zarr-s3-read-tensorstore"), Peer::Tensorstore);
        assert_eq!(peer("zarr-write-shards-zarrs").label(), "zarrs-python");
        assert!(peer("zarr-s3-write").is_zarr() && !peer("unlim-d1s").is_zarr());
        assert_eq!(peer("classic-nccopy"), Peer::Libnetcdf);
        assert_eq!(peer("classic-ncdump-ref"), Peer::Reference);
        assert_eq!(peer("unlim-d1s-cdo"), Peer::Cdo);
        assert_eq!(peer("stored-bzip2-h5repack").label(), "h5repack");
        assert_eq!(peer("kerchunk-multi").label(), "kerchunk");
    }
}
