//! A netCDF-4 file that makes HDF5 read another file is refused before anything is read
//! (red team s30 H5): a dataset whose values HDF5 keeps in external files (any file the
//! tool can read: `/proc/self/environ` put the job's `AWS_SECRET_ACCESS_KEY` into
//! nccopy's S3 output), a virtual dataset mapped from another file, and an external link.
//! Before, ncdump printed the other file's bytes and nccopy copied them into its output.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{ok, run, scratch, skip, Test};

/// The project virtualenv's python with h5py, or `None` after a skip.
fn h5py() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    if python.is_file() && run(Command::new(&python).args(["-c", "import h5py"])).code == Some(0) {
        Some(python)
    } else {
        skip("the project virtualenv .venv with h5py");
        None
    }
}

#[test]
fn files_that_make_hdf5_read_another_file_are_refused() {
    let Some(python) = h5py() else {
        return;
    };
    let dir = scratch();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "the-secret-of-another-file\n").unwrap_or_else(|e| panic!("{e}"));
    let program = format!(
        "import h5py\n\
         with h5py.File('external.nc', 'w') as f:\n    \
         f.create_dataset('e', shape=(27,), dtype='S1', external=[({secret:?}, 0, 27)])\n\
         with h5py.File('environ.nc', 'w') as f:\n    \
         f.create_dataset('e', shape=(4096,), dtype='S1', external=[('/proc/self/environ', 0, 4096)])\n\
         with h5py.File('plain.nc', 'w') as f:\n    \
         f.create_dataset('w', data=h5py.File('external.nc', 'r')['e'][:])\n\
         with h5py.File('link.nc', 'w') as f:\n    \
         f['lnk'] = h5py.ExternalLink('plain.nc', '/w')\n\
         lay = h5py.VirtualLayout(shape=(27,), dtype='S1')\n\
         lay[:] = h5py.VirtualSource('plain.nc', 'w', shape=(27,))\n\
         with h5py.File('virtual.nc', 'w', libver=('v110', 'v110')) as f:\n    \
         f.create_virtual_dataset('vd', lay)\n"
    );
    let made = run(Command::new(&python)
        .args(["-c", &program])
        .current_dir(dir.path()));
    ok("h5py", &made);
    for (name, why) in [
        ("external.nc", "/e: its values are kept in external files"),
        ("environ.nc", "/e: its values are kept in external files"),
        ("link.nc", "/lnk: an external link"),
        ("virtual.nc", "/vd: a virtual dataset"),
    ] {
        let input = dir.path().join(name);
        let dumped = Test::ours("ncdump")
            .arg(&input)
            .current_dir(dir.path())
            .envs(&[("AWS_SECRET_ACCESS_KEY", "wJalrNOTTOBESEEN")])
            .run();
        assert_eq!(dumped.code, Some(1), "{name}: {}", dumped.stdout);
        assert!(dumped.stderr.contains(why), "{name}: {}", dumped.stderr);
        for text in [&dumped.stdout, &dumped.stderr] {
            assert!(
                !text.contains("the-secret") && !text.contains("wJalrNOTTOBESEEN"),
                "{name}: {text}"
            );
        }
        let out = dir.path().join(format!("copy-{name}"));
        let copied = Test::ours("nccopy")
            .arg(&input)
            .arg(&out)
            .current_dir(dir.path())
            .run();
        assert_eq!(copied.code, Some(1), "{name}: {}", copied.stderr);
        assert!(!out.exists(), "{name}: an output was written");
    }
    // The same values kept in the file itself are read.
    let plain = Test::ours("ncdump").arg(dir.path().join("plain.nc")).run();
    ok("plain", &plain);
    assert!(plain.stdout.contains("the-secret"), "{}", plain.stdout);
}
