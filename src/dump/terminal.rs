//! Output to a terminal made safe: text from a file (names, attributes, string data)
//! may hold C1 control characters (U+0080–U+009F, among them CSI, U+009B, which many
//! terminals obey), bidirectional overrides and isolates (U+202A–U+202E,
//! U+2066–U+2069, which reorder what is shown), bytes that are not UTF-8 (a raw 0x9B is
//! CSI to an 8-bit terminal) and ASCII controls that an escaper let through. ncdump's
//! CDL is byte for byte the reference's when it goes to a file or a pipe; when standard
//! output is a terminal, each byte of such a character is written as a CDL octal escape
//! (`\302\233`) instead, the way `ls` and `git` quote names only on a terminal.

use std::io::{self, IsTerminal, Write};

/// A writer that escapes what could command a terminal, when `escaping` (see the
/// module's documentation); a plain pass-through otherwise.
pub struct TerminalSafe<W: Write> {
    inner: W,
    escaping: bool,
    /// The start of a UTF-8 sequence that the next write completes.
    pending: Vec<u8>,
}

impl<W: Write + IsTerminal> TerminalSafe<W> {
    /// Escapes when `inner` is a terminal.
    pub fn for_terminal(inner: W) -> Self {
        let escaping = inner.is_terminal();
        Self::new(inner, escaping)
    }
}

impl<W: Write> TerminalSafe<W> {
    /// Escapes when `escaping`.
    pub fn new(inner: W, escaping: bool) -> Self {
        Self {
            inner,
            escaping,
            pending: Vec::new(),
        }
    }

    /// Writes `bytes` with every unsafe character escaped; an incomplete UTF-8 sequence
    /// at the end waits for the next write.
    fn write_escaped(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut out = Vec::with_capacity(bytes.len() + 16);
        let mut at = 0;
        while at < bytes.len() {
            let byte = bytes[at];
            if byte < 0x80 {
                if is_unsafe_ascii(byte) {
                    push_octal(&mut out, byte);
                } else {
                    out.push(byte);
                }
                at += 1;
                continue;
            }
            match utf8_char(&bytes[at..]) {
                Utf8::Char(c, len) => {
                    if is_unsafe_char(c) {
                        bytes[at..at + len]
                            .iter()
                            .for_each(|b| push_octal(&mut out, *b));
                    } else {
                        out.extend_from_slice(&bytes[at..at + len]);
                    }
                    at += len;
                }
                Utf8::Incomplete => {
                    self.pending.extend_from_slice(&bytes[at..]);
                    break;
                }
                Utf8::Invalid => {
                    push_octal(&mut out, byte);
                    at += 1;
                }
            }
        }
        self.inner.write_all(&out)
    }
}

impl<W: Write> Write for TerminalSafe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.escaping {
            return self.inner.write(buf);
        }
        if self.pending.is_empty() {
            self.write_escaped(buf)?;
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.write_escaped(&joined)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for TerminalSafe<W> {
    /// A sequence the output ended in the middle of is written escaped.
    fn drop(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let mut out = Vec::new();
        pending.iter().for_each(|b| push_octal(&mut out, *b));
        let _ = self.inner.write_all(&out);
        let _ = self.inner.flush();
    }
}

/// What the bytes at the start of a slice are.
enum Utf8 {
    /// A character and its length in bytes.
    Char(char, usize),
    /// The start of a character whose other bytes are not there yet.
    Incomplete,
    /// Not UTF-8.
    Invalid,
}

/// The UTF-8 character at the start of `bytes` (whose first byte is not ASCII).
fn utf8_char(bytes: &[u8]) -> Utf8 {
    let len = match bytes[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Utf8::Invalid,
    };
    let Some(sequence) = bytes.get(..len) else {
        // Complete as far as it goes: the rest may come in the next write.
        let prefix_ok = std::str::from_utf8(bytes)
            .err()
            .is_some_and(|e| e.valid_up_to() == 0 && e.error_len().is_none());
        return if prefix_ok {
            Utf8::Incomplete
        } else {
            Utf8::Invalid
        };
    };
    match std::str::from_utf8(sequence)
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) => Utf8::Char(c, len),
        None => Utf8::Invalid,
    }
}

/// ASCII controls other than tab and newline (CDL's own layout uses only those two).
fn is_unsafe_ascii(byte: u8) -> bool {
    (byte < 0x20 && byte != b'\t' && byte != b'\n') || byte == 0x7f
}

/// C1 controls, bidirectional embeddings, overrides and isolates.
fn is_unsafe_char(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `byte` as a CDL octal escape.
fn push_octal(out: &mut Vec<u8>, byte: u8) {
    out.extend_from_slice(format!("\\{byte:03o}").as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `pieces`, written one after the other, come out as.
    fn through(pieces: &[&[u8]], escaping: bool) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut safe = TerminalSafe::new(&mut out, escaping);
            for piece in pieces {
                assert_eq!(safe.write(piece).ok(), Some(piece.len()));
            }
        }
        out
    }

    #[test]
    fn controls_overrides_and_stray_bytes_are_escaped_on_a_terminal() {
        let text = "a\u{9b}31mb\u{202e}c\u{85}d\u{2066}é中\t\n".as_bytes();
        assert_eq!(
            String::from_utf8_lossy(&through(&[text], true)),
            "a\\302\\23331mb\\342\\200\\256c\\302\\205d\\342\\201\\246é中\t\n"
        );
        assert_eq!(
            through(&[b"x\x9by\x1b[2J\r"], true),
            b"x\\233y\\033[2J\\015"
        );
        // Not a terminal: the bytes as they are.
        assert_eq!(through(&[text], false), text);
    }

    #[test]
    fn a_character_split_between_writes_is_judged_whole() {
        let csi = "\u{9b}".as_bytes();
        let override_ = "\u{202e}".as_bytes();
        assert_eq!(
            through(&[b"a", &csi[..1], &csi[1..], b"b"], true),
            b"a\\302\\233b"
        );
        assert_eq!(
            through(&[&override_[..1], &override_[1..2], &override_[2..]], true),
            b"\\342\\200\\256"
        );
        let e_acute = "é".as_bytes();
        assert_eq!(through(&[&e_acute[..1], &e_acute[1..]], true), e_acute);
        // Cut off for good: escaped when the output ends.
        assert_eq!(through(&[b"z", &override_[..2]], true), b"z\\342\\200");
        // A lead byte followed by something that cannot continue it.
        assert_eq!(through(&[b"\xe2(x"], true), b"\\342(x");
    }
}
