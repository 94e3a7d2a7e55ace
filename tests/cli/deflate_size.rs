//! Deflate as small as zlib's: at every level 1-9, `nccopy -d L -s` writes a file no more
//! than 1% larger than the reference nccopy's (which deflates with the system's zlib)
//! of the same input, a smooth field of the shape real files have, rounded as
//! measurements are.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::support::{ok, reference, run_reference, scratch, Test};

/// A CDL of a 3 x 180 x 360 float field, smooth and rounded to 0.01, under an unlimited
/// time dimension.
fn smooth_field_cdl() -> String {
    let mut cdl = String::from(
        "netcdf field {\ndimensions:\n\ttime = UNLIMITED ;\n\tlat = 180 ;\n\tlon = 360 ;\n\
         variables:\n\tfloat tas(time, lat, lon) ;\ndata:\n\n tas =",
    );
    let mut first = true;
    for t in 0..3 {
        for y in 0..180 {
            for x in 0..360 {
                let value = 280.0
                    + 20.0
                        * (f64::from(x) / 50.0 + f64::from(t)).sin()
                        * (f64::from(y) / 40.0).cos();
                let rounded = (value * 100.0).round() / 100.0;
                let separator = if first { " " } else { ", " };
                first = false;
                let _ = write!(cdl, "{separator}{rounded}");
            }
            cdl.push('\n');
        }
    }
    cdl.push_str(" ;\n}\n");
    cdl
}

fn size(path: &Path) -> u64 {
    fs::metadata(path).map_or_else(|e| panic!("{}: {e}", path.display()), |m| m.len())
}

#[test]
fn every_deflate_level_is_as_small_as_zlibs() {
    let (Some(_), Some(_)) = (reference("ncgen"), reference("nccopy")) else {
        return;
    };
    let dir = scratch();
    let cdl = dir.path().join("field.cdl");
    fs::write(&cdl, smooth_field_cdl()).unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join("field.nc");
    let made = run_reference(
        "ncgen",
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            input.as_os_str(),
            cdl.as_os_str(),
        ],
    );
    ok("made", &made);
    let mut table = String::new();
    for level in 1..=9 {
        let level = level.to_string();
        let theirs = dir.path().join(format!("ref-{level}.nc"));
        let ours = dir.path().join(format!("ours-{level}.nc"));
        let done = run_reference(
            "nccopy",
            [
                "-d".as_ref(),
                level.as_ref(),
                "-s".as_ref(),
                input.as_os_str(),
                theirs.as_os_str(),
            ],
        );
        ok("done", &done);
        let done = Test::ours("nccopy")
            .args(["-d", &level, "-s"])
            .arg(&input)
            .arg(&ours)
            .run();
        ok("done", &done);
        let (theirs, ours) = (size(&theirs), size(&ours));
        let _ = writeln!(table, "level {level}: reference {theirs}, ours {ours}");
        assert!(
            ours * 100 <= theirs * 101,
            "level {level}: ours {ours} bytes, the reference {theirs}\n{table}"
        );
    }
    eprintln!("{table}");
}
