//! Many jobs into one Zarr store: `nccopy --template DIM=N` declares the store, then
//! `nccopy --region DIM=START:END` processes, run at once, each write one input's
//! records. The store they fill equals a single copy of the concatenated input, object
//! for object and byte for byte, and ncdump shows the same data. Regions that are not
//! chunk-aligned, inputs of the wrong length or with other codecs, and regions of zip archives are
//! refused with messages that say why. (The S3 variant is in `zarr_s3.rs`.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{first_difference, ok, scratch, Test};

/// Records per input file, and the chunk length along `time`.
pub const RECORDS: usize = 5;

/// Input files (and regions) of the 4-process test.
pub const PARTS: usize = 4;

/// The CDL of `records` daily records from day `first`: a `time` coordinate, a
/// deflated `t(time, x)` and a static `x`, chunked by [`RECORDS`] along `time`.
fn cdl(name: &str, first: usize, records: usize) -> String {
    let times: Vec<String> = (first..first + records).map(|d| d.to_string()).collect();
    let values: Vec<String> = (first..first + records)
        .flat_map(|d| (0..4).map(move |x| format!("{}.5", d * 10 + x)))
        .collect();
    format!(
        "netcdf {name} {{\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 4 ;\nvariables:\n\
         \tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\
         \t\ttime:_ChunkSizes = {RECORDS} ;\n\tfloat t(time, x) ;\n\
         \t\tt:_ChunkSizes = {RECORDS}, 4 ;\n\t\tt:_DeflateLevel = 1 ;\n\tint x(x) ;\n\
         data:\n time = {} ;\n t = {} ;\n x = 1, 2, 3, 4 ;\n}}\n",
        times.join(", "),
        values.join(", ")
    )
}

/// Makes `NAME.nc` from its CDL in `dir` with our ncgen.
fn netcdf(dir: &Path, name: &str, cdl: &str) -> PathBuf {
    let source = dir.join(format!("{name}.cdl"));
    let nc = dir.join(format!("{name}.nc"));
    std::fs::write(&source, cdl).unwrap_or_else(|e| panic!("writing {name}.cdl: {e}"));
    let done = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&nc)
        .arg(&source)
        .run();
    assert_eq!(done.code, Some(0), "ncgen {name}: {}", done.stderr);
    nc
}

/// The [`PARTS`] daily files of [`RECORDS`] records each, and one file of all of them.
pub fn inputs(dir: &Path) -> (Vec<PathBuf>, PathBuf) {
    let parts = (0..PARTS)
        .map(|k| {
            let name = format!("part{k}");
            netcdf(dir, &name, &cdl(&name, k * RECORDS, RECORDS))
        })
        .collect();
    let all = netcdf(dir, "all", &cdl("all", 0, PARTS * RECORDS));
    (parts, all)
}

/// Changes the `.zarray` of each of `vars` in the Zarr v2 store `store` with `change`,
/// and its copy in the consolidated `.zmetadata` when there is one.
fn edit_arrays(store: &Path, vars: &[&str], change: impl Fn(&str, &mut serde_json::Value)) {
    let edit = |path: &Path, key: Option<&str>, var: &str| {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
        let mut json: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        let array = match key {
            Some(key) => &mut json["metadata"][key],
            None => &mut json,
        };
        change(var, array);
        std::fs::write(path, json.to_string()).unwrap_or_else(|e| panic!("{e}"));
    };
    for var in vars {
        edit(&store.join(var).join(".zarray"), None, var);
        let consolidated = store.join(".zmetadata");
        if consolidated.exists() {
            edit(&consolidated, Some(&format!("{var}/.zarray")), var);
        }
    }
}

/// Runs nccopy with `args` (and `env`); it must succeed.
#[track_caller]
pub fn nccopy_ok(args: &[&str], env: &[(&str, &str)]) {
    let done = Test::ours("nccopy").args(args).envs(env).run();
    assert_eq!(done.code, Some(0), "nccopy {args:?}: {}", done.stderr);
}

/// `nccopy --template time=N` from the first part, then one `--region` process per part,
/// all running at once, into `store`.
pub fn fill_from_many_jobs(parts: &[PathBuf], store: &str, env: &[(&str, &str)]) {
    let first = parts[0].to_string_lossy();
    let template = format!("time={}", parts.len() * RECORDS);
    nccopy_ok(&["--template", &template, &first, store], env);
    std::thread::scope(|scope| {
        for (k, part) in parts.iter().enumerate() {
            scope.spawn(move || {
                let region = format!("time={}:{}", k * RECORDS, (k + 1) * RECORDS);
                nccopy_ok(&["--region", &region, &part.to_string_lossy(), store], env);
            });
        }
    });
}

/// Every file under `root`, by path relative to it, with its bytes.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let bytes =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let relative = path.strip_prefix(root).unwrap_or(&path);
                files.insert(relative.to_string_lossy().into_owned(), bytes);
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

/// ncdump's output of `target` without its first line (the name, from the path).
pub fn dump_body(target: &str, env: &[(&str, &str)]) -> String {
    let done = Test::ours("ncdump").arg(target).envs(env).run();
    assert_eq!(done.code, Some(0), "ncdump {target}: {}", done.stderr);
    done.stdout
        .split_once('\n')
        .map_or(String::new(), |(_, rest)| rest.to_string())
}

#[test]
fn four_region_writers_at_once_fill_a_store_equal_to_one_copy_chunk_for_chunk() {
    let dir = scratch();
    let (parts, all) = inputs(dir.path());
    for (name, fragment) in [
        ("nczarr", "#mode=nczarr"),
        ("v2", "#mode=zarr"),
        ("v3", "#mode=zarr,v3"),
    ] {
        let filled = dir.path().join(format!("filled-{name}.zarr"));
        let single = dir.path().join(format!("single-{name}.zarr"));
        let filled_url = format!("file://{}{fragment}", filled.display());
        let single_url = format!("file://{}{fragment}", single.display());
        fill_from_many_jobs(&parts, &filled_url, &[]);
        nccopy_ok(&[&all.to_string_lossy(), &single_url], &[]);
        let (filled_files, single_files) = (tree(&filled), tree(&single));
        assert_eq!(
            filled_files.keys().collect::<Vec<_>>(),
            single_files.keys().collect::<Vec<_>>(),
            "{name}: the objects of the store"
        );
        for (key, bytes) in &filled_files {
            assert!(
                single_files.get(key) == Some(bytes),
                "{name}: {key} differs"
            );
        }
        // Every chunk of t and time: 4 each, one per region.
        let chunks = filled_files.keys().filter(|k| k.starts_with('t')).count();
        assert!(
            chunks >= 2 * PARTS,
            "{name}: {chunks} objects under t and time"
        );
        let (ours, theirs) = (dump_body(&filled_url, &[]), dump_body(&single_url, &[]));
        assert!(
            ours == theirs,
            "{name}: ncdump differs at {}",
            first_difference(&theirs, &ours)
        );
        // Unlimited in NCZarr; plain Zarr has no unlimited dimensions.
        let twenty = ["time = UNLIMITED ; // (20 currently)", "time = 20 ;"];
        assert!(twenty.iter().any(|t| ours.contains(t)), "{name}: {ours}");
    }
}

#[test]
fn a_template_declares_the_dimension_and_copies_only_the_static_variables() {
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let store = dir.path().join("template.zarr");
    let store_text = store.to_string_lossy();
    nccopy_ok(
        &[
            "--template",
            "time=20",
            &parts[0].to_string_lossy(),
            &store_text,
        ],
        &[],
    );
    let files = tree(&store);
    assert!(
        files
            .keys()
            .any(|k| k.starts_with("x/") && !k.contains(".z")),
        "{files:?}"
    );
    assert!(
        !files.keys().any(|k| k.starts_with("t/0")),
        "no chunk of t: {:?}",
        files.keys()
    );
    let body = dump_body(&store_text, &[]);
    assert!(
        body.contains("time = UNLIMITED ; // (20 currently)"),
        "{body}"
    );
    assert!(body.contains(" time = _, _, _"), "{body}");
    assert!(body.contains(" x = 1, 2, 3, 4 ;"), "{body}");
}

/// Runs nccopy with `args`; it must fail with exit 1 and a message holding `wanted`.
#[track_caller]
fn refused(args: &[&str], wanted: &str) {
    let done = Test::ours("nccopy").args(args).run();
    assert_eq!(done.code, Some(1), "nccopy {args:?}: {}", done.stderr);
    assert!(
        done.stderr.contains(wanted),
        "nccopy {args:?}: {}",
        done.stderr
    );
}

#[test]
fn unaligned_regions_wrong_lengths_other_codecs_and_zip_archives_are_refused() {
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let part = parts[0].to_string_lossy();
    let store = dir.path().join("store.zarr");
    let store_text = store.to_string_lossy();
    nccopy_ok(&["--template", "time=20", &part, &store_text], &[]);
    let before = tree(&store);
    refused(
        &["--region", "time=3:8", &part, &store_text],
        "variable /time is stored in chunks of 5 along time, and a region must start and \
         end on chunk boundaries (or at the end, 20) so that no two writers share a chunk; \
         the aligned region that holds it is time=0:10",
    );
    refused(
        &["--region", "time=0:10", &part, &store_text],
        "--region time=0:10: the region holds 10 records of time, and the input has 5",
    );
    refused(
        &["--region", "time=20:25", &part, &store_text],
        "the region ends beyond the store's 20 records of time",
    );
    refused(
        &["-d", "5", "--region", "time=0:5", &part, &store_text],
        "--region time=0:5: the input does not match the store: variable /t: \
         compressor.level is 1 in the store, 5 in the input",
    );
    assert!(tree(&store) == before, "a refused region wrote nothing");
    let zip = format!("file://{}/t.zip#mode=zarr,zip", dir.path().display());
    nccopy_ok(&["--template", "time=20", &part, &zip], &[]);
    refused(
        &["--region", "time=0:5", &part, &zip],
        "a zip archive is written whole, by one writer: it cannot take region writes",
    );
    let file = dir.path().join("out.nc");
    let done = Test::ours("nccopy")
        .args(["--region", "time=0:5", &part, &file.to_string_lossy()])
        .run();
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("--template, --region and --append write a Zarr store"),
        "{}",
        done.stderr
    );
}

#[test]
fn attributes_may_differ_from_file_to_file() {
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let store = dir.path().join("store.zarr");
    let store_text = store.to_string_lossy();
    nccopy_ok(
        &[
            "--template",
            "time=20",
            &parts[0].to_string_lossy(),
            &store_text,
        ],
        &[],
    );
    let other = cdl("other", RECORDS, RECORDS).replace(
        "data:",
        "\tt:comment = \"reprocessed\" ;\n// global attributes:\n\t:history = \"day 5\" ;\ndata:",
    );
    let other = netcdf(dir.path(), "other", &other);
    nccopy_ok(
        &[
            "--region",
            "time=5:10",
            &other.to_string_lossy(),
            &store_text,
        ],
        &[],
    );
    let body = dump_body(&store_text, &[]);
    assert!(
        body.contains(" time = _, _, _, _, _, 5, 6, 7, 8, 9, _,"),
        "{body}"
    );
    assert!(
        !body.contains("reprocessed") && !body.contains("day 5"),
        "{body}"
    );
}

/// `nccopy --append time` of every part after the first, into a copy of the first.
pub fn append_all(parts: &[PathBuf], store: &str, env: &[(&str, &str)]) {
    nccopy_ok(&[&parts[0].to_string_lossy(), store], env);
    for part in &parts[1..] {
        nccopy_ok(&["--append", "time", &part.to_string_lossy(), store], env);
    }
}

#[test]
fn appends_make_the_store_a_single_copy_makes_byte_for_byte() {
    let dir = scratch();
    let (parts, all) = inputs(dir.path());
    for (name, fragment) in [
        ("nczarr", "#mode=nczarr"),
        ("v2", "#mode=zarr"),
        ("v3", "#mode=zarr,v3"),
    ] {
        let appended = dir.path().join(format!("appended-{name}.zarr"));
        let single = dir.path().join(format!("single-{name}.zarr"));
        append_all(
            &parts,
            &format!("file://{}{fragment}", appended.display()),
            &[],
        );
        nccopy_ok(
            &[
                &all.to_string_lossy(),
                &format!("file://{}{fragment}", single.display()),
            ],
            &[],
        );
        let (ours, theirs) = (tree(&appended), tree(&single));
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{name}"
        );
        for (key, bytes) in &ours {
            assert!(theirs.get(key) == Some(bytes), "{name}: {key} differs");
        }
    }
}

#[test]
fn appends_refuse_overlapping_coordinates_and_other_codecs_and_complete_a_partial_chunk() {
    let dir = scratch();
    let (parts, _) = inputs(dir.path());
    let store = dir.path().join("store.zarr");
    let store_text = store.to_string_lossy();
    append_all(&parts[..2], &store_text, &[]);
    let again = parts[1].to_string_lossy();
    let before = tree(&store);
    refused(
        &["--append", "time", &again, &store_text],
        "--append time: the input's time at record 0 is 5, and the store's last time is 9: \
         time must increase (a duplicate or overlapping range); --allow-overlap appends the \
         records anyway",
    );
    refused(
        &[
            "-d",
            "5",
            "--append",
            "time",
            &parts[2].to_string_lossy(),
            &store_text,
        ],
        "--append time: the input does not match the store: variable /t: compressor.level \
         is 1 in the store, 5 in the input",
    );
    assert!(tree(&store) == before, "a refused append wrote nothing");
    nccopy_ok(
        &["--append", "time", "--allow-overlap", &again, &store_text],
        &[],
    );
    let body = dump_body(&store_text, &[]);
    assert!(
        body.contains(" time = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 5, 6, 7, 8, 9 ;"),
        "{body}"
    );
    // Seven records in chunks of five: the last chunk is not full. It is read, completed
    // and written back (before: refused, "the store's 7 records do not fill its last
    // chunk; an append starts on a chunk boundary").
    let seven = netcdf(dir.path(), "seven", &cdl("seven", 0, 7));
    let short = dir.path().join("short.zarr");
    nccopy_ok(&[&seven.to_string_lossy(), &short.to_string_lossy()], &[]);
    let later = netcdf(dir.path(), "later", &cdl("later", 7, 5));
    nccopy_ok(
        &[
            "--append",
            "time",
            &later.to_string_lossy(),
            &short.to_string_lossy(),
        ],
        &[],
    );
    let twelve = netcdf(dir.path(), "twelve", &cdl("twelve", 0, 12));
    let whole = dir.path().join("whole.zarr");
    nccopy_ok(&[&twelve.to_string_lossy(), &whole.to_string_lossy()], &[]);
    let (appended, copied) = (
        dump_body(&short.to_string_lossy(), &[]),
        dump_body(&whole.to_string_lossy(), &[]),
    );
    assert!(
        appended == copied,
        "{}",
        first_difference(&copied, &appended)
    );
}

#[test]
fn a_reader_looping_during_appends_never_sees_records_without_their_chunks() {
    let dir = scratch();
    let parts: Vec<PathBuf> = (0..12)
        .map(|k| {
            let name = format!("day{k}");
            netcdf(dir.path(), &name, &cdl(&name, k * RECORDS, RECORDS))
        })
        .collect();
    let store = dir.path().join("store.zarr");
    let store_text = store.to_string_lossy().into_owned();
    nccopy_ok(&[&parts[0].to_string_lossy(), &store_text], &[]);
    let done = std::sync::atomic::AtomicBool::new(false);
    let lengths = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut lengths = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) || lengths.is_empty() {
                let dump = Test::ours("ncdump").arg(&store_text).run();
                ok("ncdump during appends", &dump);
                let length: usize = dump
                    .stdout
                    .lines()
                    .find(|l| l.contains("time = UNLIMITED"))
                    .unwrap_or_default()
                    .split("// (")
                    .nth(1)
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("no length in {}", dump.stdout));
                let data = crate::support::from_line(&dump.stdout, "data:");
                assert!(
                    !data.contains('_'),
                    "a record without its data:\n{}",
                    dump.stdout
                );
                let times: Vec<String> = data
                    .split(" time = ")
                    .nth(1)
                    .and_then(|rest| rest.split(';').next())
                    .unwrap_or_default()
                    .split(',')
                    .map(|v| v.trim().to_string())
                    .collect();
                let wanted: Vec<String> = (0..length).map(|d| d.to_string()).collect();
                assert!(times == wanted, "{length} records:\n{}", dump.stdout);
                lengths.push(length);
            }
            lengths
        });
        for part in &parts[1..] {
            nccopy_ok(
                &["--append", "time", &part.to_string_lossy(), &store_text],
                &[],
            );
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        reader
            .join()
            .unwrap_or_else(|_| panic!("the reader failed"))
    });
    assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
    let last = dump_body(&store_text, &[]);
    assert!(last.contains("// (60 currently)"), "{last}");
}

#[test]
fn a_region_written_again_leaves_the_store_as_one_copy_makes_it() {
    let dir = scratch();
    let (parts, all) = inputs(dir.path());
    let filled = dir.path().join("again.zarr");
    let single = dir.path().join("single.zarr");
    let store = format!("file://{}#mode=zarr", filled.display());
    fill_from_many_jobs(&parts, &store, &[]);
    // A task run a second time (as a job array re-runs a failed task): the same chunks.
    nccopy_ok(
        &[
            "--region",
            &format!("time={}:{}", RECORDS, 2 * RECORDS),
            &parts[1].to_string_lossy(),
            &store,
        ],
        &[],
    );
    nccopy_ok(
        &[
            &all.to_string_lossy(),
            &format!("file://{}#mode=zarr", single.display()),
        ],
        &[],
    );
    assert_eq!(
        tree(&filled),
        tree(&single),
        "the store after a region ran twice"
    );
}

/// Every entry of the zip archive `path` (Python's zipfile: the last of equal names),
/// by name, with its bytes, as JSON of hex strings.
fn zip_entries(path: &Path) -> BTreeMap<String, String> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    let script = "import json, sys, zipfile\n\
                  z = zipfile.ZipFile(sys.argv[1])\n\
                  print(json.dumps({n: z.read(n).hex() for n in z.namelist()}))";
    let done = crate::support::run(
        std::process::Command::new(&python)
            .args(["-c", script])
            .arg(path),
    );
    ok("zipfile", &done);
    serde_json::from_str(done.stdout.trim()).unwrap_or_else(|e| panic!("zipfile's output: {e}"))
}

#[test]
fn appends_to_a_zip_archive_rewrite_it_whole_to_what_a_single_copy_holds() {
    let dir = scratch();
    let (parts, all) = inputs(dir.path());
    for (name, appended, single) in [
        (
            "plain",
            dir.path().join("appended.zarr.zip").display().to_string(),
            dir.path().join("single.zarr.zip").display().to_string(),
        ),
        (
            "netCDF-C's layout",
            format!(
                "file://{}/appended.zip#mode=nczarr,zip",
                dir.path().display()
            ),
            format!("file://{}/single.zip#mode=nczarr,zip", dir.path().display()),
        ),
    ] {
        append_all(&parts, &appended, &[]);
        nccopy_ok(&[&all.to_string_lossy(), &single], &[]);
        let path = |text: &str| {
            PathBuf::from(
                text.trim_start_matches("file://")
                    .split('#')
                    .next()
                    .unwrap_or_default(),
            )
        };
        // The same entries with the same bytes (in another order: the archive is
        // rewritten, its old entries first).
        // netCDF-C's layout puts the store under a directory named after the file.
        let entries = |text: &str, stem: &str| -> BTreeMap<String, String> {
            zip_entries(&path(text))
                .into_iter()
                .map(|(k, v)| (k.trim_start_matches(&format!("{stem}/")).to_string(), v))
                .collect()
        };
        assert_eq!(
            entries(&appended, "appended"),
            entries(&single, "single"),
            "{name}"
        );
        let (ours, theirs) = (dump_body(&appended, &[]), dump_body(&single, &[]));
        assert!(
            ours == theirs,
            "{name}: ncdump differs at {}",
            first_difference(&theirs, &ours)
        );
        // A refused append leaves the archive as it was, and nothing beside it.
        let before = std::fs::read(path(&appended)).unwrap_or_default();
        refused(
            &[
                "-d",
                "5",
                "--append",
                "time",
                &parts[1].to_string_lossy(),
                &appended,
            ],
            "time must increase",
        );
        assert!(
            std::fs::read(path(&appended)).unwrap_or_default() == before,
            "{name}"
        );
    }
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("tmp"))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        leftovers.is_empty(),
        "left beside the archives: {leftovers:?}"
    );
}

#[test]
fn a_store_declaring_huge_chunks_is_refused_before_a_chunk_is_built() {
    // The store decides the chunks of an append or a region write, so its word on their
    // size is checked: chunks of 500,000,000 doubles (4 GB), none written. Before (once
    // appends took the store's chunks): a 6-record append built a 4 GB chunk in memory
    // (SIGABRT under a 4 GB address-space limit). `t(time, x)` declares 3.2 GB.
    let dir = scratch();
    let first = netcdf(dir.path(), "first", &cdl("first", 0, RECORDS));
    let next = netcdf(dir.path(), "next", &cdl("next", RECORDS, RECORDS));
    let store = dir.path().join("huge.zarr");
    let store_text = store.to_string_lossy().into_owned();
    nccopy_ok(
        &["-c", "time/5", &first.to_string_lossy(), &store_text],
        &[],
    );
    let huge = |var: &str| {
        if var == "time" {
            500_000_000
        } else {
            200_000_000
        }
    };
    edit_arrays(&store, &["time", "t"], |var, array| {
        if let Some(chunks) = array.get_mut("chunks").and_then(|c| c.as_array_mut()) {
            chunks[0] = huge(var).into();
        }
    });
    for var in ["time", "t"] {
        for entry in std::fs::read_dir(store.join(var))
            .into_iter()
            .flatten()
            .flatten()
        {
            if !entry.file_name().to_string_lossy().starts_with('.') {
                std::fs::remove_file(entry.path()).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    for args in [
        vec!["--append", "time", "--allow-overlap"],
        vec!["--region", "time=0:5"],
    ] {
        let mut args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
        args.extend([
            next.clone().into_os_string(),
            store.clone().into_os_string(),
        ]);
        let copied = crate::bounded::run_ours("nccopy", &args);
        let done = copied.assert_within(300, 60);
        assert_eq!(done.code, Some(1), "{args:?}: {}", done.stderr);
        assert!(
            done.stderr
                .contains("limit on chunks written into an existing store"),
            "{args:?}: {}",
            done.stderr
        );
    }
}

/// Red team s35 RB8: an append to a store whose record length was patched just under
/// what the readers take (`t(time, x)` of 2^63 bytes less a little) exited 0 and wrote a
/// length its own ncdump then refused ("more than netCDF can address"). The grown length
/// is checked before anything is written.
#[test]
fn an_append_that_would_grow_an_array_past_2_63_bytes_is_refused() {
    let dir = scratch();
    let first = netcdf(dir.path(), "first", &cdl("first", 0, RECORDS));
    let next = netcdf(dir.path(), "next", &cdl("next", RECORDS, RECORDS));
    let store = dir.path().join("long.zarr");
    let store_text = format!("file://{}#mode=zarr,file", store.display());
    nccopy_ok(&[&first.to_string_lossy(), &store_text], &[]);
    // t(time, 4) of float: 16 bytes a record.
    let length = (i64::MAX as u64) / 16 - 1;
    edit_arrays(&store, &["time", "t"], |_, array| {
        if let Some(shape) = array.get_mut("shape").and_then(|c| c.as_array_mut()) {
            shape[0] = length.into();
        }
    });
    ok(
        "ncdump -h",
        Test::ours("ncdump").args(["-h", &store_text]).run(),
    );
    let done = Test::ours("nccopy")
        .args(["--append", "time", "--allow-overlap"])
        .arg(&next)
        .arg(&store_text)
        .run();
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("variable /t would hold more than 2^63 bytes"),
        "{}",
        done.stderr
    );
    ok(
        "ncdump -h after",
        Test::ours("ncdump").args(["-h", &store_text]).run(),
    );
}
