//! What parsing a store's metadata documents costs is bounded by what they hold, not
//! only by their length: a document is weighed (values, and names of members) before it
//! is parsed, and one heavier than nctools parses at once is refused; consolidated
//! metadata that heavy is set aside for the store's own documents.
//!
//! Before, a 60 MB `.zattrs` of single digits (30 million values) cost 883 MB and 17 s
//! in a release build, 2.4 GB and 107 s in a debug one: documents were capped at 64 MiB
//! read, but parsed into a tree of some 32 bytes per value.

use std::fs;
use std::path::Path;

use crate::bounded::run_ours;
use crate::support::{ok, scratch};

/// The memory ceiling of every run here, in MiB.
const CEILING_MIB: u64 = 300;

/// A JSON array of `n` ones.
fn ones(n: usize) -> String {
    let mut text = String::with_capacity(2 * n + 2);
    text.push('[');
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        text.push('1');
    }
    text.push(']');
    text
}

/// Writes the pure Zarr v2 group `store` with the attributes document `zattrs`.
fn group_with_attributes(store: &Path, zattrs: &str) {
    fs::create_dir_all(store).unwrap_or_else(|e| panic!("{e}"));
    fs::write(store.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap_or_else(|e| panic!("{e}"));
    fs::write(store.join(".zattrs"), zattrs).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_document_of_millions_of_values_is_refused_before_it_is_parsed() {
    let dir = scratch();
    let v2 = dir.path().join("digits.zarr");
    group_with_attributes(&v2, &format!(r#"{{"a": {}}}"#, ones(30_000_000)));
    let v3 = dir.path().join("digits3.zarr");
    fs::create_dir_all(&v3).unwrap_or_else(|e| panic!("{e}"));
    fs::write(
        v3.join("zarr.json"),
        format!(
            r#"{{"zarr_format": 3, "node_type": "group", "attributes": {{"a": {}}}}}"#,
            ones(30_000_000)
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for (store, document) in [(&v2, ".zattrs"), (&v3, "zarr.json")] {
        let bounded = run_ours("ncdump", ["-h".as_ref(), store.as_os_str()]);
        let run = bounded.assert_within(CEILING_MIB, 60);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains(document)
                && run
                    .stderr
                    .contains("more than 2097152 JSON values and names")
                && run.stderr.contains("belongs in a variable"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_document_just_under_the_weight_is_read_in_bounded_memory() {
    // 520,000 members of one object weigh 1,560,002 (a member weighs three) and their
    // 3.5 MB of names 442,000 more (a unit per 8 bytes of strings): just under 2 Mi, the
    // heaviest shape per byte of text; it is read and printed.
    let dir = scratch();
    let store = dir.path().join("members.zarr");
    let members: Vec<String> = (0..520_000).map(|i| format!(r#""k{i}":1"#)).collect();
    group_with_attributes(
        &store,
        &format!(r#"{{"a": {{{}}}, "b": 7}}"#, members.join(",")),
    );
    let bounded = run_ours("ncdump", ["-h".as_ref(), store.as_os_str()]);
    let run = bounded.assert_within(CEILING_MIB, 60);
    ok("run", run);
    assert!(run.stdout.contains("\t\t:b = 7 ;"), "{}", run.stdout);
    assert!(
        run.stdout.contains(r#"\"k519999\": 1}"#),
        "{}",
        &run.stdout[..200]
    );
}

#[test]
fn consolidated_metadata_too_heavy_to_parse_is_set_aside_for_the_stores_documents() {
    let dir = scratch();
    let store = dir.path().join("heavy.zarr");
    group_with_attributes(&store, r#"{"title": "small"}"#);
    fs::write(
        store.join(".zmetadata"),
        format!(
            r#"{{"zarr_consolidated_format": 1, "metadata": {{".zgroup": {{"zarr_format": 2}}, ".zattrs": {{"title": {}}}}}}}"#,
            ones(2_200_000)
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let bounded = run_ours("ncdump", ["-h".as_ref(), store.as_os_str()]);
    let run = bounded.assert_within(CEILING_MIB, 60);
    ok("run", run);
    assert!(
        run.stdout.contains("\t\t:title = \"small\" ;"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(".zmetadata")
            && run
                .stderr
                .contains("was set aside and the store's own metadata documents were read instead"),
        "{}",
        run.stderr
    );
}

/// The documents of one store weigh at most 4 Mi in all (red team, session 28: 25 arrays
/// whose `.zattrs` each held a list of 2,000,000 empty strings, a 155 KB `.zarr.zip`,
/// took `ncdump -h` to 2.4 GB and crashed nccopy at 3.6 GB; lists of numbers, 10 arrays
/// in 42 KB, 267 MB and 374 MB, linear in the number of arrays). Refused once the sum
/// passes the limit, naming the document where it did.
#[test]
fn the_documents_of_one_store_are_bounded_in_all() {
    let dir = scratch();
    let Some(python) = crate::support::zarr_python() else {
        return;
    };
    let script = r#"
import json, zipfile
for name, item in [("strings", '""'), ("numbers", "0")]:
    body = ('{"_ARRAY_DIMENSIONS":["x"],"a":[' + ",".join([item] * 1900000) + "]}").encode()
    with zipfile.ZipFile(name + ".zarr.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(".zgroup", json.dumps({"zarr_format": 2}))
        for i in range(10):
            z.writestr(f"v{i}/.zarray", json.dumps({"zarr_format": 2, "shape": [2],
                "chunks": [2], "dtype": "<f4", "compressor": None, "filters": None,
                "fill_value": 0, "order": "C"}))
            z.writestr(f"v{i}/.zattrs", body)
"#;
    let made = crate::support::run(
        std::process::Command::new(&python)
            .arg("-c")
            .arg(script)
            .current_dir(dir.path()),
    );
    ok("python", &made);
    for name in ["strings", "numbers"] {
        let archive = dir.path().join(format!("{name}.zarr.zip"));
        let copy = dir.path().join(format!("{name}.nc"));
        for run in [
            run_ours("ncdump", ["-h".as_ref(), archive.as_os_str()]),
            run_ours("nccopy", [archive.as_os_str(), copy.as_os_str()]),
        ] {
            // The time limit only stops a runaway (alone, each run takes about 8 s; with
            // the whole suite beside it on 2 cores, it once passed 60 s).
            let run = run.assert_within(CEILING_MIB, 300);
            assert_eq!(run.code, Some(1), "{name}: {}", run.stderr);
            assert!(
                run.stderr
                    .contains("more than 4194304 JSON values and names in all"),
                "{name}: {}",
                run.stderr
            );
        }
    }
}

/// Ten arrays whose `.zattrs` each hold one attribute string of 24,000,000 bytes: a
/// 240 KB `.zarr.zip`. A string weighed as one value, so each document weighed 3. Before:
/// `ncdump -h` of ten such strings of 60 MB took 1.26 GB and 165 s (red team, session 29).
/// Now strings count one unit per 8 bytes: a document holds at most 16 MiB of them, a
/// store 32 MiB, and this one is refused in bounded memory, naming the limit.
#[test]
fn long_attribute_strings_weigh_their_bytes() {
    let dir = scratch();
    let Some(python) = crate::support::zarr_python() else {
        return;
    };
    let script = r#"
import json, zipfile
body = ('{"_ARRAY_DIMENSIONS":["x"],"a":"' + "a" * 24000000 + '"}').encode()
with zipfile.ZipFile("long.zarr.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(".zgroup", json.dumps({"zarr_format": 2}))
    for i in range(10):
        z.writestr(f"v{i}/.zarray", json.dumps({"zarr_format": 2, "shape": [2],
            "chunks": [2], "dtype": "<f4", "compressor": None, "filters": None,
            "fill_value": None, "order": "C"}))
        z.writestr(f"v{i}/.zattrs", body)
"#;
    let made = crate::support::run(
        std::process::Command::new(&python)
            .arg("-c")
            .arg(script)
            .current_dir(dir.path()),
    );
    ok("python", &made);
    let archive = dir.path().join("long.zarr.zip");
    let dump = run_ours("ncdump", ["-h".as_ref(), archive.as_os_str()]);
    let run = dump.assert_within(CEILING_MIB, 300);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("strings counting one per 8 bytes"),
        "{}",
        run.stderr
    );
}

#[test]
fn whitespace_and_digits_weigh_their_bytes_too() {
    // Red team s30 M4: bytes outside strings weighed nothing, so ten `.zattrs` of 60 MB
    // of spaces (or one 60 MB number) in a 587 KB zip took minutes of CPU to parse. Now
    // each weighs one unit per 16 bytes, and such a document is refused before parsing.
    let dir = scratch();
    let Some(python) = crate::support::zarr_python() else {
        return;
    };
    let script = r#"
import json, zipfile
spaces = ('{"a": 1' + " " * 40000000 + '}').encode()
number = ('{"a": 1' + "0" * 40000000 + '}').encode()
with zipfile.ZipFile("blank.zarr.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(".zgroup", json.dumps({"zarr_format": 2}))
    z.writestr(".zattrs", spaces)
with zipfile.ZipFile("number.zarr.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(".zgroup", json.dumps({"zarr_format": 2}))
    z.writestr(".zattrs", number)
"#;
    let made = crate::support::run(
        std::process::Command::new(&python)
            .arg("-c")
            .arg(script)
            .current_dir(dir.path()),
    );
    ok("python", &made);
    for name in ["blank.zarr.zip", "number.zarr.zip"] {
        let archive = dir.path().join(name);
        let dump = run_ours("ncdump", ["-h".as_ref(), archive.as_os_str()]);
        let run = dump.assert_within(CEILING_MIB, 120);
        assert_eq!(run.code, Some(1), "{name}: {}", run.stderr);
        assert!(
            run.stderr.contains("other text one per 16"),
            "{name}: {}",
            run.stderr
        );
    }
}
