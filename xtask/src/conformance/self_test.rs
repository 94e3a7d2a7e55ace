//! The self-test: runs the modes on a few corpus files with broken stand-ins in place of
//! ours (one killed by SIGSEGV, one that prints nothing and exits 0, one that panics, one
//! that says "internal error" and exits 1, nccopy stand-ins that crash, reject or drop an
//! attribute only with -d, and for the zarr mode one that refuses a user-defined type
//! without naming it; for the zarr-foreign mode, on one store zarr-python makes, also one
//! that changes a value), each of which must make the mode exit 1; with the reference
//! tools in place of ours (for zarr-foreign, the reference through NCZarr, and a stand-in
//! that refuses), and on a selection that compares nothing, the modes must exit 0 and 1.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::text::CDF5_SPECIALS_AWK;

/// One every kind accepts (classic, small).
const ACCEPTED: &str = "ncdump_cdl_small";
/// One every kind rejects (a syntax error).
const REJECTED: &str = "nczarr_test_ref_byte";
/// A netCDF-4 file with strings, which the reference nccopy cannot copy with -d.
const STRINGS: &str = "nczarr_test_ref_string";
/// A file with a known difference.
const KNOWN: &str = "nc_test4_bzip2";
/// A netCDF-4 file with a user-defined type (compound obs_t), which NCZarr cannot hold.
const TYPES: &str = "ncdump_cdl_ref_tst_comp";

/// A store of the zarr-foreign mode that the reference reads right.
const FOREIGN: &str = "generated/v2_no_compressor";

/// `s` quoted for the shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Writes the stand-in DIR/TOOL, a bash script running `body`.
fn tool(dir: &Path, name: &str, body: &str) -> Result<()> {
    fs::create_dir_all(dir)?;
    let path = dir.join(name);
    fs::write(&path, format!("#!/usr/bin/env bash\n{body}\n"))
        .with_context(|| format!("cannot write {}", path.display()))?;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// The stand-ins ncdump, ncgen and nccopy of one kind in `dir`.
fn variant(dir: &Path, kind: &str, ref_bin: &Path) -> Result<()> {
    let segv = "exec python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'";
    let refp = |t: &str| ref_bin.join(t).display().to_string();
    for t in ["ncdump", "ncgen", "nccopy"] {
        let body = match kind {
            "segfaults" => segv.to_string(),
            "silent" => "exit 0".to_string(),
            "panics" => "echo \"$(basename \"$0\"): internal error (index out of bounds: the len is 0 but the index is 0); this is a bug in nctools: please report it with the command you ran\" >&2; exit 101".to_string(),
            "internal-error" => "echo \"$(basename \"$0\"): internal error: no token\" >&2; exit 1".to_string(),
            "contained-crash" => "echo \"$(basename \"$0\"): x.nc: crashed inside the netCDF/HDF5 library while reading the schema (signal 11, SIGSEGV); the file is probably corrupt\" >&2; exit 1".to_string(),
            "rejects" => "echo \"$(basename \"$0\"): the input is not accepted by this stand-in\" >&2; exit 1".to_string(),
            "reference" => {
                if t != "ncdump" {
                    continue;
                }
                format!(
                    "ref={} specials={}\n{}",
                    quote(&refp("ncdump")),
                    quote(CDF5_SPECIALS_AWK),
                    r#"for a in "${@:1:$#-1}"; do
  if [[ $a == -*s* ]] && [ "$("$ref" -k "${@: -1}")" = cdf5 ]; then
    "$ref" -h "${@: -1}" | awk "$specials"
    exit "${PIPESTATUS[0]}"
  fi
done
exec "$ref" "$@""#
                )
            }
            "zarr-reference" => match t {
                // The reference reads an uncompressed zarr-python v2 store right.
                "ncdump" => format!(
                    "exec \"{}\" \"file://$(realpath \"${{@: -1}}\")#mode=zarr,file\"",
                    refp("ncdump")
                ),
                "nccopy" => format!(
                    "exec \"{}\" \"file://$(realpath \"${{@: -2:1}}\")#mode=zarr,file\" \"${{@: -1}}\"",
                    refp("nccopy")
                ),
                _ => continue,
            },
            "zarr-changes-a-value" => match t {
                // The reference's right dump, with the store's first value changed.
                "ncdump" => format!(
                    "\"{}\" \"file://$(realpath \"${{@: -1}}\")#mode=zarr,file\" | sed 's/^  0, /  1, /'",
                    refp("ncdump")
                ),
                "nccopy" => format!(
                    "exec \"{}\" \"file://$(realpath \"${{@: -2:1}}\")#mode=zarr,file\" \"${{@: -1}}\"",
                    refp("nccopy")
                ),
                _ => continue,
            },
            "zarr-faithful" => match t {
                "nccopy" => r#"mkdir "${@: -1}" && cp "${@: -2:1}" "${@: -1}/in.nc""#.to_string(),
                "ncdump" => format!("exec \"{}\" \"${{@: -1}}/in.nc\"", refp("ncdump")),
                _ => continue,
            },
            on_d if on_d.ends_with("-on-d") => {
                if t != "nccopy" {
                    continue;
                }
                let x = on_d.trim_end_matches("-on-d");
                let then = match x {
                    "segfaults" => segv.to_string(),
                    "internal-error" => {
                        "echo \"nccopy: internal error: no token\" >&2; exit 1".to_string()
                    }
                    "rejects" => {
                        "echo \"nccopy: -d is not accepted by this stand-in\" >&2; exit 1".to_string()
                    }
                    "faithful" | "drops-attribute" => {
                        let filter = if x == "drops-attribute" {
                            "grep -v ':charattr = '"
                        } else {
                            "cat"
                        };
                        format!(
                            "\"{}\" \"${{@: -2:1}}\" | {filter} | \"{}\" -k nc4 -o \"${{@: -1}}\"",
                            refp("ncdump"),
                            refp("ncgen")
                        )
                    }
                    other => bail!("self-test: no stand-in {other}-on-d"),
                };
                format!(
                    "case \" $* \" in *\" -d \"*) {then} ;; *) exec \"{}\" \"$@\" ;; esac",
                    refp("nccopy")
                )
            }
            other => bail!("self-test: no stand-in {other}"),
        };
        tool(dir, t, &body)?;
    }
    Ok(())
}

/// Runs the self-test; returns the exit status.
pub fn run(root: &Path, corpus: &Path, ref_bin: &Path) -> Result<i32> {
    let python = Command::new("python3")
        .arg("-c")
        .arg("pass")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !python.is_ok_and(|s| s.success()) {
        bail!("self-test: python3 is needed (its stand-in kills itself with SIGSEGV)");
    }
    for n in [ACCEPTED, REJECTED, STRINGS, KNOWN, TYPES] {
        if !corpus.join(format!("{n}.cdl")).is_file() {
            bail!("self-test: no {}/{n}.cdl", corpus.display());
        }
    }
    let start = Instant::now();
    let tmp = tempfile::Builder::new()
        .prefix("conformance-self-test.")
        .tempdir()
        .context("cannot make a temporary directory")?;
    let kinds = [
        "reference",
        "segfaults",
        "silent",
        "panics",
        "internal-error",
        "contained-crash",
        "rejects",
        "segfaults-on-d",
        "internal-error-on-d",
        "rejects-on-d",
        "faithful-on-d",
        "drops-attribute-on-d",
        "zarr-faithful",
        "zarr-reference",
        "zarr-changes-a-value",
    ];
    for kind in kinds {
        variant(&tmp.path().join("bin").join(kind), kind, ref_bin)?;
    }
    println!("conformance self-test: each mode with broken stand-ins in place of ours (exit 1 expected),");
    println!(
        "and with the reference in place of ours (exit 0 expected); work files in {}",
        tmp.path().display()
    );
    let exe = std::env::current_exe().context("cannot find this program")?;
    let (mut checks, mut failed) = (0, 0);
    let mut check = |want: i32, why: &str, mode: &str, ours: &str, names: &[&str]| -> Result<()> {
        let bin: PathBuf = if ours == "reference" && mode != "ncdump" {
            ref_bin.to_path_buf()
        } else {
            tmp.path().join("bin").join(ours)
        };
        let log = tmp.path().join(format!("log.{checks}"));
        checks += 1;
        let log_file = fs::File::create(&log)?;
        let status = Command::new(&exe)
            .current_dir(root)
            .args(["conformance", mode, "--jobs", "2", "--only"])
            .args(names)
            .env("NCTOOLS_BIN_DIR", &bin)
            .env("NCTOOLS_CONFORMANCE_OUT", tmp.path().join("out"))
            .env("NCTOOLS_REF_BIN_DIR", ref_bin)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .status()
            .context("cannot run a mode")?;
        let rc = status.code().unwrap_or(-1);
        if rc == want {
            println!("ok    {mode:<7} {ours:<20} {why}: exit {rc}");
        } else {
            println!("FAIL  {mode:<7} {ours:<20} {why}: exit {rc}, expected {want}; its output:");
            let text = fs::read_to_string(&log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            for l in &lines[lines.len().saturating_sub(40)..] {
                println!("        {l}");
            }
            failed += 1;
        }
        Ok(())
    };
    let (a, r, s, k) = (ACCEPTED, REJECTED, STRINGS, KNOWN);
    // The controls: the reference in place of ours passes (so a failure below is the
    // stand-in's); a selection that compares nothing fails.
    check(
        0,
        "the reference in place of ours",
        "ncdump",
        "reference",
        &[a],
    )?;
    check(
        0,
        "the reference in place of ours",
        "ncgen",
        "reference",
        &[a, r],
    )?;
    check(
        0,
        "the reference in place of ours",
        "nccopy",
        "reference",
        &[a, k],
    )?;
    check(
        0,
        "a stand-in that rejects what the reference rejects",
        "ncgen",
        "rejects",
        &[r],
    )?;
    check(
        0,
        "nccopy -d: ours rejects like the reference",
        "nccopy",
        "rejects-on-d",
        &[s],
    )?;
    check(
        0,
        "nccopy -d: ours copies the input whole where the reference fails",
        "nccopy",
        "faithful-on-d",
        &[s],
    )?;
    check(
        1,
        "nothing compared (the reference rejects every kind)",
        "ncdump",
        "reference",
        &[r],
    )?;
    check(
        1,
        "nothing compared (the reference rejects every kind)",
        "nccopy",
        "reference",
        &[r],
    )?;
    // Broken stand-ins.
    for kind in ["segfaults", "silent", "panics", "contained-crash"] {
        check(1, "a broken ours", "ncdump", kind, &[a])?;
        check(1, "a broken ours", "ncgen", kind, &[a, r])?;
        check(1, "a broken ours", "nccopy", kind, &[a])?;
    }
    for kind in [
        "segfaults",
        "silent",
        "panics",
        "internal-error",
        "contained-crash",
    ] {
        check(
            1,
            "a broken ours where the reference rejects",
            "ncgen",
            kind,
            &[r],
        )?;
    }
    check(
        1,
        "a crash on a case of known_differences",
        "nccopy",
        "segfaults-on-d",
        &[k],
    )?;
    check(
        1,
        "nccopy -d: a crash where the reference fails",
        "nccopy",
        "segfaults-on-d",
        &[s],
    )?;
    check(
        1,
        "nccopy -d: an internal error where the reference fails",
        "nccopy",
        "internal-error-on-d",
        &[s],
    )?;
    check(
        1,
        "nccopy -d: a copy that lost an attribute where the reference fails",
        "nccopy",
        "drops-attribute-on-d",
        &[s],
    )?;
    check(
        0,
        "a stand-in whose store holds the input's data",
        "zarr",
        "zarr-faithful",
        &[a],
    )?;
    for kind in ["segfaults", "silent", "panics"] {
        check(1, "a broken ours", "zarr", kind, &[a])?;
    }
    check(
        1,
        "a refusal of a user-defined type that does not name it",
        "zarr",
        "rejects",
        &[TYPES],
    )?;
    // zarr-foreign: one store zarr-python makes at run time; the reference (through
    // NCZarr) reads it right, broken stand-ins are crashes or wrong data.
    check(
        0,
        "the reference (NCZarr) in place of ours",
        "zarr-foreign",
        "zarr-reference",
        &[FOREIGN],
    )?;
    for kind in ["segfaults", "silent", "panics", "zarr-changes-a-value"] {
        check(1, "a broken ours", "zarr-foreign", kind, &[FOREIGN])?;
    }
    check(
        0,
        "refusals are counted, not failures",
        "zarr-foreign",
        "rejects",
        &[FOREIGN],
    )?;
    println!(
        "self-test: {}/{checks} checks as expected ({}s)",
        checks - failed,
        start.elapsed().as_secs()
    );
    Ok(i32::from(failed > 0))
}
