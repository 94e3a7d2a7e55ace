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
                    self.bump();
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
                Some(b'\\') => self.bump(),
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
