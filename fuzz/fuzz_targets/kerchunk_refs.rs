//! Fuzzes the planning of kerchunk references (`nccopy --kerchunk`, and `--concat` over
//! several files): `zarr::kerchunk::references` over schemas, chunk lists, layouts and
//! coordinate values the input chooses.
//!
//! Run with `cargo fuzz run kerchunk_refs` from the repository root (see
//! docs/development.md). The input is split at the first `\x1e`: before it, CDL text
//! whose header is every file's schema (parsed as ncgen parses it); after it, bytes that
//! choose, variable by variable, its layout (chunks with any offsets, addresses and
//! sizes; a contiguous block; compact; other; an error) in each of one to three files,
//! the files' sizes, the `--concat` dimension and its coordinate values. Checks that
//! nothing panics, and of references made: the JSON parses, every key is a valid store
//! key, and every reference lies inside its file.
#![no_main]

use std::collections::HashMap;

use cdl::parse::{parse_header_as, Dialect};
use libfuzzer_sys::fuzz_target;
use ncmodel::Group;
use store::{ChunkPlace, StoredLayout};
use kv::StoreKey;
use zarr::kerchunk::{references, SourceFile};

/// The most chunk places made for one variable of one file.
const MAX_PLACES: usize = 64;

/// Bytes taken from the input's tail, zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }
    fn u16(&mut self) -> u64 {
        u64::from(self.byte()) | u64::from(self.byte()) << 8
    }
    fn u32(&mut self) -> u64 {
        self.u16() | self.u16() << 16
    }
}

/// Every variable's full path (`/v`, `/g/v`) and rank.
fn vars(group: &Group, prefix: &str, out: &mut Vec<(String, usize)>) {
    for var in &group.vars {
        out.push((format!("{prefix}/{}", var.name), var.dim_ids.len()));
    }
    for child in &group.groups {
        vars(child, &format!("{prefix}/{}", child.name), out);
    }
}

/// A layout chosen by the input for a variable of `rank` dimensions.
fn layout(bytes: &mut Bytes<'_>, rank: usize) -> Result<StoredLayout, String> {
    let place = |bytes: &mut Bytes<'_>, rank: usize| ChunkPlace {
        index: (0..rank).map(|_| bytes.u16()).collect(),
        filter_mask: u32::from(bytes.byte() & 3),
        address: bytes.u32(),
        size: bytes.u16(),
    };
    Ok(match bytes.byte() % 6 {
        0 | 1 => {
            let n = usize::from(bytes.byte()) % (MAX_PLACES + 1);
            StoredLayout::Chunked((0..n).map(|_| place(bytes, rank)).collect())
        }
        2 => StoredLayout::Contiguous((bytes.byte() & 1 == 1).then(|| place(bytes, 0))),
        3 => StoredLayout::Compact,
        4 => StoredLayout::Other,
        _ => return Err("HDF5 cannot open its dataset".into()),
    })
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|b| *b == 0x1e).unwrap_or(data.len());
    let (text, rest) = data.split_at(split);
    let mut bytes = Bytes(rest.get(1..).unwrap_or_default());
    let Ok(header) = parse_header_as(text, "fuzz.cdl", Dialect::Enhanced) else {
        return;
    };
    let dataset = header.dataset;
    let mut paths = Vec::new();
    vars(&dataset.root, "", &mut paths);
    let file_count = 1 + usize::from(bytes.byte() % 3);
    let concat = match bytes.byte() {
        0 => None,
        n => dataset
            .root
            .dims
            .get(usize::from(n) % dataset.root.dims.len().max(1))
            .map(|d| d.name.clone()),
    };
    let mut files = Vec::with_capacity(file_count);
    for k in 0..file_count {
        let layouts = paths
            .iter()
            .map(|(path, rank)| (path.clone(), layout(&mut bytes, *rank)))
            .collect();
        let coordinate = match bytes.byte() % 3 {
            0 => None,
            _ => Some(
                (0..usize::from(bytes.byte()))
                    .map(|_| bytes.byte())
                    .collect(),
            ),
        };
        let mut inlined = HashMap::new();
        if let Some((path, _)) = paths.get(usize::from(bytes.byte())) {
            inlined.insert(path.clone(), vec![bytes.byte(); usize::from(bytes.byte())]);
        }
        let mut over_inline_budget = HashMap::new();
        if let Some((path, _)) = paths.get(usize::from(bytes.byte())) {
            over_inline_budget.insert(path.clone(), usize::from(bytes.byte()) << 20);
        }
        files.push(SourceFile {
            url: format!("/data/file{k}.nc"),
            dataset: dataset.clone(),
            layouts,
            size: bytes.u32(),
            coordinate,
            inlined,
            over_inline_budget,
        });
    }
    let Ok(made) = references(&files, concat.as_deref()) else {
        return;
    };
    let json: serde_json::Value =
        serde_json::from_str(&made.json).unwrap_or_else(|e| panic!("references not JSON: {e}"));
    let refs = json["refs"]
        .as_object()
        .unwrap_or_else(|| panic!("no refs"));
    for (key, value) in refs {
        assert!(
            StoreKey::parse(key).is_ok(),
            "key {key:?} is not a store key"
        );
        let Some(reference) = value.as_array() else {
            assert!(value.is_string(), "{key}: {value}");
            continue;
        };
        let url = reference[0]
            .as_str()
            .unwrap_or_else(|| panic!("{key}: {value}"));
        let offset = reference[1]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {value}"));
        let length = reference[2]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {value}"));
        let file = files
            .iter()
            .find(|f| f.url == url)
            .unwrap_or_else(|| panic!("{key}: unknown file {url}"));
        assert!(
            offset
                .checked_add(length)
                .is_some_and(|end| end <= file.size),
            "{key}: {offset}+{length} past the end of {url} ({} bytes)",
            file.size
        );
    }
});
