//! Arbitrary bytes as a zip archive: opening it as a store must never panic nor ask for
//! memory its size cannot justify, and every value it lists must read (whole, capped at
//! 1 MiB, and by ranges, deflated entries too, in any order and batch after batch) or
//! fail with an error.
//!
//! The input is written to a file of its own (the reader works on files), opened with
//! `kv::zip::ZipStore`, and walked from its root two levels down.
#![no_main]

use libfuzzer_sys::fuzz_target;
use kv::zip::ZipStore;
use kv::{ListableStore, ReadableStore, StoreKey};

/// The most bytes a value is read whole with.
const CAP: u64 = 1 << 20;

fn read_values(store: &ZipStore, prefix: &StoreKey, depth: usize) {
    let Ok(listing) = store.list_dir(prefix) else {
        return;
    };
    for name in &listing.values {
        let Ok(key) = prefix.child(name) else {
            continue;
        };
        if let Ok(Some(bytes)) = store.get(&key, CAP) {
            assert!(bytes.len() as u64 <= CAP);
            if let Ok(Some(size)) = store.size(&key) {
                assert_eq!(size, bytes.len() as u64);
            }
        }
        let _ = store.get_range(&key, 1, 7);
        let _ = store.get_ranges(&key, &[(0, 3), (5, 1_000_000_000)]);
        // Ranges out of order and overlapping, then batches in order (a deflated entry's
        // inflate goes on from the last batch) and one before them (it starts over):
        // every part is at most what was asked and what the value holds.
        let size = store.size(&key).ok().flatten().unwrap_or(0);
        let ranges = [(40, 9), (3, 60), (0, 0), (u64::MAX - 1, 5), (7, 2)];
        let batches: [&[(u64, u64)]; 4] = [&ranges, &[(0, 10)], &[(10, 100), (200, 1)], &[(2, 3)]];
        for batch in batches {
            if let Ok(Some(parts)) = store.get_ranges(&key, batch) {
                assert_eq!(parts.len(), batch.len());
                for (part, (offset, length)) in parts.iter().zip(batch) {
                    assert!(part.len() as u64 <= *length);
                    assert!(part.len() as u64 <= size.saturating_sub(*offset));
                }
            }
        }
    }
    if depth > 0 {
        for name in &listing.prefixes {
            if let Ok(key) = prefix.child(name) {
                read_values(store, &key, depth - 1);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("nctools-fuzz-{}.zip", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(store) = ZipStore::open(&path) {
        read_values(&store, &StoreKey::root(), 2);
    }
    let _ = std::fs::remove_file(&path);
});
