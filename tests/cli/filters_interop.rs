//! The built-in filters (bzip2 307, zstd 32015, lz4 32004, blosc 32001) against the
//! standard HDF5 plugins, both ways. "Ours" always runs with HDF5_PLUGIN_PATH set to an
//! empty directory, so that only the filters built into the binaries can do the work;
//! the reference tools run with Debian's plugin directory and, for zstd, PyPI
//! hdf5plugin's (setting HDF5_PLUGIN_PATH replaces HDF5's compiled-in default, so both are
//! joined; Debian's comes first, so its bzip2, lz4 and blosc are the ones used).
//!
//! - files our nccopy and ncgen write, the reference ncdump reads exactly as ours does;
//! - files the reference nccopy and ncgen write, our ncdump reads exactly as theirs does;
//! - with NCTOOLS_BUILTIN_FILTERS=0 our tools go through the external plugins instead
//!   (the other side of `scripts/bench filters`), and with no plugin either they fail as
//!   D6 says;
//! - the chunks themselves, read raw with h5py (`read_direct_chunk`, from the project's
//!   .venv made by scripts/setup), are the plugins' bytes for bzip2, zstd and blosc; lz4
//!   has the plugin's framing, but lz4_flex finds other matches than liblz4;
//! - a chunk blosc cannot make smaller is written in a raw blosc frame the plugin reads;
//! - a corrupt chunk is an error (exit 1) that names the variable, never a crash.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{
    assert_no_crash, first_difference, from_line, ok, reference, run, scratch, skip,
};
use crate::support::{Run, Test};

/// Debian's compiled-in HDF5 plugin directory (bzip2, lz4, blosc).
const DEBIAN_PLUGINS: &str = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins";

/// One built-in codec as the tests use it.
struct Codec {
    /// What to call it in messages.
    label: &'static str,
    /// The spec we give our tools (names are ours; the reference takes ids only).
    ours: &'static str,
    /// The same spec for the reference tools.
    theirs: &'static str,
    /// The `_Filter` stored for `v` (blosc's set_local fills in its first four parameters:
    /// filter revision 2, blosc format 2, type size 4, chunk bytes 50 x 80 x 4).
    stored: &'static str,
}

const CODECS: [Codec; 4] = [
    Codec {
        label: "bzip2",
        ours: "bzip2,9",
        theirs: "307,9",
        stored: "307,9",
    },
    Codec {
        label: "zstd",
        ours: "zstd,3",
        theirs: "32015,3",
        stored: "32015,3",
    },
    Codec {
        label: "lz4",
        ours: "lz4",
        theirs: "32004",
        stored: "32004",
    },
    Codec {
        label: "blosc",
        ours: "blosc,0,0,0,0,5,1,1",
        theirs: "32001,0,0,0,0,5,1,1",
        stored: "32001,2,2,4,16000,5,1,1",
    },
];

/// `None`, after a recorded SKIPPED (or a failure in CI) saying that `what` is missing.
#[track_caller]
fn missing<T>(what: &str) -> Option<T> {
    skip(what);
    None
}

/// The project virtualenv's python (made by scripts/setup), with h5py and hdf5plugin.
pub(crate) fn venv_python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    let works = python.is_file()
        && run(Command::new(&python).args(["-c", "import h5py, hdf5plugin"])).code == Some(0);
    if works {
        Some(python)
    } else {
        missing("the project virtualenv .venv with h5py and hdf5plugin")
    }
}

/// HDF5_PLUGIN_PATH for the reference tools: Debian's plugins, then hdf5plugin's (zstd).
/// `None` (SKIPPED, or a failure in CI) when the reference tools or a plugin are missing.
fn external_plugins() -> Option<String> {
    for tool in ["ncgen", "ncdump", "nccopy"] {
        reference(tool)?;
    }
    let debian = Path::new(DEBIAN_PLUGINS);
    for plugin in ["libh5bz2.so", "libh5lz4.so", "libH5Zblosc.so"] {
        if !debian.join(plugin).is_file() {
            return missing(&format!("the HDF5 plugin {DEBIAN_PLUGINS}/{plugin}"));
        }
    }
    let python = venv_python()?;
    let found =
        run(Command::new(python).args(["-c", "import hdf5plugin; print(hdf5plugin.PLUGIN_PATH)"]));
    let pypi = found.stdout.trim().to_string();
    if found.code != Some(0) || !Path::new(&pypi).join("libh5zstd.so").is_file() {
        return missing("hdf5plugin's zstd plugin (libh5zstd.so)");
    }
    Some(format!("{DEBIAN_PLUGINS}:{pypi}"))
}

/// A directory with no plugin in it, for HDF5_PLUGIN_PATH.
fn empty_plugin_dir(dir: &Path) -> String {
    let empty = dir.join("no-plugins");
    fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("cannot make {empty:?}: {e}"));
    empty.to_string_lossy().into_owned()
}

/// Our `tool` with only the built-in filters: HDF5_PLUGIN_PATH is the empty `no_plugins`.
fn builtin(tool: &str, no_plugins: &str) -> Test {
    Test::ours(tool).envs(&[
        ("HDF5_PLUGIN_PATH", no_plugins),
        ("NCTOOLS_BUILTIN_FILTERS", "1"),
    ])
}

/// Our `tool` with the built-ins turned off and HDF5_PLUGIN_PATH = `plugins`.
fn external(tool: &str, plugins: &str) -> Test {
    Test::ours(tool).envs(&[
        ("HDF5_PLUGIN_PATH", plugins),
        ("NCTOOLS_BUILTIN_FILTERS", "0"),
    ])
}

/// The reference `tool` with HDF5_PLUGIN_PATH = `plugins`.
fn theirs<I, S>(tool: &str, plugins: &str, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let Some(path) = reference(tool) else {
        panic!("the reference {tool} vanished");
    };
    run(Command::new(path)
        .env("HDF5_PLUGIN_PATH", plugins)
        .args(args))
}

/// The CDL of the test file: `float v(x = 100, y = 80)` of smooth values with a little
/// noise, in chunks of 50 x 80 (16000 bytes: two chunks, each kept by nccopy, whose
/// default -M is 8192), with `_Filter = "FILTER"` when given.
fn cdl(filter: Option<&str>) -> String {
    let (nx, ny) = (100usize, 80usize);
    let values: Vec<String> = (0..nx * ny)
        .map(|i| {
            let (x, y) = ((i / ny) as f64, (i % ny) as f64);
            let v =
                280.0 + 20.0 * (x / 9.0).sin() * (y / 7.0).cos() + ((7 * i) % 11) as f64 / 100.0;
            format!("{v:.2}")
        })
        .collect();
    let filter = filter
        .map(|f| format!("\t\tv:_Filter = \"{f}\" ;\n"))
        .unwrap_or_default();
    format!(
        "netcdf interop {{\ndimensions:\n\tx = {nx} ;\n\ty = {ny} ;\nvariables:\n\
         \tfloat v(x, y) ;\n\t\tv:units = \"K\" ;\n\t\tv:_ChunkSizes = 50, 80 ;\n{filter}\
         \n// global attributes:\n\t\t:title = \"filter interop\" ;\ndata:\n\n v = {} ;\n}}\n",
        values.join(", ")
    )
}

/// Writes `cdl(filter)` as DIR/NAME.cdl and returns its path.
fn write_cdl(dir: &Path, name: &str, filter: Option<&str>) -> PathBuf {
    let path = dir.join(format!("{name}.cdl"));
    fs::write(&path, cdl(filter)).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
    path
}

/// The unfiltered netCDF-4 input, DIR/plain.nc, made by our ncgen.
fn plain(dir: &Path) -> PathBuf {
    let source = write_cdl(dir, "plain", None);
    let out = dir.join("plain.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&out)
        .arg(&source)
        .run();
    ok("our ncgen of plain.cdl", made);
    out
}

/// Asserts that two dumps are the same text.
fn same(label: &str, expected: &str, got: &str) {
    assert!(
        expected == got,
        "{label}: differs at {}",
        first_difference(expected, got)
    );
}

/// The `_Filter` value of `v` in an `ncdump -hs` text, or "" when there is none.
fn filter_of(dump: &str) -> String {
    dump.lines()
        .find_map(|l| l.trim().strip_prefix("v:_Filter = "))
        .map(|v| v.trim_end_matches(" ;").trim_matches('"').to_string())
        .unwrap_or_default()
}

/// The checks of a filtered file `file` (of the data of `input`): our ncdump with only
/// the built-ins and the reference ncdump with the plugins print the same `-s` dump, the
/// data is the input's, and `v` is stored with `stored`.
fn reads_the_same(label: &str, file: &Path, input: &Path, no_plugins: &str, plugins: &str) {
    let ours_dump = ok(
        &format!("{label}: our ncdump -s"),
        builtin("ncdump", no_plugins).arg("-s").arg(file).run(),
    );
    let their_dump = ok(
        &format!("{label}: reference ncdump -s"),
        theirs("ncdump", plugins, ["-s".as_ref(), file.as_os_str()]),
    );
    same(
        &format!("{label}: our ncdump -s vs the reference's"),
        &their_dump,
        &ours_dump,
    );
    let original = ok(
        "our ncdump of the input",
        builtin("ncdump", no_plugins).arg(input).run(),
    );
    same(
        &format!("{label}: the data"),
        from_line(&original, "data:"),
        from_line(&ours_dump, "data:"),
    );
}

/// A file ours wrote with a built-in filter: the reference (with `plugins`) sees the
/// pipeline `stored`, and both tools read the input's data from it.
fn the_reference_reads_it(
    label: &str,
    out: &Path,
    stored: &str,
    input: &Path,
    no_plugins: &str,
    plugins: &str,
) {
    let header = ok(
        label,
        theirs("ncdump", plugins, ["-hs".as_ref(), out.as_os_str()]),
    );
    assert_eq!(filter_of(&header), stored, "{label}");
    reads_the_same(label, out, input, no_plugins, plugins);
}

#[test]
fn our_nccopy_writes_files_the_reference_reads_with_its_plugins() {
    let Some(plugins) = external_plugins() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    for codec in &CODECS {
        let out = dir.path().join(format!("ours-{}.nc", codec.label));
        let spec = format!("v,{}", codec.ours);
        let label = format!("our nccopy -F '{spec}'");
        ok(
            &label,
            builtin("nccopy", &no_plugins)
                .args(["-F", &spec])
                .arg(&input)
                .arg(&out)
                .run(),
        );
        the_reference_reads_it(&label, &out, codec.stored, &input, &no_plugins, &plugins);
    }
}

#[test]
fn our_ncgen_writes_files_the_reference_reads_with_its_plugins() {
    let Some(plugins) = external_plugins() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    for codec in &CODECS {
        let source = write_cdl(dir.path(), codec.label, Some(codec.ours));
        let out = dir.path().join(format!("ours-{}.nc", codec.label));
        let label = format!("our ncgen with _Filter = \"{}\"", codec.ours);
        ok(
            &label,
            builtin("ncgen", &no_plugins)
                .args(["-k", "nc4", "-o"])
                .arg(&out)
                .arg(&source)
                .run(),
        );
        the_reference_reads_it(&label, &out, codec.stored, &input, &no_plugins, &plugins);
    }
}

#[test]
fn files_the_reference_writes_with_its_plugins_ours_reads_with_no_plugin() {
    let Some(plugins) = external_plugins() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    for codec in &CODECS {
        // The reference nccopy.
        let out = dir.path().join(format!("theirs-{}.nc", codec.label));
        let spec = format!("v,{}", codec.theirs);
        let label = format!("reference nccopy -F '{spec}'");
        ok(
            &label,
            theirs(
                "nccopy",
                &plugins,
                [
                    "-F".as_ref(),
                    spec.as_ref(),
                    input.as_os_str(),
                    out.as_os_str(),
                ],
            ),
        );
        let header = ok(
            &label,
            builtin("ncdump", &no_plugins).arg("-hs").arg(&out).run(),
        );
        assert_eq!(filter_of(&header), codec.stored, "{label}");
        reads_the_same(&label, &out, &input, &no_plugins, &plugins);
        // The reference ncgen.
        let source = write_cdl(dir.path(), codec.label, Some(codec.theirs));
        let out = dir.path().join(format!("theirs-ncgen-{}.nc", codec.label));
        let label = format!("reference ncgen with _Filter = \"{}\"", codec.theirs);
        ok(
            &label,
            theirs(
                "ncgen",
                &plugins,
                [
                    "-k".as_ref(),
                    "nc4".as_ref(),
                    "-o".as_ref(),
                    out.as_os_str(),
                    source.as_os_str(),
                ],
            ),
        );
        reads_the_same(&label, &out, &input, &no_plugins, &plugins);
    }
}

#[test]
fn with_builtins_off_our_tools_use_the_external_plugins() {
    let Some(plugins) = external_plugins() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    for codec in &CODECS {
        let out = dir.path().join(format!("external-{}.nc", codec.label));
        let spec = format!("v,{}", codec.ours);
        let label = format!("our nccopy -F '{spec}' with NCTOOLS_BUILTIN_FILTERS=0");
        ok(
            &label,
            external("nccopy", &plugins)
                .args(["-F", &spec])
                .arg(&input)
                .arg(&out)
                .run(),
        );
        let through_plugins = ok(&label, external("ncdump", &plugins).arg(&out).run());
        let built_in = ok(&label, builtin("ncdump", &no_plugins).arg(&out).run());
        same(&label, &built_in, &through_plugins);
        // And the plugins really are what did it: without them, it fails.
        let done = external("ncdump", &no_plugins).arg(&out).run();
        assert_eq!(done.code, Some(1), "{label}, no plugin: {}", done.stderr);
    }
}

/// One stored chunk: where it is in the file, its size, and its bytes in hex.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Chunk {
    offset: u64,
    size: usize,
    hex: String,
}

/// Every chunk of `/v` of each of `files`, raw (as stored, filters not applied), read with
/// h5py's `get_chunk_info` and `read_direct_chunk` (one python for all: it starts slowly).
fn chunks_of(python: &Path, files: &[&Path]) -> Vec<Vec<Chunk>> {
    const SCRIPT: &str = "import sys, h5py\n\
        for n, name in enumerate(sys.argv[1:]):\n\
        \x20   with h5py.File(name, 'r') as f:\n\
        \x20       d = f['v']\n\
        \x20       for i in range(d.id.get_num_chunks()):\n\
        \x20           c = d.id.get_chunk_info(i)\n\
        \x20           mask, data = d.id.read_direct_chunk(c.chunk_offset)\n\
        \x20           print(n, c.byte_offset, c.size, mask, data.hex())\n";
    let done = run(Command::new(python).args(["-c", SCRIPT]).args(files));
    let text = ok(&format!("h5py chunks of {files:?}"), done);
    let mut all = vec![Vec::new(); files.len()];
    for line in text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let [n, offset, size, mask, hex] = fields[..] else {
            panic!("unexpected h5py line: {line}");
        };
        let number = |s: &str| {
            s.parse::<usize>()
                .unwrap_or_else(|e| panic!("{s} in {line}: {e}"))
        };
        let n = number(n);
        assert_eq!(mask, "0", "{:?}: a chunk skipped a filter", files[n]);
        all[n].push(Chunk {
            offset: number(offset) as u64,
            size: number(size),
            hex: hex.to_string(),
        });
    }
    all
}

/// The chunks of `/v` of `file`.
fn chunks(python: &Path, file: &Path) -> Vec<Chunk> {
    chunks_of(python, &[file])
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// A file of ours and the reference's to compare chunk by chunk.
struct Pair {
    label: String,
    ours: PathBuf,
    theirs: PathBuf,
    /// Byte-identical chunks (else only the lz4 header: original size and block size).
    identical: bool,
}

#[test]
fn chunks_are_the_plugins_bytes_for_bzip2_zstd_and_blosc() {
    let Some(plugins) = external_plugins() else {
        return;
    };
    let Some(python) = venv_python() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    // (spec for both tools, whether the chunks must be byte-identical). zstd levels above
    // 10 are left out: the chunks decode the same but are not the plugin's bytes.
    let cases: [(&str, bool); 15] = [
        ("307,1", true),
        ("307,9", true),
        ("32015,1", true),
        ("32015,3", true),
        ("32015,9", true),
        ("32015,-5", true),
        // blosc: compressors blosclz, lz4, lz4hc, zlib, zstd; shuffle none, byte, bit.
        ("32001,0,0,0,0,5,1,0", true),
        ("32001,0,0,0,0,5,1,1", true),
        ("32001,0,0,0,0,9,2,2", true),
        ("32001,0,0,0,0,5,1,4", true),
        ("32001,0,0,0,0,5,1,5", true),
        ("32001,0,0,0,0,1,0,1", true),
        ("32001,0,0,0,0,5,2,0", true),
        // lz4: the plugin's framing, other LZ4 blocks.
        ("32004", false),
        ("32004,1000", false),
    ];
    let mut pairs = Vec::new();
    for (n, (spec, identical)) in cases.iter().enumerate() {
        let filter = format!("v,{spec}");
        let theirs_out = dir.path().join(format!("theirs-{n}.nc"));
        ok(
            &format!("reference nccopy -F '{filter}'"),
            theirs(
                "nccopy",
                &plugins,
                [
                    "-F".as_ref(),
                    filter.as_ref(),
                    input.as_os_str(),
                    theirs_out.as_os_str(),
                ],
            ),
        );
        // Our nccopy encodes the chunks of fixed-size variables itself, on every core (the
        // direct chunk path); with NCTOOLS_DIRECT_CHUNKS=0, HDF5's pipeline calls the
        // registered built-in filter. Both must give the plugin's bytes.
        for direct in ["1", "0"] {
            let label = format!("our nccopy -F '{filter}' (NCTOOLS_DIRECT_CHUNKS={direct})");
            let ours_out = dir.path().join(format!("ours-{n}-{direct}.nc"));
            ok(
                &label,
                builtin("nccopy", &no_plugins)
                    .envs(&[("NCTOOLS_DIRECT_CHUNKS", direct)])
                    .args(["-F", &filter])
                    .arg(&input)
                    .arg(&ours_out)
                    .run(),
            );
            pairs.push(Pair {
                label,
                ours: ours_out,
                theirs: theirs_out.clone(),
                identical: *identical,
            });
        }
    }
    // ncgen: ours and the reference's make the same chunks too.
    for codec in &CODECS {
        let ours_out = dir.path().join(format!("ncgen-ours-{}.nc", codec.label));
        let theirs_out = dir.path().join(format!("ncgen-theirs-{}.nc", codec.label));
        let source = write_cdl(dir.path(), "ours", Some(codec.ours));
        ok(
            "our ncgen",
            builtin("ncgen", &no_plugins)
                .args(["-k", "nc4", "-o"])
                .arg(&ours_out)
                .arg(&source)
                .run(),
        );
        let source = write_cdl(dir.path(), "theirs", Some(codec.theirs));
        ok(
            "reference ncgen",
            theirs(
                "ncgen",
                &plugins,
                [
                    "-k".as_ref(),
                    "nc4".as_ref(),
                    "-o".as_ref(),
                    theirs_out.as_os_str(),
                    source.as_os_str(),
                ],
            ),
        );
        pairs.push(Pair {
            label: format!("our ncgen with _Filter = \"{}\"", codec.ours),
            ours: ours_out,
            theirs: theirs_out,
            identical: codec.label != "lz4",
        });
    }
    let files: Vec<&Path> = pairs
        .iter()
        .flat_map(|p| [p.ours.as_path(), p.theirs.as_path()])
        .collect();
    let all = chunks_of(&python, &files);
    for (pair, both) in pairs.iter().zip(all.chunks(2)) {
        let (mine, reference) = (&both[0], &both[1]);
        let label = &pair.label;
        assert_eq!(mine.len(), 2, "{label}: {mine:?}");
        assert_eq!(mine.len(), reference.len(), "{label}");
        for (i, (a, b)) in mine.iter().zip(reference).enumerate() {
            if pair.identical {
                assert!(
                    a.hex == b.hex,
                    "{label}: chunk {i} differs from the plugin's ({} vs {} bytes)",
                    a.size,
                    b.size
                );
            } else {
                // lz4: the same header (original size, block size); the blocks differ.
                assert_eq!(
                    a.hex.get(..24),
                    b.hex.get(..24),
                    "{label}: chunk {i} header"
                );
            }
        }
    }
}

#[test]
fn with_builtins_off_and_no_plugin_zstd_lz4_and_blosc_are_missing_filters() {
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    for (codec, id) in CODECS.iter().skip(1).zip([32015, 32004, 32001]) {
        let out = dir.path().join(format!("{}.nc", codec.label));
        let spec = format!("v,{}", codec.ours);
        ok(
            &format!("our nccopy -F '{spec}'"),
            builtin("nccopy", &no_plugins)
                .args(["-F", &spec])
                .arg(&input)
                .arg(&out)
                .run(),
        );
        let off = [
            ("HDF5_PLUGIN_PATH", no_plugins.as_str()),
            ("NCTOOLS_BUILTIN_FILTERS", "0"),
        ];
        // The header needs no filter (D6).
        let header = ok(
            "ncdump -hs without the filter",
            Test::ours("ncdump").envs(&off).arg("-hs").arg(&out).run(),
        );
        assert_eq!(filter_of(&header), codec.stored);
        // The data does: one message naming the variable, the filter, and where plugins
        // were looked for; what could be printed was.
        let done = Test::ours("ncdump").envs(&off).arg(&out).run();
        assert_eq!(done.code, Some(1), "{}: {}", codec.label, done.stderr);
        for needle in [
            "cannot read variable /v".to_string(),
            format!(
                "filter {id} ({}; built into nctools, turned off by \
                 NCTOOLS_BUILTIN_FILTERS=0) is not available",
                codec.label
            ),
            format!("plugins were searched in {no_plugins} (from HDF5_PLUGIN_PATH)"),
        ] {
            assert!(
                done.stderr.contains(&needle),
                "{}: no `{needle}` in: {}",
                codec.label,
                done.stderr
            );
        }
        assert!(done.stdout.contains(" v =\n"), "{}", done.stdout);
        // Writing with it fails the same way and leaves nothing.
        let copy = dir.path().join(format!("copy-{}.nc", codec.label));
        let done = Test::ours("nccopy")
            .envs(&off)
            .args(["-F", &spec])
            .arg(&input)
            .arg(&copy)
            .run();
        assert_eq!(done.code, Some(1), "{}: {}", codec.label, done.stderr);
        assert!(
            done.stderr.contains(&format!(
                "cannot write variable /v with filter {id} ({}; built into nctools",
                codec.label
            )),
            "{}",
            done.stderr
        );
        assert!(!copy.exists(), "{}: an output was left", codec.label);
    }
}

#[test]
fn a_corrupt_chunk_is_an_error_naming_the_variable_never_a_crash() {
    let Some(python) = venv_python() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    for codec in &CODECS {
        let out = dir.path().join(format!("corrupt-{}.nc", codec.label));
        let spec = format!("v,{}", codec.ours);
        ok(
            &format!("our nccopy -F '{spec}'"),
            builtin("nccopy", &no_plugins)
                .args(["-F", &spec])
                .arg(&input)
                .arg(&out)
                .run(),
        );
        // The second half of the first chunk becomes 0xff bytes. (Fewer bytes in the middle
        // are not always noticed: zstd and blosc frames have no checksum, and a literal
        // run decodes to wrong values without error.)
        let first = chunks(&python, &out)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{}: no chunk", codec.label));
        let mut bytes = fs::read(&out).unwrap_or_else(|e| panic!("{out:?}: {e}"));
        let start = first.offset as usize + first.size / 2;
        let end = first.offset as usize + first.size;
        assert!(end <= bytes.len(), "{}: chunk beyond the file", codec.label);
        bytes[start..end].fill(0xff);
        fs::write(&out, &bytes).unwrap_or_else(|e| panic!("{out:?}: {e}"));
        // The header still reads; the data is an error, exit 1, not a signal or a panic.
        let header = builtin("ncdump", &no_plugins).arg("-h").arg(&out).run();
        assert_eq!(header.code, Some(0), "{}: {}", codec.label, header.stderr);
        let done = builtin("ncdump", &no_plugins).arg(&out).run();
        assert_no_crash(&done);
        assert_eq!(done.code, Some(1), "{}: {}", codec.label, done.stderr);
        assert!(
            done.stderr.contains("variable /v")
                && done.stderr.contains("the chunk is probably corrupt"),
            "{}: {}",
            codec.label,
            done.stderr
        );
        // nccopy too, when it decodes the chunks (--recode).
        let copy = dir.path().join(format!("copy-{}.nc", codec.label));
        let done = builtin("nccopy", &no_plugins)
            .arg("--recode")
            .arg(&out)
            .arg(&copy)
            .run();
        assert_no_crash(&done);
        assert_eq!(done.code, Some(1), "{}: {}", codec.label, done.stderr);
        assert!(
            done.stderr.contains("the chunk is probably corrupt"),
            "{}",
            done.stderr
        );
        assert!(!copy.exists(), "{}: an output was left", codec.label);
        // By default its filters do not change, so nccopy copies the stored chunks as
        // they are, like `cp`: the damaged chunk too, and the copy reads as the input.
        ok(
            &format!("{}: stored copy", codec.label),
            builtin("nccopy", &no_plugins).arg(&out).arg(&copy).run(),
        );
        let done = builtin("ncdump", &no_plugins).arg(&copy).run();
        assert_eq!(done.code, Some(1), "{}: {}", codec.label, done.stderr);
        assert!(
            done.stderr.contains("the chunk is probably corrupt"),
            "{}",
            done.stderr
        );
    }
}

/// Variables whose filters, chunks, type and byte order do not change have their stored
/// chunks copied byte for byte, with none of their filters present (no plugin, the
/// built-ins off); `--recode` needs the filter, and reads back the same data.
#[test]
fn stored_chunks_are_copied_byte_for_byte_without_their_filter() {
    let Some(python) = venv_python() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let input = plain(dir.path());
    for codec in &CODECS {
        let label = codec.label;
        let filtered = dir.path().join(format!("{label}.nc"));
        ok(
            label,
            builtin("nccopy", &no_plugins)
                .args(["-F", &format!("v,{}", codec.ours)])
                .arg(&input)
                .arg(&filtered)
                .run(),
        );
        let plan = ok(
            label,
            external("nccopy", &no_plugins)
                .arg("--dry-run")
                .arg(&filtered)
                .run(),
        );
        assert!(
            plan.contains(&format!(
                "/v\t{}\ttable row 4, stored chunks copied\n",
                codec.stored
            )),
            "{label}: {plan}"
        );
        let copy = dir.path().join(format!("{label}-copy.nc"));
        ok(
            &format!("{label}: copy with no filter present"),
            external("nccopy", &no_plugins)
                .arg(&filtered)
                .arg(&copy)
                .run(),
        );
        let recoded = dir.path().join(format!("{label}-recoded.nc"));
        let done = external("nccopy", &no_plugins)
            .arg("--recode")
            .arg(&filtered)
            .arg(&recoded)
            .run();
        assert_eq!(done.code, Some(1), "{label} --recode: {}", done.stderr);
        assert!(
            done.stderr.contains("cannot read variable /v") && !recoded.exists(),
            "{label}: {}",
            done.stderr
        );
        ok(
            label,
            builtin("nccopy", &no_plugins)
                .arg("--recode")
                .arg(&filtered)
                .arg(&recoded)
                .run(),
        );
        let [input_chunks, copied] = &chunks_of(&python, &[&filtered, &copy])[..] else {
            panic!("{label}: two files, two lists");
        };
        let hex = |c: &[Chunk]| c.iter().map(|c| c.hex.clone()).collect::<Vec<_>>();
        assert_eq!(input_chunks.len(), 2, "{label}");
        assert_eq!(hex(input_chunks), hex(copied), "{label}: chunks differ");
        let dump = |file: &Path| {
            ok(
                label,
                builtin("ncdump", &no_plugins).arg("-s").arg(file).run(),
            )
        };
        let body = |text: &str| {
            text.split_once('\n')
                .map(|(_, b)| b.to_string())
                .unwrap_or_default()
        };
        same(label, &body(&dump(&filtered)), &body(&dump(&copy)));
        same(label, &body(&dump(&copy)), &body(&dump(&recoded)));
    }
}

#[test]
fn a_chunk_blosc_cannot_shrink_is_stored_in_a_raw_frame_the_plugin_reads() {
    // Six floats: 24 bytes, which no compressor makes smaller than itself plus blosc's
    // 16-byte header. c-blosc then stores them as they are in a "memcpyed" frame; the
    // built-in writes that frame, and the plugin reads it. (Debian's plugin itself fails
    // to write such a chunk: it gives c-blosc no room beyond the input's size, and the
    // reference ncgen of this CDL exits 1 with "filter returned failure".)
    let Some(plugins) = external_plugins() else {
        return;
    };
    let dir = scratch();
    let no_plugins = empty_plugin_dir(dir.path());
    let source = dir.path().join("tiny.cdl");
    fs::write(
        &source,
        "netcdf tiny {\ndimensions:\n\tn = 6 ;\nvariables:\n\tfloat t(n) ;\n\
         \t\tt:_Filter = \"blosc,0,0,0,0,5,1,1\" ;\ndata:\n\n t = 0, 6, 12, 18, 24, 30 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{source:?}: {e}"));
    let out = dir.path().join("tiny.nc");
    ok(
        "our ncgen of tiny.cdl",
        builtin("ncgen", &no_plugins)
            .args(["-k", "nc4", "-o"])
            .arg(&out)
            .arg(&source)
            .run(),
    );
    let ours_dump = ok(
        "our ncdump -s",
        builtin("ncdump", &no_plugins).arg("-s").arg(&out).run(),
    );
    let their_dump = ok(
        "reference ncdump -s",
        theirs("ncdump", &plugins, ["-s".as_ref(), out.as_os_str()]),
    );
    same("tiny blosc chunk", &their_dump, &ours_dump);
    assert!(
        ours_dump.contains("t:_Filter = \"32001,2,2,4,24,5,1,1\" ;")
            && ours_dump.contains(" t = 0, 6, 12, 18, 24, 30 ;"),
        "{ours_dump}"
    );
}
