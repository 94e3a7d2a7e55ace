//! netCDF-C 4.10's `ncdump` (the build of [`super::netcdf_c`]) reading stores our tools
//! write: what a user of the newest netCDF-C sees of them. Each case is a CDL that our
//! `ncgen` writes into an NCZarr store; 4.10's dump of the store must be ours but for
//! the known differences ([`known_differences_removed`]): netCDF-C 4.10 no longer reads
//! netCDF-C 4.9's NCZarr form, which nctools writes (its metadata keys are upper case,
//! 4.10's lower case), so it reads such a store, netCDF-C 4.9's own ones included, as
//! pure Zarr: every dimension fixed, and each object's `_NCZARR_ATTR` (4.9's record of
//! attribute types) shown as an attribute. Any other difference is a failure. The CLI
//! tests check what netCDF-C 4.9.0, the reference, reads.

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

/// The cases: a name and a CDL.
const CASES: &[(&str, &str)] = &[(
    // An unlimited dimension: 4.10 reads `dimensions` (its form) before `dims` (the
    // plain lengths written for 4.9.0), so it must see UNLIMITED.
    "unlimited",
    "netcdf unlimited {\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 2 ;\nvariables:\n\
     \tdouble time(time) ;\n\t\ttime:units = \"days since 2000-01-01\" ;\n\
     \tfloat v(time, x) ;\n\t\tv:_FillValue = -999.f ;\ndata:\n time = 0, 1, 2 ;\n\
     v = 1, 2, 3, 4, _, 6 ;\n}\n",
)];

/// netCDF-C 4.10's dump without what it shows of netCDF-C 4.9's NCZarr metadata: the
/// `_NCZARR_ATTR` attributes, and the global attributes' heading when they were all.
fn known_differences_removed(dump: &str) -> String {
    let kept: Vec<&str> = dump
        .lines()
        .filter(|line| !line.contains(":_NCZARR_ATTR = "))
        .collect();
    kept.join("\n")
        .replace("\n\n// global attributes:\ndata:", "\ndata:")
        + "\n"
}

/// Our dump with each UNLIMITED dimension as the fixed one netCDF-C 4.10 reads:
/// `time = UNLIMITED ; // (3 currently)` as `time = 3 ;`.
fn fixed_dimensions(dump: &str) -> String {
    let lines: Vec<String> = dump
        .lines()
        .map(|line| match line.split_once(" = UNLIMITED ; // (") {
            Some((name, rest)) => {
                let count = rest.split(' ').next().unwrap_or_default();
                format!("{name} = {count} ;")
            }
            None => line.to_string(),
        })
        .collect();
    lines.join("\n") + "\n"
}

/// The output of `program args`, or why it failed.
fn stdout_of(program: &Path, args: &[&str]) -> Result<std::result::Result<String, String>> {
    let out = Command::new(program)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Ok(if out.status.success() {
        Ok(text)
    } else {
        Err(format!(
            "{} {}: {}{}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr),
            out.status
        ))
    })
}

/// Runs every case with `build`'s ncdump (netCDF-C's own, in place) and ours; prints
/// each difference and returns how many cases differ.
pub fn check(build: &Path, ours: &Path, work: &Path) -> Result<usize> {
    let theirs = build.join("ncdump/ncdump");
    let dir = work.join("newest-reader");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut failed = 0;
    for (name, cdl) in CASES {
        let cdl_path = dir.join(format!("{name}.cdl"));
        fs::write(&cdl_path, cdl)?;
        let url = format!(
            "file://{}#mode=nczarr,file",
            dir.join(format!("{name}.zarr")).display()
        );
        let cdl_arg = cdl_path.to_string_lossy();
        let outcome = match stdout_of(&ours.join("ncgen"), &["-o", &url, &cdl_arg])? {
            Err(why) => Err(why),
            Ok(_) => match (
                stdout_of(&theirs, &[&url])?,
                stdout_of(&ours.join("ncdump"), &[&url])?,
            ) {
                (Ok(t), Ok(o)) if known_differences_removed(&t) == fixed_dimensions(&o) => Ok(()),
                (Ok(t), Ok(o)) => Err(format!("netCDF-C 4.10 prints\n{t}\nours prints\n{o}")),
                (Err(why), _) | (_, Err(why)) => Err(why),
            },
        };
        match outcome {
            Ok(()) => println!("netCDF-C 4.10 reads our store {name}: same dump"),
            Err(why) => {
                failed += 1;
                println!("netCDF-C 4.10 reads our store {name} differently: {why}");
            }
        }
    }
    Ok(failed)
}
