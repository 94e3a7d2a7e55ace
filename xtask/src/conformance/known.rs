//! The known differences of the nccopy and zarr modes, read from scripts/conformance's
//! `known_differences` array (one list while the bash script exists): entries of five
//! words, NAME OPTS Dn REASON DIFFERENCES.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// One entry of `known_differences`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Corpus base name, or KIND/NAME.
    pub name: String,
    /// The option set, as the bash script writes it.
    pub opts: String,
    /// The decision (D2, D8...).
    pub decision: String,
    /// A few words of why.
    pub reason: String,
    /// The differences themselves.
    pub expected: String,
}

/// Reads the list from the bash script at `script`.
pub fn load(script: &Path) -> Result<Vec<Known>> {
    let text =
        fs::read_to_string(script).with_context(|| format!("cannot read {}", script.display()))?;
    let start = text
        .find("\nknown_differences=(")
        .context("no known_differences=( in scripts/conformance")?;
    let words = words(&text[start + "\nknown_differences=(".len()..])?;
    if words.len() % 5 != 0 {
        bail!("known_differences: {} words, not entries of 5", words.len());
    }
    Ok(words
        .chunks(5)
        .map(|w| Known {
            name: w[0].clone(),
            opts: w[1].clone(),
            decision: w[2].clone(),
            reason: w[3].clone(),
            expected: w[4].clone(),
        })
        .collect())
}

/// The words of a bash array body up to its closing `)`: '...' and $'...' strings and
/// bare words, with comments skipped.
fn words(body: &str) -> Result<Vec<String>> {
    let b = body.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' => i += 1,
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b')' => return Ok(out),
            b'\'' => {
                let end = body[i + 1..].find('\'').context("unterminated '")? + i + 1;
                out.push(body[i + 1..end].to_string());
                i = end + 1;
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => {
                let mut s = Vec::new();
                i += 2;
                loop {
                    match b.get(i) {
                        None => bail!("unterminated $'"),
                        Some(b'\'') => break,
                        Some(b'\\') => {
                            let c = *b.get(i + 1).context("unterminated $'")?;
                            s.push(match c {
                                b'n' => b'\n',
                                b't' => b'\t',
                                b'\\' => b'\\',
                                b'\'' => b'\'',
                                b'"' => b'"',
                                other => bail!("unsupported escape \\{}", char::from(other)),
                            });
                            i += 2;
                        }
                        Some(&c) => {
                            s.push(c);
                            i += 1;
                        }
                    }
                }
                out.push(String::from_utf8_lossy(&s).into_owned());
                i += 1;
            }
            _ => {
                let start = i;
                while i < b.len() && !matches!(b[i], b' ' | b'\t' | b'\n' | b')') {
                    i += 1;
                }
                out.push(body[start..i].to_string());
            }
        }
    }
    bail!("known_differences: no closing )")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_bash_words() {
        let w =
            words(" # a comment\n  'a b' '-k nc4' D2 'why'\n    $'x:\\n+\\tline'\n  bare ) rest")
                .unwrap();
        assert_eq!(w, ["a b", "-k nc4", "D2", "why", "x:\n+\tline", "bare"]);
    }

    #[test]
    fn reads_the_script() {
        let script = crate::corpus::repo_root().join("scripts/conformance");
        let list = load(&script).unwrap();
        assert!(list.iter().any(|k| k.name == "nc_test4_bzip2"
            && k.opts == "-k nc4 -d 1 -s"
            && k.decision == "D2"
            && k.expected == "ncdump -hs:\n+\t\tvar:_Filter = \"307,9\" ;"));
    }
}
