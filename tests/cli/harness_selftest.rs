//! The test harness itself, run with deliberately broken tools: one killed by SIGSEGV, one
//! that prints nothing and exits 0, one that panics (our hook's message, exit 101), one
//! that says "internal error" and exits 1. Each must fail the checks that guard the real
//! tools ([`assert_no_crash`], [`Test::run`], the ncgen differential test whichever way the
//! reference goes, the ncdump comparison); the reference tools in the same place must pass
//! them, so that a failure here is the stand-in's and not the setup's.
//! (scripts/conformance has its own: `scripts/conformance self-test`.)

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crate::support::{assert_no_crash, assert_rejected, reference, scratch, Test};

/// The broken stand-ins, as (name, shell script body).
const BROKEN: [(&str, &str); 5] = [
    (
        "segfaults",
        "exec python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'",
    ),
    ("silent", "exit 0"),
    (
        "panics",
        "echo \"$(basename \"$0\"): internal error (index out of bounds); this is a bug in \
         nctools: please report it with the command you ran\" >&2; exit 101",
    ),
    (
        "internal-error",
        "echo \"$(basename \"$0\"): internal error: no token\" >&2; exit 1",
    ),
    (
        "contained-crash",
        "echo \"$(basename \"$0\"): x.nc: crashed inside the netCDF/HDF5 library while \
         reading the schema (signal 11, SIGSEGV); the file is probably corrupt\" >&2; exit 1",
    ),
];

/// Writes the stand-in `name` (one of [`BROKEN`]) as `dir/name/tool`; returns its path.
fn stand_in(dir: &Path, name: &str, tool: &str) -> PathBuf {
    let Some((_, body)) = BROKEN.iter().find(|(n, _)| *n == name) else {
        panic!("no stand-in {name}");
    };
    let sub = dir.join(name);
    fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{sub:?}: {e}"));
    let path = sub.join(tool);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{path:?}: {e}"));
    path
}

/// Whether `check` fails (panics); its message goes to the captured output.
fn fails(check: impl FnOnce()) -> bool {
    catch_unwind(AssertUnwindSafe(check)).is_err()
}

#[test]
fn every_broken_stand_in_is_a_crash_or_not_a_rejection() {
    let dir = scratch();
    for (name, _) in BROKEN {
        let tool = stand_in(dir.path(), name, "ncdump");
        let done = crate::support::run(&mut std::process::Command::new(&tool));
        match name {
            "segfaults" => assert_eq!(done.signal, Some(11), "{name}: {}", done.stderr),
            "silent" => assert_eq!(done.code, Some(0), "{name}"),
            _ => {}
        }
        // Exit 0 is no rejection; the others are crashes.
        assert!(!done.is_rejection(), "{name} passed for a rejection");
        assert!(
            fails(|| assert_rejected(&done, name)),
            "assert_rejected passed {name}"
        );
        if name != "silent" {
            assert!(done.crash().is_some(), "{name} is not seen as a crash");
            assert!(
                fails(|| assert_no_crash(&done)),
                "assert_no_crash passed {name}"
            );
            assert!(
                fails(|| {
                    Test::program(&tool).run();
                }),
                "Test::run passed {name}"
            );
        }
    }
    // And a genuine error is a rejection, not a crash.
    let done = Test::ours("ncdump")
        .arg(dir.path().join("missing.nc"))
        .run();
    assert!(done.is_rejection(), "{}", done.stderr);
}

#[test]
fn the_ncgen_differential_test_fails_with_a_broken_ncgen() {
    if !crate::ncgen::have_reference() {
        return;
    }
    let dir = scratch();
    let accepted = crate::ncgen::case("ncgen", "records");
    let rejected = crate::ncgen::write_cdl(dir.path(), "bad", crate::ncgen::SYNTAX_ERROR);
    // The reference ncgen in place of ours passes, both ways.
    let Some(theirs) = reference("ncgen") else {
        return;
    };
    let control = dir.path().join("control");
    crate::ncgen::differential_with(&theirs, &control, "records", &accepted, "nc4", &[]);
    crate::ncgen::differential_with(&theirs, &control, "bad", &rejected, "nc4", &[]);
    for (name, _) in BROKEN {
        let ncgen = stand_in(dir.path(), name, "ncgen");
        for (label, cdl) in [("records", &accepted), ("bad", &rejected)] {
            let work = dir.path().join(format!("{name}-{label}"));
            assert!(
                fails(|| crate::ncgen::differential_with(&ncgen, &work, label, cdl, "nc4", &[])),
                "the differential test passed an ncgen that {name}, on {label} (the reference {})",
                if label == "bad" {
                    "rejects it"
                } else {
                    "accepts it"
                }
            );
        }
    }
}

#[test]
fn the_ncdump_comparison_fails_with_a_broken_ncdump() {
    let dir = scratch();
    let Some(file) = crate::ncdump::build(dir.path(), "classic", "nc3") else {
        return;
    };
    let Some(theirs) = reference("ncdump") else {
        return;
    };
    crate::ncdump::assert_same_as_reference(&theirs, "classic", &["-h"], &file);
    for (name, _) in BROKEN {
        let ncdump = stand_in(dir.path(), name, "ncdump");
        assert!(
            fails(|| crate::ncdump::assert_same_as_reference(&ncdump, "classic", &["-h"], &file)),
            "the ncdump comparison passed an ncdump that {name}"
        );
    }
    // Also where the reference itself fails (a missing file): a crash is not its failure.
    let missing = dir.path().join("missing.nc");
    crate::ncdump::assert_same_as_reference(&theirs, "missing", &[], &missing);
    for (name, _) in BROKEN {
        let ncdump = stand_in(dir.path(), name, "ncdump");
        assert!(
            fails(|| crate::ncdump::assert_same_as_reference(&ncdump, "missing", &[], &missing)),
            "the ncdump comparison passed an ncdump that {name}, on a missing file"
        );
    }
}
