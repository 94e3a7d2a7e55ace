//! Shell completions and man pages in completions/ are generated from the tools' clap
//! definitions; this test keeps them current. After changing an option, regenerate with
//! `NCTOOLS_UPDATE_COMPLETIONS=1 cargo test --test cli completions` and commit the files.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::{generate, Shell};

fn completions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("completions")
}

/// Every generated file of one tool: (file name, contents).
fn generated(mut command: clap::Command) -> Vec<(String, Vec<u8>)> {
    let name = command.get_name().to_string();
    let mut files = Vec::new();
    for (shell, file) in [
        (Shell::Bash, format!("{name}.bash")),
        (Shell::Zsh, format!("_{name}")),
        (Shell::Fish, format!("{name}.fish")),
    ] {
        let mut out = Vec::new();
        generate(shell, &mut command, name.clone(), &mut out);
        files.push((file, out));
    }
    let mut man = Vec::new();
    match clap_mangen::Man::new(command).render(&mut man) {
        Ok(()) => files.push((format!("{name}.1"), man)),
        Err(e) => panic!("rendering the man page of {name}: {e}"),
    }
    files
}

fn check(command: clap::Command) {
    let update = std::env::var_os("NCTOOLS_UPDATE_COMPLETIONS").is_some();
    for (file, contents) in generated(command) {
        let path = completions_dir().join(&file);
        if update {
            std::fs::write(&path, &contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            continue;
        }
        let current = std::fs::read(&path).unwrap_or_default();
        assert!(
            current == contents,
            "completions/{file} is out of date: run \
             NCTOOLS_UPDATE_COMPLETIONS=1 cargo test --test cli completions and commit it"
        );
    }
}

#[test]
fn ncdump_completions_and_man_page_are_current() {
    check(nctools::dump::DumpArgs::command());
}

#[test]
fn ncgen_completions_and_man_page_are_current() {
    check(nctools::generate::GenerateArgs::command());
}

#[test]
fn nccopy_completions_and_man_page_are_current() {
    check(nctools::copy::CopyArgs::command());
}
