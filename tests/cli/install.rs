//! `scripts/install`: the one program `nctools`, stripped, with the three tools as links
//! to it (replacing the files an older install made), their man pages and completions go
//! into a prefix, the pages render with `man -l`, and the bash completion loads.

use std::path::Path;
use std::process::Command;

use crate::support::{ok, run, scratch, skip, Test};

fn has(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The section names of a little-endian ELF64 file (x86-64, aarch64), from its section
/// header table; empty if the bytes are not such a file.
fn elf_section_names(elf: &[u8]) -> Vec<String> {
    let number = |at: usize, size: usize| -> Option<usize> {
        let bytes = elf.get(at..at + size)?;
        let mut le = [0u8; 8];
        le[..size].copy_from_slice(bytes);
        usize::try_from(u64::from_le_bytes(le)).ok()
    };
    let headers = || -> Option<Vec<String>> {
        if elf.get(..6)? != b"\x7fELF\x02\x01" {
            return None;
        }
        let (table, entry) = (number(0x28, 8)?, number(0x3a, 2)?);
        let (count, names_index) = (number(0x3c, 2)?, number(0x3e, 2)?);
        let names_at = number(table + names_index * entry + 0x18, 8)?;
        (0..count)
            .map(|i| {
                let start = names_at + number(table + i * entry, 4)?;
                let len = elf.get(start..)?.iter().position(|&b| b == 0)?;
                Some(String::from_utf8_lossy(&elf[start..start + len]).into_owned())
            })
            .collect()
    };
    headers().unwrap_or_default()
}

/// Runs `scripts/install --prefix PREFIX --bin-dir DIR` on the `nctools` of this test run,
/// with `more` arguments; fails the test unless it succeeds.
fn install(prefix: &Path, more: &[&str]) {
    let bin_dir = Path::new(crate::support::NCTOOLS)
        .parent()
        .unwrap_or_else(|| panic!("no directory for our binaries"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install");
    let done = run(Command::new("bash")
        .arg(&script)
        .arg("--prefix")
        .arg(prefix)
        .arg("--bin-dir")
        .arg(bin_dir)
        .args(more));
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
}

#[test]
fn install_puts_tools_man_pages_and_completions_in_a_prefix() {
    let prefix = scratch();
    // An earlier install made ncdump a file of its own: it becomes a link.
    std::fs::create_dir_all(prefix.path().join("bin")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(prefix.path().join("bin/ncdump"), "an older ncdump")
        .unwrap_or_else(|e| panic!("{e}"));
    install(prefix.path(), &[]);
    let p = prefix.path();
    let program = p.join("bin/nctools");
    let installed = std::fs::read(&program).unwrap_or_else(|e| panic!("nctools: {e}"));
    let sections = elf_section_names(&installed);
    assert!(sections.iter().any(|s| s == ".text"), "{sections:?}");
    assert!(
        !sections
            .iter()
            .any(|s| [".debug_info", ".debug_line", ".symtab"].contains(&s.as_str())),
        "the installed nctools is not stripped: {sections:?}"
    );
    let version = Test::program(&program).arg("--version").run();
    ok("nctools", &version);
    for tool in ["ncdump", "ncgen", "nccopy"] {
        let link = p.join("bin").join(tool);
        assert_eq!(
            std::fs::read_link(&link).ok(),
            Some("nctools".into()),
            "bin/{tool} is not a link to nctools"
        );
        for file in [
            format!("share/man/man1/{tool}.1"),
            format!("share/bash-completion/completions/{tool}"),
            format!("share/zsh/site-functions/_{tool}"),
            format!("share/fish/vendor_completions.d/{tool}.fish"),
        ] {
            assert!(p.join(&file).is_file(), "{file} was not installed");
        }
        let version = Test::program(&link).arg("--version").run();
        assert_eq!(version.code, Some(0), "{tool}: {}", version.stderr);
        assert_eq!(
            version.stdout,
            format!("{tool} (nctools) {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
    if !has("man") {
        skip("man (man-db)");
        return;
    }
    let page = run(Command::new("man")
        .args(["-P", "cat", "-l"])
        .arg(p.join("share/man/man1/nccopy.1"))
        .env("MANWIDTH", "80"));
    ok("page", &page);
    for title in [
        "NAME",
        "SYNOPSIS",
        "OPTIONS",
        "EXAMPLES",
        "EXIT STATUS",
        "ENVIRONMENT",
        "SEE ALSO",
    ] {
        assert!(
            page.stdout.contains(title),
            "the page lacks {title}:\n{}",
            page.stdout
        );
    }
    let loaded = run(Command::new("bash")
        .args(["-c", "source \"$1\" && complete -p nccopy", "x"])
        .arg(p.join("share/bash-completion/completions/nccopy")));
    ok("loaded", &loaded);
    assert!(loaded.stdout.contains("nccopy"), "{}", loaded.stdout);
}

#[test]
fn install_no_strip_installs_the_program_as_built() {
    let prefix = scratch();
    install(prefix.path(), &["--no-strip"]);
    let installed = std::fs::read(prefix.path().join("bin/nctools"));
    let built = std::fs::read(crate::support::NCTOOLS);
    assert!(
        matches!((&installed, &built), (Ok(a), Ok(b)) if a == b),
        "bin/nctools differs from {}",
        crate::support::NCTOOLS
    );
}

#[test]
fn install_takes_the_program_from_cargo_target_dir() {
    // Before: it looked in target/release whatever CARGO_TARGET_DIR said, and reported
    // the program missing after building it elsewhere.
    let target = scratch();
    let release = target.path().join("release");
    std::fs::create_dir_all(&release).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(crate::support::NCTOOLS, release.join("nctools"))
        .unwrap_or_else(|e| panic!("{e}"));
    let prefix = scratch();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install");
    let done = run(Command::new("bash")
        .arg(&script)
        .args(["--no-build", "--no-strip", "--prefix"])
        .arg(prefix.path())
        .env("CARGO_TARGET_DIR", target.path()));
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    let installed = std::fs::read(prefix.path().join("bin/nctools"));
    let built = std::fs::read(crate::support::NCTOOLS);
    assert!(
        matches!((&installed, &built), (Ok(a), Ok(b)) if a == b),
        "bin/nctools is not the one in CARGO_TARGET_DIR"
    );
}
