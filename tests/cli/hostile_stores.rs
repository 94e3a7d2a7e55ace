//! Stores and files built by hand to attack the tools: names that would lead outside the
//! store or the target, symbolic links to devices, FIFOs and loops, lists that repeat a
//! name, chunks far larger than their array. Each run must end in under 10 s and
//! 200 MiB, with exit 0 and the right data or exit 1 and one message; nothing may be
//! written outside the target, and no byte from outside the store may reach the output.

use std::collections::BTreeSet;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::bounded::run_ours;
use crate::support::{assert_rejected, ok, scratch, Run};

/// The values of the array planted outside every store: if one is printed, the tool
/// read outside the store.
const SECRET: [i32; 4] = [424_242, 424_243, 424_244, 424_245];

/// A scratch directory with a store deep inside (`a/b/store.zarr`) and, beside it at
/// the top, a readable array `outside/` whose values are [`SECRET`].
struct Arena {
    dir: tempfile::TempDir,
}

fn put(path: &Path, bytes: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{parent:?}: {e}"));
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"));
}

fn link(target: impl AsRef<Path>, at: &Path) {
    symlink(target.as_ref(), at).unwrap_or_else(|e| panic!("{at:?}: {e}"));
}

/// The `.zarray` of an int32 array of `shape` in chunks of `chunks`, no codec.
fn int_zarray(shape: &str, chunks: &str) -> String {
    format!(
        r#"{{"zarr_format": 2, "shape": {shape}, "chunks": {chunks}, "dtype": "<i4",
            "fill_value": 0, "order": "C", "compressor": null, "filters": null}}"#
    )
}

/// An NCZarr root (or group) `.zgroup` with dimension `d` of 4 and these lists.
fn nczarr_group(vars: &str, groups: &str, root: bool) -> String {
    let superblock = if root {
        r#""_NCZARR_SUPERBLOCK": {"version": "2.0.0"},"#
    } else {
        ""
    };
    format!(
        r#"{{"zarr_format": 2, {superblock}
            "_NCZARR_GROUP": {{"dims": {{"d": 4}}, "vars": {vars}, "groups": {groups}}}}}"#
    )
}

/// An NCZarr int32 variable `v(d)` in the group directory `dir`, with its data.
fn nczarr_var(dir: &Path, name: &str, values: [i32; 4]) {
    let mut zarray = int_zarray("[4]", "[4]");
    zarray.insert_str(
        zarray.len() - 1,
        r#", "_NCZARR_ARRAY": {"dimrefs": ["/d"], "storage": "chunked"}"#,
    );
    put(&dir.join(name).join(".zarray"), zarray);
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    put(&dir.join(name).join("0"), bytes);
}

impl Arena {
    /// An arena whose outside holds the secret array `outside/` (readable as pure Zarr
    /// and as an NCZarr variable), the NCZarr groups `outside-group/` and `a/b/` (the
    /// store's parent), each with the secret variable `leak`, a chunk `a/b/0` of the
    /// secret, and `secret.txt`.
    fn new() -> Self {
        let arena = Self { dir: scratch() };
        let top = arena.top();
        nczarr_var(top, "outside", SECRET);
        put(
            &arena.outside().join(".zattrs"),
            r#"{"_ARRAY_DIMENSIONS": ["d"]}"#,
        );
        for group in [top.join("outside-group"), top.join("a/b")] {
            put(
                &group.join(".zgroup"),
                nczarr_group(r#"["leak"]"#, "[]", false),
            );
            nczarr_var(&group, "leak", SECRET);
        }
        // A chunk file in the store's parent, for a store that names `..` an array.
        let bytes: Vec<u8> = SECRET.iter().flat_map(|v| v.to_le_bytes()).collect();
        put(&top.join("a/b/0"), bytes);
        put(&top.join("secret.txt"), "424242 is a secret\n");
        arena
    }

    fn top(&self) -> &Path {
        self.dir.path()
    }

    fn outside(&self) -> PathBuf {
        self.top().join("outside")
    }

    fn store(&self) -> PathBuf {
        self.top().join("a/b/store.zarr")
    }

    /// Where outputs go: beside the store, two levels below the top.
    fn target(&self, name: &str) -> PathBuf {
        self.top().join("a/b").join(name)
    }

    /// Every path under the top, links not followed.
    fn files(&self) -> BTreeSet<PathBuf> {
        let mut all = BTreeSet::new();
        let mut pending = vec![self.top().to_path_buf()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    pending.push(path.clone());
                }
                all.insert(path);
            }
        }
        all
    }
}

/// Fails unless no value of the array outside the store reached `run`'s output.
#[track_caller]
fn assert_nothing_from_outside(run: &Run) {
    for value in SECRET {
        let text = value.to_string();
        assert!(
            !run.stdout.contains(&text) && !run.stderr.contains(&text),
            "a value from outside the store ({text}) was printed:\n{}\n{}",
            run.stdout,
            run.stderr
        );
    }
}

/// Runs `tool` on the arena's store, bounded, and checks that it is refused, that no
/// byte from outside is shown and that no file appeared or vanished.
#[track_caller]
fn assert_store_refused(arena: &Arena, tool: &str, args: &[&Path], why: &str) -> Run {
    let before = arena.files();
    let bounded = run_ours(tool, args);
    let run = bounded.assert_within(200, 10);
    assert_rejected(run, why);
    assert_nothing_from_outside(run);
    assert_eq!(arena.files(), before, "{why}: files appeared or vanished");
    Run {
        code: run.code,
        signal: run.signal,
        stdout: run.stdout.clone(),
        stderr: run.stderr.clone(),
    }
}

#[test]
fn nczarr_names_that_lead_outside_the_store_are_refused() {
    fn absolute(arena: &Arena) -> String {
        format!("{:?}", arena.outside().display().to_string())
    }
    fn absolute_group(arena: &Arena) -> String {
        let group = arena.top().join("outside-group");
        format!("{:?}", group.display().to_string())
    }
    type Lists = fn(&Arena) -> (String, String);
    let cases: [(&str, Lists); 5] = [
        ("a relative variable name", |_| {
            (r#"["../../../outside"]"#.into(), "[]".into())
        }),
        ("an absolute variable name", |a| {
            (format!("[{}]", absolute(a)), "[]".into())
        }),
        ("a group named ..", |_| ("[]".into(), r#"[".."]"#.into())),
        ("a relative group name", |_| {
            ("[]".into(), r#"["../../../outside-group"]"#.into())
        }),
        ("an absolute group name", |a| {
            ("[]".into(), format!("[{}]", absolute_group(a)))
        }),
    ];
    for (why, lists) in cases {
        let arena = Arena::new();
        let (vars, groups) = lists(&arena);
        put(
            &arena.store().join(".zgroup"),
            nczarr_group(&vars, &groups, true),
        );
        let store = arena.store();
        let run = assert_store_refused(&arena, "ncdump", &[&store], why);
        assert!(
            run.stderr.contains("cannot name anything in a store"),
            "{why}: {}",
            run.stderr
        );
        for out in ["out.nc", "out.zarr"] {
            let target = arena.target(out);
            assert_store_refused(&arena, "nccopy", &[&store, &target], why);
        }
    }
}

#[test]
fn consolidated_keys_that_lead_outside_the_store_are_refused() {
    for key in [
        "../.zarray",
        "../../../outside/.zarray",
        "/etc/.zarray",
        "g//.zarray",
    ] {
        let arena = Arena::new();
        let zarray = int_zarray("[4]", "[4]");
        let meta = format!(
            r#"{{"zarr_consolidated_format": 1, "metadata": {{
                ".zgroup": {{"zarr_format": 2}}, "{key}": {zarray}}}}}"#
        );
        put(&arena.store().join(".zgroup"), r#"{"zarr_format": 2}"#);
        put(&arena.store().join(".zmetadata"), meta);
        let store = arena.store();
        let run = assert_store_refused(&arena, "ncdump", &[&store], key);
        assert!(
            run.stderr.contains(".zmetadata names the key"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn chunks_and_metadata_that_are_not_regular_files_are_refused_at_once() {
    let cases: [(&str, &str); 4] = [
        ("v/0", "/dev/zero"),
        ("v/0", "/dev/urandom"),
        ("v/.zattrs", "/dev/urandom"),
        ("v/0", "../../../../secret.txt"),
    ];
    for (key, target) in cases {
        let arena = Arena::new();
        let store = arena.store();
        put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
        put(
            &store.join("v/.zarray"),
            int_zarray("[1000000]", "[1000000]"),
        );
        link(target, &store.join(key));
        let why = format!("{key} -> {target}");
        let run = assert_store_refused(&arena, "ncdump", &[&store], &why);
        assert!(
            run.stderr.contains("leads outside the store"),
            "{why}: {}",
            run.stderr
        );
    }
    // A FIFO would block a reader that opened it for reading.
    let arena = Arena::new();
    let store = arena.store();
    put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
    put(&store.join("v/.zarray"), int_zarray("[4]", "[4]"));
    let fifo = store.join("v/0");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let run = assert_store_refused(&arena, "ncdump", &[&store], "a FIFO chunk");
    assert!(
        run.stderr.contains("is not a regular file"),
        "{}",
        run.stderr
    );
}

#[test]
fn directory_links_that_loop_end_at_once() {
    // Pure Zarr: groups found by listing; links back up are not listed.
    let arena = Arena::new();
    let store = arena.store();
    put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
    put(&store.join(".zattrs"), r#"{"title": "loops"}"#);
    link(".", &store.join("a"));
    link(".", &store.join("b"));
    link("../..", &store.join("up"));
    let run = run_ours("ncdump", [&store]);
    let run = run.assert_within(200, 10);
    ok("run", run);
    assert!(!run.stdout.contains("group:"), "{}", run.stdout);
    assert_nothing_from_outside(run);

    // NCZarr: groups named in metadata, each a link to the root.
    let arena = Arena::new();
    let store = arena.store();
    put(
        &store.join(".zgroup"),
        nczarr_group("[]", r#"["g", "h"]"#, true),
    );
    link(".", &store.join("g"));
    link(".", &store.join("h"));
    let run = assert_store_refused(&arena, "ncdump", &[&store], "NCZarr link loop");
    assert!(run.stderr.contains("link loop"), "{}", run.stderr);
}

/// Directories under an array that link to each other, two links each: `ncdump
/// --filters` adds up the chunks' stored bytes, and a walk that followed the links would list some
/// 2^64 directories. Each directory is counted once.
#[test]
fn sibling_directory_links_under_an_array_are_walked_once() {
    let arena = Arena::new();
    let store = arena.store();
    put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
    // Filtered (shuffle), so that --filters reports it; only its size is read.
    let zarray = int_zarray("[4]", "[4]").replace(
        r#""filters": null"#,
        r#""filters": [{"id": "shuffle", "elementsize": 4}]"#,
    );
    put(&store.join("v/.zarray"), zarray);
    put(&store.join("v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["d"]}"#);
    put(&store.join("v/0"), [0u8; 16]);
    for (from, to) in [("a", "b"), ("b", "a")] {
        std::fs::create_dir_all(store.join("v").join(from)).unwrap_or_else(|e| panic!("{e}"));
        for name in ["l1", "l2"] {
            link(format!("../{to}"), &store.join("v").join(from).join(name));
        }
    }
    let run = run_ours("ncdump", ["--filters".as_ref(), store.as_os_str()]);
    let run = run.assert_within(200, 10);
    ok("run", run);
    assert!(run.stdout.contains("/v"), "{}", run.stdout);
}

#[test]
fn a_name_listed_many_times_is_one_group() {
    // 200 names at each of 3 levels would declare 8 million groups.
    let arena = Arena::new();
    let store = arena.store();
    let many = format!("[{}]", vec!["\"g\""; 200].join(", "));
    put(
        &store.join(".zgroup"),
        nczarr_group("[\"v\", \"v\"]", &many, true),
    );
    nczarr_var(&store, "v", [1, 2, 3, 4]);
    let mut dir = store.clone();
    for level in 0..3 {
        dir = dir.join("g");
        let groups = if level < 2 { many.as_str() } else { "[]" };
        put(&dir.join(".zgroup"), nczarr_group("[]", groups, false));
    }
    let run = run_ours("ncdump", [&store]);
    let run = run.assert_within(200, 10);
    ok("run", run);
    assert_eq!(
        run.stdout.matches("group: g {").count(),
        3,
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("int v(d)").count(), 1, "{}", run.stdout);
    assert!(run.stdout.contains("v = 1, 2, 3, 4 ;"), "{}", run.stdout);
}

#[test]
fn a_chunk_far_larger_than_its_array_costs_no_more_than_the_array() {
    // Chunks of 2^30 - 1 int32 for an array of 4: 4 GiB each if built whole.
    let arena = Arena::new();
    let store = arena.store();
    put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
    put(&store.join("v/.zarray"), int_zarray("[4]", "[1073741823]"));
    put(&store.join("v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["d"]}"#);
    let run = run_ours("ncdump", [&store]);
    let run = run.assert_within(200, 10);
    ok("run", run);
    // Never written: the fill value, which xarray's convention (`_ARRAY_DIMENSIONS`, a
    // `fill_value` and no attribute) makes the `_FillValue`.
    assert!(run.stdout.contains("v = _, _, _, _ ;"), "{}", run.stdout);

    for out in ["out.zarr", "out.nc"] {
        let target = arena.target(out);
        let run = run_ours("nccopy", [&store, &target]);
        let run = run.assert_within(200, 10);
        assert_eq!(run.code, Some(0), "{out}: {}", run.stderr);
        let dump = run_ours("ncdump", [&target]);
        let dump = dump.assert_within(200, 10);
        assert!(
            dump.stdout.contains("v = _, _, _, _ ;"),
            "{out}: {}",
            dump.stdout
        );
    }

    // A chunk file there: its few bytes are not a chunk of 4 GiB.
    put(&store.join("v/0"), [1u8; 16]);
    let run = assert_store_refused(&arena, "ncdump", &[&store], "a short chunk");
    assert!(run.stderr.contains("cannot be decoded"), "{}", run.stderr);
}

#[test]
fn names_from_an_input_never_become_paths_outside_the_target() {
    let arena = Arena::new();
    let top = arena.top().display().to_string();
    let absolute = format!("{top}/abs");
    for name in ["../../EVIL", "..", absolute.as_str()] {
        let input = arena.target("in.nc");
        put(&input, crate::safety::classic_file("d", "title", name));
        let target = arena.target("out.zarr");
        let before = arena.files();
        let run = run_ours("nccopy", [&input, &target]);
        let run = run.assert_within(200, 10);
        assert_rejected(run, name);
        assert_eq!(arena.files(), before, "{name}: files appeared or vanished");
    }

    let cdls = [
        "netcdf x {\ndimensions:\n\td = 1 ;\nvariables:\n\tint \\.\\.\\/\\.\\.\\/X(d) ;\ndata:\n \\.\\.\\/\\.\\.\\/X = 7 ;\n}\n",
        "netcdf y {\ngroup: \\.\\. {\nvariables:\n\tint v ;\ndata:\n v = 1 ;\n}\n}\n",
    ];
    for cdl in cdls {
        let input = arena.target("in.cdl");
        put(&input, cdl);
        let target = arena.target("out.zarr");
        let before = arena.files();
        let o = Path::new("-o");
        let run = run_ours("ncgen", [o, &target, &input]);
        let run = run.assert_within(200, 10);
        assert_rejected(run, cdl);
        assert_eq!(arena.files(), before, "{cdl}: files appeared or vanished");
    }
}

#[test]
fn metadata_and_chunks_larger_than_their_caps_are_not_read() {
    // A .zattrs of 65 MiB (sparse: it costs no disk), over the 64 MiB cap.
    let arena = Arena::new();
    let store = arena.store();
    put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
    put(&store.join("v/.zarray"), int_zarray("[4]", "[4]"));
    let zattrs = std::fs::File::create(store.join("v/.zattrs")).unwrap_or_else(|e| panic!("{e}"));
    zattrs.set_len(65 << 20).unwrap_or_else(|e| panic!("{e}"));
    let run = assert_store_refused(&arena, "ncdump", &[&store], "a huge .zattrs");
    assert!(
        run.stderr
            .contains("more than the 67108864 its metadata allows"),
        "{}",
        run.stderr
    );

    // A chunk of 4 int32 without codecs holds 16 bytes, not 17.
    let arena = Arena::new();
    let store = arena.store();
    put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
    put(&store.join("v/.zarray"), int_zarray("[4]", "[4]"));
    put(&store.join("v/0"), [0u8; 17]);
    let run = assert_store_refused(&arena, "ncdump", &[&store], "a chunk one byte too long");
    assert!(
        run.stderr.contains("holds 17 bytes, more than the 16"),
        "{}",
        run.stderr
    );
}

#[test]
fn shapes_whose_bytes_overflow_a_count_are_refused_not_a_crash() {
    // Red team s30 L2: two lengths of 2^64 - 1 overflowed the counts made of them:
    // ncdump and nccopy exited 101 ("attempt to multiply with overflow"), an append into
    // a store whose time was 2^64 - 1 long too.
    let arena = Arena::new();
    let store = arena.store();
    let max = u64::MAX;
    put(&store.join(".zgroup"), r#"{"zarr_format": 2}"#);
    put(
        &store.join("v/.zarray"),
        int_zarray(&format!("[{max}, {max}]"), "[4, 4]"),
    );
    put(
        &store.join("v/.zattrs"),
        r#"{"_ARRAY_DIMENSIONS": ["x", "y"]}"#,
    );
    let run = assert_store_refused(&arena, "ncdump", &[&store], "an uncountable shape");
    assert!(
        run.stderr.contains("more than 2^63 bytes"),
        "{}",
        run.stderr
    );
    let target = arena.target("out.nc");
    let run = assert_store_refused(&arena, "nccopy", &[&store, &target], "an uncountable shape");
    assert!(
        run.stderr.contains("more than 2^63 bytes"),
        "{}",
        run.stderr
    );
}

/// Red team s35 RB10: an NCZarr store whose group says a dimension is shorter than its
/// arrays' shapes (`x = 1` for arrays of 3 along x): ncdump printed a third of the values
/// and nccopy wrote them, exit 0 (the reference dies of SIGSEGV). A dimension whose
/// length disagrees with an array's shape is refused, either way.
#[test]
fn an_nczarr_dimension_that_disagrees_with_an_array_shape_is_refused() {
    let dir = scratch();
    let cdl = dir.path().join("in.cdl");
    std::fs::write(
        &cdl,
        "netcdf in {\ndimensions:\n\tt = 2 ;\n\tx = 3 ;\nvariables:\n\tint v(t, x) ;\ndata:\n\
         v = 1, 2, 3, 4, 5, 6 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for length in [1, 5] {
        let store = dir.path().join(format!("x{length}.zarr"));
        let url = format!("file://{}#mode=nczarr,file", store.display());
        ok(
            "ncgen",
            crate::support::Test::ours("ncgen")
                .args(["-o", &url])
                .arg(&cdl)
                .run(),
        );
        let zgroup = store.join(".zgroup");
        let text = std::fs::read_to_string(&zgroup).unwrap_or_else(|e| panic!("{e}"));
        let patched = text.replace("\"x\": 3", &format!("\"x\": {length}"));
        assert_ne!(patched, text, "{text}");
        std::fs::write(&zgroup, patched).unwrap_or_else(|e| panic!("{e}"));
        // Without the consolidated copy, which still says 3 (a longer dimension there
        // reads as an append in progress: the store as it was).
        let _ = std::fs::remove_file(store.join(".zmetadata"));
        let out = dir.path().join(format!("x{length}.nc"));
        for (tool, args) in [
            ("ncdump", vec![store.clone()]),
            ("nccopy", vec![store.clone(), out.clone()]),
        ] {
            let done = crate::support::Test::ours(tool).args(&args).run();
            assert_eq!(done.code, Some(1), "{tool} x={length}: {}", done.stderr);
            assert!(
                done.stderr
                    .contains(&format!("along the dimension /x, whose length is {length}")),
                "{tool} x={length}: {}",
                done.stderr
            );
        }
        assert!(!out.exists());
    }
}

/// Red team s35 RB6: a 200-byte Zarr store of chunks of 100,000,000 doubles (800 MB),
/// nothing written: nccopy built the unwritten chunk whole as fill values (1.6 GB, and
/// an 800 MB output chunk). A copy holds one whole output chunk, so chunks past the chunk
/// limit are refused before anything is read, to netCDF-4 and to Zarr alike.
#[test]
fn a_copy_whose_chunks_are_past_the_chunk_limit_is_refused_before_building_one() {
    let dir = scratch();
    let store = dir.path().join("e.zarr");
    std::fs::create_dir_all(store.join("w")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(store.join(".zgroup"), r#"{"zarr_format": 2}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        store.join("w/.zarray"),
        r#"{"zarr_format": 2, "shape": [100000000], "chunks": [100000000], "dtype": "<f8",
            "compressor": null, "filters": null, "fill_value": 1.5, "order": "C"}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(store.join("w/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["n"]}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    for out in ["o.nc", "o.zarr"] {
        let target = dir.path().join(out);
        let bounded = run_ours("nccopy", [store.as_os_str(), target.as_os_str()]);
        let done = bounded.assert_within(300, 60);
        assert_eq!(done.code, Some(1), "{out}: {}", done.stderr);
        assert!(
            done.stderr.contains("variable /w"),
            "{out}: {}",
            done.stderr
        );
        assert!(
            done.stderr.contains("chunk limit"),
            "{out}: {}",
            done.stderr
        );
        assert!(!target.exists(), "{out}");
    }
}
