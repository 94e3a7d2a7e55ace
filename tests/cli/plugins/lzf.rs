//! LZF (filter 32000), h5py's own compressor, added to the codec registry as one file:
//! with no other change, HDF5 files h5py writes with it are read by our tools with no
//! plugin, and its plugin lets the reference tools read and write it.
//!
//! - h5py writes one compressible dataset and one that is not, whose chunks h5py's
//!   optional filter stores unfiltered; our ncdump reads the file with no plugin, exactly
//!   as the reference ncdump does through our plugin (and the reference cannot without);
//! - our nccopy `-F '*,lzf'` writes chunks h5py reads with its own filter, and the
//!   reference reads through our plugin;
//! - the reference nccopy writes LZF through our plugin (its `set_local` records the
//!   chunk size, as h5py's does), which h5py and our ncdump read;
//! - in a Zarr store it is imagecodecs' `imagecodecs_lzf` without a header, the same
//!   bytes, which zarr-python with imagecodecs reads.

use std::process::Command;

use super::{no_plugins, ok, our_dump, plain, plugin_path, python_run, same, theirs, venv_python};
use crate::support::{reference, run, scratch, Test};

/// h5py writes ARGV[1]: `smooth`, compressible, and `noise`, which LZF cannot shrink, both
/// with h5py's LZF filter; prints the filter's parameters of each.
const H5PY_WRITES_LZF: &str = r#"
import sys
import h5py, numpy
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("smooth", data=numpy.arange(20000, dtype="f4").reshape(200, 100) / 7,
                     chunks=(50, 100), compression="lzf")
    noise = numpy.random.default_rng(1).integers(0, 2**31, size=4000, dtype="i4")
    f.create_dataset("noise", data=noise, chunks=(1000,), compression="lzf")
with h5py.File(sys.argv[1], "r") as f:
    for name in ("smooth", "noise"):
        print(f[name].id.get_create_plist().get_filter_by_id(32000)[1])
"#;

/// h5py (no hdf5plugin: its own LZF filter) reads `t` and `n` of ARGV[2] and checks them
/// against the plain file ARGV[1], and that they are stored with LZF.
const H5PY_READS_LZF: &str = r#"
import sys
import h5py, numpy
with h5py.File(sys.argv[1], "r") as p, h5py.File(sys.argv[2], "r") as f:
    for name in ("t", "n"):
        assert f[name].compression == "lzf", f[name]._filters
        numpy.testing.assert_array_equal(p[name][...], f[name][...])
    print("hdf5plugin" in sys.modules, f["t"].compression)
"#;

/// zarr-python, with imagecodecs' codecs registered, reads `t` of the Zarr store ARGV[2]
/// and checks it against the plain file ARGV[1] (read with h5py); prints the compressor.
const ZARR_READS_LZF: &str = r#"
import sys
import h5py, numpy, zarr
import imagecodecs.numcodecs
imagecodecs.numcodecs.register_codecs()
with h5py.File(sys.argv[1], "r") as p:
    expected = p["t"][...]
z = zarr.open_group(sys.argv[2], mode="r", zarr_format=2)
numpy.testing.assert_array_equal(z["t"][...], expected)
print(z["t"].metadata.compressor.get_config())
"#;

#[test]
fn lzf_files_from_h5py_and_from_us_are_read_by_every_tool() {
    if reference("ncdump").is_none() || reference("nccopy").is_none() {
        return;
    }
    let Some(python) = venv_python("h5py, numpy") else {
        return;
    };
    let plugins = plugin_path();
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());

    // h5py's file, read by our ncdump with no plugin, by the reference through ours.
    let h5py_file = dir.path().join("h5py_lzf.nc");
    let written = python_run(&python, H5PY_WRITES_LZF, &no_plugins, &[&h5py_file], &[]);
    ok("h5py writes LZF", &written);
    assert_eq!(written.stdout.trim(), "(4, 261, 20000)\n(4, 261, 4000)");
    let ours = our_dump(&[], &h5py_file, &no_plugins);
    assert!(ours.contains("noise = "), "{ours}");
    let read = theirs("ncdump", &plugins, &[h5py_file.as_os_str()]);
    ok("reference ncdump through our LZF plugin", &read);
    same("h5py's LZF file", &read.stdout, &ours);
    let without = theirs("ncdump", &no_plugins, &[h5py_file.as_os_str()]);
    assert_ne!(
        without.code,
        Some(0),
        "the reference read LZF with no plugin"
    );
    let shown = our_dump(&["-s", "-h"], &h5py_file, &no_plugins);
    assert!(
        shown.contains("smooth:_Filter = \"32000,4,261,20000\" ;"),
        "{shown}"
    );

    // Our LZF file, read by h5py's own filter and by the reference through our plugin.
    let input = plain(dir.path());
    let original = our_dump(&[], &input, &no_plugins);
    let ours_lzf = super::copy_in(dir.path(), "ours-lzf");
    let copied = Test::ours("nccopy")
        .args(["-F", "*,lzf"])
        .arg(&input)
        .arg(&ours_lzf)
        .envs(&[("HDF5_PLUGIN_PATH", no_plugins.as_str())])
        .run();
    ok("our nccopy -F '*,lzf'", &copied);
    let read = python_run(
        &python,
        H5PY_READS_LZF,
        &no_plugins,
        &[&input, &ours_lzf],
        &[],
    );
    ok("h5py reads our LZF", &read);
    assert_eq!(read.stdout.trim(), "False lzf");
    let read = theirs("ncdump", &plugins, &[ours_lzf.as_os_str()]);
    ok("reference ncdump of our LZF", &read);
    same("our LZF file", &original, &read.stdout);

    // The reference nccopy writes LZF through our plugin.
    let theirs_lzf = super::copy_in(dir.path(), "theirs-lzf");
    let copied = theirs(
        "nccopy",
        &plugins,
        &[
            "-F".as_ref(),
            "*,32000".as_ref(),
            input.as_os_str(),
            theirs_lzf.as_os_str(),
        ],
    );
    ok("reference nccopy -F '*,32000' through our plugin", &copied);
    same(
        "their LZF file",
        &original,
        &our_dump(&[], &theirs_lzf, &no_plugins),
    );
    let shown = our_dump(&["-s", "-h"], &theirs_lzf, &no_plugins);
    // set_local ran in the plugin: the reference made t one chunk of 60 x 50 floats.
    assert!(
        shown.contains("t:_Filter = \"32000,4,261,12000\" ;"),
        "{shown}"
    );
    let read = python_run(
        &python,
        H5PY_READS_LZF,
        &no_plugins,
        &[&input, &theirs_lzf],
        &[],
    );
    ok("h5py reads the reference's LZF", &read);
}

#[test]
fn an_lzf_zarr_store_is_imagecodecs_lzf_without_a_header() {
    let Some(python) = venv_python("h5py, zarr, imagecodecs") else {
        return;
    };
    let dir = scratch();
    let no_plugins = no_plugins(dir.path());
    let input = plain(dir.path());
    let store = dir.path().join("lzf.zarr");
    // An NCZarr store (the default for a path ending in .zarr), whose order of
    // variables our ncdump keeps.
    let url = store.display().to_string();
    let copied = Test::ours("nccopy")
        .args(["-F", "*,lzf"])
        .arg(&input)
        .arg(&url)
        .run();
    ok("our nccopy -F '*,lzf' to NCZarr", &copied);
    let array = std::fs::read_to_string(store.join("t/.zarray")).unwrap_or_default();
    assert!(
        array.contains(r#""compressor": {"id": "imagecodecs_lzf", "header": false}"#),
        "{array}"
    );
    let read = run(Command::new(&python)
        .args(["-c", ZARR_READS_LZF])
        .arg(&input)
        .arg(&store));
    ok("zarr-python with imagecodecs reads our LZF store", &read);
    assert_eq!(
        read.stdout.trim(),
        "{'id': 'imagecodecs_lzf', 'header': False}"
    );
    // Our ncdump reads it back as the input.
    let original = our_dump(&[], &input, &no_plugins);
    let dumped = Test::ours("ncdump").arg(&url).run();
    ok("our ncdump of the LZF store", &dumped);
    let body = |text: &str| {
        text.split_once('\n')
            .map(|(_, b)| b.to_string())
            .unwrap_or_default()
    };
    same("the LZF store", &body(&original), &body(&dumped.stdout));
    // imagecodecs' default, with a size header, is not the HDF5 chunk: refused by name.
    let json = std::fs::read_to_string(store.join("t/.zarray")).unwrap_or_default();
    std::fs::write(
        store.join("t/.zarray"),
        json.replace(r#", "header": false"#, ""),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Without the consolidated copy, which no longer matches.
    std::fs::remove_file(store.join(".zmetadata")).unwrap_or_else(|e| panic!("{e}"));
    let refused = Test::ours("ncdump").arg(&url).run();
    assert_eq!(refused.code, Some(1), "{}", refused.stdout);
    assert!(refused.stderr.contains("header"), "{}", refused.stderr);
}
