//! Names netCDF refuses (`../../EVIL`, `/etc/cron.d`, `..`, control characters), coming
//! from an input: nccopy of a classic file crafted byte by byte or of a Zarr store, and
//! ncgen of CDL. Whatever the output (netCDF-4, classic, Zarr), each is refused in the
//! reference's words, naming the object, with exit 1 and nothing written anywhere (a
//! Zarr store's group `..` would otherwise be a directory above the store).

use std::fs;
use std::path::Path;

use classic::testfile::{TestFile, TestVar};

use crate::support::{ok, reference, run_reference, scratch, zarr_python, Run, Test};

/// What the reference tools say (libnetcdf's `NC_EBADNAME`).
const ILLEGAL: &str = "NetCDF: Name contains illegal characters";

/// Every path under `dir`, relative and sorted (a snapshot of what a run created).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            out.push(
                path.strip_prefix(dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string(),
            );
            if path.is_dir() {
                pending.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Exit 1, one line naming `what` with the reference's words.
#[track_caller]
fn assert_bad_name(run: &Run, what: &str) {
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains(&format!("{what}: {ILLEGAL}")),
        "{what:?} not in {}",
        run.stderr
    );
}

/// A classic file of one dimension `dim`, one int variable `var` with the attribute
/// `att`.
fn crafted(dim: &'static str, var: &'static str, att: &'static str) -> TestFile {
    TestFile {
        version: 1,
        numrecs: 0,
        dims: vec![(dim, 2)],
        global_atts: vec![],
        vars: vec![TestVar {
            name: var,
            dims: vec![0],
            nc_type: 4,
            atts: vec![(att, 2, b"m".to_vec(), 1)],
        }],
    }
}

#[test]
fn nccopy_refuses_names_from_a_classic_input_before_writing_anything() {
    let dir = scratch();
    // The tools run two levels down, so that `..` would land inside the scratch dir.
    let work = dir.path().join("a/b");
    fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{e}"));
    let cases = [
        (
            "evil.nc",
            crafted("x", "../../EVIL", "units"),
            "variable \"../../EVIL\"",
        ),
        (
            "cron.nc",
            crafted("/etc/cron.d", "v", "units"),
            "dimension \"/etc/cron.d\"",
        ),
        ("dots.nc", crafted("x", "..", "units"), "variable \"..\""),
        (
            "control.nc",
            crafted("x", "v", "a\u{1}b"),
            "attribute \"a\\u{1}b\" of variable /v",
        ),
    ];
    for (file, crafted, _) in &cases {
        let mut bytes = crafted.header_only();
        bytes.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 2]);
        fs::write(work.join(file), bytes).unwrap_or_else(|e| panic!("{e}"));
    }
    let before = tree(dir.path());
    for (file, _, what) in &cases {
        for (args, out) in [
            (&[][..], "out.zarr"),
            (&["-k", "nc4"][..], "out.nc"),
            (&["-k", "classic"][..], "out.nc"),
        ] {
            let copied = Test::ours("nccopy")
                .args(args)
                .arg(file)
                .arg(out)
                .current_dir(&work)
                .run();
            assert_bad_name(&copied, what);
            assert_eq!(
                tree(dir.path()),
                before,
                "{file} {args:?} {out}: wrote something"
            );
        }
    }
    if reference("nccopy").is_some() {
        // The reference refuses them too (after creating its output: not compared).
        for (file, _, _) in &cases {
            let out = dir.path().join("ref.nc");
            let theirs = run_reference("nccopy", [work.join(file), out.clone()]);
            assert_eq!(theirs.code, Some(1), "{file}: {}", theirs.stderr);
            assert!(theirs.stderr.contains(ILLEGAL), "{file}: {}", theirs.stderr);
            let _ = fs::remove_file(&out);
        }
    }
}

#[test]
fn ncgen_refuses_escaped_names_that_are_not_netcdf_names() {
    let dir = scratch();
    let work = dir.path().join("a/b");
    fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{e}"));
    let cases = [
        (
            "var.cdl",
            "netcdf x {\nvariables:\n  int \\.\\.\\/\\.\\.\\/X ;\n}\n",
            "variable \"../../X\"",
        ),
        (
            "group.cdl",
            "netcdf x {\ngroup: \\.\\. {\nvariables:\n  int v ;\ndata:\n  v = 1 ;\n}\n}\n",
            "group \"..\"",
        ),
    ];
    for (file, cdl, _) in &cases {
        fs::write(work.join(file), cdl).unwrap_or_else(|e| panic!("{e}"));
    }
    let before = tree(dir.path());
    for (file, _, what) in &cases {
        for (args, out) in [
            (&[][..], "out.zarr"),
            (&["-k", "nc4"][..], "out.nc"),
            (&["-k", "nc3"][..], "out.nc"),
        ] {
            let made = Test::ours("ncgen")
                .args(args)
                .args(["-o", out, file])
                .current_dir(&work)
                .run();
            if args == ["-k", "nc3"] && *file == "group.cdl" {
                // Groups are refused for the classic format first.
                assert_eq!(made.code, Some(1), "{}", made.stderr);
                assert!(
                    made.stderr.contains("which the classic format cannot hold"),
                    "{}",
                    made.stderr
                );
            } else {
                assert_bad_name(&made, what);
            }
            assert_eq!(
                tree(dir.path()),
                before,
                "{file} {args:?} {out}: wrote something"
            );
        }
    }
    if reference("ncgen").is_some() {
        // The reference's lexer refuses these escapes: a syntax error, exit 1.
        for (file, _, _) in &cases {
            let out = dir.path().join("ref.nc");
            let theirs = run_reference(
                "ncgen",
                [
                    "-k".as_ref(),
                    "nc4".as_ref(),
                    "-o".as_ref(),
                    out.as_os_str(),
                    work.join(file).as_os_str(),
                ],
            );
            assert_eq!(theirs.code, Some(1), "{file}: {}", theirs.stderr);
            assert!(theirs.stderr.contains("syntax error"), "{}", theirs.stderr);
            assert!(!out.exists());
        }
    }
}

#[test]
fn nccopy_refuses_names_from_a_zarr_input() {
    let Some(python) = zarr_python() else {
        return;
    };
    let dir = scratch();
    let script = "import zarr, numpy as np\n\
                  g = zarr.open_group('in.zarr', mode='w', zarr_format=2)\n\
                  v = g.create_array('v', shape=(3,), dtype='int32', fill_value=None)\n\
                  v[:] = np.arange(3, dtype='int32')\n\
                  v.attrs['_ARRAY_DIMENSIONS'] = ['x']\n\
                  v.attrs['../../EVIL'] = 1\n";
    let made = crate::support::run(
        std::process::Command::new(&python)
            .args(["-c", script])
            .current_dir(dir.path()),
    );
    ok("made", &made);
    let before = tree(dir.path());
    for out in ["out.zarr", "out.nc"] {
        let copied = Test::ours("nccopy")
            .args(["in.zarr", out])
            .current_dir(dir.path())
            .run();
        assert_bad_name(&copied, "attribute \"../../EVIL\" of variable /v");
        assert_eq!(tree(dir.path()), before, "{out}: wrote something");
    }
}
