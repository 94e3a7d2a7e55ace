//! Szip (HDF5's filter 4, libaec) written by nctools itself: netCDF-4 chunks encoded on
//! nctools' threads are the bytes libhdf5's own filter writes, with the words HDF5 stored
//! for the variable; NCZarr stores carry netCDF-C's `szip` codec, chunk for chunk as
//! netCDF-C writes them; `--try-filters` measures szip where it applies.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::filters_interop::venv_python;
use crate::nccopy::{data_of, have_reference_nccopy, ours};
use crate::support::{ok, run, run_reference, scratch, skip, Run, Test};

/// The types szip takes, as CDL names, one variable each (`v_TYPE`).
const TYPES: [&str; 10] = [
    "byte", "short", "int", "int64", "float", "double", "ubyte", "ushort", "uint", "uint64",
];

/// A netCDF-4 file (by the reference ncgen) with a 14 x 26 variable of each of [`TYPES`]
/// (small repeating values, which szip shrinks) and `noise(x, y)`, int: its first half
/// is pseudo-random, which szip cannot shrink.
fn typed_input(dir: &Path) -> PathBuf {
    let values: Vec<String> = (0..14 * 26).map(|i| ((i * 7) % 23).to_string()).collect();
    let mut state: u32 = 12345;
    let noise: Vec<String> = (0..14 * 26)
        .map(|i| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let word = state as i32;
            if i < 14 * 13 { word } else { i % 5 }.to_string()
        })
        .collect();
    let mut cdl = String::from("netcdf typed {\ndimensions:\n\tx = 14 ;\n\ty = 26 ;\nvariables:\n");
    for t in TYPES {
        cdl.push_str(&format!("\t{t} v_{t}(x, y) ;\n"));
    }
    cdl.push_str("\tint noise(x, y) ;\ndata:\n");
    for t in TYPES {
        cdl.push_str(&format!(" v_{t} = {} ;\n", values.join(", ")));
    }
    cdl.push_str(&format!(" noise = {} ;\n}}\n", noise.join(", ")));
    let source = dir.join("typed.cdl");
    fs::write(&source, cdl).unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("typed.nc");
    let made = run_reference(
        "ncgen",
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            source.as_os_str(),
        ],
    );
    ok("reference ncgen", &made);
    out
}

/// Each chunked variable of `file`: `NAME WORDS` (the filter words HDF5 stores, from
/// its dataset creation properties), then one line per stored chunk, `OFFSET MASK HEX`,
/// read raw with h5py (`read_direct_chunk`).
fn raw_chunks(python: &Path, file: &Path) -> String {
    const SCRIPT: &str = "import sys, h5py\n\
        with h5py.File(sys.argv[1], 'r') as f:\n\
        \x20   for name, d in f.items():\n\
        \x20       if not isinstance(d, h5py.Dataset) or d.chunks is None:\n\
        \x20           continue\n\
        \x20       p = d.id.get_create_plist()\n\
        \x20       print(name, [list(p.get_filter(i)[2]) for i in range(p.get_nfilters())])\n\
        \x20       for i in range(d.id.get_num_chunks()):\n\
        \x20           o = d.id.get_chunk_info(i).chunk_offset\n\
        \x20           mask, data = d.id.read_direct_chunk(o)\n\
        \x20           print(' ', o, mask, data.hex())\n";
    let done = run(Command::new(python).arg("-c").arg(SCRIPT).arg(file));
    assert_eq!(done.code, Some(0), "h5py on {file:?}: {}", done.stderr);
    done.stdout
}

/// `file`'s bytes.
fn bytes(file: &Path) -> Vec<u8> {
    fs::read(file).unwrap_or_else(|e| panic!("{file:?}: {e}"))
}

#[test]
fn chunks_encoded_here_are_the_bytes_libhdf5_writes() {
    if !have_reference_nccopy() {
        return;
    }
    let Some(python) = venv_python() else {
        return;
    };
    let dir = scratch();
    let input = typed_input(dir.path());
    // An odd chunk shape (7 x 13: the scanline is the chunk's 91 values, fewer than 32
    // pixels per block in a row) that tiles the variables, whose first chunks of `noise`
    // are all noise; and one chunk per variable (half noise, which szip shrinks).
    for (chunking, words, skipped) in [
        (&["-M", "0", "-c", "x/7,y/13"][..], "91]]", true),
        (&[][..], "364]]", false),
    ] {
        // (The reference nccopy takes szip by number only.)
        let args: Vec<&str> = chunking
            .iter()
            .copied()
            .chain(["-F", "*,4,32,32"])
            .collect();
        let file = |name: &str| dir.path().join(name);
        let _ = ["ours.nc", "hdf5.nc", "hdf5-again.nc", "reference.nc"]
            .map(|n| fs::remove_file(file(n)));
        // Ours, encoded on our threads; ours through libhdf5's filter (twice); the
        // reference nccopy's.
        let done = ours(&args, &input, Some(&file("ours.nc")));
        assert_eq!(done.code, Some(0), "{args:?}: {}", done.stderr);
        for out in ["hdf5.nc", "hdf5-again.nc"] {
            let done = Test::ours("nccopy")
                .envs(&[("NCTOOLS_DIRECT_CHUNKS", "0")])
                .args(&args)
                .arg(&input)
                .arg(file(out))
                .run();
            assert_eq!(done.code, Some(0), "{args:?}: {}", done.stderr);
        }
        let mut reference_args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        let reference_out = file("reference.nc");
        reference_args.extend([input.as_os_str(), reference_out.as_os_str()]);
        let done = run_reference("nccopy", reference_args);
        assert_eq!(
            done.code,
            Some(0),
            "reference nccopy {args:?}: {}",
            done.stderr
        );

        let chunks = raw_chunks(&python, &file("ours.nc"));
        assert_eq!(chunks, raw_chunks(&python, &file("hdf5.nc")), "{args:?}");
        assert_eq!(
            chunks,
            raw_chunks(&python, &file("reference.nc")),
            "{args:?}"
        );
        // HDF5's words: mask 169 (ALLOW_K13, LSB, NN, RAW), 32 pixels per block, bits
        // per pixel from the type, pixels per scanline from the chunk.
        for (t, bits) in [
            ("byte", 8),
            ("short", 16),
            ("int", 32),
            ("int64", 64),
            ("float", 32),
            ("double", 64),
        ] {
            let line = format!("v_{t} [[169, 32, {bits}, {words}");
            assert!(chunks.contains(&line), "{args:?}: no {line}:\n{chunks}");
        }
        // A chunk szip cannot shrink is stored without it (mask 1), as HDF5 does.
        assert_eq!(chunks.contains(") 1 "), skipped, "{args:?}:\n{chunks}");
        assert!(chunks.contains(") 0 "), "{args:?}");
        // The reference ncdump reads our copy: the input's data.
        assert_eq!(data_of(&file("ours.nc")), data_of(&input), "{args:?}");
        // Our threads did it: HDF5's pipeline writes the same file twice, ours another.
        assert_eq!(
            bytes(&file("hdf5.nc")),
            bytes(&file("hdf5-again.nc")),
            "{args:?}"
        );
        assert_ne!(
            bytes(&file("ours.nc")),
            bytes(&file("hdf5.nc")),
            "{args:?}: no direct chunk write"
        );
    }
}

/// The project virtualenv's python with h5py and netCDF4 (netCDF-C 4.10's NCZarr and its
/// szip codec, which it loads by itself), or `None` after a skip (a failure in CI).
fn netcdf4_python() -> Option<PathBuf> {
    let python = venv_python()?;
    let check =
        run(Command::new(&python)
            .args(["-c", "import netCDF4; assert netCDF4.__has_szip_support__"]));
    if check.code == Some(0) {
        Some(python)
    } else {
        skip("the project virtualenv's netCDF4 with szip");
        None
    }
}

/// Runs `script` with netCDF4-python, with `args`.
fn netcdf4(python: &Path, script: &str, args: &[&Path]) -> Run {
    let done = run(Command::new(python).arg("-c").arg(script).args(args));
    ok("netCDF4-python", &done);
    done
}

/// Writes with netCDF4-python (netCDF-C 4.10) the NCZarr store `ARGV[1]` with szip
/// (`v`: int 10 x 37 in 3 x 20 chunks, NN, 32 pixels per block; `w`: double 10 x 37 in
/// 4 x 16 chunks, EC, 8 pixels per block) and the netCDF-4 file `ARGV[2]` with the same
/// variables, chunks and values, unfiltered.
const WRITE_BOTH: &str = "import sys, numpy, netCDF4\n\
    for target, szip in (('file://' + sys.argv[1] + '#mode=nczarr,file', True), (sys.argv[2], False)):\n\
    \x20   d = netCDF4.Dataset(target, 'w')\n\
    \x20   d.createDimension('x', 10); d.createDimension('y', 37)\n\
    \x20   for name, t, chunks, coding, block in (('v', 'i4', (3, 20), 'nn', 32), ('w', 'f8', (4, 16), 'ec', 8)):\n\
    \x20       extra = dict(compression='szip', szip_coding=coding, szip_pixels_per_block=block) if szip else {}\n\
    \x20       v = d.createVariable(name, t, ('x', 'y'), chunksizes=chunks, **extra)\n\
    \x20       v[:] = (numpy.arange(370).reshape(10, 37) % 50) * (0.5 if t == 'f8' else 1)\n\
    \x20   d.close()\n";

/// Prints each variable of the NCZarr store `ARGV[1]` as netCDF4-python reads it: name,
/// szip settings, chunks and values.
const READ_STORE: &str = "import sys, netCDF4\n\
    d = netCDF4.Dataset('file://' + sys.argv[1] + '#mode=nczarr,file')\n\
    for name, v in d.variables.items():\n\
    \x20   print(name, v.filters()['szip'], v.chunking(), v[:].tolist())\n";

/// The names of the chunk files of the array `name` of the store `store`, sorted.
fn chunk_files(store: &Path, name: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(store.join(name))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn nczarr_szip_is_netcdf_cs_both_ways() {
    if !have_reference_nccopy() {
        return;
    }
    let Some(python) = netcdf4_python() else {
        return;
    };
    let dir = scratch();
    let theirs = dir.path().join("theirs.zarr");
    let plain = dir.path().join("plain.nc");
    netcdf4(&python, WRITE_BOTH, &[&theirs, &plain]);
    let zarray = fs::read_to_string(theirs.join("v/.zarray")).unwrap_or_default();
    assert!(
        zarray.contains(r#""compressor": {"id": "szip", "mask": 32, "pixels-per-block": 32}"#),
        "{zarray}"
    );

    // Ours reads netCDF-C's store: the values of the plain file.
    let dumped = Test::ours("ncdump").arg(&theirs).run();
    ok("dumped", &dumped);
    assert_eq!(
        crate::support::from_line(&dumped.stdout, "data:"),
        data_of(&plain)
    );

    // Ours writes the same store from the plain file: netCDF-C reads it, and each chunk
    // is netCDF-C's own bytes.
    let store = dir.path().join("ours.zarr");
    let done = ours(
        &["-M", "0", "-F", "v,szip,32,32", "-F", "w,szip,4,8"],
        &plain,
        Some(&store),
    );
    ok("done", &done);
    let zarray = fs::read_to_string(store.join("v/.zarray")).unwrap_or_default();
    assert!(
        zarray.contains(r#""compressor": {"id": "szip", "mask": 32, "pixels-per-block": 32}"#),
        "{zarray}"
    );
    let read = |s: &Path| netcdf4(&python, READ_STORE, &[s]).stdout;
    assert_eq!(read(&store), read(&theirs));
    assert!(read(&store).contains("v {'coding': 'nn', 'pixels_per_block': 32} [3, 20] [[0, 1, 2,"));
    for (name, chunk_bytes) in [("v", 3 * 20 * 4), ("w", 4 * 16 * 8)] {
        let files = chunk_files(&store, name);
        assert_eq!(files, chunk_files(&theirs, name), "{name}");
        assert!(!files.is_empty(), "{name}");
        for chunk in files {
            let ours = bytes(&store.join(name).join(&chunk));
            assert_eq!(
                ours,
                bytes(&theirs.join(name).join(&chunk)),
                "{name}/{chunk}"
            );
            let header = ours.first_chunk::<4>().map(|h| u32::from_le_bytes(*h));
            assert_eq!(header, Some(chunk_bytes), "{name}/{chunk}: the size header");
        }
    }
}

#[test]
fn szip_goes_into_nczarr_stores_only() {
    let dir = scratch();
    let cdl = dir.path().join("in.cdl");
    fs::write(
        &cdl,
        "netcdf in {\ndimensions:\n\tx = 40 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 1, 2, 3 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join("in.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&input)
        .arg(&cdl)
        .run();
    ok("made", &made);
    for mode in ["zarr,file", "xarray,file", "zarr,v3,file"] {
        let store = dir.path().join("out.zarr");
        let target = format!("file://{}#mode={mode}", store.display());
        let done = Test::ours("nccopy")
            .args(["-F", "*,szip,32,32"])
            .arg(&input)
            .arg(&target)
            .run();
        crate::support::assert_rejected(&done, &format!("szip into #mode={mode}"));
        assert!(
            done.stderr
                .contains("cannot write variable /v with filter 4 (szip")
                && done.stderr.contains("only into NCZarr stores"),
            "{mode}: {}",
            done.stderr
        );
        assert!(!store.exists(), "{mode}: something was written");
    }
    // NCZarr takes it, and reads it back.
    let store = dir.path().join("nczarr.zarr");
    let done = ours(&["-F", "*,szip,32,32"], &input, Some(&store));
    ok("done", &done);
    let dumped = Test::ours("ncdump").args(["-s"]).arg(&store).run();
    ok("dumped", &dumped);
    assert!(
        dumped.stdout.contains("v:_Filter = \"4,32,32\" ;"),
        "{}",
        dumped.stdout
    );
    assert!(
        dumped.stdout.contains(" v = 1, 2, 3, _,"),
        "{}",
        dumped.stdout
    );
}

#[test]
fn try_filters_measures_szip_where_it_applies() {
    let dir = scratch();
    let cdl = dir.path().join("in.cdl");
    let values: Vec<String> = (0..64 * 256).map(|i| ((i / 3) % 40).to_string()).collect();
    fs::write(
        &cdl,
        format!(
            "netcdf in {{\ndimensions:\n\tt = 64 ;\n\tx = 256 ;\n\tn = 5 ;\nvariables:\n\tint count(t, x) ;\n\
             \t\tcount:_ChunkSizes = 8, 256 ;\n\tchar name(t, x) ;\n\tshort tiny(n) ;\ndata:\n \
             count = {} ;\n name = \"abc\" ;\n tiny = 1, 2, 3, 4, 5 ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join("in.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&input)
        .arg(&cdl)
        .run();
    ok("made", &made);
    // The default list has szip: measured on the int, not run on the char.
    let run = Test::ours("nccopy").arg("--try-filters").arg(&input).run();
    ok("run", &run);
    let name = crate::support::from_line(
        &run.stdout,
        "/name  char(t=64, x=256)  1 of 1 chunks sampled (16.0 KiB)",
    );
    let count = &run.stdout[..run.stdout.len() - name.len()];
    let tiny = run
        .stdout
        .find("\n/tiny ")
        .map_or("", |at| &run.stdout[at..]);
    for candidate in ["szip,4,32", "szip,32,32"] {
        let not_run = |section: &str, why: &str| {
            section.lines().any(|l| {
                l.trim_start().starts_with(&format!("{candidate} "))
                    && l.ends_with(&format!(" not run: {why}"))
            })
        };
        assert!(
            not_run(
                tiny,
                "szip cannot run on these chunks (fewer values than pixels per block)"
            ),
            "{candidate} on /tiny (5 values):\n{}",
            run.stdout
        );
        assert!(
            count.lines().any(|l| l
                .trim_start_matches([' ', '*'])
                .starts_with(&format!("{candidate} "))
                && l.contains(":1")),
            "{candidate} not measured on /count:\n{}",
            run.stdout
        );
        assert!(
            not_run(
                name,
                "szip applies to integer and floating-point values only"
            ),
            "{candidate} on /name:\n{}",
            run.stdout
        );
    }
    // Its ratio is a real copy's (HDF5's words for the copy's 8 x 256 chunks).
    let report = Test::ours("nccopy")
        .args(["--json", "--try-filters", "szip,32,32"])
        .arg(&input)
        .run();
    ok("report", &report);
    let report: serde_json::Value = serde_json::from_str(&report.stdout).unwrap_or_default();
    let sampled = report[0]["candidates"][0]["ratio"].as_f64().unwrap_or(0.0);
    let out = dir.path().join("copy.nc");
    let done = ours(&["-F", "count,szip,32,32"], &input, Some(&out));
    ok("done", &done);
    let inspected = Test::ours("ncdump")
        .args(["--filters", "--json"])
        .arg(&out)
        .run();
    let inspected: serde_json::Value = serde_json::from_str(&inspected.stdout).unwrap_or_default();
    let real = inspected[0]["compression_ratio"].as_f64().unwrap_or(0.0);
    assert!(real > 1.0, "{inspected}");
    assert!(
        (sampled / real - 1.0).abs() < 0.10,
        "sampled {sampled}, real copy {real}"
    );
}

#[test]
fn szip_on_chunks_smaller_than_a_block_is_refused_when_defined() {
    let dir = scratch();
    let cdl = dir.path().join("in.cdl");
    fs::write(
        &cdl,
        "netcdf in {\ndimensions:\n\tn = 5 ;\nvariables:\n\tdouble small(n) ;\ndata:\n small = 1, 2, 3, 4, 5 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join("in.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&input)
        .arg(&cdl)
        .run();
    ok("made", &made);
    for out in ["out.nc", "out.zarr"] {
        let target = dir.path().join(out);
        let done = ours(&["-F", "*,szip,32,32"], &input, Some(&target));
        crate::support::assert_rejected(&done, out);
        assert!(done.stderr.contains("small"), "{out}: {}", done.stderr);
        assert!(!target.exists(), "{out}: something was written");
    }
}
