//! Fill values of Zarr stores as other programs write them, read as zarr-python reads
//! them: Zarr version 3's hexadecimal floats (the bits of the value) give the value they
//! name, and a fill value that is none of its array's type is refused, naming it.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::support::{ok, run, scratch, zarr_python, Test};

/// A Zarr version 3 store DIR/NAME.zarr of one array `a` of four values of `data_type`
/// whose fill value is `fill`, no chunk written.
fn store(dir: &Path, name: &str, data_type: &str, fill: Value) -> std::path::PathBuf {
    let root = dir.join(format!("{name}.zarr"));
    std::fs::create_dir_all(root.join("a")).unwrap_or_else(|e| panic!("{e}"));
    let group = json!({"zarr_format": 3, "node_type": "group", "attributes": {}});
    let array = json!({"zarr_format": 3, "node_type": "array", "shape": [4],
        "data_type": data_type, "fill_value": fill, "dimension_names": ["x"],
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {}});
    std::fs::write(root.join("zarr.json"), group.to_string()).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("a/zarr.json"), array.to_string()).unwrap_or_else(|e| panic!("{e}"));
    root
}

/// Red team s35 RB3: Zarr version 3 writes a float's fill value as `"0x"` and the
/// hexadecimal bits of the value where JSON has no number for it (a NaN's payload); every
/// such fill value read as 0, without a word, in ncdump and in nccopy's output, where
/// zarr-python reads the value. Checked against zarr-python's reading of the same stores.
#[test]
fn hexadecimal_float_fill_values_read_as_the_values_they_name() {
    let dir = scratch();
    let cases = [
        ("one64", "float64", "0x3ff0000000000000", "1, 1, 1, 1"),
        ("one32", "float32", "0x3f800000", "1, 1, 1, 1"),
        (
            "half64",
            "float64",
            "0xbfe0000000000000",
            "-0.5, -0.5, -0.5, -0.5",
        ),
        (
            "nan64",
            "float64",
            "0x7ff8000000000000",
            "NaN, NaN, NaN, NaN",
        ),
    ];
    for (name, data_type, fill, shown) in cases {
        let root = store(dir.path(), name, data_type, json!(fill));
        let dumped = ok(name, Test::ours("ncdump").arg(&root).run());
        assert!(
            dumped.contains(&format!(" a = {shown} ;")),
            "{name}: {dumped}"
        );
        let copy = dir.path().join(format!("{name}.nc"));
        ok(name, Test::ours("nccopy").arg(&root).arg(&copy).run());
        let copied = ok(name, Test::ours("ncdump").arg(&copy).run());
        assert!(
            copied.contains(&format!(" a = {shown} ;")),
            "{name}: {copied}"
        );
    }
    let Some(python) = zarr_python() else {
        return;
    };
    let read = "import sys, zarr\nfor p in sys.argv[1:]:\n    print(list(zarr.open_array(p + '/a', mode='r')[:]))";
    let paths: Vec<String> = cases
        .iter()
        .map(|(name, ..)| {
            dir.path()
                .join(format!("{name}.zarr"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let done = run(Command::new(&python).arg("-c").arg(read).args(&paths));
    let theirs = ok("zarr-python", &done);
    let lines: Vec<&str> = theirs.lines().collect();
    assert_eq!(lines.len(), 4, "{theirs}");
    assert!(
        lines[0].contains("1.0") && lines[1].contains("1.0"),
        "{theirs}"
    );
    assert!(
        lines[2].contains("-0.5") && lines[3].contains("nan"),
        "{theirs}"
    );
}

/// Red team s35 RB4: a fill value that is none of its array's type (`"NaN"` for an
/// integer, 10^30 for a byte, -1 for an unsigned integer: zarr-python refuses each) read
/// as no fill value, unwritten chunks as zeros, without a word. Now refused, naming the
/// array and the value.
#[test]
fn a_fill_value_that_is_none_of_its_types_is_refused() {
    let dir = scratch();
    for (name, data_type, fill) in [
        ("nan_int", "int32", json!("NaN")),
        ("big_byte", "int8", json!(1e30)),
        ("negative_unsigned", "uint64", json!(-1)),
    ] {
        let root = store(dir.path(), name, data_type, fill);
        let done = Test::ours("ncdump").arg(&root).run();
        assert_eq!(done.code, Some(1), "{name}: {}", done.stderr);
        assert!(
            done.stderr.contains("its fill_value"),
            "{name}: {}",
            done.stderr
        );
        assert!(
            done.stderr.contains("a/zarr.json"),
            "{name}: {}",
            done.stderr
        );
    }
}
