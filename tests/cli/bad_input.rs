//! Damaged and wrong inputs: a classic file cut short, a classic header that does not add
//! up, and files that are not what a tool reads. Each ends with a plain message, exit 1,
//! nothing on standard output and no output file; never a crash.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{assert_no_crash, ok, scratch, Run, Test};

/// A classic file of every classic type, fixed and record variables, written by our ncgen
/// (the classic writer is libnetcdf's); `kind` is nc3, nc6 or nc5 (or nc4, through
/// libnetcdf's netCDF-4 writer).
fn classic(dir: &Path, kind: &str) -> PathBuf {
    let cdl = dir.join(format!("sample_{kind}.cdl"));
    fs::write(
        &cdl,
        "netcdf sample {\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 3 ;\nvariables:\n\
         \tint x(x) ;\n\t\tx:units = \"m\" ;\n\tdouble time(time) ;\n\
         \tshort v(time, x) ;\n\t\tv:_FillValue = -1s ;\n\tfloat f(time, x) ;\n\
         \tchar c(time, x) ;\n\tbyte b(x) ;\n\n// global attributes:\n\t\t:title = \"t\" ;\n\
         data:\n x = 1, 2, 3 ;\n time = 0.5, 1.5 ;\n v = 1, 2, 3, 4, 5, 6 ;\n\
         f = 1.5, 2.5, 3.5, 4.5, 5.5, 6.5 ;\n c = \"abc\", \"def\" ;\n b = -1, 0, 1 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join(format!("sample_{kind}.nc"));
    let made = Test::ours("ncgen")
        .args(["-k", kind, "-o"])
        .arg(&out)
        .arg(&cdl)
        .run();
    ok("made", &made);
    out
}

fn dump(args: &[&str], file: &Path) -> Run {
    Test::ours("ncdump").args(args).arg(file).run()
}

fn copy(args: &[&str], from: &Path, to: &Path) -> Run {
    Test::ours("nccopy").args(args).arg(from).arg(to).run()
}

/// Exit 1, one line on standard error holding `needle`, nothing on standard output.
fn assert_refused(run: &Run, needle: &str) {
    assert_no_crash(run);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(needle),
        "{needle:?} not in {}",
        run.stderr
    );
}

#[test]
fn a_truncated_classic_file_is_refused_before_anything_is_read() {
    let dir = scratch();
    for kind in ["nc3", "nc6", "nc5"] {
        let file = classic(dir.path(), kind);
        let bytes = fs::read(&file).unwrap_or_default();
        let cut = dir.path().join(format!("cut_{kind}.nc"));
        fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap_or_else(|e| panic!("{e}"));
        // The last value needs no padding after it: 9 bytes missing, not 10.
        let lengths = format!(
            "the file is truncated: its header needs {} bytes, the file has {} (9 missing)",
            bytes.len() - 1,
            bytes.len() - 10
        );
        assert_refused(&dump(&[], &cut), &lengths);
        assert_refused(&dump(&[], &cut), "use --allow-truncated");
        // nccopy writes nothing, and an existing target stays as it was.
        let out = dir.path().join("out.nc");
        assert_refused(&copy(&[], &cut, &out), &lengths);
        assert!(!out.exists(), "{kind}: an output was written");
        fs::write(&out, "precious").unwrap_or_else(|e| panic!("{e}"));
        assert_refused(&copy(&[], &cut, &out), &lengths);
        assert_eq!(fs::read_to_string(&out).unwrap_or_default(), "precious");
        fs::remove_file(&out).unwrap_or_else(|e| panic!("{e}"));

        // Asked for, what is there is read; the rest reads as fill values, with a warning.
        let filled = dump(&["--allow-truncated"], &cut);
        ok("filled", &filled);
        assert!(
            filled.stderr.contains("warning:") && filled.stderr.contains("9 missing"),
            "{}",
            filled.stderr
        );
        let whole = dump(&[], &file);
        ok("whole", &whole);
        let differing: Vec<(&str, &str)> = whole
            .stdout
            .lines()
            .zip(filled.stdout.lines())
            .skip(1)
            .filter(|(a, b)| a != b)
            .collect();
        // The last record ends with f[1, 1..3] (4 bytes each) and c[1] (3 bytes and one of
        // padding): cut in f[1, 1], the values from it on read as fill values.
        assert_eq!(
            differing,
            vec![
                ("  4.5, 5.5, 6.5 ;", "  4.5, _, _ ;"),
                ("  \"def\" ;", "  \"\" ;")
            ],
            "{kind}:\n{}",
            filled.stdout
        );
        let copied = copy(&["--allow-truncated"], &cut, &out);
        ok("copied", &copied);
        assert!(copied.stderr.contains("9 missing"), "{}", copied.stderr);
        let again = dump(&[], &out);
        assert!(again.stdout.contains("  4.5, _, _ ;"), "{}", again.stdout);
        fs::remove_file(&out).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn a_classic_header_that_does_not_add_up_says_what_and_where() {
    let dir = scratch();
    let file = classic(dir.path(), "nc3");
    let mut bytes = fs::read(&file).unwrap_or_default();
    // The dimension list's tag (bytes 8..12) made the variables' one.
    bytes[11] = 0x0B;
    let bad = dir.path().join("bad.nc");
    fs::write(&bad, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let says = "bad.nc: damaged netCDF classic file: corrupt header at byte 8: expected the \
                dimensions list (tag 10), found tag 11";
    assert_refused(&dump(&["-h"], &bad), says);
    assert_refused(&copy(&[], &bad, &dir.path().join("out.nc")), says);
    assert!(!dir.path().join("out.nc").exists());
}

#[test]
fn every_cut_of_a_classic_file_fails_cleanly() {
    let dir = scratch();
    let file = classic(dir.path(), "nc6");
    let bytes = fs::read(&file).unwrap_or_default();
    let cut = dir.path().join("cut.nc");
    let out = dir.path().join("out.nc");
    for len in (0..bytes.len()).step_by(3) {
        fs::write(&cut, &bytes[..len]).unwrap_or_else(|e| panic!("{e}"));
        let dumped = dump(&[], &cut);
        assert_refused(&dumped, "cut.nc: ");
        if len % 15 == 0 {
            assert_refused(&copy(&[], &cut, &out), "cut.nc: ");
            assert!(!out.exists(), "cut at {len}: an output was written");
        }
    }
}

#[test]
fn every_cut_of_a_netcdf4_file_fails_cleanly_and_is_not_handed_to_libnetcdf() {
    // A file with HDF5's signature that HDF5 cannot open for nctools' checks is refused
    // by them, not handed to libnetcdf unchecked (whose open differs); the reference says
    // "NetCDF: HDF error" for each.
    let dir = scratch();
    let file = classic(dir.path(), "nc4");
    let bytes = fs::read(&file).unwrap_or_default();
    assert!(bytes.len() > 4000, "{} bytes", bytes.len());
    let cut = dir.path().join("cut.nc");
    let out = dir.path().join("out.nc");
    let cannot_open = "cut.nc: truncated or corrupt netCDF-4/HDF5 file (HDF5 finds its \
                       signature but cannot open it: it is cut short, its superblock or root \
                       group is damaged, or a program writing it holds its lock)";
    for len in (8..bytes.len()).step_by(211).chain([bytes.len() - 1]) {
        fs::write(&cut, &bytes[..len]).unwrap_or_else(|e| panic!("{e}"));
        let needle = if len < 1000 || len == bytes.len() - 1 {
            cannot_open
        } else {
            "cut.nc: "
        };
        assert_refused(&dump(&["-h"], &cut), needle);
        assert_refused(&copy(&[], &cut, &out), needle);
        assert!(!out.exists(), "cut at {len}: an output was written");
    }
}

#[test]
fn each_tool_names_a_wrong_input_in_the_same_words() {
    let dir = scratch();
    let path = |name: &str| dir.path().join(name);
    fs::write(path("empty.nc"), b"").unwrap_or_else(|e| panic!("{e}"));
    fs::write(path("model.cdl"), b"netcdf model {\n}\n").unwrap_or_else(|e| panic!("{e}"));
    fs::write(path("noise.bin"), b"\x00\x01\x02\xffnot netcdf").unwrap_or_else(|e| panic!("{e}"));
    let out = path("out.nc");
    let generate = |input: &Path| Test::ours("ncgen").arg("-o").arg(&out).arg(input).run();
    for (input, says) in [
        (path("missing.nc"), "missing.nc: no such file"),
        (dir.path().to_path_buf(), ": is a directory"),
        (path("empty.nc"), "empty.nc: empty file"),
    ] {
        assert_refused(&dump(&[], &input), says);
        assert_refused(&copy(&[], &input, &out), says);
        assert_refused(&generate(&input), says);
    }
    assert_refused(
        &dump(&[], &path("model.cdl")),
        "model.cdl: a text file in CDL, not a netCDF file; make a netCDF file from it with \
         `ncgen -o out.nc ",
    );
    assert_refused(
        &copy(&[], &path("noise.bin"), &out),
        "noise.bin: not a netCDF file (unknown format: it starts with 00 01 02 ff 6e 6f 74 20",
    );
    let netcdf = classic(dir.path(), "nc3");
    assert_refused(
        &generate(&netcdf),
        "sample_nc3.nc: a netCDF file, not CDL text; ncgen reads CDL (to see this file as \
         CDL, run `ncdump ",
    );
    assert!(!out.exists());
}

/// Every message that shows a name the user typed or an input holds shows its terminal
/// controls escaped (`\u{1b}`), whichever tool prints it and whatever prefix it has
/// (`opening URL: ...`, `no such file`, a redacted URL, a CDL line under a parse error,
/// an output name).
/// Before: `ncdump: opening http://.../a<ESC>[31mb<CR>c.zarr...` reached the terminal
/// raw (the rest of the line in red, its start overwritten), from all three tools.
#[test]
fn terminal_controls_in_typed_names_are_escaped_in_every_message() {
    let dir = scratch();
    let evil = "a\u{1b}[31mb\rc";
    let path = dir.path().join(format!("{evil}.nc"));
    let path = path.to_string_lossy().into_owned();
    let store = format!("file://{}/{evil}.zarr#mode=zarr", dir.path().display());
    // Port 1 on the loopback refuses the connection.
    let http = format!("http://127.0.0.1:1/{evil}.zarr#mode=zarr");
    let redacted = format!("https://user:pw@h{evil}/x.zarr#mode=zarr");
    let cdl = dir.path().join("bad.cdl");
    fs::write(
        &cdl,
        format!("netcdf x {{\ndimensions:\n\t{evil} = ;\n}}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let cdl = cdl.to_string_lossy().into_owned();
    let good = dir.path().join("good.cdl");
    fs::write(&good, "netcdf g {\ndimensions:\n\td = 1 ;\n}\n").unwrap_or_else(|e| panic!("{e}"));
    let good = good.to_string_lossy().into_owned();
    let out_in_missing_dir = dir
        .path()
        .join(evil)
        .join("out.nc")
        .to_string_lossy()
        .into_owned();
    let runs: Vec<(&str, Vec<&str>)> = vec![
        ("ncdump", vec![&path]),
        ("ncdump", vec!["-h", &store]),
        ("ncdump", vec!["-h", &http]),
        ("ncdump", vec!["-h", &redacted]),
        ("nccopy", vec![&path, "out.nc"]),
        ("nccopy", vec![&store, "out.nc"]),
        ("nccopy", vec![&http, "out.nc"]),
        ("nccopy", vec![&redacted, "out.nc"]),
        ("ncgen", vec!["-o", "out.nc", &path]),
        ("ncgen", vec!["-o", "out.nc", &cdl]),
        ("ncgen", vec!["-o", &out_in_missing_dir, &good]),
    ];
    for (tool, args) in runs {
        let run = Test::ours(tool).args(&args).current_dir(dir.path()).run();
        assert_no_crash(&run);
        assert!(
            matches!(run.code, Some(1 | 2)),
            "{tool} {args:?}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains('\u{1b}') && !run.stderr.contains('\r'),
            "{tool} {args:?}: a raw control in {:?}",
            run.stderr
        );
        assert!(
            run.stderr.contains("\\u{1b}[31m"),
            "{tool} {args:?}: the name is shown escaped: {}",
            run.stderr
        );
    }
}
