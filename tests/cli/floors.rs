//! The dependency floors (docs/development.md, "Layout"): the settings (`settings`), the
//! data model (`ncmodel`), the filter names (`known-filters`), the key-value layer (`kv`)
//! and the temporaries (`cleanup`) depend on no other crate of ours above them; they, the
//! storage boundary (`store`), the `-F` grammar (`filterspec`), `-c`'s (`chunkspec`) and
//! CDL (`cdl`) link no C library and no async runtime, as `cargo tree` shows them.

use std::path::Path;
use std::process::Command;

use crate::support::{ok, run};

/// The crates of the workspace by package name, from each `crates/*/Cargo.toml`.
fn our_crates() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
    {
        let manifest = std::fs::read_to_string(entry.path().join("Cargo.toml")).unwrap_or_default();
        if let Some(name) = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
        {
            names.push(name.to_string());
        }
    }
    names
}

/// The packages `krate` depends on for its build (normal dependencies, on this
/// platform), by name, itself excluded.
fn dependencies(krate: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tree = run(Command::new(cargo)
        .args(["tree", "-p", krate, "-e", "normal", "--prefix", "none"])
        .args(["--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR")));
    assert_eq!(tree.code, Some(0), "cargo tree -p {krate}: {}", tree.stderr);
    let mut names: Vec<String> = tree
        .stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != krate)
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Whether the package `name` compiles or links C (a `-sys` or `-src` crate, ring's
/// assembly and C) or is an async runtime.
fn is_c_or_async(name: &str) -> bool {
    (name.ends_with("-sys") && name != "linux-raw-sys")
        || name.ends_with("-src")
        || matches!(name, "tokio" | "ring" | "link-cplusplus" | "aws-lc-rs")
}

#[test]
fn the_lower_floors_link_no_c_and_no_async_runtime() {
    for krate in [
        "settings",
        "ncmodel",
        "known-filters",
        "kv",
        "cleanup",
        "store",
        "filterspec",
        "chunkspec",
        "cdl",
    ] {
        let dependencies = dependencies(krate);
        let leaf = matches!(krate, "settings" | "known-filters");
        assert!(!dependencies.is_empty() || leaf, "{krate}");
        let c: Vec<&String> = dependencies.iter().filter(|d| is_c_or_async(d)).collect();
        assert!(c.is_empty(), "{krate} depends on {c:?}");
    }
    // The check itself: the codec crate does compile C.
    assert!(dependencies("codecs").iter().any(|d| is_c_or_async(d)));
}

#[test]
fn floor_one_depends_on_no_crate_of_ours_above_it() {
    let ours = our_crates();
    assert!(ours.iter().any(|c| c == "zarr"), "{ours:?}");
    for (krate, allowed) in [
        ("settings", &[][..]),
        ("known-filters", &[][..]),
        ("ncmodel", &["settings"][..]),
        ("cleanup", &["settings"][..]),
        ("kv", &["cleanup", "settings"][..]),
        ("store", &["ncmodel", "kv", "cleanup", "settings"][..]),
    ] {
        let above: Vec<String> = dependencies(krate)
            .into_iter()
            .filter(|d| ours.contains(d) && !allowed.contains(&d.as_str()))
            .collect();
        assert!(above.is_empty(), "{krate} depends on {above:?}");
    }
}

/// The packages of the tools built without default features, by name.
fn lean_dependencies() -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tree = run(Command::new(cargo)
        .args([
            "tree",
            "-p",
            "nctools",
            "--no-default-features",
            "-e",
            "normal",
        ])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR")));
    ok("cargo tree", &tree);
    tree.stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// `--no-default-features` leaves out the object-store stack (objstore, and with it
/// tokio, the HTTP client and TLS); the default build has it. `scripts/test` builds the
/// lean tools too (`cargo check --no-default-features`).
#[test]
fn the_tools_without_default_features_have_no_object_store_stack() {
    let lean = lean_dependencies();
    assert!(lean.iter().any(|d| d == "zarr"), "{lean:?}");
    for stack in ["objstore", "object_store", "tokio", "reqwest", "rustls"] {
        assert!(!lean.iter().any(|d| d == stack), "{stack} in {lean:?}");
    }
    assert!(dependencies("nctools").iter().any(|d| d == "objstore"));
}
