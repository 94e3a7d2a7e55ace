//! The one program, `nctools`: started under a tool's name (a link, as installed; a path;
//! a name with a version) it is that tool, and `nctools dump|gen|copy` runs one by its
//! short name. Whichever way it starts, a tool's messages carry the tool's own name.
//! `cargo build`'s `ncdump`, `ncgen` and `nccopy` run their tool under any name.

use std::path::{Path, PathBuf};

use crate::support::{cargo_tool_bin, ok, run, scratch, test_data, Run, Test, NCTOOLS};

const TOOLS: [(&str, &str); 3] = [("dump", "ncdump"), ("gen", "ncgen"), ("copy", "nccopy")];

/// A link named `name` to `target` in `dir`.
fn link(dir: &Path, name: &str, target: &str) -> PathBuf {
    let path = dir.join(name);
    std::os::unix::fs::symlink(target, &path)
        .unwrap_or_else(|e| panic!("cannot link {}: {e}", path.display()));
    path
}

fn version_of(tool: &str) -> String {
    format!("{tool} (nctools) {}\n", env!("CARGO_PKG_VERSION"))
}

fn nctools<const N: usize>(args: [&str; N]) -> Run {
    Test::program(NCTOOLS).args(args).run()
}

#[test]
fn a_link_named_after_a_tool_is_that_tool_with_a_path_a_version_or_exe() {
    let dir = scratch();
    for (_, tool) in TOOLS {
        for name in [
            tool.to_string(),
            format!("{tool}-4.10"),
            format!("{tool}_dev"),
            format!("{tool}.exe"),
        ] {
            let path = link(dir.path(), &name, NCTOOLS);
            let done = Test::program(&path).arg("--version").run();
            assert_eq!(done.code, Some(0), "{name}: {}", done.stderr);
            assert_eq!(done.stdout, version_of(tool), "{name}");
        }
    }
}

#[test]
fn nctools_runs_a_tool_by_its_short_or_full_name() {
    for (short, tool) in TOOLS {
        for word in [short, tool] {
            let done = nctools([word, "--version"]);
            assert_eq!(done.code, Some(0), "{word}: {}", done.stderr);
            assert_eq!(done.stdout, version_of(tool), "{word}");
        }
    }
    let cdl = test_data("ncdump/classic.cdl");
    let dir = scratch();
    let out = dir.path().join("classic.nc");
    let made = Test::program(NCTOOLS)
        .args(["gen", "-k", "nc4", "-o"])
        .arg(&out)
        .arg(&cdl)
        .run();
    ok("made", &made);
    let through_nctools = Test::program(NCTOOLS).arg("dump").arg(&out).run();
    let through_link = Test::ours("ncdump").arg(&out).run();
    ok("through_nctools", &through_nctools);
    assert_eq!(through_nctools.stdout, through_link.stdout);
    assert!(through_nctools.stdout.starts_with("netcdf classic {"));
}

#[test]
fn a_tool_says_its_own_name_in_usage_errors_however_it_was_started() {
    let dir = scratch();
    for (short, tool) in TOOLS {
        let versioned = link(dir.path(), &format!("{tool}-4.10"), NCTOOLS);
        for done in [
            Test::program(NCTOOLS)
                .args([short, "--no-such-option"])
                .run(),
            Test::program(&versioned).arg("--no-such-option").run(),
            Test::program(cargo_tool_bin(tool))
                .arg("--no-such-option")
                .run(),
        ] {
            assert_eq!(done.code, Some(2), "{tool}: {}", done.stderr);
            assert!(
                done.stderr
                    .starts_with(&format!("{tool}: unexpected argument '--no-such-option'")),
                "{tool}: {}",
                done.stderr
            );
            assert!(
                done.stderr.contains(&format!("Usage: {tool} ")),
                "{tool}: {}",
                done.stderr
            );
            assert!(!done.stderr.contains("nctools "), "{}", done.stderr);
        }
    }
    let help = nctools(["dump", "--help"]);
    ok("help", &help);
    assert!(
        help.stdout.contains("Usage: ncdump [OPTIONS] [FILE]"),
        "{}",
        help.stdout
    );
}

#[test]
fn nctools_alone_answers_help_and_version_and_refuses_an_unknown_tool() {
    let help = nctools(["--help"]);
    ok("help", &help);
    assert!(
        help.stdout.contains("Usage: nctools <TOOL> [ARGS]..."),
        "{}",
        help.stdout
    );
    for (short, tool) in TOOLS {
        assert!(
            help.stdout.contains(&format!("  {short:<6} {tool:<8} ")),
            "{}",
            help.stdout
        );
    }
    // Its version, then the libraries it runs with and where HDF5 finds plugins (before:
    // its version only).
    let version = nctools(["--version"]);
    ok("version", &version);
    let lines: Vec<&str> = version.stdout.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(format!("nctools {}", env!("CARGO_PKG_VERSION")).as_str())
    );
    assert!(
        lines.iter().any(|l| l.starts_with("libnetcdf 4."))
            && lines.iter().any(|l| l.starts_with("libhdf5 1."))
            && lines
                .iter()
                .any(|l| l.starts_with("HDF5 plugins: ") && l.contains('/')),
        "{}",
        version.stdout
    );
    let bare = nctools([]);
    assert_eq!(bare.code, Some(2));
    assert_eq!(bare.stderr, help.stdout);
    let unknown = nctools(["frob", "x.nc"]);
    assert_eq!(unknown.code, Some(2));
    assert_eq!(
        unknown.stderr,
        "nctools: unknown tool \"frob\": expected dump, gen or copy (see nctools --help)\n"
    );
}

#[test]
fn under_another_name_nctools_is_itself_and_cargos_tools_stay_themselves() {
    let dir = scratch();
    let renamed = link(dir.path(), "nct", NCTOOLS);
    let done = Test::program(&renamed).args(["copy", "--version"]).run();
    assert_eq!(done.stdout, version_of("nccopy"));
    for (_, tool) in TOOLS {
        let renamed = link(dir.path(), &format!("my-{tool}"), cargo_tool_bin(tool));
        let done = Test::program(&renamed).arg("--version").run();
        assert_eq!(done.code, Some(0), "{tool}: {}", done.stderr);
        assert_eq!(done.stdout, version_of(tool));
    }
}

#[test]
fn an_argument_that_is_not_utf8_is_a_usage_error_in_the_tools_name() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"caf\xe9.nc");
    for (short, tool) in TOOLS {
        for done in [
            Test::program(NCTOOLS).arg(short).arg(bad).run(),
            Test::ours(tool).arg(bad).run(),
            Test::program(cargo_tool_bin(tool)).arg(bad).run(),
        ] {
            assert_eq!(done.code, Some(2), "{tool}: {}", done.stderr);
            assert_eq!(
                done.stderr,
                format!(
                    "{tool}: argument \"caf\\xE9.nc\" is not valid UTF-8; nctools takes only \
                     UTF-8 arguments and file names\n"
                )
            );
        }
    }
}

#[test]
fn the_crash_handler_names_the_tool_started_through_nctools() {
    let dir = scratch();
    let out = dir.path().join("in.nc");
    let made = Test::program(NCTOOLS)
        .args(["gen", "-k", "nc4", "-o"])
        .arg(&out)
        .arg(test_data("ncdump/classic.cdl"))
        .run();
    ok("made", &made);
    let crashed = run(std::process::Command::new(NCTOOLS)
        .arg("dump")
        .arg(&out)
        .env("NCTOOLS_TEST_CRASH", "SIGSEGV"));
    assert_eq!(
        (crashed.code, crashed.signal),
        (Some(1), None),
        "{}",
        crashed.stderr
    );
    assert!(
        crashed.stderr.starts_with(&format!(
            "ncdump: {}: crashed inside the netCDF/HDF5 library",
            out.display()
        )),
        "{}",
        crashed.stderr
    );
}
