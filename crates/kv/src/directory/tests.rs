use std::os::unix::fs::symlink;

use super::*;
use crate::ListableStore;
use crate::WritableStore;

fn key(text: &str) -> StoreKey {
    StoreKey::parse(text).unwrap_or_default()
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("a temporary directory: {e}"))
}

#[test]
fn values_are_files_under_the_root() {
    let dir = scratch();
    let store = DirectoryStore::new(&dir.path().join("s.zarr"));
    assert!(store.set(&key("g/v/.zarray"), b"{}").is_ok());
    assert!(dir.path().join("s.zarr/g/v/.zarray").is_file());
    assert_eq!(
        store.get(&key("g/v/.zarray"), 2).ok().flatten(),
        Some(b"{}".to_vec())
    );
    assert_eq!(store.get(&key("g/w/.zarray"), 2).ok().flatten(), None);
    assert_eq!(store.size(&key("g/v/.zarray")).ok().flatten(), Some(2));
    // A key under a value (a file) is simply absent.
    assert_eq!(store.get(&key("g/v/.zarray/x"), 2).ok().flatten(), None);
    let listing = store.list_dir(&key("g")).unwrap_or_default();
    assert_eq!(listing.prefixes, ["v"]);
    assert!(listing.values.is_empty());
}

#[test]
fn parts_are_stored_one_after_another_as_one_value() {
    let dir = scratch();
    let store = DirectoryStore::new(dir.path());
    let parts = vec![b"shard ".to_vec(), Vec::new(), b"index".to_vec()];
    assert!(store.set_parts(&key("a/c/0"), parts).is_ok());
    assert_eq!(
        store.get(&key("a/c/0"), 100).ok().flatten(),
        Some(b"shard index".to_vec())
    );
}

#[test]
fn ranges_are_read_within_the_value() {
    let dir = scratch();
    let store = DirectoryStore::new(dir.path());
    let bytes: Vec<u8> = (0..100).collect();
    assert!(store.set(&key("c"), &bytes).is_ok());
    assert_eq!(
        store.get_range(&key("c"), 10, 3).ok().flatten(),
        Some(vec![10, 11, 12])
    );
    // A length past the end is cut to the value, not allocated.
    assert_eq!(
        store.get_range(&key("c"), 98, u64::MAX).ok().flatten(),
        Some(vec![98, 99])
    );
    assert_eq!(
        store.get_range(&key("c"), 200, 4).ok().flatten(),
        Some(Vec::new())
    );
    assert_eq!(store.get_range(&key("none"), 0, 4).ok().flatten(), None);
    symlink("/dev/zero", dir.path().join("zero")).unwrap_or_default();
    assert!(store.get_range(&key("zero"), 0, 4).is_err());
}

#[test]
fn several_ranges_are_read_from_one_open_file() {
    let dir = scratch();
    let store = DirectoryStore::new(dir.path());
    let bytes: Vec<u8> = (0..100).collect();
    assert!(store.set(&key("c"), &bytes).is_ok());
    assert_eq!(
        store
            .get_ranges(&key("c"), &[(10, 3), (98, 5), (0, 1)])
            .ok()
            .flatten(),
        Some(vec![vec![10, 11, 12], vec![98, 99], vec![0]])
    );
    assert_eq!(
        store.get_ranges(&key("none"), &[(0, 4)]).ok().flatten(),
        None
    );
}

#[test]
fn a_value_over_the_cap_is_refused() {
    let dir = scratch();
    let store = DirectoryStore::new(dir.path());
    assert!(store.set(&key("c"), &[7; 100]).is_ok());
    let err = store.get(&key("c"), 99).err().map(|e| e.to_string());
    assert!(err.is_some_and(|e| e.contains("holds 100 bytes, more than the 99")));
    assert!(store.get(&key("c"), 100).is_ok_and(|v| v.is_some()));
}

#[test]
fn devices_fifos_and_links_outside_are_not_read() {
    let dir = scratch();
    let root = dir.path().join("s");
    std::fs::create_dir_all(&root).unwrap_or_default();
    let outside = dir.path().join("secret");
    std::fs::write(&outside, b"secret").unwrap_or_default();
    symlink("/dev/zero", root.join("zero")).unwrap_or_default();
    symlink(&outside, root.join("out")).unwrap_or_default();
    symlink("../secret", root.join("rel")).unwrap_or_default();
    std::fs::write(root.join("inside"), b"ok").unwrap_or_default();
    symlink("inside", root.join("alias")).unwrap_or_default();
    let fifo = root.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let store = DirectoryStore::new(&root);

    let zero = store
        .get(&key("zero"), 1 << 20)
        .err()
        .map(|e| e.to_string());
    assert!(
        zero.is_some_and(|e| e.contains("leads outside the store")),
        "/dev/zero"
    );
    for name in ["out", "rel"] {
        let err = store.get(&key(name), 1 << 20).err().map(|e| e.to_string());
        assert!(
            err.is_some_and(|e| e.contains("leads outside the store")),
            "{name}"
        );
    }
    assert_eq!(
        store.get(&key("alias"), 10).ok().flatten(),
        Some(b"ok".to_vec())
    );
    if made.is_ok_and(|s| s.success()) {
        // Returns at once: opened without blocking, then refused.
        let err = store.get(&key("fifo"), 10).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("is not a regular file")));
    }
    let listing = store.list_dir(&StoreKey::root()).unwrap_or_default();
    assert_eq!(listing.values, ["alias", "inside"]);
}

#[test]
fn a_linked_directory_inside_the_root_is_listed_but_never_one_above() {
    let dir = scratch();
    let root = dir.path().join("s");
    std::fs::create_dir_all(root.join("real/deeper")).unwrap_or_default();
    symlink(".", root.join("a")).unwrap_or_default();
    symlink("..", root.join("real/up")).unwrap_or_default();
    symlink("real", root.join("alias")).unwrap_or_default();
    symlink("/", root.join("slash")).unwrap_or_default();
    let store = DirectoryStore::new(&root);
    let listing = store.list_dir(&StoreKey::root()).unwrap_or_default();
    assert_eq!(listing.prefixes, ["alias", "real"]);
    let listing = store.list_dir(&key("real")).unwrap_or_default();
    assert_eq!(listing.prefixes, ["deeper"]);
    // Through the link, the same directory lists the same.
    let listing = store.list_dir(&key("alias")).unwrap_or_default();
    assert_eq!(listing.prefixes, ["deeper"]);
    // A prefix that leads outside is an error, not a listing of elsewhere.
    assert!(store.list_dir(&key("slash")).is_err());
}

/// Every way of writing a value, each given the key and the bytes.
fn every_write(
    store: &DirectoryStore,
    k: &StoreKey,
    value: &[u8],
) -> Vec<Result<(), StorageError>> {
    vec![
        store.set(k, value),
        store.set_atomic(k, value),
        store.set_parts(k, vec![value.to_vec()]),
        // A link at the key is something there: nothing is created.
        store.create_new(k, value).and_then(|made| {
            if made {
                Ok(())
            } else {
                Err(StorageError::Linked {
                    what: store.describe(k),
                    how: "",
                })
            }
        }),
    ]
}

#[test]
fn no_write_follows_a_link_at_the_key_or_above_it() {
    // Before: `set` and `set_parts` opened the path with create-and-truncate and
    // `create_dir_all`, following links: the bytes went into the linked file outside the
    // store (or into the linked directory), and `set_atomic` wrote its predictable
    // temporary through a link planted at it.
    let dir = scratch();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(outside.join("secret"), b"keep").unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().join("s.zarr");
    std::fs::create_dir_all(root.join("v/c")).unwrap_or_else(|e| panic!("{e}"));
    symlink(outside.join("secret"), root.join("v/.zarray")).unwrap_or_else(|e| panic!("{e}"));
    symlink(outside.join("secret"), root.join("v/c/0")).unwrap_or_else(|e| panic!("{e}"));
    symlink(&outside, root.join("v/c/1")).unwrap_or_else(|e| panic!("{e}"));
    let store = DirectoryStore::new(&root);
    for (k, link) in [
        ("v/.zarray", "v/.zarray"),
        ("v/c/0", "v/c/0"),
        ("v/c/1/0", "v/c/1"),
    ] {
        for result in every_write(&store, &key(k), b"overwritten") {
            match result {
                Err(StorageError::Linked { what, .. }) => {
                    assert_eq!(what, root.join(link).display().to_string());
                }
                other => panic!("{k}: {other:?}"),
            }
        }
    }
    assert_eq!(
        std::fs::read(outside.join("secret")).ok(),
        Some(b"keep".to_vec())
    );
    let names: Vec<_> = std::fs::read_dir(&outside)
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(names.len(), 1, "{names:?}");
    // The link itself is still there: nothing was replaced.
    assert!(std::fs::symlink_metadata(root.join("v/.zarray")).is_ok_and(|m| m.is_symlink()));
    // Removing a key removes the link itself, never what it leads to.
    assert!(store.remove(&key("v/c/0")).is_ok());
    assert!(std::fs::symlink_metadata(root.join("v/c/0")).is_err());
    assert_eq!(
        std::fs::read(outside.join("secret")).ok(),
        Some(b"keep".to_vec())
    );
}

#[test]
fn a_file_with_another_name_is_not_written_in_place() {
    // Before: a hard link planted at a chunk key (same file system) was truncated and
    // written, changing the file under its other name.
    let dir = scratch();
    let root = dir.path().join("s.zarr");
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("other"), b"keep").unwrap_or_else(|e| panic!("{e}"));
    std::fs::hard_link(dir.path().join("other"), root.join("c")).unwrap_or_else(|e| panic!("{e}"));
    let store = DirectoryStore::new(&root);
    assert!(matches!(
        store.set(&key("c"), b"x"),
        Err(StorageError::Linked { .. })
    ));
    assert_eq!(
        std::fs::read(dir.path().join("other")).ok(),
        Some(b"keep".to_vec())
    );
}

#[test]
fn an_atomic_write_uses_an_unpredictable_exclusive_temporary_and_leaves_none() {
    // Before: the temporary was `.NAME.nctools-PID.tmp`, created with truncate through
    // any link planted there.
    let dir = scratch();
    let root = dir.path().join("s.zarr");
    let store = DirectoryStore::new(&root);
    assert!(store.set_atomic(&key("v/.zarray"), b"old").is_ok());
    let predictable = root.join(format!("v/..zarray.nctools-{}.tmp", std::process::id()));
    std::fs::write(dir.path().join("target"), b"keep").unwrap_or_else(|e| panic!("{e}"));
    symlink(dir.path().join("target"), &predictable).unwrap_or_else(|e| panic!("{e}"));
    assert!(store.set_atomic(&key("v/.zarray"), b"new").is_ok());
    assert_eq!(
        store.get(&key("v/.zarray"), 10).ok().flatten(),
        Some(b"new".to_vec())
    );
    assert!(std::fs::symlink_metadata(root.join("v/.zarray")).is_ok_and(|m| m.is_file()));
    assert_eq!(
        std::fs::read(dir.path().join("target")).ok(),
        Some(b"keep".to_vec())
    );
    let left: Vec<_> = std::fs::read_dir(root.join("v"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(left.len(), 2, "only .zarray and the planted link: {left:?}");
}

#[test]
fn a_new_value_is_created_once() {
    let dir = scratch();
    let store = DirectoryStore::new(dir.path());
    assert!(store.create_new(&key("lock"), b"a").is_ok_and(|made| made));
    assert!(store.create_new(&key("lock"), b"b").is_ok_and(|made| !made));
    assert_eq!(
        store.get(&key("lock"), 10).ok().flatten(),
        Some(b"a".to_vec())
    );
    assert!(store.remove(&key("lock")).is_ok());
    assert!(store.create_new(&key("lock"), b"c").is_ok_and(|made| made));
}
