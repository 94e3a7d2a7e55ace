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
        if shell == Shell::Bash && name == "nccopy" {
            out.extend_from_slice(nctools::completion_values::bash_filter_names().as_bytes());
        }
        files.push((file, out));
    }
    files.push((format!("{name}.1"), man_page(command, &name)));
    files
}

/// clap_mangen's sections, then nctools' own (EXAMPLES, EXIT STATUS, ENVIRONMENT, SEE
/// ALSO: `nctools::manual`), then the version.
fn man_page(command: clap::Command, name: &str) -> Vec<u8> {
    let man = clap_mangen::Man::new(command);
    let mut page = Vec::new();
    let rendered = man
        .render_title(&mut page)
        .and_then(|()| man.render_name_section(&mut page))
        .and_then(|()| man.render_synopsis_section(&mut page))
        .and_then(|()| man.render_description_section(&mut page))
        .and_then(|()| man.render_options_section(&mut page))
        .and_then(|()| man.render_extra_section(&mut page));
    if let Err(e) = rendered {
        panic!("rendering the man page of {name}: {e}");
    }
    page.extend_from_slice(nctools::manual::roff(name).as_bytes());
    if let Err(e) = man.render_version_section(&mut page) {
        panic!("rendering the man page of {name}: {e}");
    }
    page
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

/// The completion scripts offer the values of options that take a fixed set: `-k` kinds,
/// ncdump's `-b`/`-f` index languages, ncgen's `-l`, and filter specs for `-F`.
#[test]
fn completions_offer_option_values() {
    let read =
        |file: &str| std::fs::read_to_string(completions_dir().join(file)).unwrap_or_default();
    let nccopy = read("nccopy.bash");
    assert!(nccopy
        .contains("\"classic nc3 64-bit-offset nc6 cdf5 nc5 netCDF-4 nc4 netcdf-4-classic nc7\""));
    assert!(nccopy.contains("*,bzip2,9 *,zstd,3"), "-F offers no filter");
    assert!(read("ncdump.bash").contains("compgen -W \"c f\""));
    let ncgen = read("ncgen.bash");
    assert!(ncgen.contains("compgen -W \"b c f77 python java\""));
    assert!(ncgen.contains("nc4"), "ncgen -k offers no kind");
    assert!(read("_nccopy").contains("*,zstd,3"), "zsh");
    // After `-F VAR,`, bash completes filter names.
    let script = completions_dir().join("nccopy.bash");
    let completed = crate::support::run(
        std::process::Command::new("bash")
            .arg("-c")
            .arg(
                "source \"$1\"; COMP_WORDS=(nccopy -F temp,zs); COMP_CWORD=2; \
                 _nccopy_filter_names nccopy temp,zs -F; echo \"${COMPREPLY[*]}\"",
            )
            .arg("x")
            .arg(&script),
    );
    assert_eq!(
        completed.stdout.trim(),
        "temp,zstd temp,zstandard",
        "{}",
        completed.stderr
    );
    assert!(read("nccopy.fish").contains("nc4"), "fish");
}

/// The man pages carry EXAMPLES, EXIT STATUS, ENVIRONMENT and SEE ALSO, and `-s` says
/// what it does.
#[test]
fn man_pages_have_examples_exit_status_environment_and_see_also() {
    for tool in ["ncdump", "ncgen", "nccopy"] {
        let page = std::fs::read_to_string(completions_dir().join(format!("{tool}.1")))
            .unwrap_or_default();
        for title in ["EXAMPLES", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"] {
            assert!(
                page.contains(&format!(".SH {title}\n")),
                "{tool}.1 lacks {title}"
            );
        }
        for variable in [
            "HDF5_PLUGIN_PATH",
            "NCTOOLS_BUILTIN_FILTERS",
            "NCTOOLS_DIRECT_CHUNKS",
        ] {
            assert!(page.contains(variable), "{tool}.1 lacks {variable}");
        }
    }
    let help = crate::support::Test::ours("nccopy").arg("--help").run();
    assert!(
        help.stdout
            .contains("Add the shuffle filter to every variable but scalars, filtered or not"),
        "{}",
        help.stdout
    );
}
