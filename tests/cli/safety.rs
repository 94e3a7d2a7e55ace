//! Memory safety at the C boundary: inputs an untrusted file's author controls (long
//! names, odd `_NCProperties` lengths), values that do not fit their type, and a second
//! Ctrl-C. Each ends with exit 0 and the reference's output, or exit 1 with a message;
//! never a signal, and never a file left behind.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::nccopy::{slow_copy_under_way, SlowCopy};
use crate::support::{interrupt, ok, reference, run, scratch, skip, Run, Test};

/// A name of 300 bytes: longer than `NC_MAX_NAME` (256).
fn long_name() -> String {
    "n".repeat(300)
}

/// A CDF-1 name: its length, then its bytes padded to 4.
fn put_name(bytes: &mut Vec<u8>, name: &str) {
    bytes.extend((name.len() as u32).to_be_bytes());
    bytes.extend(name.as_bytes());
    bytes.resize(bytes.len().next_multiple_of(4), 0);
}

/// A CDF-1 file built byte by byte: dimension `dim` of 3, a global text attribute `att`
/// = "x", and `int var(dim)` = 1, 2, 3.
pub(crate) fn classic_file(dim: &str, att: &str, var: &str) -> Vec<u8> {
    let mut b = b"CDF\x01".to_vec();
    b.extend(0u32.to_be_bytes()); // records
    b.extend([0, 0, 0, 0x0A, 0, 0, 0, 1]); // one dimension
    put_name(&mut b, dim);
    b.extend(3u32.to_be_bytes());
    b.extend([0, 0, 0, 0x0C, 0, 0, 0, 1]); // one global attribute
    put_name(&mut b, att);
    b.extend(2u32.to_be_bytes()); // NC_CHAR
    b.extend(1u32.to_be_bytes());
    b.extend(b"x\0\0\0");
    b.extend([0, 0, 0, 0x0B, 0, 0, 0, 1]); // one variable
    put_name(&mut b, var);
    b.extend(1u32.to_be_bytes()); // rank 1
    b.extend(0u32.to_be_bytes()); // dimension 0
    b.extend([0u8; 8]); // no attributes
    b.extend(4u32.to_be_bytes()); // NC_INT
    b.extend(12u32.to_be_bytes()); // vsize
    let begin = b.len() as u32 + 4;
    b.extend(begin.to_be_bytes());
    for v in [1i32, 2, 3] {
        b.extend(v.to_be_bytes());
    }
    b
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts that a run ended by itself with exit 1 and a one-paragraph message containing
/// `needle`, without a panic.
fn assert_clean_failure(run: &Run, needle: &str) {
    assert_eq!(run.code, Some(1), "not exit 1 (a signal?): {}", run.stderr);
    assert!(
        run.stderr.contains(needle),
        "{needle:?} not in {}",
        run.stderr
    );
    assert!(!run.stderr.contains("bug"), "a panic: {}", run.stderr);
}

/// Copies `input` with our nccopy into an empty directory and checks that it fails cleanly
/// and leaves that directory empty.
fn assert_copy_refused(dir: &Path, input: &Path, needle: &str) {
    let out_dir = dir.join(format!("out-{}", listing(dir).len()));
    std::fs::create_dir_all(&out_dir).unwrap_or_else(|e| panic!("{e}"));
    let copied = Test::ours("nccopy")
        .arg(input)
        .arg(out_dir.join("copy.nc"))
        .run();
    assert_clean_failure(&copied, needle);
    assert!(
        listing(&out_dir).is_empty(),
        "left behind: {:?}",
        listing(&out_dir)
    );
}

#[test]
fn classic_names_longer_than_nc_max_name_are_dumped_whole() {
    let dir = scratch();
    let long = long_name();
    let cases = [
        ("dim", classic_file(&long, "a", "v")),
        ("att", classic_file("d", &long, "v")),
        ("var", classic_file("d", "a", &long)),
    ];
    for (what, bytes) in cases {
        let file = dir.path().join(format!("{what}.nc"));
        write(&file, &bytes);
        for args in [&["-h"][..], &["-hs"], &[]] {
            let dumped = Test::ours("ncdump").args(args).arg(&file).run();
            assert_eq!(dumped.code, Some(0), "{what} {args:?}: {}", dumped.stderr);
            // The whole name and no more: 300 bytes between other characters.
            let whole =
                dumped.stdout.contains(&long) && !dumped.stdout.contains(&format!("{long}n"));
            assert!(
                whole,
                "{what} {args:?}: not the whole name:\n{}",
                dumped.stdout
            );
        }
        // libnetcdf refuses such names in new files: a clean error, nothing left.
        assert_copy_refused(dir.path(), &file, "NC_MAX_NAME");
    }
}

#[test]
fn a_long_classic_dimension_name_dumps_as_the_reference_dumps_the_rest() {
    let Some(ncdump) = reference("ncdump") else {
        return;
    };
    let dir = scratch();
    let long = long_name();
    let file = dir.path().join("dim.nc");
    write(&file, &classic_file(&long, "a", "v"));
    let theirs = run(Command::new(ncdump).arg(&file));
    let ours = Test::ours("ncdump").arg(&file).run();
    assert_eq!(
        (ours.code, theirs.code),
        (Some(0), Some(0)),
        "{}",
        ours.stderr
    );
    // The reference reads the name into a 256-byte array: its declaration line shows the
    // first 256 bytes, then the bytes of the field that follows it. Ours shows the name.
    let (their_lines, our_lines): (Vec<&str>, Vec<&str>) = (
        theirs.stdout.lines().collect(),
        ours.stdout.lines().collect(),
    );
    assert_eq!(their_lines.len(), our_lines.len(), "{}", ours.stdout);
    for (i, (a, b)) in their_lines.iter().zip(&our_lines).enumerate() {
        if i == 2 {
            assert!(a.starts_with(&format!("\t{}", &long[..256])), "{a}");
            assert_eq!(*b, format!("\t{long} = 3 ;"));
        } else {
            assert_eq!(a, b, "line {}", i + 1);
        }
    }
}

/// The project virtualenv's python with h5py (made by scripts/setup).
fn h5py() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    if python.is_file() && run(Command::new(&python).args(["-c", "import h5py"])).code == Some(0) {
        return Some(python);
    }
    skip("the project virtualenv .venv with h5py");
    None
}

/// Writes with h5py an HDF5 file holding `int v(3)` and the root attributes of `script`
/// (Python statements using `f`, the open file, and `np`).
fn h5py_file(python: &Path, path: &Path, script: &str) {
    let program = format!(
        "import h5py, numpy as np\n\
         with h5py.File({path:?}, 'w') as f:\n    \
         f.create_dataset('v', data=np.arange(3, dtype='i4'))\n    {script}\n"
    );
    let made = run(Command::new(python).args(["-c", &program]));
    ok("h5py", &made);
}

#[test]
fn an_hdf5_attribute_name_of_4000_bytes_is_an_error_not_a_crash() {
    let Some(python) = h5py() else {
        return;
    };
    let dir = scratch();
    let file = dir.path().join("long.nc");
    h5py_file(&python, &file, "f.attrs.create('a' * 4000, np.int32(7))");
    for args in [&["-h"][..], &[]] {
        let dumped = Test::ours("ncdump").args(args).arg(&file).run();
        assert_clean_failure(&dumped, "NC_MAX_NAME exceeded");
        assert!(dumped.stderr.contains("(4000 bytes)"), "{}", dumped.stderr);
    }
    assert_copy_refused(dir.path(), &file, "NC_MAX_NAME exceeded");
    if let Some(ncdump) = reference("ncdump") {
        let theirs = run(Command::new(ncdump).arg("-h").arg(&file));
        assert_eq!(theirs.code, Some(1), "the reference: {}", theirs.stderr);
    }
}

#[test]
fn nc_properties_of_24_and_56_bytes_dump_as_the_reference_dumps_them() {
    let Some(python) = h5py() else {
        return;
    };
    let Some(ncdump) = reference("ncdump") else {
        return;
    };
    let dir = scratch();
    // 56 bytes is what netCDF-C 4.4.1.1 wrote; 24, 40, 56... crashed nctools before.
    for value in [
        "version=2|netcdf=4.9.0|x",
        "version=1|netcdflibversion=4.4.1.1|hdf5libversion=1.8.18",
    ] {
        let file = dir.path().join(format!("p{}.nc", value.len()));
        h5py_file(
            &python,
            &file,
            &format!("f.attrs.create('_NCProperties', np.bytes_({value:?}))"),
        );
        for args in [&["-s"][..], &["-h"], &["-hs"]] {
            let theirs = run(Command::new(&ncdump).args(args).arg(&file));
            let ours = Test::ours("ncdump").args(args).arg(&file).run();
            ok("ours", &ours);
            assert_eq!(ours.stdout, theirs.stdout, "{value} {args:?}");
            if args.contains(&"-s") || args.contains(&"-hs") {
                assert!(ours.stdout.contains(value), "{}", ours.stdout);
            }
        }
        let copy = dir.path().join(format!("copy{}.nc", value.len()));
        let copied = Test::ours("nccopy").arg(&file).arg(&copy).run();
        ok("copied", &copied);
    }
}

#[test]
fn a_string_attribute_with_a_nul_is_cut_there_as_by_the_reference() {
    let (Some(ncgen), Some(ncdump)) = (reference("ncgen"), reference("ncdump")) else {
        return;
    };
    let dir = scratch();
    let cdl = dir.path().join("nul.cdl");
    std::fs::write(
        &cdl,
        "netcdf nul {\nvariables:\n  int v ;\n    string v:s = \"ab\\000cd\", \"\\000x\" ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (theirs, ours) = (dir.path().join("theirs.nc"), dir.path().join("ours.nc"));
    let made = run(Command::new(ncgen)
        .args(["-k", "nc4", "-o"])
        .arg(&theirs)
        .arg(&cdl));
    ok("made", &made);
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&ours)
        .arg(&cdl)
        .run();
    ok("made", &made);
    let dump = |file: &Path| run(Command::new(&ncdump).arg("-h").arg(file)).stdout;
    let (a, b) = (dump(&theirs), dump(&ours));
    assert!(a.contains("string v:s = \"ab\", \"\" ;"), "{a}");
    assert_eq!(a.replace("theirs", "X"), b.replace("ours", "X"));
}

#[test]
fn a_second_ctrl_c_ends_the_copy_at_once_and_leaves_no_file() {
    use std::os::unix::process::ExitStatusExt;
    let dir = scratch();
    let SlowCopy {
        child,
        out_dir,
        out,
    } = slow_copy_under_way(dir.path());
    // Ctrl-C pressed again and again until nccopy is gone: whichever press ends it, the
    // first (a clean stop) or a later one (at once), nothing may be left behind.
    let mut child = child;
    let mut presses = 0;
    while child.try_wait().ok().flatten().is_none() && interrupt(child.id()) {
        presses += 1;
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    assert!(presses > 0);
    let done = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("nccopy did not finish: {e}"));
    let stderr = String::from_utf8_lossy(&done.stderr);
    // Either the first interrupt ended it (130), or a later one killed it.
    let ended = done.status.code() == Some(130)
        || done.status.signal() == Some(nix::sys::signal::SIGINT as i32);
    assert!(ended, "{:?}: {stderr}", done.status);
    assert!(!stderr.contains("bug"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap_or_default(),
        "precious"
    );
    assert_eq!(listing(&out_dir), ["out.nc"], "temporary files left");
}

/// Names in a Zarr store come from its JSON, and nothing bounds them. Our Zarr reader
/// (pure Rust) takes the name whole; only a netCDF file cannot hold it.
#[test]
fn an_nczarr_attribute_name_of_70000_bytes_is_read_whole_and_refused_by_netcdf_files() {
    let dir = scratch();
    let cdl = dir.path().join("s.cdl");
    std::fs::write(
        &cdl,
        "netcdf s {\ndimensions:\n d = 2 ;\nvariables:\n int v(d) ;\n  v:a = 1 ;\ndata:\n v = 1, 2 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let store = dir.path().join("s.zarr");
    let url = format!("file://{}#mode=nczarr,file", store.display());
    // Without consolidated metadata, whose copy of the .zattrs edited below would be
    // stale.
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o", &format!("{url},noconsolidated")])
        .arg(&cdl)
        .run();
    ok("made", &made);
    let attrs = store.join("v/.zattrs");
    let text = std::fs::read_to_string(&attrs).unwrap_or_else(|e| panic!("{attrs:?}: {e}"));
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let long = "b".repeat(70_000);
    if let Some(map) = json.as_object_mut() {
        map.insert(long, serde_json::json!(7));
    }
    std::fs::write(&attrs, json.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let dumped = Test::ours("ncdump").args(["-h", &url]).run();
    ok("dumped", &dumped);
    let line = format!("\t\tv:{} = 7 ;\n", "b".repeat(70_000));
    assert!(
        dumped.stdout.contains(&line),
        "the name is not printed whole"
    );
    // No output holds it: a netCDF file cannot, and netCDF-C overflows its buffers
    // reading a long name from a Zarr store (red team s31 H10: the reference ncdump died
    // on SIGABRT reading a store nccopy wrote with a 1000-byte dimension name). A clean
    // error, and nothing left.
    for output in ["copy.zarr", "copy.nc"] {
        let out = dir.path().join(output);
        let refused = Test::ours("nccopy").arg(&url).arg(&out).run();
        assert_clean_failure(&refused, "NC_MAX_NAME");
        assert!(
            refused.stderr.contains("(70000 bytes)"),
            "{}",
            refused.stderr
        );
        assert!(!out.exists(), "{output}");
    }
    // ncgen alike, for a dimension name of 1000 bytes.
    let long_dim = dir.path().join("d.cdl");
    let name = "d".repeat(1000);
    std::fs::write(
        &long_dim,
        format!("netcdf d {{\ndimensions:\n {name} = 2 ;\nvariables:\n int v({name}) ;\n}}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("d.zarr");
    let refused = Test::ours("ncgen").arg("-o").arg(&out).arg(&long_dim).run();
    assert_clean_failure(&refused, "NC_MAX_NAME");
    assert!(!out.exists());
    assert_eq!(listing(dir.path()), ["d.cdl", "s.cdl", "s.zarr"]);
}

#[test]
fn a_bzip2_chunk_that_decodes_far_beyond_its_chunk_size_is_refused() {
    let Some(python) = h5py() else {
        return;
    };
    let dir = scratch();
    let file = dir.path().join("bomb.nc");
    // A variable of 4 KiB chunks, one of which is 200 MiB of zeros compressed with bzip2
    // (a few hundred bytes): before, ncdump decoded all of it.
    let program = format!(
        "import bz2, h5py, hdf5plugin, numpy as np\n\
         with h5py.File({file:?}, 'w') as f:\n    \
         d = f.create_dataset('v', shape=(2048,), chunks=(1024,), dtype='i4', **hdf5plugin.BZip2())\n    \
         d[1024:] = np.arange(1024, dtype='i4')\n    \
         d.id.write_direct_chunk((0,), bz2.compress(bytes(200 << 20)))\n"
    );
    let made = run(Command::new(&python).args(["-c", &program]));
    ok("h5py", &made);
    let dumped = Test::ours("ncdump").args(["-v", "v"]).arg(&file).run();
    assert_clean_failure(&dumped, "probably corrupt");
    let copied = Test::ours("nccopy")
        .arg(&file)
        .arg(dir.path().join("copy.nc"))
        .run();
    assert_clean_failure(&copied, "bomb.nc");
    assert_eq!(listing(dir.path()), ["bomb.nc"]);
}
