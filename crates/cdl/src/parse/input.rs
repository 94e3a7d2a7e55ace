//! A bounded byte buffer over a `BufRead` that tracks positions and keeps a little
//! history, so errors can quote the source line without holding the whole input.

use std::io::{BufRead, ErrorKind as IoKind};

use super::error::{ErrorKind, ParseError, Position};

/// Bytes read from the source at a time (the buffer holds at most twice this).
const CHUNK: usize = 64 * 1024;
/// Bytes kept before the cursor when the buffer is compacted (for error snippets).
const HISTORY: usize = 512;
/// Longest source-line window quoted in an error.
const SNIPPET: usize = 160;

/// The source: a reader, a bounded buffer and the position of the cursor.
pub(crate) struct Input<R> {
    reader: R,
    buf: Vec<u8>,
    /// Index of the next unread byte in `buf`.
    pos: usize,
    /// Number of valid bytes in `buf`.
    end: usize,
    eof: bool,
    /// Position of `buf[pos]`.
    here: Position,
    /// Offset (in the source) of `buf[0]`.
    buf_offset: u64,
    /// Offset of the start of the current line.
    line_start: u64,
    source_name: String,
}

impl<R: BufRead> Input<R> {
    /// Reads `reader` whose first byte is at `start` in the source named `source_name`.
    pub(crate) fn new(reader: R, source_name: &str, start: Position) -> Self {
        Self {
            reader,
            buf: vec![0; 2 * CHUNK + HISTORY],
            pos: 0,
            end: 0,
            eof: false,
            here: start,
            buf_offset: start.offset,
            line_start: start
                .offset
                .saturating_sub(u64::from(start.col.saturating_sub(1))),
            source_name: source_name.to_string(),
        }
    }

    /// Position of the next byte.
    #[inline]
    pub(crate) fn position(&self) -> Position {
        self.here
    }

    /// Makes at least `need` unread bytes available unless the source ends first.
    fn fill(&mut self, need: usize) -> Result<(), ParseError> {
        while self.end - self.pos < need && !self.eof {
            if self.end + CHUNK > self.buf.len() {
                let keep_from = self.pos.saturating_sub(HISTORY);
                self.buf.copy_within(keep_from..self.end, 0);
                self.pos -= keep_from;
                self.end -= keep_from;
                self.buf_offset += keep_from as u64;
            }
            let room = (self.buf.len() - self.end).min(CHUNK);
            let n = loop {
                match self.reader.read(&mut self.buf[self.end..self.end + room]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == IoKind::Interrupted => continue,
                    Err(e) => {
                        return Err(self.error(
                            ErrorKind::Io,
                            self.here,
                            format!("cannot read the source: {e}"),
                        ))
                    }
                }
            };
            if n == 0 {
                self.eof = true;
            }
            self.end += n;
        }
        Ok(())
    }

    /// The next byte, without consuming it.
    #[inline]
    pub(crate) fn peek(&mut self) -> Result<Option<u8>, ParseError> {
        if self.pos < self.end {
            return Ok(Some(self.buf[self.pos]));
        }
        self.fill(1)?;
        Ok(self.buf[self.pos..self.end].first().copied())
    }

    /// The byte `k` places after the next one, without consuming anything.
    pub(crate) fn peek_at(&mut self, k: usize) -> Result<Option<u8>, ParseError> {
        if self.pos + k >= self.end {
            self.fill(k + 1)?;
        }
        Ok(self.buf[self.pos..self.end].get(k).copied())
    }

    /// Skips a UTF-8 byte-order mark (`EF BB BF`) at the very start of the source, as
    /// netCDF-C's ncgen does; the mark takes no column, and the first line is quoted
    /// without it.
    pub(crate) fn skip_byte_order_mark(&mut self) -> Result<(), ParseError> {
        const MARK: [u8; 3] = [0xEF, 0xBB, 0xBF];
        if self.here.offset != 0 {
            return Ok(());
        }
        self.fill(MARK.len())?;
        if self.buf[self.pos..self.end].starts_with(&MARK) {
            self.pos += MARK.len();
            self.here.offset += MARK.len() as u64;
            self.line_start = self.here.offset;
        }
        Ok(())
    }

    /// Consumes one byte (which must have been peeked).
    #[inline]
    pub(crate) fn bump(&mut self) {
        if let Some(&b) = self.buf[..self.end].get(self.pos) {
            self.pos += 1;
            self.here.offset += 1;
            if b == b'\n' {
                self.here.line += 1;
                self.here.col = 1;
                self.line_start = self.here.offset;
            } else if b & 0xC0 != 0x80 {
                self.here.col += 1;
            }
        }
    }

    /// Consumes the buffered bytes `start..end` (`start` being the cursor) at once: the
    /// same positions as bumping each, in one pass.
    fn advance(&mut self, start: usize, end: usize) {
        let run = &self.buf[start..end];
        match run.iter().rposition(|&b| b == b'\n') {
            None => {
                let chars = run.iter().filter(|&&b| b & 0xC0 != 0x80).count();
                self.here.col += chars as u32;
            }
            Some(last_newline) => {
                let newlines = run.iter().filter(|&&b| b == b'\n').count();
                let tail = &run[last_newline + 1..];
                self.here.line += newlines as u32;
                self.here.col = 1 + tail.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32;
                self.line_start = self.here.offset + (last_newline + 1) as u64;
            }
        }
        self.here.offset += run.len() as u64;
        self.pos = end;
    }

    /// Consumes and returns the next byte.
    #[inline]
    pub(crate) fn next_byte(&mut self) -> Result<Option<u8>, ParseError> {
        let b = self.peek()?;
        self.bump();
        Ok(b)
    }

    /// Consumes bytes while `keep` holds, appending them to `out` (if given).
    /// Returns the number of bytes consumed. Bytes must not include `\n` unless
    /// `keep` is prepared for it (line counting is done by `bump`).
    pub(crate) fn take_while(
        &mut self,
        mut keep: impl FnMut(u8) -> bool,
        mut out: Option<&mut Vec<u8>>,
    ) -> Result<usize, ParseError> {
        let mut total = 0;
        loop {
            if self.pos >= self.end {
                self.fill(1)?;
                if self.pos >= self.end {
                    return Ok(total);
                }
            }
            let start = self.pos;
            let mut i = start;
            while i < self.end && keep(self.buf[i]) {
                i += 1;
            }
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(&self.buf[start..i]);
            }
            self.advance(start, i);
            total += i - start;
            if i < self.end {
                return Ok(total);
            }
        }
    }

    /// Skips spaces, tabs, newlines and comments (`// ...` and `/* ... */`).
    pub(crate) fn skip_trivia(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek()? {
                Some(b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\x0b') => self.bump(),
                Some(b'/') => match self.peek_at(1)? {
                    Some(b'/') => {
                        self.take_while(|b| b != b'\n', None)?;
                    }
                    Some(b'*') => {
                        let start = self.here;
                        self.bump();
                        self.bump();
                        loop {
                            match self.next_byte()? {
                                None => {
                                    return Err(self
                                        .error(
                                            ErrorKind::UnterminatedComment,
                                            start,
                                            "unterminated `/*` comment",
                                        )
                                        .with_len(2)
                                        .with_hint("close the comment with `*/`"))
                                }
                                Some(b'*') if self.peek()? == Some(b'/') => {
                                    self.bump();
                                    break;
                                }
                                Some(_) => {}
                            }
                        }
                    }
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    /// Takes whole "plain" lines (see [`is_plain_byte`]) that each end with a comma, up to
    /// `max` bytes (at most [`CHUNK`]) in all: appends them to `out` and returns where
    /// the first begins, or `None` (nothing consumed) if the next line is not one.
    ///
    /// The cursor must be after an item (`comma`: a comma and then the end of the line
    /// must come first) or after a comma (then only the end of the line, unless the
    /// cursor is already at the start of a line). A data list continues after such lines
    /// exactly as it would have after lexing them, so they can be lexed elsewhere.
    pub(crate) fn take_plain_lines(
        &mut self,
        comma: bool,
        max: usize,
        out: &mut Vec<u8>,
    ) -> Result<Option<Position>, ParseError> {
        self.fill(CHUNK)?;
        let bytes = &self.buf[self.pos..self.end];
        let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
        let mut i = bytes.iter().take_while(|b| blank(b)).count();
        if comma {
            if bytes.get(i) != Some(&b',') {
                return Ok(None);
            }
            i += 1;
            i += bytes[i..].iter().take_while(|b| blank(b)).count();
        }
        let first = if !comma && self.here.col == 1 {
            0
        } else if bytes.get(i) == Some(&b'\n') {
            i + 1
        } else {
            return Ok(None);
        };
        let limit = bytes.len().min(first + max.min(CHUNK));
        let mut taken = first;
        while let Some(len) = bytes[taken..limit].iter().position(|&b| b == b'\n') {
            let line = &bytes[taken..taken + len];
            let ends_with_comma = line
                .iter()
                .rev()
                .find(|b| !blank(b))
                .is_none_or(|&b| b == b',');
            if !ends_with_comma || !line.iter().all(|&b| is_plain_byte(b)) {
                break;
            }
            taken += len + 1;
        }
        if taken == first {
            return Ok(None);
        }
        out.extend_from_slice(&bytes[first..taken]);
        let (start, first, taken) = (self.pos, self.pos + first, self.pos + taken);
        self.advance(start, first);
        let at = self.here;
        self.advance(first, taken);
        Ok(Some(at))
    }

    /// An error at `pos` carrying the source name and, if still buffered, the line text.
    pub(crate) fn error(
        &mut self,
        kind: ErrorKind,
        pos: Position,
        message: impl Into<String>,
    ) -> ParseError {
        let mut e = ParseError::new(kind, pos, message);
        self.decorate(&mut e, pos);
        e
    }

    /// The name of the source, for messages.
    pub(crate) fn source_name(&self) -> &str {
        &self.source_name
    }

    /// Fills in the source name and line text of `e`, located at `pos`.
    pub(crate) fn decorate(&mut self, e: &mut ParseError, pos: Position) {
        e.source_name = self.source_name.clone();
        // Make sure the rest of the line is buffered (bounded lookahead).
        let _ = self.fill(SNIPPET);
        if pos.offset < self.buf_offset || pos.offset > self.buf_offset + self.end as u64 {
            return;
        }
        let at = (pos.offset - self.buf_offset) as usize;
        let line_begin = if pos.line == self.here.line && self.line_start >= self.buf_offset {
            (self.line_start - self.buf_offset) as usize
        } else {
            self.buf[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
        };
        let from = line_begin.max(at.saturating_sub(SNIPPET / 2));
        let to = self.buf[at..self.end]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.end, |i| at + i)
            .min(at + SNIPPET / 2);
        let before = String::from_utf8_lossy(&self.buf[from..at]);
        e.caret = before.chars().count();
        let mut text = before.into_owned();
        text.push_str(&String::from_utf8_lossy(&self.buf[at..to]));
        e.line_text = Some(text);
    }
}

/// Whether `b` may appear in a plain line of data: digits, letters, `.`, `_`, `+`, `-`,
/// commas and blanks. Such text holds no string, comment, brace, call or `;`, so each
/// line can be lexed on its own.
fn is_plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(b, b'.' | b'_' | b'+' | b'-' | b',' | b' ' | b'\t' | b'\r')
}
