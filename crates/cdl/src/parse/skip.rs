//! Skipping a data list in the header pass: the values are read and checked (braces,
//! commas, constants) only by the data pass, so the first pass just finds the list's
//! `;`, byte runs at a time, minding strings, character constants, comments and escapes.

use std::io::BufRead;

use super::error::{ErrorKind, ParseError};
use super::input::Input;

impl<R: BufRead> Input<R> {
    /// Skips the values of a data entry up to and including the `;` that ends it (the
    /// cursor is just after the entry's `=`).
    pub(crate) fn skip_data_list(&mut self) -> Result<(), ParseError> {
        loop {
            self.take_while(|b| !matches!(b, b';' | b'"' | b'\'' | b'/' | b'\\'), None)?;
            let at = self.position();
            match self.peek()? {
                None => {
                    return Err(self
                        .error(ErrorKind::UnexpectedEof, at, "the data list has no end")
                        .with_hint("the data list is not terminated: end it with `;`"))
                }
                Some(b';') => {
                    self.bump();
                    return Ok(());
                }
                Some(quote @ (b'"' | b'\'')) => self.skip_quoted(quote)?,
                Some(b'/') if matches!(self.peek_at(1)?, Some(b'/' | b'*')) => {
                    self.skip_trivia()?
                }
                Some(b'\\') => {
                    self.bump();
                    // The escaped byte may not be buffered yet (`bump` alone would then
                    // skip nothing): read it.
                    self.next_byte()?;
                }
                Some(_) => self.bump(),
            }
        }
    }

    /// Skips a string or character constant (the cursor is on its opening quote).
    fn skip_quoted(&mut self, quote: u8) -> Result<(), ParseError> {
        let start = self.position();
        self.bump();
        loop {
            self.take_while(|b| b != quote && b != b'\\', None)?;
            match self.next_byte()? {
                // Read, not bumped: the escaped byte may not be buffered yet.
                Some(b'\\') => {
                    self.next_byte()?;
                }
                Some(_) => return Ok(()),
                None => {
                    let what = if quote == b'"' {
                        "string"
                    } else {
                        "character constant"
                    };
                    return Err(self
                        .error(
                            ErrorKind::UnterminatedString,
                            start,
                            format!("unterminated {what}"),
                        )
                        .with_hint(format!("close it with `{}`", quote as char)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, BufRead, Read};

    use crate::parse::parse_header;

    /// A reader that gives one byte at a time, so that every byte is at the end of what
    /// the parser has buffered.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    impl BufRead for OneByte<'_> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            Ok(&self.0[..self.0.len().min(1)])
        }
        fn consume(&mut self, amt: usize) {
            self.0 = &self.0[amt..];
        }
    }

    /// An escaped quote, in a data list and in a string, is skipped whatever the reads:
    /// the byte after a backslash used to be skipped only when already buffered.
    #[test]
    fn escapes_are_skipped_across_reads() {
        let cdl = "netcdf t {\ndimensions:\n n = 2 ;\nvariables:\n char c(n) ;\n int v ;\n\
                   data:\n c = \\'x, \"a\\\"b\" ;\n v = 1 ;\n}\n";
        let whole = parse_header(cdl.as_bytes(), "t.cdl");
        let Ok(whole) = whole else {
            panic!("{whole:?}");
        };
        assert_eq!(whole.data.len(), 2);
        let bytewise = parse_header(OneByte(cdl.as_bytes()), "t.cdl");
        assert_eq!(bytewise.as_ref().ok(), Some(&whole), "{bytewise:?}");
    }
}
