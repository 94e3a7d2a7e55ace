//! Arbitrary bytes as the documents of a small Zarr store in memory: the reader must
//! never panic, whatever the JSON (`.zgroup`, `.zattrs`, `.zarray`, `.zmetadata`,
//! NCZarr's `_NCZARR_*` keys, v3 `zarr.json` with sharding, transpose...), and every read
//! of a variable inside its shape must either succeed with exactly the values asked for
//! or fail with an error.
//!
//! The input is split at each `\x1e` (ASCII record separator) into the values of the
//! keys of [`KEYS`], in order; the store is then opened as Zarr version 2 and as
//! version 3.
#![no_main]

use std::path::PathBuf;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use ncmodel::Group;
use store::{StoreReader, ZarrFlavor, ZarrLocation, ZarrVersion};
use kv::{KeyValueStore, MemoryStore, StoreKey, WritableStore};

/// The keys the input's records fill, in order.
const KEYS: [&str; 13] = [
    ".zgroup",
    ".zarray",
    ".zattrs",
    ".zmetadata",
    "zarr.json",
    "v/.zarray",
    "v/.zattrs",
    "v/zarr.json",
    "v/0",
    "v/c/0/0",
    "g/.zgroup",
    "g/w/.zarray",
    "g/w/0.0",
];

/// The most elements read per dimension of a variable.
const READ_EDGE: usize = 16;

fn read_all(reader: &dyn StoreReader, dataset: &ncmodel::Dataset, group: &Group) {
    for var in &group.vars {
        let count: Vec<usize> = var
            .dim_ids
            .iter()
            .map(|id| dataset.dim(*id).map_or(0, |d| d.len.min(READ_EDGE)))
            .collect();
        let start = vec![0; count.len()];
        if let Ok(values) = reader.read_slab(
            dataset,
            &dataset
                .var_path(group.ncid, var)
                .unwrap_or_else(|| panic!("not a variable of the schema")),
            &start,
            &count,
        ) {
            let expected: usize = count.iter().product();
            assert_eq!(
                values.len(),
                expected,
                "a read returned the wrong number of values"
            );
        }
    }
    for child in &group.groups {
        read_all(reader, dataset, child);
    }
}

fuzz_target!(|data: &[u8]| {
    let store = Arc::new(MemoryStore::new());
    for (key, value) in KEYS.iter().zip(data.split(|b| *b == 0x1e)) {
        if let Ok(key) = StoreKey::parse(key) {
            let _ = store.set(&key, value);
        }
    }
    for (flavor, version) in [
        (ZarrFlavor::Detect, ZarrVersion::V2),
        (ZarrFlavor::NoXarray, ZarrVersion::V2),
        (ZarrFlavor::Detect, ZarrVersion::V3),
    ] {
        let location = ZarrLocation {
            root: store::StoreRoot::Directory(PathBuf::from("fuzz.zarr")),
            flavor,
            version,
            text: "fuzz.zarr".to_string(),
        };
        let store: Arc<dyn KeyValueStore> = store.clone();
        let Ok(reader) = zarr::ZarrReader::open_store(store, &location) else {
            continue;
        };
        let Ok(dataset) = reader.schema() else {
            continue;
        };
        read_all(&reader, &dataset, &dataset.root);
    }
});
