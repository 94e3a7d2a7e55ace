//! Writers into an existing store (`--append`, `--region`, the metadata an append
//! rewrites) and the kerchunk output follow no link planted in the store: a link (to a
//! file outside, or to a directory outside) at every key a writer creates is refused,
//! exit 1, with a message naming the link, and what the link leads to is unchanged.
//! `--template` writes a new store beside the old one: links planted in the old store, at
//! its temporary name or at a name that is no store are neither followed nor kept.

use std::path::Path;

use crate::support::{scratch, Test};
use crate::zarr_regions::{inputs, nccopy_ok};

/// What a planted link leads to: a file and a directory outside the store.
struct Outside {
    file: std::path::PathBuf,
    dir: std::path::PathBuf,
}

impl Outside {
    fn new(base: &Path) -> Self {
        let dir = base.join("outside");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let file = base.join("authorized_keys");
        std::fs::write(&file, b"keep").unwrap_or_else(|e| panic!("{e}"));
        Self { file, dir }
    }

    #[track_caller]
    fn assert_unchanged(&self) {
        assert_eq!(std::fs::read(&self.file).ok(), Some(b"keep".to_vec()));
        let inside = std::fs::read_dir(&self.dir)
            .map(Iterator::count)
            .unwrap_or(99);
        assert_eq!(inside, 0, "something was written into the linked directory");
    }
}

/// Plants a link to `to` at `at`, replacing what is there.
fn plant(at: &Path, to: &Path) {
    if let Some(parent) = at.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    let _ = std::fs::remove_file(at);
    let _ = std::fs::remove_dir_all(at);
    std::os::unix::fs::symlink(to, at).unwrap_or_else(|e| panic!("{e}"));
}

/// Runs nccopy `args`; it must exit 1 naming the link `link`.
#[track_caller]
fn refused_naming(args: &[&str], link: &Path) {
    let run = Test::ours("nccopy").args(args).run();
    assert_eq!(run.code, Some(1), "nccopy {args:?}: {}", run.stderr);
    let named = link.display().to_string();
    // A metadata document linked outside is already refused by the reading that comes
    // first ("leads outside the store"); everything else by the writer ("is a symbolic
    // link").
    assert!(
        run.stderr.contains(&named)
            && (run.stderr.contains("link") || run.stderr.contains("leads outside")),
        "nccopy {args:?}: the message names {named}: {}",
        run.stderr
    );
    // Red team s35 RB12: the chunk is named by its key, never by its place in the slab
    // written ("the chunk at [0, 0]" for the store's chunk 1.0).
    assert!(!run.stderr.contains("the chunk at ["), "{}", run.stderr);
}

#[test]
fn appends_follow_no_link_at_any_key_they_write() {
    // Before: exit 0 after writing the record's bytes into the linked file (chunk key)
    // or into the linked directory; the metadata's temporary `..zarray.nctools-PID.tmp`
    // was predictable and written through a link.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let outside = Outside::new(dir.path());
    let part0 = parts[0].to_string_lossy().into_owned();
    let part1 = parts[1].to_string_lossy().into_owned();
    // (fragment, key planted relative to the store, link to a file or a directory)
    let cases = [
        ("#mode=nczarr", "t/1.0", false),
        ("#mode=nczarr", "time/1", false),
        ("#mode=nczarr", "t/.zarray", false),
        ("#mode=nczarr", "time/.zarray", false),
        ("#mode=zarr,v3", "t/c/1/0", false),
        ("#mode=zarr,v3", "t/c/1", true),
        ("#mode=zarr,v3", "t/zarr.json", false),
    ];
    for (i, (fragment, key, to_dir)) in cases.into_iter().enumerate() {
        let store = dir.path().join(format!("s{i}.zarr"));
        let text = format!("file://{}{fragment}", store.display());
        nccopy_ok(&[&part0, &text], &[]);
        let link = store.join(key);
        plant(&link, if to_dir { &outside.dir } else { &outside.file });
        refused_naming(&["--append", "time", &part1, &text], &link);
        outside.assert_unchanged();
        assert!(
            !store.join(".nctools-append.lock").exists(),
            "the lock is given back"
        );
    }
}

#[test]
fn an_append_inside_a_chunk_rewrites_no_chunk_that_is_a_link() {
    // An append that starts inside a chunk reads that chunk and writes it back: a link
    // there (to a file or a directory outside) is refused before either, and what it
    // leads to is unchanged.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let outside = Outside::new(dir.path());
    let part0 = parts[0].to_string_lossy().into_owned();
    let part1 = parts[1].to_string_lossy().into_owned();
    for (i, (key, to_dir)) in [("time/0", false), ("t/0.0", false), ("t/0.0", true)]
        .into_iter()
        .enumerate()
    {
        let store = dir.path().join(format!("inside{i}.zarr"));
        let text = store.to_string_lossy().into_owned();
        // Chunks of 10 records: the store's 5 fill half of its first chunk.
        nccopy_ok(&["-c", "time/10", &part0, &text], &[]);
        let link = store.join(key);
        plant(&link, if to_dir { &outside.dir } else { &outside.file });
        refused_naming(&["--append", "time", &part1, &text], &link);
        outside.assert_unchanged();
    }
}

#[test]
fn an_append_replaces_no_metadata_document_that_is_a_link_inside_the_store() {
    // Before: exit 0; the document linked to another file of the store (which a reader
    // follows) was replaced by a regular file behind the writer's back, or written
    // through.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let store = dir.path().join("s.zarr");
    let text = store.to_string_lossy().into_owned();
    nccopy_ok(&[&parts[0].to_string_lossy(), &text], &[]);
    let doc = store.join("t/.zarray");
    let kept = store.join("t/zarray-copy");
    std::fs::rename(&doc, &kept).unwrap_or_else(|e| panic!("{e}"));
    let before = std::fs::read(&kept).unwrap_or_default();
    plant(&doc, Path::new("zarray-copy"));
    refused_naming(
        &["--append", "time", &parts[1].to_string_lossy(), &text],
        &doc,
    );
    assert_eq!(std::fs::read(&kept).unwrap_or_default(), before);
    assert!(std::fs::symlink_metadata(&doc).is_ok_and(|m| m.is_symlink()));
}

#[test]
fn regions_follow_no_link_at_their_chunk_keys_or_the_directories_above() {
    // Before: exit 0 after writing the region's chunk into the linked file, or into the
    // linked directory `c/2`.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let outside = Outside::new(dir.path());
    let part0 = parts[0].to_string_lossy().into_owned();
    let part2 = parts[2].to_string_lossy().into_owned();
    let cases = [
        ("#mode=nczarr", "t/2.0", false),
        ("#mode=nczarr", "time/2", false),
        ("#mode=zarr,v3", "t/c/2/0", false),
        ("#mode=zarr,v3", "t/c/2", true),
        ("#mode=zarr,v3", "t/c", true),
    ];
    for (i, (fragment, key, to_dir)) in cases.into_iter().enumerate() {
        let store = dir.path().join(format!("r{i}.zarr"));
        let text = format!("file://{}{fragment}", store.display());
        nccopy_ok(&["--template", "time=20", &part0, &text], &[]);
        let link = store.join(key);
        plant(&link, if to_dir { &outside.dir } else { &outside.file });
        refused_naming(&["--region", "time=10:15", &part2, &text], &link);
        outside.assert_unchanged();
    }
}

#[test]
fn a_second_append_while_one_holds_the_lock_is_refused() {
    // Before: two appends at once both exited 0 and one record was lost; nothing kept
    // the second from reading the same length as the first.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let store = dir.path().join("s.zarr");
    let text = store.to_string_lossy().into_owned();
    nccopy_ok(&[&parts[0].to_string_lossy(), &text], &[]);
    let lock = store.join(".nctools-append.lock");
    std::fs::write(&lock, b"held").unwrap_or_else(|e| panic!("{e}"));
    let run = Test::ours("nccopy")
        .args(["--append", "time", &parts[1].to_string_lossy(), &text])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("another append") && run.stderr.contains(&lock.display().to_string()),
        "{}",
        run.stderr
    );
    // Region writers take no lock: they run while the lock is there.
    std::fs::remove_file(&lock).unwrap_or_else(|e| panic!("{e}"));
    nccopy_ok(
        &["--append", "time", &parts[1].to_string_lossy(), &text],
        &[],
    );
    assert!(!lock.exists(), "the lock is given back");
}

#[test]
fn the_kerchunk_output_never_replaces_an_input_through_a_link() {
    // Before: `refs.json` linked to the input passed the name-only check and the input
    // was truncated and overwritten with the references.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let before = std::fs::read(&parts[0]).unwrap_or_default();
    let refs = dir.path().join("refs.json");
    plant(&refs, &parts[0]);
    let run = Test::ours("nccopy")
        .args([
            "--kerchunk",
            &refs.to_string_lossy(),
            &parts[0].to_string_lossy(),
        ])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("is the input"), "{}", run.stderr);
    assert_eq!(std::fs::read(&parts[0]).unwrap_or_default(), before);
}

/// Every path under `root` that is a symbolic link.
fn links_under(root: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_symlink() => found.push(path),
                Ok(m) if m.is_dir() => pending.push(path),
                _ => {}
            }
        }
    }
    found
}

#[test]
fn a_template_over_a_store_with_links_follows_none_of_them() {
    // A template is a new store: written under an exclusive temporary directory beside
    // the target and renamed onto it, so a link planted at any key it writes (metadata
    // documents, the chunks of the variables it copies, their directories) is replaced
    // with the old store, never written through. The same on the code before issue 34
    // (no hole here); kept so that a template written in place would fail.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let outside = Outside::new(dir.path());
    let part0 = parts[0].to_string_lossy().into_owned();
    // (fragment, keys planted relative to the store, each a link to a file or a directory)
    let cases: [(&str, &[(&str, bool)]); 2] = [
        (
            "#mode=nczarr",
            &[
                (".zgroup", false),
                (".zattrs", false),
                (".zmetadata", false),
                ("t/.zarray", false),
                ("time/.zattrs", false),
                ("x/0", false),
                ("x/.zarray", false),
                ("t", true),
            ],
        ),
        (
            "#mode=zarr,v3",
            &[
                ("zarr.json", false),
                ("t/zarr.json", false),
                ("x/c/0", false),
                ("x/c", true),
                ("time", true),
            ],
        ),
    ];
    for (i, (fragment, keys)) in cases.into_iter().enumerate() {
        let store = dir.path().join(format!("t{i}.zarr"));
        let text = format!("file://{}{fragment}", store.display());
        nccopy_ok(&["--template", "time=20", &part0, &text], &[]);
        for (key, to_dir) in keys {
            plant(
                &store.join(key),
                if *to_dir { &outside.dir } else { &outside.file },
            );
        }
        nccopy_ok(&["--template", "time=20", &part0, &text], &[]);
        outside.assert_unchanged();
        assert_eq!(links_under(&store), Vec::<std::path::PathBuf>::new());
        let run = Test::ours("ncdump").args(["-h", &text]).run();
        assert_eq!(run.code, Some(0), "{fragment}: {}", run.stderr);
        assert!(run.stderr.is_empty(), "{fragment}: {}", run.stderr);
    }
}

#[test]
fn a_template_follows_no_link_at_its_temporary_or_its_output_name() {
    // A link at the template's temporary name (made predictable by the test hook) is
    // neither followed nor removed: another name is taken. An output name that is a link
    // to a file, or to a directory that is no store, is refused naming where it leads,
    // and what it leads to is unchanged. The same on the code before issue 34.
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let outside = Outside::new(dir.path());
    let part0 = parts[0].to_string_lossy().into_owned();
    let hook = [("NCTOOLS_TEST_TEMPORARY_SUFFIX", "planted")];
    for (name, output) in [
        ("d.zarr", "file://{}#mode=zarr,v3"),
        ("n.zarr", "file://{}#mode=nczarr"),
        ("z.zarr.zip", "{}"),
    ] {
        let target = dir.path().join(name);
        let planted = dir.path().join(format!(".{name}.nctools-planted.tmp"));
        let to: &Path = if name.ends_with(".zip") {
            &outside.file
        } else {
            &outside.dir
        };
        plant(&planted, to);
        let text = output.replace("{}", &target.display().to_string());
        nccopy_ok(&["--template", "time=20", &part0, &text], &hook);
        outside.assert_unchanged();
        assert_eq!(std::fs::read_link(&planted).ok().as_deref(), Some(to));
        let run = Test::ours("ncdump").args(["-h", &text]).run();
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
    }
    // A directory that is no store and holds a file (an empty one reached through a link
    // is replaced by the store, as the link's target is: nothing is lost).
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(notes.join("keep"), b"keep").unwrap_or_else(|e| panic!("{e}"));
    for (i, to) in [&outside.file, &notes].into_iter().enumerate() {
        let link = dir.path().join(format!("o{i}.zarr"));
        plant(&link, to);
        let text = format!("file://{}#mode=nczarr", link.display());
        let run = Test::ours("nccopy")
            .args(["--template", "time=20", &part0, &text])
            .run();
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains(&to.display().to_string())
                && run.stderr.contains("not a Zarr store"),
            "{}",
            run.stderr
        );
        outside.assert_unchanged();
        assert_eq!(
            std::fs::read(notes.join("keep")).ok(),
            Some(b"keep".to_vec())
        );
        assert_eq!(
            std::fs::read_link(&link).ok().as_deref(),
            Some(to.as_path())
        );
    }
}

/// Red team s35 RC5: an append or a region write into a store named through a link that
/// another user planted in a sticky, world-writable directory is refused, as a new output
/// there is (the kernel's `fs.protected_symlinks` rule, applied by nctools whatever the
/// system's setting).
/// Before: exit 0, the store the link led to (root's) appended to, shape 2 to 4; only
/// the kernel's own rule, where it is on, stopped it.
#[test]
fn an_append_or_a_region_through_a_link_another_user_planted_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    let owner = std::fs::metadata(dir.path()).map(|m| std::os::unix::fs::MetadataExt::uid(&m));
    if owner.ok() != Some(0) {
        // Only root can make a link another user owns.
        crate::support::skip("root, to plant a link owned by another user");
        return;
    }
    let (parts, _) = inputs(dir.path());
    let part0 = parts[0].to_string_lossy().into_owned();
    let part1 = parts[1].to_string_lossy().into_owned();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777))
        .unwrap_or_else(|e| panic!("{e}"));
    let appended = dir.path().join("appended.zarr");
    let regions = dir.path().join("regions.zarr");
    nccopy_ok(&[&part0, &appended.to_string_lossy()], &[]);
    nccopy_ok(
        &["--template", "time=20", &part0, &regions.to_string_lossy()],
        &[],
    );
    let tree_of = |store: &Path| {
        let mut names: Vec<String> = walk(store);
        names.sort();
        names
    };
    for (store, args) in [
        (&appended, vec!["--append", "time", &part1]),
        (&regions, vec!["--region", "time=5:10", &part1]),
    ] {
        let link = shared.join(store.file_name().unwrap_or_default());
        std::os::unix::fs::symlink(store, &link).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::lchown(&link, Some(65534), Some(65534))
            .unwrap_or_else(|e| panic!("{e}"));
        let before = tree_of(store);
        let link_text = link.to_string_lossy().into_owned();
        let mut args = args.clone();
        args.push(&link_text);
        let run = Test::ours("nccopy").args(&args).run();
        assert_eq!(run.code, Some(1), "nccopy {args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("sticky, world-writable directory"),
            "{}",
            run.stderr
        );
        assert_eq!(tree_of(store), before, "nccopy {args:?} changed the store");
    }
}

/// Every file under `root`, with its size, as `path:size` relative to `root`.
fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                let name = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                out.push(format!("{name}:{size}"));
            }
        }
    }
    out
}
