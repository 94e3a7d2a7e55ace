//! Text helpers shared by the conformance modes: lines shown as `cat -v` shows them, and
//! the first line where two outputs differ.

use std::path::Path;
use std::time::Duration;

use crate::runner::{self, Spec};

/// One line for a message: tabs shown as spaces (or as `^I` when `exact`), other control
/// characters and bytes over 127 as `^X` and `M-x` (as `cat -v`), cut to 100 characters.
pub fn vis(line: &[u8], exact: bool) -> String {
    let mut out = String::new();
    for &b in line {
        let mut o = b;
        if o >= 128 {
            out.push_str("M-");
            o -= 128;
        }
        match o {
            9 if !exact => out.push(' '),
            0..=31 => {
                out.push('^');
                out.push(char::from(o + 64));
            }
            127 => out.push_str("^?"),
            _ => out.push(char::from(o)),
        }
    }
    cut(out)
}

/// `s` cut to 100 characters (97 and "...").
fn cut(s: String) -> String {
    if s.chars().count() > 100 {
        let mut c: String = s.chars().take(97).collect();
        c.push_str("...");
        c
    } else {
        s
    }
}

/// A line of text for a message: tabs as spaces, control characters as `cat -v`, cut to
/// 100 characters (the bash script's `excerpt`).
pub fn excerpt(s: &str) -> String {
    vis(s.as_bytes(), false)
}

/// The lines of `data` as awk reads them: split at newlines, no empty last line.
pub fn lines(data: &[u8]) -> Vec<&[u8]> {
    if data.is_empty() {
        return Vec::new();
    }
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    body.split(|&b| b == b'\n').collect()
}

/// The first line where `a` and `b` differ, as "line N: LA `...` LB `...`" (`<EOF>` for
/// an output that has no such line), or "the outputs differ only in a final newline".
pub fn first_difference(a: &[u8], b: &[u8], la: &str, lb: &str) -> String {
    let (xa, xb) = (lines(a), lines(b));
    let show = |l: Option<&[u8]>, exact: bool| match l {
        None => "<EOF>".to_string(),
        Some(l) => format!("`{}`", vis(l, exact)),
    };
    let report = |n: usize, x: Option<&[u8]>, y: Option<&[u8]>| {
        let exact = match (x, y) {
            (Some(x), Some(y)) => vis(x, false) == vis(y, false),
            _ => false,
        };
        format!("line {n}: {la} {} {lb} {}", show(x, exact), show(y, exact))
    };
    for (i, x) in xa.iter().enumerate() {
        match xb.get(i) {
            None => return report(i + 1, Some(x), None),
            Some(y) if x != y => return report(i + 1, Some(x), Some(y)),
            Some(_) => {}
        }
    }
    match xb.get(xa.len()) {
        Some(y) => report(xa.len() + 1, None, Some(y)),
        None => "the outputs differ only in a final newline".to_string(),
    }
}

/// The same as [`cdf5_specials`], as an awk program (for the self-test's stand-in).
pub const CDF5_SPECIALS_AWK: &str = r#"{ line[NR] = $0 }
  END {
    has = 0
    for (i = 1; i <= NR; i++) if (line[i] == "// global attributes:") has = 1
    for (i = 1; i < NR; i++) print line[i]
    if (!has) { print ""; print "// global attributes:" }
    print "\t\t:_Format = \"cdf5\" ;"
    print line[NR]
  }"#;

/// The expected `ncdump -hs` of a CDF5 file made from its `ncdump -h`: the global
/// `_Format = "cdf5"` attribute added before the last line (and a global attributes
/// heading when there is none).
pub fn cdf5_specials(h_output: &[u8]) -> Vec<u8> {
    let l = lines(h_output);
    let mut out = Vec::new();
    let has = l.iter().any(|x| *x == b"// global attributes:");
    let last = l.len().saturating_sub(1);
    for x in l.iter().take(last) {
        out.extend_from_slice(x);
        out.push(b'\n');
    }
    if !has {
        out.extend_from_slice(b"\n// global attributes:\n");
    }
    out.extend_from_slice(b"\t\t:_Format = \"cdf5\" ;\n");
    if let Some(x) = l.get(last) {
        out.extend_from_slice(x);
    }
    out.push(b'\n');
    out
}

/// What `diff OPTIONS A B` prints, `b`'s bytes written to a temporary file first, within
/// `timeout` and cut at 64 MiB; empty when diff cannot run.
fn diff_with_bytes(a: &Path, b: &[u8], options: &[&str], timeout: Duration) -> Vec<u8> {
    let Ok(tmp) = tempfile::NamedTempFile::new() else {
        return Vec::new();
    };
    if std::fs::write(tmp.path(), b).is_err() {
        return Vec::new();
    }
    let mut args: Vec<String> = options.iter().map(|o| o.to_string()).collect();
    args.push(a.display().to_string());
    args.push(tmp.path().display().to_string());
    let spec = Spec::new("diff", args)
        .timeout(timeout)
        .stdout_cap(super::ncdump::OUTPUT_CAP)
        .keep_stdout();
    runner::run(&spec).map(|r| r.stdout).unwrap_or_default()
}

/// The lines only `a` has, as "-LINE", and those only `b` has, as "+LINE", in diff's order.
pub fn diff_lines(a: &Path, b: &[u8], timeout: Duration) -> String {
    let options = [
        "--old-line-format=-%L",
        "--new-line-format=+%L",
        "--unchanged-line-format=",
    ];
    String::from_utf8_lossy(&diff_with_bytes(a, b, &options, timeout)).into_owned()
}

/// The first 50 lines of `diff -u` between a file and some bytes, labelled `la` and `lb`.
pub fn unified_diff(a: &Path, b: &[u8], la: &str, lb: &str, timeout: Duration) -> String {
    let out = diff_with_bytes(a, b, &["-u", "--label", la, "--label", lb], timeout);
    let shown: Vec<&[u8]> = out.split_inclusive(|&c| c == b'\n').take(50).collect();
    String::from_utf8_lossy(&shown.concat()).into_owned()
}

/// One run in a listing of results: its kind, option set, corpus name and detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed<'a> {
    /// The kind of input (nc4, nc3, ...).
    pub kind: &'a str,
    /// The option set ("" for none).
    pub opts: &'a str,
    /// The corpus file's name.
    pub name: &'a str,
    /// What happened.
    pub detail: &'a str,
}

/// The first `limit` of `runs`, in the order of `kinds`, then of `opt_sets`, then by name
/// (runs of other kinds or option sets are left out), as the lines the modes print.
pub fn listing(
    mut runs: Vec<Listed>,
    kinds: &[&str],
    opt_sets: &[&str],
    limit: usize,
) -> Vec<String> {
    let position = |list: &[&str], item: &str| list.iter().position(|x| *x == item);
    runs.retain(|r| position(kinds, r.kind).is_some() && position(opt_sets, r.opts).is_some());
    runs.sort_by_key(|r| (position(kinds, r.kind), position(opt_sets, r.opts), r.name));
    runs.iter()
        .take(limit)
        .map(|r| {
            let opts = super::ncdump::opt_display(r.opts);
            format!("  {} {} {opts}  {}", r.kind, r.name, r.detail)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_lines_as_cat_v() {
        assert_eq!(vis(b"a\tb\x01\x7f\xe9", false), "a b^A^?M-i");
        assert_eq!(vis(b"a\tb", true), "a^Ib");
        assert_eq!(vis(&[b'x'; 120], false).len(), 100);
    }

    #[test]
    fn finds_the_first_difference() {
        assert_eq!(
            first_difference(b"a\nb\n", b"a\nc\n", "ref", "ours"),
            "line 2: ref `b` ours `c`"
        );
        assert_eq!(
            first_difference(b"a\n", b"a\nb\n", "ref", "ours"),
            "line 2: ref <EOF> ours `b`"
        );
        assert_eq!(
            first_difference(b"a\nb\n", b"a\n", "ref", "ours"),
            "line 2: ref `b` ours <EOF>"
        );
        assert_eq!(
            first_difference(b"a", b"a\n", "ref", "ours"),
            "the outputs differ only in a final newline"
        );
        assert_eq!(
            first_difference(b"a\tb\n", b"a b\n", "ref", "ours"),
            "line 1: ref `a^Ib` ours `a b`"
        );
    }

    #[test]
    fn cdf5_specials_adds_the_format() {
        let h = b"netcdf x {\ndimensions:\n\td = 1 ;\n}\n";
        assert_eq!(
            String::from_utf8_lossy(&cdf5_specials(h)),
            "netcdf x {\ndimensions:\n\td = 1 ;\n\n// global attributes:\n\t\t:_Format = \"cdf5\" ;\n}\n"
        );
    }

    #[test]
    fn listings_follow_kind_then_option_set_then_name() {
        let run = |kind, opts, name| Listed {
            kind,
            opts,
            name,
            detail: "d",
        };
        let runs = vec![
            run("nc3", "", "a"),
            run("nc4", "-h", "a"),
            run("nc4", "", "b"),
            run("nc4", "", "a"),
            run("nc9", "", "a"),
        ];
        let lines = listing(runs.clone(), &["nc4", "nc3"], &["", "-h"], 10);
        assert_eq!(
            lines,
            [
                "  nc4 a (none)  d",
                "  nc4 b (none)  d",
                "  nc4 a -h  d",
                "  nc3 a (none)  d"
            ]
        );
        assert_eq!(listing(runs, &["nc4", "nc3"], &["", "-h"], 2).len(), 2);
    }

    #[test]
    fn diffs_of_a_file_and_bytes() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let a = dir.path().join("a");
        std::fs::write(&a, "x\ny\nz\n")?;
        let t = Duration::from_secs(30);
        assert_eq!(diff_lines(&a, b"x\nY\nz\n", t), "-y\n+Y\n");
        assert_eq!(
            unified_diff(&a, b"x\nY\nz\n", "ref", "ours", t),
            "--- ref\n+++ ours\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"
        );
        assert_eq!(diff_lines(&a, b"x\ny\nz\n", t), "");
        Ok(())
    }
}
