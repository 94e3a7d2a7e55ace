//! ncdump's output on a terminal: text from a file that could command the terminal (C1
//! controls such as CSI, bidirectional overrides, bytes that are not UTF-8) is written
//! as CDL octal escapes, while the same output into a pipe or a file stays byte for byte
//! what the reference prints.

use std::fs::File;
use std::io::Read;
use std::process::{Command, Stdio};

use crate::support::{ok, ours_path, reference, run, scratch, skip};

/// A char attribute holding CSI (U+009B) and a right-to-left override (U+202E) in UTF-8
/// and a raw 0x9B byte; a string value holding U+009B and a raw 0x9B.
const CDL: &str = "netcdf t {\ndimensions:\n\tn = 1 ;\nvariables:\n\tstring s(n) ;\n\tint v ;\n\
                   \t\tv:a = \"x\\302\\233y\\342\\200\\256z\\233w\" ;\ndata:\n\n \
                   s = \"q\\302\\233r\\233s\" ;\n\n v = 1 ;\n}\n";

/// What `ncdump FILE` writes to the terminal at the other end of a pseudo-terminal, with
/// the terminal's `\r\n` read as `\n`.
fn dump_on_a_terminal(file: &std::path::Path) -> String {
    on_a_terminal("ncdump", &[file.as_os_str()])
}

#[test]
fn text_that_could_command_a_terminal_is_escaped_only_on_a_terminal() {
    let dir = scratch();
    let cdl = dir.path().join("t.cdl");
    let file = dir.path().join("t.nc");
    std::fs::write(&cdl, CDL).unwrap_or_else(|e| panic!("{e}"));
    let made = run(Command::new(ours_path("ncgen"))
        .args(["-k", "nc4", "-o"])
        .arg(&file)
        .arg(&cdl));
    ok("ncgen", &made);

    // Into a pipe: the bytes as the reference prints them.
    let piped = Command::new(ours_path("ncdump"))
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("ncdump: {e}"));
    assert!(piped.status.success(), "{piped:?}");
    let raw = piped.stdout;
    assert!(
        raw.windows(4).any(|w| w == b"x\xc2\x9by"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    match reference("ncdump") {
        Some(theirs) => {
            let theirs = Command::new(theirs)
                .arg(&file)
                .output()
                .unwrap_or_else(|e| panic!("ncdump: {e}"))
                .stdout;
            assert_eq!(raw, theirs, "not the reference's bytes");
        }
        None => skip("the reference ncdump"),
    }

    // On a terminal: each byte of CSI, the override and the stray byte escaped; the
    // rest of the CDL as it was.
    let shown = dump_on_a_terminal(&file);
    assert!(
        shown.contains("v:a = \"x\\302\\233y\\342\\200\\256z\\233w\" ;"),
        "{shown}"
    );
    assert!(shown.contains("s = \"q\\302\\233r\\233s\" ;"), "{shown}");
    assert!(
        !shown.contains('\u{9b}') && !shown.contains('\u{202e}'),
        "{shown}"
    );
    let expected = String::from_utf8_lossy(&raw)
        .replace(
            "x\u{9b}y\u{202e}z\u{fffd}w",
            "x\\302\\233y\\342\\200\\256z\\233w",
        )
        .replace("q\u{9b}r\u{fffd}s", "q\\302\\233r\\233s");
    assert_eq!(shown, expected);
}

/// What our `tool` with `args` writes to the terminal at the other end of a
/// pseudo-terminal, with the terminal's `\r\n` read as `\n`.
fn on_a_terminal(tool: &str, args: &[&std::ffi::OsStr]) -> String {
    let pty = nix::pty::openpty(None, None).unwrap_or_else(|e| panic!("openpty: {e}"));
    let mut child = Command::new(ours_path(tool))
        .args(args)
        .stdout(Stdio::from(pty.slave))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let mut master = File::from(pty.master);
    let mut shown = Vec::new();
    let mut piece = [0u8; 4096];
    while let Ok(n) = master.read(&mut piece) {
        if n == 0 {
            break;
        }
        shown.extend_from_slice(&piece[..n]);
    }
    let status = child.wait().unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(status.success(), "{tool} on a terminal: {status}");
    String::from_utf8(shown)
        .unwrap_or_else(|e| panic!("not UTF-8 on the terminal: {e}"))
        .replace("\r\n", "\n")
}

#[test]
fn generated_programs_on_a_terminal_escape_what_could_command_it() {
    // Red team s30 L1: `ncgen -l c` and `-l python` wrote the CDL's C1 controls (CSI,
    // U+009B) raw to the terminal. Into a pipe the program stays as it was.
    let dir = scratch();
    let cdl = dir.path().join("t.cdl");
    // CSI in a variable's name, which the programs name in comments and strings.
    std::fs::write(
        &cdl,
        "netcdf t {\nvariables:\n\tint v\\302\\233x ;\n\t\tv\\302\\233x:a = \"x\\302\\233y\" ;\n\
         data:\n v\\302\\233x = 1 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for language in ["c", "python"] {
        let piped = run(Command::new(ours_path("ncgen"))
            .args(["-l", language])
            .arg(&cdl));
        assert_eq!(piped.code, Some(0), "{language}: {}", piped.stderr);
        assert!(
            piped.stdout.contains('\u{9b}'),
            "{language}: {}",
            piped.stdout
        );
        let shown = on_a_terminal(
            "ncgen",
            &["-l".as_ref(), language.as_ref(), cdl.as_os_str()],
        );
        assert!(
            !shown.contains('\u{9b}') && !shown.contains('\u{202e}'),
            "{language}: {shown}"
        );
        assert!(shown.contains("\\302\\233"), "{language}: {shown}");
    }
}
