//! Sharded arrays (Zarr v3 `sharding_indexed`) built byte by byte: a slab reads only the
//! index and the inner chunks it meets, so a damaged inner chunk elsewhere in the shard
//! does not stop it; a read that meets the damage fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use ncmodel::Values;
use store::{StoreReader, ZarrFlavor, ZarrVersion};

/// A v3 array `v` of int32, shape [4, 2], one shard of inner chunks [2, 2], index (no
/// checksum) at the end; inner chunk 0 holds 1..4, inner chunk 1 holds `second`.
fn sharded(root: &Path, second: &[u8]) {
    let v = root.join("v");
    std::fs::create_dir_all(v.join("c/0")).unwrap();
    std::fs::write(
        root.join("zarr.json"),
        r#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#,
    )
    .unwrap();
    std::fs::write(
        v.join("zarr.json"),
        r#"{"zarr_format": 3, "node_type": "array", "shape": [4, 2], "data_type": "int32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 2]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": -1, "dimension_names": ["y", "x"],
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 2],
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_location": "end"}}]}"#,
    )
    .unwrap();
    let mut shard: Vec<u8> = [1i32, 2, 3, 4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    shard.extend(second);
    for (offset, length) in [(0u64, 16u64), (16, second.len() as u64)] {
        shard.extend(offset.to_le_bytes());
        shard.extend(length.to_le_bytes());
    }
    std::fs::write(v.join("c/0/0"), shard).unwrap();
}

fn read(root: &Path, start: &[usize], count: &[usize]) -> Result<Values, String> {
    let (reader, ds) = common::open(root, ZarrFlavor::Detect, ZarrVersion::V3);
    let var = ds.root.vars.iter().find(|v| v.name == "v").unwrap();
    reader
        .read_slab(
            &ds,
            &ds.var_path(ds.root.ncid, var)
                .unwrap_or_else(|| panic!("not a variable of the schema")),
            start,
            count,
        )
        .map_err(|e| e.to_string())
}

#[test]
fn a_slab_reads_only_the_inner_chunks_it_meets() {
    let dir = tempfile::tempdir().unwrap();
    let good: Vec<u8> = [5i32, 6, 7, 8]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let root = dir.path().join("good.zarr");
    sharded(&root, &good);
    assert_eq!(
        read(&root, &[0, 0], &[4, 2]),
        Ok(Values::Int(vec![1, 2, 3, 4, 5, 6, 7, 8]))
    );
    assert_eq!(read(&root, &[1, 1], &[2, 1]), Ok(Values::Int(vec![4, 6])));

    // Inner chunk 1 damaged (3 bytes where 16 belong): the rows of chunk 0 still read.
    let root = dir.path().join("damaged.zarr");
    sharded(&root, &[9, 9, 9]);
    assert_eq!(
        read(&root, &[0, 0], &[2, 2]),
        Ok(Values::Int(vec![1, 2, 3, 4]))
    );
    let err = read(&root, &[0, 0], &[4, 2]).err().unwrap_or_default();
    assert!(err.contains("cannot be decoded"), "{err}");
}

#[test]
fn an_index_that_points_outside_its_shard_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("s.zarr");
    sharded(&root, &[0; 16]);
    let shard = root.join("v/c/0/0");
    let mut bytes = std::fs::read(&shard).unwrap();
    // Inner chunk 1's length: 2^40 bytes.
    let at = bytes.len() - 8;
    bytes[at..].copy_from_slice(&(1u64 << 40).to_le_bytes());
    std::fs::write(&shard, bytes).unwrap();
    let err = read(&root, &[0, 0], &[4, 2]).err().unwrap_or_default();
    assert!(err.contains("beyond its"), "{err}");
}

/// The high-water mark of this process's resident set, in MiB.
fn peak_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

#[test]
fn a_shard_far_larger_than_its_array_costs_what_the_slab_costs() {
    // One shard of 2^30 - 1 int32 (4 GiB if built whole) for an array of 4, its one
    // inner chunk never written: the slab reads as the fill value.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("big.zarr");
    let v = root.join("v");
    std::fs::create_dir_all(v.join("c")).unwrap();
    std::fs::write(
        root.join("zarr.json"),
        r#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#,
    )
    .unwrap();
    std::fs::write(
        v.join("zarr.json"),
        r#"{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1073741823]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 7,
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [1073741823],
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_location": "end"}}]}"#,
    )
    .unwrap();
    let index: Vec<u8> = [u64::MAX, u64::MAX]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(v.join("c/0"), index).unwrap();
    let before = peak_mib();
    let (reader, ds) = common::open(&root, ZarrFlavor::Detect, ZarrVersion::V3);
    let var = ds.root.vars.iter().find(|v| v.name == "v").unwrap();
    let values = reader
        .read_slab(
            &ds,
            &ds.var_path(ds.root.ncid, var)
                .unwrap_or_else(|| panic!("not a variable of the schema")),
            &[0],
            &[4],
        )
        .map_err(|e| e.to_string());
    assert_eq!(values, Ok(Values::Int(vec![7, 7, 7, 7])));
    let grown = peak_mib().saturating_sub(before);
    assert!(grown < 200, "the read took {grown} MiB more");
}
