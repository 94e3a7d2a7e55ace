//! nctools' HDF5 filter plugins (`scripts/install --plugins`): one library per filter
//! nctools carries, so that programs that are not nctools read and write its files.
//!
//! - the install writes the four libraries, none of which needs libhdf5, and prints the
//!   `export HDF5_PLUGIN_PATH=...` line;
//! - with only them on HDF5_PLUGIN_PATH, the reference ncdump reads files our nccopy
//!   wrote exactly as our ncdump does, and h5py (no hdf5plugin imported) and
//!   netCDF4-python, each with the libhdf5 bundled in its wheel, read the data;
//! - the reference nccopy writes with them (blosc's set_local included), and our ncdump
//!   and h5py with hdf5plugin read the result; h5py writes with them too;
//! - the reference nccopy writes through them the very chunks it writes through the
//!   standard plugins (Debian's, hdf5plugin's zstd) for bzip2, zstd and blosc (lz4_flex
//!   finds other matches than liblz4), and reads through them what it wrote through the
//!   standard plugins;
//! - a corrupt chunk makes them fail, which the reference ncdump and h5py report as an
//!   error, never a crash;
//! - our own tools, with their built-in filters turned off, use them, and
//!   `--list-filters` says whose they are.
//!
//! The plugins are built (unoptimised, `--debug`) and installed once per test run, into
//! `installed-plugins` under cargo's temporary directory for tests.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::support::{first_difference, ok, reference, run, scratch, skip, Run, Test};

/// One filter with its plugin, as the tests use it.
struct Plugin {
    /// The filter's name, in the library's file name.
    name: &'static str,
    /// The filter id.
    id: u32,
    /// An `-F` spec of it, as the reference nccopy takes it.
    spec: &'static str,
}

const PLUGINS: [Plugin; 4] = [
    Plugin {
        name: "bzip2",
        id: 307,
        spec: "307,9",
    },
    Plugin {
        name: "zstd",
        id: 32015,
        spec: "32015,3",
    },
    Plugin {
        name: "lz4",
        id: 32004,
        spec: "32004",
    },
    Plugin {
        name: "blosc",
        id: 32001,
        spec: "32001,0,0,0,0,5,1,1",
    },
];

/// What `scripts/install --plugins --debug DIR` did, once per test run.
struct Installed {
    /// The directory.
    dir: PathBuf,
    /// The install's standard output.
    stdout: String,
}

/// Installs the plugins once (a failure fails every test that needs them).
fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Result<Installed, String>> = OnceLock::new();
    let result = INSTALLED.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("installed-plugins");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install");
        let done = run(Command::new("bash")
            .arg(&script)
            .args(["--plugins", "--debug"])
            .arg(&dir)
            .env_remove("HDF5_PLUGIN_PATH"));
        if done.code == Some(0) {
            Ok(Installed {
                dir,
                stdout: done.stdout,
            })
        } else {
            Err(format!("{}{}", done.stdout, done.stderr))
        }
    });
    match result {
        Ok(installed) => installed,
        Err(why) => panic!("scripts/install --plugins failed:\n{why}"),
    }
}

/// The plugin directory as HDF5_PLUGIN_PATH takes it.
pub(crate) fn plugin_path() -> String {
    installed().dir.to_string_lossy().into_owned()
}

/// The CDL of the test file: `float t(x = 60, y = 50)` of smooth values in chunks of
/// 20 x 50 (three chunks) and `int n(x)`, in one chunk.
fn cdl() -> String {
    let (nx, ny) = (60usize, 50usize);
    let t: Vec<String> = (0..nx * ny)
        .map(|i| format!("{:.2}", 270.0 + (i % 97) as f64 / 4.0 + (i / ny) as f64))
        .collect();
    let n: Vec<String> = (0..nx).map(|i| (i * i % 1000).to_string()).collect();
    format!(
        "netcdf data {{\ndimensions:\n\tx = {nx} ;\n\ty = {ny} ;\nvariables:\n\
         \tfloat t(x, y) ;\n\t\tt:_ChunkSizes = 20, 50 ;\n\tint n(x) ;\n\
         data:\n\n t = {} ;\n\n n = {} ;\n}}\n",
        t.join(", "),
        n.join(", ")
    )
}

/// The unfiltered input DIR/plain/data.nc, made by our ncgen. (Every copy of it is
/// named data.nc, in a directory of its own, so that dumps start with the same line.)
fn plain(dir: &Path) -> PathBuf {
    let sub = dir.join("plain");
    fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{}: {e}", sub.display()));
    let source = sub.join("data.cdl");
    fs::write(&source, cdl()).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    let out = sub.join("data.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&out)
        .arg(&source)
        .run();
    ok("our ncgen", &made);
    out
}

/// The path DIR/LABEL/data.nc, its directory made.
fn copy_in(dir: &Path, label: &str) -> PathBuf {
    let sub = dir.join(label);
    fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{}: {e}", sub.display()));
    sub.join("data.nc")
}

/// Asserts that two texts are the same.
#[track_caller]
fn same(label: &str, expected: &str, got: &str) {
    assert!(
        expected == got,
        "{label}: differs at {}",
        first_difference(expected, got)
    );
}

/// An empty directory DIR/no-plugins, for HDF5_PLUGIN_PATH.
fn no_plugins(dir: &Path) -> String {
    let empty = dir.join("no-plugins");
    fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{}: {e}", empty.display()));
    empty.to_string_lossy().into_owned()
}

/// Our ncdump with its built-in filters and no plugin.
fn our_dump(args: &[&str], file: &Path, no_plugins: &str) -> String {
    let dump = Test::ours("ncdump")
        .args(args)
        .arg(file)
        .envs(&[("HDF5_PLUGIN_PATH", no_plugins)])
        .run();
    ok("our ncdump", &dump);
    dump.stdout
}

/// The reference `tool` with HDF5_PLUGIN_PATH = `plugins` (checked installed by the
/// caller).
fn theirs(tool: &str, plugins: &str, args: &[&std::ffi::OsStr]) -> Run {
    let Some(path) = reference(tool) else {
        panic!("the reference {tool} vanished");
    };
    run(Command::new(path)
        .env("HDF5_PLUGIN_PATH", plugins)
        .args(args))
}

/// Our nccopy `-F SPEC` of `input` into DIR/LABEL/data.nc, with the built-in filters.
fn our_copy(input: &Path, dir: &Path, plugin: &Plugin, no_plugins: &str) -> PathBuf {
    let out = copy_in(dir, plugin.name);
    let copied = Test::ours("nccopy")
        .args(["-F", &format!("*,{}", plugin.spec)])
        .arg(input)
        .arg(&out)
        .envs(&[("HDF5_PLUGIN_PATH", no_plugins)])
        .run();
    ok(&format!("our nccopy -F {}", plugin.spec), &copied);
    out
}

/// The project virtualenv's python, if it can import `modules` (a skip, or a failure in
/// CI, otherwise).
fn venv_python(modules: &str) -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    let works = python.is_file()
        && run(Command::new(&python).args(["-c", &format!("import {modules}")])).code == Some(0);
    if works {
        Some(python)
    } else {
        skip(&format!("the project virtualenv .venv with {modules}"));
        None
    }
}

/// Reads the netCDF-4 files ARGS[1..] with h5py, checks that each variable holds the
/// values of the plain file ARGS[0] and is stored with filter ARGS[2..] (pairs of file and
/// id), and that hdf5plugin was imported only when asked (IMPORT_HDF5PLUGIN=1).
const H5PY_COMPARE: &str = r#"
import os, sys
if os.environ.get("IMPORT_HDF5PLUGIN") == "1":
    import hdf5plugin
import h5py, numpy
plain = sys.argv[1]
pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
with h5py.File(plain, "r") as p:
    for path, fid in pairs:
        with h5py.File(path, "r") as f:
            for name in ("t", "n"):
                assert fid in f[name]._filters, (path, name, f[name]._filters)
                numpy.testing.assert_array_equal(p[name][...], f[name][...])
print("hdf5plugin" in sys.modules, len(pairs))
"#;

/// The same with netCDF4-python.
const NETCDF4_COMPARE: &str = r#"
import sys
import netCDF4, numpy
plain = sys.argv[1]
with netCDF4.Dataset(plain) as p:
    for path, fid in zip(sys.argv[2::2], sys.argv[3::2]):
        with netCDF4.Dataset(path) as f:
            for name in ("t", "n"):
                numpy.testing.assert_array_equal(p[name][...], f[name][...])
print("hdf5plugin" in sys.modules, netCDF4.__hdf5libversion__)
"#;

/// Writes with h5py through the plugins on HDF5_PLUGIN_PATH (no hdf5plugin): a blosc
/// dataset (its set_local runs in the plugin) and a zstd one, then reads them back.
const H5PY_WRITE: &str = r#"
import sys
import h5py, numpy
data = numpy.arange(12000, dtype="i4").reshape(120, 100) % 1013
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("b", data=data, chunks=(40, 100), compression=32001,
                     compression_opts=(0, 0, 0, 0, 5, 1, 1))
    f.create_dataset("z", data=data, chunks=(40, 100), compression=32015,
                     compression_opts=(3,))
with h5py.File(sys.argv[1], "r") as f:
    print(f["b"]._filters["32001"], f["z"]._filters["32015"], "hdf5plugin" in sys.modules)
    numpy.testing.assert_array_equal(f["b"][...], data)
    numpy.testing.assert_array_equal(f["z"][...], data)
"#;

/// Reads back what H5PY_WRITE wrote, with hdf5plugin's plugins instead of ours.
const H5PY_READ_WITH_HDF5PLUGIN: &str = r#"
import sys
import hdf5plugin, h5py, numpy
data = numpy.arange(12000, dtype="i4").reshape(120, 100) % 1013
with h5py.File(sys.argv[1], "r") as f:
    numpy.testing.assert_array_equal(f["b"][...], data)
    numpy.testing.assert_array_equal(f["z"][...], data)
print("read")
"#;

/// `python -c SCRIPT ARGS` with HDF5_PLUGIN_PATH = `plugins`.
fn python_run(
    python: &Path,
    script: &str,
    plugins: &str,
    args: &[&Path],
    env: &[(&str, &str)],
) -> Run {
    run(Command::new(python)
        .args(["-c", script])
        .args(args)
        .env("HDF5_PLUGIN_PATH", plugins)
        .envs(env.iter().copied()))
}

#[test]
fn install_writes_one_library_per_filter_that_needs_no_libhdf5() {
    let installed = installed();
    for plugin in &PLUGINS {
        let file = installed
            .dir
            .join(format!("libnctools_h5{}.so", plugin.name));
        let line = format!(
            "install-plugins: wrote {} ({}, filter {})",
            file.display(),
            plugin.name,
            plugin.id
        );
        assert!(
            installed.stdout.lines().any(|l| l == line),
            "no {line:?} in\n{}",
            installed.stdout
        );
        // The library links no libhdf5: it works with whichever libhdf5 loads it.
        let needs = run(Command::new("ldd").arg(&file));
        ok(&format!("ldd {}", file.display()), &needs);
        assert!(!needs.stdout.contains("libhdf5"), "{}", needs.stdout);
        // Nor any HDF5 function (blosc's set_local looks its few up at run time); it
        // exports the two HDF5 asks a plugin for.
        let undefined = run(Command::new("nm")
            .args(["-D", "--undefined-only"])
            .arg(&file));
        ok("nm -D --undefined-only", &undefined);
        assert!(
            !undefined
                .stdout
                .lines()
                .any(|l| l.trim_start().starts_with("U H5")),
            "{}",
            undefined.stdout
        );
        let defined = run(Command::new("nm").args(["-D", "--defined-only"]).arg(&file));
        ok("nm -D --defined-only", &defined);
        for symbol in ["H5PLget_plugin_type", "H5PLget_plugin_info"] {
            assert!(
                defined
                    .stdout
                    .lines()
                    .any(|l| l.ends_with(&format!(" T {symbol}"))),
                "{symbol}: {}",
                defined.stdout
            );
        }
    }
    let export = format!("export HDF5_PLUGIN_PATH={}", installed.dir.display());
    assert_eq!(installed.stdout.lines().last(), Some(export.as_str()));
}

#[test]
fn install_defaults_to_the_last_directory_of_hdf5_plugin_path() {
    let dir = scratch();
    let (first, last) = (dir.path().join("first"), dir.path().join("last"));
    // Built by `installed()` (install-plugins --debug), beside this test's scratch.
    installed();
    let lib_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../debug");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install");
    let path = format!("{}:{}", first.display(), last.display());
    let done = run(Command::new("bash")
        .arg(&script)
        .arg("--plugins")
        .arg("--lib-dir")
        .arg(&lib_dir)
        .env("HDF5_PLUGIN_PATH", &path));
    ok("scripts/install --plugins --lib-dir", &done);
    assert!(!first.exists());
    for plugin in &PLUGINS {
        assert!(last
            .join(format!("libnctools_h5{}.so", plugin.name))
            .is_file());
    }
    // The directory is on the path already: the line keeps the path as it is.
    assert_eq!(
        done.stdout.lines().last(),
        Some(format!("export HDF5_PLUGIN_PATH={path}").as_str())
    );
    // Without HDF5_PLUGIN_PATH, HDF5's own default directory.
    let whereto = |path: Option<&str>| {
        let mut command = Command::new("bash");
        command.arg(&script).args(["--plugins", "--where"]);
        match path {
            Some(path) => command.env("HDF5_PLUGIN_PATH", path),
            None => command.env_remove("HDF5_PLUGIN_PATH"),
        };
        let done = run(&mut command);
        ok("scripts/install --plugins --where", &done);
        done.stdout.trim().to_string()
    };
    // Without it, the directory the HDF5 in use searches, as `nctools --version` says
    // (before: /usr/local/hdf5/lib/plugin, which Debian's HDF5 never searches).
    let version = run(Command::new(crate::support::NCTOOLS)
        .arg("--version")
        .env_remove("HDF5_PLUGIN_PATH"));
    let searched = version
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("HDF5 plugins: "))
        .and_then(|rest| rest.split([' ', ':']).next())
        .unwrap_or_else(|| panic!("{}", version.stdout))
        .to_string();
    assert!(searched.starts_with('/'), "{searched}");
    assert_eq!(whereto(None), searched);
    assert_eq!(whereto(Some("/a:/b")), "/b");
}

#[test]
fn the_reference_ncdump_reads_our_files_through_our_plugins() {
    if reference("ncdump").is_none() {
        return;
    }
    let plugins = plugin_path();
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());
    let input = plain(dir.path());
    let original = our_dump(&[], &input, &no_plugins);
    for plugin in &PLUGINS {
        let out = our_copy(&input, dir.path(), plugin, &no_plugins);
        let ours = our_dump(&["-s"], &out, &no_plugins);
        let their = theirs("ncdump", &plugins, &["-s".as_ref(), out.as_os_str()]);
        ok(&format!("reference ncdump -s, {}", plugin.name), &their);
        same(plugin.name, &ours, &their.stdout);
        let data = theirs("ncdump", &plugins, &[out.as_os_str()]);
        same(
            &format!("{}: the data", plugin.name),
            &original,
            &data.stdout,
        );
        // Without the plugins the reference cannot read the data: they did the work.
        let without = theirs("ncdump", &no_plugins, &[out.as_os_str()]);
        assert_ne!(
            without.code,
            Some(0),
            "{}: read without a plugin",
            plugin.name
        );
    }
}

#[test]
fn h5py_and_netcdf4_python_read_our_files_with_only_our_plugins() {
    let Some(python) = venv_python("h5py, numpy") else {
        return;
    };
    let plugins = plugin_path();
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());
    let input = plain(dir.path());
    let outs: Vec<PathBuf> = PLUGINS
        .iter()
        .map(|p| our_copy(&input, dir.path(), p, &no_plugins))
        .collect();
    let ids: Vec<PathBuf> = PLUGINS
        .iter()
        .map(|p| PathBuf::from(p.id.to_string()))
        .collect();
    let mut args: Vec<&Path> = vec![&input];
    for (out, id) in outs.iter().zip(&ids) {
        args.push(out);
        args.push(id);
    }
    let read = python_run(&python, H5PY_COMPARE, &plugins, &args, &[]);
    ok("h5py with our plugins", &read);
    assert_eq!(read.stdout.trim(), "False 4", "{}", read.stderr);
    // Without them, h5py cannot: the plugins did the work.
    let without = python_run(&python, H5PY_COMPARE, &no_plugins, &args, &[]);
    assert_ne!(without.code, Some(0), "h5py read without a plugin");
    let Some(python) = venv_python("netCDF4, numpy") else {
        return;
    };
    let read = python_run(&python, NETCDF4_COMPARE, &plugins, &args, &[]);
    ok("netCDF4-python with our plugins", &read);
    assert!(read.stdout.starts_with("False "), "{}", read.stdout);
    let without = python_run(&python, NETCDF4_COMPARE, &no_plugins, &args, &[]);
    assert_ne!(
        without.code,
        Some(0),
        "netCDF4-python read without a plugin"
    );
}

#[test]
fn the_reference_nccopy_writes_with_our_plugins() {
    if reference("nccopy").is_none() {
        return;
    }
    let Some(python) = venv_python("h5py, hdf5plugin, numpy") else {
        return;
    };
    let plugins = plugin_path();
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());
    let input = plain(dir.path());
    let original = our_dump(&[], &input, &no_plugins);
    let mut args: Vec<PathBuf> = vec![input.clone()];
    for plugin in &PLUGINS {
        let out = copy_in(dir.path(), plugin.name);
        let filter = format!("*,{}", plugin.spec);
        let copied = theirs(
            "nccopy",
            &plugins,
            &[
                "-F".as_ref(),
                filter.as_ref(),
                input.as_os_str(),
                out.as_os_str(),
            ],
        );
        ok(&format!("reference nccopy -F {filter}"), &copied);
        // Our ncdump, with its built-in filters and no plugin, reads it.
        same(plugin.name, &original, &our_dump(&[], &out, &no_plugins));
        let header = our_dump(&["-hs"], &out, &no_plugins);
        let stored = format!("t:_Filter = \"{}", plugin.id);
        assert!(header.contains(&stored), "{}: {header}", plugin.name);
        args.push(out);
        args.push(PathBuf::from(plugin.id.to_string()));
    }
    // blosc's set_local ran in our plugin, inside the reference nccopy: the parameters
    // it records are those of the standard plugin (revision 2, format 2, 4-byte
    // elements, then the bytes of a chunk of `t`, as the reference chunked it).
    let blosc = our_dump(&["-hs"], &args[args.len() - 2], &no_plugins);
    let chunk_bytes: u64 = blosc
        .lines()
        .find_map(|l| l.trim().strip_prefix("t:_ChunkSizes = "))
        .map(|sizes| {
            sizes
                .trim_end_matches(" ;")
                .split(", ")
                .filter_map(|n| n.parse::<u64>().ok())
                .product::<u64>()
                * 4
        })
        .unwrap_or_default();
    let stored = format!("t:_Filter = \"32001,2,2,4,{chunk_bytes},5,1,1\"");
    assert!(
        chunk_bytes > 0 && blosc.contains(&stored),
        "{stored}: {blosc}"
    );
    let arg_refs: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
    let read = python_run(
        &python,
        H5PY_COMPARE,
        &no_plugins,
        &arg_refs,
        &[("IMPORT_HDF5PLUGIN", "1")],
    );
    ok("h5py with hdf5plugin", &read);
    assert_eq!(read.stdout.trim(), "True 4", "{}", read.stderr);
}

/// Debian's HDF5 plugin directory (bzip2, lz4, blosc), installed by scripts/setup.
const DEBIAN_PLUGINS: &str = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins";

/// Prints whether the raw chunks (as stored) of `t` and `n` are the same in the two
/// files ARGS[1] and ARGS[2]: `same COUNT`, or `differ` with the first difference.
const SAME_CHUNKS: &str = r#"
import sys, h5py
def chunks(path):
    out = []
    with h5py.File(path, "r") as f:
        for name in ("t", "n"):
            d = f[name]
            for i in range(d.id.get_num_chunks()):
                info = d.id.get_chunk_info(i)
                out.append((name, info.chunk_offset, d.id.read_direct_chunk(info.chunk_offset)))
    return out
a, b = chunks(sys.argv[1]), chunks(sys.argv[2])
if a == b:
    print("same", len(a))
else:
    print("differ", len(a), len(b), next((x[:2] for x, y in zip(a, b) if x != y), None))
"#;

#[test]
fn through_our_plugins_the_reference_writes_and_reads_the_standard_plugins_chunks() {
    if reference("nccopy").is_none() || reference("ncdump").is_none() {
        return;
    }
    let Some(python) = venv_python("h5py, hdf5plugin") else {
        return;
    };
    let found =
        run(Command::new(&python).args(["-c", "import hdf5plugin; print(hdf5plugin.PLUGIN_PATH)"]));
    ok("hdf5plugin.PLUGIN_PATH", &found);
    let pypi = found.stdout.trim().to_string();
    for plugin in ["libh5bz2.so", "libh5lz4.so", "libH5Zblosc.so"] {
        if !Path::new(DEBIAN_PLUGINS).join(plugin).is_file() {
            skip(&format!("the HDF5 plugin {DEBIAN_PLUGINS}/{plugin}"));
            return;
        }
    }
    let standard = format!("{DEBIAN_PLUGINS}:{pypi}");
    let plugins = plugin_path();
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());
    let input = plain(dir.path());
    let original = our_dump(&[], &input, &no_plugins);
    for plugin in &PLUGINS {
        let filter = format!("*,{}", plugin.spec);
        let copy = |label: &str, path: &str| {
            let out = copy_in(dir.path(), &format!("{}-{label}", plugin.name));
            let copied = theirs(
                "nccopy",
                path,
                &[
                    "-F".as_ref(),
                    filter.as_ref(),
                    input.as_os_str(),
                    out.as_os_str(),
                ],
            );
            ok(
                &format!("reference nccopy -F {filter} with {label}"),
                &copied,
            );
            out
        };
        let ours = copy("ours", &plugins);
        let theirs_out = copy("standard", &standard);
        // What the standard plugin wrote, the reference reads through ours.
        let read = theirs("ncdump", &plugins, &[theirs_out.as_os_str()]);
        ok(
            &format!("{}: reference ncdump through ours", plugin.name),
            &read,
        );
        same(plugin.name, &original, &read.stdout);
        if plugin.name == "lz4" {
            continue;
        }
        let compared = run(Command::new(&python)
            .args(["-c", SAME_CHUNKS])
            .arg(&ours)
            .arg(&theirs_out));
        ok("h5py chunks", &compared);
        // The reference nccopy -F stores each of these small variables in one chunk.
        assert_eq!(compared.stdout.trim(), "same 2", "{}", plugin.name);
    }
}

/// Overwrites the second half of the first stored chunk of `t` in ARGS[1] with 0xff
/// bytes, then prints the error h5py gives reading `t` (with the plugins on
/// HDF5_PLUGIN_PATH), or "read" if it reads.
const CORRUPT_AND_READ: &str = r#"
import sys, h5py
path = sys.argv[1]
with h5py.File(path, "r") as f:
    info = f["t"].id.get_chunk_info(0)
start, size = info.byte_offset, info.size
with open(path, "r+b") as raw:
    raw.seek(start + size // 2)
    raw.write(b"\xff" * (size - size // 2))
try:
    with h5py.File(path, "r") as f:
        f["t"][...]
    print("read")
except OSError as e:
    print("error:", e)
"#;

#[test]
fn a_corrupt_chunk_is_an_error_through_our_plugins_never_a_crash() {
    if reference("ncdump").is_none() {
        return;
    }
    let Some(python) = venv_python("h5py") else {
        return;
    };
    let plugins = plugin_path();
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());
    let input = plain(dir.path());
    for plugin in &PLUGINS {
        let out = our_copy(&input, dir.path(), plugin, &no_plugins);
        let read = python_run(&python, CORRUPT_AND_READ, &plugins, &[&out], &[]);
        assert_eq!(
            read.signal, None,
            "{}: h5py crashed: {}",
            plugin.name, read.stderr
        );
        assert!(
            read.stdout.starts_with("error:"),
            "{}: {}{}",
            plugin.name,
            read.stdout,
            read.stderr
        );
        let dump = theirs("ncdump", &plugins, &[out.as_os_str()]);
        assert_eq!(dump.signal, None, "{}: {}", plugin.name, dump.stderr);
        assert_eq!(dump.code, Some(1), "{}: {}", plugin.name, dump.stderr);
        assert!(
            dump.stderr.contains("NetCDF: HDF error") && !dump.stderr.contains("panicked"),
            "{}: {}",
            plugin.name,
            dump.stderr
        );
    }
}

#[test]
fn h5py_writes_with_our_plugins_and_hdf5plugin_reads_the_result() {
    let Some(python) = venv_python("h5py, hdf5plugin, numpy") else {
        return;
    };
    let dir = scratch();
    let file = dir.path().join("written.h5");
    let wrote = python_run(&python, H5PY_WRITE, &plugin_path(), &[&file], &[]);
    ok("h5py writing through our plugins", &wrote);
    // blosc's set_local found h5py's own libhdf5 (not in the global scope) and filled in
    // revision, format, element size and chunk bytes (40 x 100 x 4).
    assert_eq!(wrote.stdout.trim(), "(2, 2, 4, 16000, 5, 1, 1) (3,) False");
    let read = python_run(
        &python,
        H5PY_READ_WITH_HDF5PLUGIN,
        &no_plugins(dir.path()),
        &[&file],
        &[],
    );
    ok("h5py with hdf5plugin", &read);
}

#[test]
fn our_tools_use_our_plugins_with_their_built_ins_turned_off_and_say_whose_they_are() {
    let plugins = plugin_path();
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());
    let input = plain(dir.path());
    let original = our_dump(&[], &input, &no_plugins);
    let external = [
        ("HDF5_PLUGIN_PATH", plugins.as_str()),
        ("NCTOOLS_BUILTIN_FILTERS", "0"),
    ];
    for plugin in &PLUGINS {
        let out = copy_in(dir.path(), plugin.name);
        let copied = Test::ours("nccopy")
            .args(["-F", &format!("*,{}", plugin.spec)])
            .arg(&input)
            .arg(&out)
            .envs(&external)
            .run();
        ok(
            &format!("our nccopy through the plugin, {}", plugin.name),
            &copied,
        );
        let dump = Test::ours("ncdump").arg(&out).envs(&external).run();
        ok("our ncdump through the plugin", &dump);
        same(plugin.name, &original, &dump.stdout);
        same(plugin.name, &original, &our_dump(&[], &out, &no_plugins));
    }
    let list = Test::ours("nccopy")
        .arg("--list-filters")
        .envs(&external)
        .run();
    ok("nccopy --list-filters", &list);
    let shadowed = Test::ours("nccopy")
        .arg("--list-filters")
        .envs(&[("HDF5_PLUGIN_PATH", plugins.as_str())])
        .run();
    ok("nccopy --list-filters", &shadowed);
    for plugin in &PLUGINS {
        let file = installed()
            .dir
            .join(format!("libnctools_h5{}.so", plugin.name));
        let row = |text: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("{} ", plugin.id)))
                .map(str::to_string)
                .unwrap_or_default()
        };
        let used = format!("plugin {} (nctools; built into nctools", file.display());
        assert!(row(&list.stdout).contains(&used), "{}", list.stdout);
        let not_used = format!("built-in (nctools plugin {} not used)", file.display());
        assert!(
            row(&shadowed.stdout).ends_with(&not_used),
            "{}",
            shadowed.stdout
        );
    }
}

mod lzf;
