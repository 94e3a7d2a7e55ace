//! `scripts/install`: the three tools, their man pages and completions go into a prefix,
//! the pages render with `man -l`, and the bash completion loads.

use std::path::Path;
use std::process::Command;

use crate::support::{run, scratch, skip, Test};

fn has(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn install_puts_tools_man_pages_and_completions_in_a_prefix() {
    let prefix = scratch();
    let bin_dir = Path::new(crate::support::ours_path("nccopy"))
        .parent()
        .unwrap_or_else(|| panic!("no directory for our binaries"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install");
    let done = run(Command::new("bash")
        .arg(&script)
        .arg("--prefix")
        .arg(prefix.path())
        .arg("--bin-dir")
        .arg(bin_dir));
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    let p = prefix.path();
    for tool in ["ncdump", "ncgen", "nccopy"] {
        for file in [
            format!("bin/{tool}"),
            format!("share/man/man1/{tool}.1"),
            format!("share/bash-completion/completions/{tool}"),
            format!("share/zsh/site-functions/_{tool}"),
            format!("share/fish/vendor_completions.d/{tool}.fish"),
        ] {
            assert!(p.join(&file).is_file(), "{file} was not installed");
        }
        let version = Test::program(p.join("bin").join(tool))
            .arg("--version")
            .run();
        assert_eq!(version.code, Some(0), "{tool}: {}", version.stderr);
    }
    if !has("man") {
        skip("man (man-db)");
        return;
    }
    let page = run(Command::new("man")
        .args(["-P", "cat", "-l"])
        .arg(p.join("share/man/man1/nccopy.1"))
        .env("MANWIDTH", "80"));
    assert_eq!(page.code, Some(0), "{}", page.stderr);
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
    assert_eq!(loaded.code, Some(0), "{}", loaded.stderr);
    assert!(loaded.stdout.contains("nccopy"), "{}", loaded.stdout);
}
