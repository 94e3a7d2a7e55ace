use std::path::Path;

use super::records::{end_records, Directory, WrittenEntry};
use super::*;
use crate::key::StoreKey;
use crate::ListableStore;
use crate::ReadableStore;
use crate::WritableStore;

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn key(text: &str) -> Result<StoreKey> {
    Ok(StoreKey::parse(text)?)
}

fn names(path: &Path) -> Result<Vec<String>> {
    // The central directory's names in order, read back by the reader's own parser.
    let bytes = std::fs::read(path)?;
    let (_, directory, _) = records::find_end(&bytes, 0)?;
    let start = usize::try_from(directory.offset)?;
    let end = start + usize::try_from(directory.size)?;
    let entries = records::central_entries(&bytes[start..end], directory.entries)?;
    Ok(entries.into_iter().map(|e| e.name).collect())
}

#[test]
fn a_written_archive_reads_back_with_replaced_values_once() -> Result {
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("x.zarr.zip");
    let writer = ZipWriter::create(&target, None)?;
    writer.set(&key("v/0.0")?, b"old chunk")?;
    writer.set(&key(".zgroup")?, b"{}")?;
    writer.set(&key("v/0.0")?, b"new")?;
    assert_eq!(writer.get(&key("v/0.0")?, 10)?, Some(b"new".to_vec()));
    assert_eq!(writer.list_dir(&StoreKey::root())?.prefixes, ["v"]);
    assert!(
        !target.exists(),
        "the archive appears before it is finished"
    );
    writer.finish()?;
    let leftovers = std::fs::read_dir(dir.path())?.count();
    assert_eq!(leftovers, 1, "a temporary file was left behind");
    assert_eq!(names(&target)?, [".zgroup", "v/0.0"]);
    let store = ZipStore::open(&target)?;
    assert_eq!(store.get(&key("v/0.0")?, 3)?, Some(b"new".to_vec()));
    assert!(store.get(&key("v/0.0")?, 2).is_err(), "the cap is not kept");
    assert_eq!(store.get_range(&key("v/0.0")?, 1, 9)?, Some(b"ew".to_vec()));
    assert_eq!(
        store.get_ranges(&key("v/0.0")?, &[(0, 1), (2, 1)])?,
        Some(vec![b"n".to_vec(), b"w".to_vec()])
    );
    assert_eq!(store.get(&key("none")?, 10)?, None);
    assert_eq!(store.root_directory(), "");
    Ok(())
}

#[test]
fn an_unfinished_archive_leaves_nothing() -> Result {
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("x.zarr.zip");
    {
        let writer = ZipWriter::create(&target, None)?;
        writer.set(&key(".zgroup")?, b"{}")?;
    }
    assert_eq!(std::fs::read_dir(dir.path())?.count(), 0);
    Ok(())
}

#[test]
fn netcdf_c_layout_puts_the_store_under_the_file_name() -> Result {
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("data.zip");
    let root = dataset_directory(&target);
    assert_eq!(root, "data");
    let writer = ZipWriter::create(&target, Some(&root))?;
    writer.set(&key("g/v/0")?, b"1")?;
    writer.set(&key(".zgroup")?, b"{}")?;
    writer.finish()?;
    assert_eq!(
        names(&target)?,
        [
            "data/",
            "data/g/",
            "data/g/v/",
            "data/g/v/0",
            "data/.zgroup"
        ]
    );
    let store = ZipStore::open(&target)?;
    assert_eq!(store.root_directory(), "data/");
    assert_eq!(store.get(&key("g/v/0")?, 1)?, Some(b"1".to_vec()));
    assert_eq!(store.list_dir(&StoreKey::root())?.values, [".zgroup"]);
    Ok(())
}

/// An archive of stored entries `(name, bytes)`, as this module writes them, with the end
/// records `end` gives from the true directory.
fn archive(entries: &[(&str, &[u8])], end: impl Fn(Directory) -> Vec<u8>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut written = Vec::new();
    for (name, bytes) in entries {
        let mut crc = flate2::Crc::new();
        crc.update(bytes);
        let entry = WrittenEntry::stored(
            (*name).to_string(),
            crc.sum(),
            bytes.len() as u64,
            out.len() as u64,
        );
        out.extend(entry.local_header());
        out.extend_from_slice(bytes);
        written.push(entry);
    }
    let mut directory = Vec::new();
    for entry in &written {
        entry.central_header(&mut directory);
    }
    let records = end(Directory {
        entries: written.len() as u64,
        size: directory.len() as u64,
        offset: out.len() as u64,
    });
    out.extend(directory);
    out.extend(records);
    out
}

fn open_bytes(bytes: &[u8]) -> Result<std::result::Result<ZipStore, ArchiveError>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("x.zip");
    std::fs::write(&path, bytes)?;
    Ok(ZipStore::open(&path))
}

fn refusal(bytes: &[u8]) -> Result<String> {
    match open_bytes(bytes)? {
        Ok(_) => Err("a hostile archive was accepted".into()),
        Err(e) => Ok(e.to_string()),
    }
}

#[test]
fn names_that_leave_the_store_are_refused() -> Result {
    for name in ["../x", "/abs", "a//b", "a\\b", "a/./b"] {
        let message = refusal(&archive(&[(".zgroup", b"{}"), (name, b"1")], end_records))?;
        assert!(message.contains("cannot be a store's value"), "{message}");
    }
    Ok(())
}

#[test]
fn the_last_of_two_equal_names_is_read() -> Result {
    let bytes = archive(&[("a", b"first"), ("a", b"second")], end_records);
    let store = open_bytes(&bytes)??;
    assert_eq!(store.get(&key("a")?, 100)?, Some(b"second".to_vec()));
    Ok(())
}

#[test]
fn a_directory_claiming_four_billion_entries_is_refused() -> Result {
    let bytes = archive(&[("a", b"1")], |d| {
        end_records(Directory {
            entries: 1 << 32,
            ..d
        })
    });
    let message = refusal(&bytes)?;
    assert!(message.contains("claims 4294967296 entries"), "{message}");
    Ok(())
}

#[test]
fn an_entry_larger_than_the_file_is_refused() -> Result {
    let mut bytes = archive(&[("a", b"1")], end_records);
    // The central header's two sizes (at 20 and 24 from its start) say 4 GiB - 2.
    let (_, directory, _) = records::find_end(&bytes, 0)?;
    let at = usize::try_from(directory.offset)?;
    bytes[at + 20..at + 28].copy_from_slice(&[0xFE, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF]);
    let message = refusal(&bytes)?;
    assert!(message.contains("beyond the archive's"), "{message}");
    Ok(())
}

#[test]
fn truncated_and_foreign_files_are_refused() -> Result {
    let bytes = archive(&[(".zgroup", b"{}"), ("a", b"12345")], end_records);
    for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
        let message = refusal(&bytes[..cut])?;
        assert!(message.contains("not a zip archive"), "{message}");
    }
    Ok(())
}

#[test]
fn deflated_entries_are_read_and_bounded() -> Result {
    use std::io::Write;
    let plain = vec![7u8; 10_000];
    let mut encoder =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&plain)?;
    let packed = encoder.finish()?;
    let mut bytes = archive(&[("a", &packed)], end_records);
    // Method 8, the true CRC and size, in the local header (8, 14, 22) and the central
    // one (10, 16, 24).
    let (_, directory, _) = records::find_end(&bytes, 0)?;
    let at = usize::try_from(directory.offset)?;
    let size = u32::try_from(plain.len())?.to_le_bytes();
    let mut crc = flate2::Crc::new();
    crc.update(&plain);
    bytes[14..18].copy_from_slice(&crc.sum().to_le_bytes());
    bytes[at + 16..at + 20].copy_from_slice(&crc.sum().to_le_bytes());
    bytes[8..10].copy_from_slice(&8u16.to_le_bytes());
    bytes[22..26].copy_from_slice(&size);
    bytes[at + 10..at + 12].copy_from_slice(&8u16.to_le_bytes());
    bytes[at + 24..at + 28].copy_from_slice(&size);
    let store = open_bytes(&bytes)??;
    assert_eq!(store.get(&key("a")?, 10_000)?, Some(plain.clone()));
    assert_eq!(store.get_range(&key("a")?, 9_998, 5)?, Some(vec![7, 7]));
    // A deflated entry claiming far more than deflate can give is refused.
    bytes[at + 24..at + 28].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    let message = refusal(&bytes)?;
    assert!(
        message.contains("which its method cannot give"),
        "{message}"
    );
    Ok(())
}

#[test]
fn a_value_whose_crc_is_wrong_is_refused() -> Result {
    let mut bytes = archive(&[("a", b"12345")], end_records);
    bytes[30 + 1] = b'x';
    let store = open_bytes(&bytes)??;
    let Err(e) = store.get(&key("a")?, 5) else {
        return Err("a damaged value was read".into());
    };
    assert!(e.to_string().contains("CRC-32"), "{e}");
    Ok(())
}

#[test]
fn more_than_65535_entries_take_zip64_records() -> Result {
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("many.zarr.zip");
    let writer = ZipWriter::create(&target, None)?;
    for i in 0..70_000u32 {
        writer.set(&key(&format!("v/{i}"))?, &i.to_le_bytes())?;
    }
    writer.finish()?;
    let store = ZipStore::open(&target)?;
    assert_eq!(store.list_dir(&key("v")?)?.values.len(), 70_000);
    assert_eq!(
        store.get(&key("v/69999")?, 4)?,
        Some(69_999u32.to_le_bytes().to_vec())
    );
    Ok(())
}

#[test]
fn a_value_written_again_after_it_was_appended_is_in_the_archive_once() -> Result {
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("x.zarr.zip");
    let writer = ZipWriter::create(&target, None)?;
    writer.set(&key("a")?, &vec![1u8; write::HELD_BYTES + 1])?;
    // Past the bytes held in memory: the first value is appended to the file.
    writer.set(&key("b")?, b"b")?;
    writer.set(&key("a")?, b"again")?;
    assert_eq!(writer.get(&key("a")?, 5)?, Some(b"again".to_vec()));
    writer.finish()?;
    assert_eq!(names(&target)?, ["b", "a"]);
    assert!(
        std::fs::metadata(&target)?.len() < 1000,
        "the first value is still there"
    );
    let store = ZipStore::open(&target)?;
    assert_eq!(store.get(&key("a")?, 5)?, Some(b"again".to_vec()));
    Ok(())
}

#[test]
fn encrypted_entries_and_other_methods_are_refused_when_read() -> Result {
    for (at, value, expected) in [(8, 0x0001u16, "encrypted"), (10, 12, "method 12")] {
        let mut bytes = archive(&[("a", b"12345")], end_records);
        let (_, directory, _) = records::find_end(&bytes, 0)?;
        // The central header's flags (8) or method (10).
        let cd = usize::try_from(directory.offset)?;
        bytes[cd + at..cd + at + 2].copy_from_slice(&value.to_le_bytes());
        let store = open_bytes(&bytes)??;
        let Err(e) = store.get(&key("a")?, 5) else {
            return Err(format!("{expected}: read").into());
        };
        assert!(e.to_string().contains(expected), "{e}");
    }
    Ok(())
}

#[test]
fn a_central_directory_beyond_512_mib_is_refused() -> Result {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("big.zip");
    let size = MAX_DIRECTORY + 1;
    let file = File::create(&path)?;
    // A sparse file: the directory's bytes are never read.
    file.set_len(size)?;
    use std::os::unix::fs::FileExt;
    let end = end_records(Directory {
        entries: 1,
        size,
        offset: 0,
    });
    file.write_all_at(&end, size)?;
    let Err(e) = ZipStore::open(&path) else {
        return Err("accepted".into());
    };
    assert!(e.to_string().contains("more than the"), "{e}");
    Ok(())
}

/// An archive holding `plain` deflated under `name`, its central and local headers
/// stating method 8, the CRC and `declared` as its size.
fn deflated_archive(name: &str, plain: &[u8], declared: u32) -> Result<Vec<u8>> {
    use std::io::Write;
    let mut encoder =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(plain)?;
    let packed = encoder.finish()?;
    let mut bytes = archive(&[(name, &packed)], end_records);
    let (_, directory, _) = records::find_end(&bytes, 0)?;
    let at = usize::try_from(directory.offset)?;
    let mut crc = flate2::Crc::new();
    crc.update(plain);
    bytes[14..18].copy_from_slice(&crc.sum().to_le_bytes());
    bytes[at + 16..at + 20].copy_from_slice(&crc.sum().to_le_bytes());
    bytes[8..10].copy_from_slice(&8u16.to_le_bytes());
    bytes[22..26].copy_from_slice(&declared.to_le_bytes());
    bytes[at + 10..at + 12].copy_from_slice(&8u16.to_le_bytes());
    bytes[at + 24..at + 28].copy_from_slice(&declared.to_le_bytes());
    Ok(bytes)
}

#[test]
fn ranges_of_a_deflated_entry_come_from_one_inflate_in_any_order() -> Result {
    // Before: each range (and each batch of them) inflated the entry from its start to
    // the range's end into one buffer; now one streamed inflate hands back every range.
    let plain: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let bytes = deflated_archive("a", &plain, u32::try_from(plain.len())?)?;
    let store = open_bytes(&bytes)??;
    let a = key("a")?;
    let ranges = [
        (250_000, 70_000),
        (5, 10),
        (100_000, 200_000),
        (7, 1),
        (0, 0),
        (400_000, 5),
        (65_530, 12),
    ];
    let parts = store
        .get_ranges(&a, &ranges)?
        .ok_or("the entry is missing")?;
    for ((offset, length), part) in ranges.iter().zip(&parts) {
        let start = (*offset as usize).min(plain.len());
        let end = ((offset + length) as usize).min(plain.len());
        assert_eq!(part, &plain[start..end], "range at {offset}");
    }
    // Batches in order go on from where the last ended, and one before it starts over.
    for at in (0..300_000u64).step_by(30_000) {
        let part = store.get_range(&a, at, 1000)?.ok_or("missing")?;
        assert_eq!(part, &plain[at as usize..at as usize + 1000]);
    }
    assert_eq!(store.get_range(&a, 3, 4)?, Some(plain[3..7].to_vec()));
    assert_eq!(store.get_range(&a, 299_999, 9)?, Some(vec![plain[299_999]]));
    Ok(())
}

#[test]
fn a_deflated_entry_shorter_than_it_states_is_refused_by_range() -> Result {
    // Its header states 40,000 bytes; its deflate gives 10,000: a range past them is
    // refused (before: the same, after inflating into a buffer of the stated size).
    let mut state = 1u32;
    let plain: Vec<u8> = (0..10_000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 24) as u8
        })
        .collect();
    let bytes = deflated_archive("a", &plain, 40_000)?;
    let store = open_bytes(&bytes)??;
    assert_eq!(
        store.get_range(&key("a")?, 9_000, 10)?,
        Some(plain[9_000..9_010].to_vec())
    );
    let Err(e) = store.get_range(&key("a")?, 20_000, 10) else {
        return Err("a range past the deflated bytes was read".into());
    };
    assert!(e.to_string().contains("end before its stated size"), "{e}");
    Ok(())
}
