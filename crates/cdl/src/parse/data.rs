//! Data lists: the pull tokenizer for one `name = ... ;` entry of a `data:` section.

use std::io::BufRead;

use super::constant::{Constant, DataToken};
use super::error::{ErrorKind, ParseError, Position};
use super::input::Input;
use super::lexer::{Lexer, Tok, Token};

/// Where a data list is in its grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Just after `=` or `{`: an item, the end, or (as ncgen allows) one leading comma.
    Start,
    /// After a leading comma: an item.
    ItemAfterLeadingComma,
    /// After a comma: an item.
    Item,
    /// After an item: a comma or the end of the (sub)list.
    Separator,
    /// The terminating `;` was read.
    Done,
}

/// The most braces a data list may nest (values nest as deep as their types: at most 32
/// levels of user types, and arrays of them).
const MAX_BRACE_DEPTH: u32 = 256;

/// The grammar state of a data list: brace depth and what may come next.
#[derive(Debug)]
pub(crate) struct DataList {
    depth: u32,
    expect: Expect,
    /// Lines taken from the middle of a list: the end of the text ends them after a comma.
    lines_only: bool,
}

impl DataList {
    /// A data list starting just after its `=`.
    pub(crate) fn new() -> Self {
        Self {
            depth: 0,
            expect: Expect::Start,
            lines_only: false,
        }
    }

    /// The lines of a list taken after one of its commas (see [`DataReader::plain_lines`]).
    fn after_comma() -> Self {
        Self {
            depth: 0,
            expect: Expect::Item,
            lines_only: true,
        }
    }

    /// The next token of the list, or `None` after its terminating `;`.
    pub(crate) fn step<R: BufRead>(
        &mut self,
        lex: &mut Lexer<R>,
    ) -> Result<Option<DataToken>, ParseError> {
        loop {
            if self.expect == Expect::Done {
                return Ok(None);
            }
            let tok = lex.next_token()?;
            match (&tok.kind, self.expect) {
                (Tok::Punct(b','), Expect::Separator) => self.expect = Expect::Item,
                (Tok::Punct(b','), Expect::Start) => self.expect = Expect::ItemAfterLeadingComma,
                (Tok::Eof, Expect::Item) if self.lines_only => {
                    self.expect = Expect::Done;
                    return Ok(None);
                }
                (Tok::Punct(b';'), Expect::Start | Expect::Separator) if self.depth == 0 => {
                    self.expect = Expect::Done;
                    return Ok(None);
                }
                (Tok::Punct(b'}'), Expect::Start | Expect::Separator) if self.depth > 0 => {
                    self.depth -= 1;
                    self.expect = Expect::Separator;
                    return Ok(Some(DataToken::Close(tok.pos)));
                }
                (
                    Tok::Punct(b'{'),
                    Expect::Start | Expect::Item | Expect::ItemAfterLeadingComma,
                ) => {
                    if self.depth >= MAX_BRACE_DEPTH {
                        // Values nest as deep as their types, at most 32 levels of user
                        // types; 200,000 braces overflowed the stack (red team s35 RB7).
                        let mut e = ParseError::new(
                            ErrorKind::Syntax,
                            tok.pos,
                            format!("braces nested more than {MAX_BRACE_DEPTH} deep"),
                        );
                        lex.input.decorate(&mut e, tok.pos);
                        return Err(e);
                    }
                    self.depth += 1;
                    self.expect = Expect::Start;
                    return Ok(Some(DataToken::Open(tok.pos)));
                }
                (_, Expect::Start | Expect::Item | Expect::ItemAfterLeadingComma) => {
                    if let Some(c) = item_constant(lex, &tok)? {
                        self.expect = Expect::Separator;
                        return Ok(Some(DataToken::Constant(c, tok.pos)));
                    }
                    return Err(self.unexpected(lex, &tok));
                }
                _ => return Err(self.unexpected(lex, &tok)),
            }
        }
    }

    fn unexpected<R: BufRead>(&self, lex: &mut Lexer<R>, tok: &Token) -> ParseError {
        // A name on a later line after a complete list: the next entry, so the `;` of
        // this one is missing.
        let names_next = matches!(tok.kind, Tok::Ident(_) | Tok::Keyword(_) | Tok::Path(_));
        if self.expect == Expect::Separator && self.depth == 0 && names_next {
            if let Some(e) = lex.semicolon_missing_before(tok) {
                return e;
            }
        }
        let end = if self.depth > 0 { "`}`" } else { "`;`" };
        let (expected, hint) = match self.expect {
            Expect::Separator => (format!("`,` or {end}"), Some("separate values with commas")),
            Expect::Item if tok.kind == Tok::Punct(b',') => (
                "a value".to_string(),
                Some("two commas in a row: remove one"),
            ),
            Expect::Item => ("a value".to_string(), None),
            _ => (format!("a value or {end}"), None),
        };
        let hint = match (&tok.kind, hint) {
            (Tok::Eof, _) => Some("the data list is not terminated: end it with `;`"),
            (Tok::Punct(b'}'), _) => Some("unbalanced braces: this `}` closes nothing"),
            (Tok::Punct(b';'), _) if self.depth > 0 => {
                Some("unbalanced braces: a `{` is still open")
            }
            (_, h) => h,
        };
        let mut e = ParseError::expected(tok.pos, tok.len as u32, &expected, &tok.kind.describe());
        if let Some(h) = hint {
            e = e.with_hint(h);
        }
        lex.input.decorate(&mut e, tok.pos);
        e
    }
}

/// The constant a token stands for as a data item (names become enum constant
/// references, `name(args)` a function call), or `None` if it is not an item.
fn item_constant<R: BufRead>(
    lex: &mut Lexer<R>,
    tok: &Token,
) -> Result<Option<Constant>, ParseError> {
    Ok(match &tok.kind {
        Tok::Const(c) => Some(c.clone()),
        Tok::Path(p) => Some(Constant::Name(p.clone())),
        Tok::Ident(name) => {
            lex.input.skip_trivia()?;
            if lex.input.peek()? == Some(b'(') {
                let _ = lex.next_token()?;
                Some(call(lex, name.clone())?)
            } else {
                Some(Constant::Name(vec![name.clone()]))
            }
        }
        _ => None,
    })
}

/// The arguments of a function call after its `(`.
fn call<R: BufRead>(lex: &mut Lexer<R>, name: String) -> Result<Constant, ParseError> {
    let mut args = Vec::new();
    loop {
        let tok = lex.next_token()?;
        match tok.kind {
            Tok::Const(c) => args.push(c),
            other => {
                let mut e = ParseError::expected(
                    tok.pos,
                    tok.len as u32,
                    "a constant argument",
                    &other.describe(),
                );
                lex.input.decorate(&mut e, tok.pos);
                return Err(e);
            }
        }
        let tok = lex.next_token()?;
        match tok.kind {
            Tok::Punct(b',') => {}
            Tok::Punct(b')') => return Ok(Constant::Call { name, args }),
            other => {
                let mut e =
                    ParseError::expected(tok.pos, tok.len as u32, "`,` or `)`", &other.describe());
                lex.input.decorate(&mut e, tok.pos);
                return Err(e);
            }
        }
    }
}

/// Reads the values of one data entry, token by token, from just after its `=` to its
/// terminating `;`. Memory use is bounded (a fixed-size buffer) whatever the list's
/// length; numbers are classified without allocating.
pub struct DataReader<R> {
    lex: Lexer<R>,
    list: DataList,
}

impl<R: BufRead> DataReader<R> {
    /// A reader of the entry whose first byte after `=` is the next byte of `reader`,
    /// at `line` and `col` of the source named `source_name`. Offsets in the positions
    /// returned count from that byte; see [`DataReader::for_entry`] for absolute ones.
    pub fn new(reader: R, source_name: &str, line: u32, col: u32) -> Self {
        Self::at(
            reader,
            source_name,
            Position {
                offset: 0,
                line,
                col,
            },
        )
    }

    /// A reader of `entry`, `reader` being positioned at `entry.offset`.
    pub fn for_entry(reader: R, source_name: &str, entry: &super::DataEntry) -> Self {
        Self::at(
            reader,
            source_name,
            Position {
                offset: entry.offset,
                line: entry.line,
                col: entry.col,
            },
        )
    }

    /// A reader of lines from [`DataReader::take_plain_lines`], which start at `start`: the
    /// same tokens, positions and errors as the reader that took them would give, and
    /// `None` at their end.
    pub fn plain_lines(lines: R, source_name: &str, start: Position) -> Self {
        Self {
            lex: Lexer::new(Input::new(lines, source_name, start)),
            list: DataList::after_comma(),
        }
    }

    fn at(reader: R, source_name: &str, start: Position) -> Self {
        Self {
            lex: Lexer::new(Input::new(reader, source_name, start)),
            list: DataList::new(),
        }
    }

    /// Lines of plain data (numbers and names separated by commas, each line ending with
    /// one) read ahead of the lexer, up to `max` bytes (64 KiB at most): appended to
    /// `out`, with where they start, or `None` (nothing read) when the list does not go
    /// on with such a line here. [`DataReader::plain_lines`] gives their tokens, exactly
    /// those this reader would have given, so that they can be converted on another
    /// thread; this reader then goes on after them.
    pub fn take_plain_lines(
        &mut self,
        max: usize,
        out: &mut Vec<u8>,
    ) -> Result<Option<Position>, ParseError> {
        let comma = match self.list.expect {
            Expect::Separator if self.list.depth == 0 => true,
            Expect::Item if self.list.depth == 0 => false,
            _ => return Ok(None),
        };
        let taken = self.lex.input.take_plain_lines(comma, max, out)?;
        if taken.is_some() {
            self.list.expect = Expect::Item;
        }
        Ok(taken)
    }

    /// The name of the source, for messages.
    pub fn source_name(&self) -> &str {
        self.lex.input.source_name()
    }

    /// The next token, or `None` once the entry's `;` has been read.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<DataToken>, ParseError> {
        self.list.step(&mut self.lex)
    }

    /// An error located at `pos` (of `len` characters), with the source line if it is
    /// still buffered; for callers reporting problems with values they convert.
    pub fn error_at(&mut self, pos: Position, len: usize, message: &str) -> ParseError {
        let mut e = ParseError::new(ErrorKind::BadValue, pos, message).with_len(len);
        self.lex.input.decorate(&mut e, pos);
        e
    }
}

#[cfg(test)]
mod plain_line_tests {
    use super::*;

    /// Tokens read, the last possibly an error (line, column, message).
    type Read = Vec<Result<DataToken, (u32, u32, String)>>;

    /// Tokens (or the error that ends them) of `text` read token by token.
    fn one_by_one(text: &str) -> Read {
        let mut reader = DataReader::new(text.as_bytes(), "t.cdl", 3, 5);
        let mut out = Vec::new();
        loop {
            match reader.next() {
                Ok(Some(token)) => out.push(Ok(token)),
                Ok(None) => return out,
                Err(e) => {
                    out.push(Err((e.line, e.col, e.message.clone())));
                    return out;
                }
            }
        }
    }

    /// The same with plain lines of at most `max` bytes taken ahead and read apart; also
    /// how many blocks were taken.
    fn with_plain_lines(text: &str, max: usize) -> (Read, usize) {
        let mut reader = DataReader::new(text.as_bytes(), "t.cdl", 3, 5);
        let mut out = Vec::new();
        let mut blocks = 0;
        loop {
            let mut lines = Vec::new();
            let step = match reader.take_plain_lines(max, &mut lines) {
                Ok(Some(at)) => {
                    blocks += 1;
                    let mut apart = DataReader::plain_lines(lines.as_slice(), "t.cdl", at);
                    loop {
                        match apart.next() {
                            Ok(Some(token)) => out.push(Ok(token)),
                            Ok(None) => break,
                            Err(e) => {
                                out.push(Err((e.line, e.col, e.message.clone())));
                                return (out, blocks);
                            }
                        }
                    }
                    continue;
                }
                Ok(None) => reader.next(),
                Err(e) => Err(e),
            };
            match step {
                Ok(Some(token)) => out.push(Ok(token)),
                Ok(None) => return (out, blocks),
                Err(e) => {
                    out.push(Err((e.line, e.col, e.message.clone())));
                    return (out, blocks);
                }
            }
        }
    }

    #[test]
    fn plain_lines_read_apart_give_the_same_tokens_and_errors() {
        let cases = [
            "1, 2, \n    3, 4,\n\n  5.5f, -6e3, _,\n  7, 8 ;",
            " 1,\n 2, // note\n 3,\n 4,\n 5 ;",
            " 1,\n 2,\n 3 4,\n 5,\n 6 ;",
            " 1,\n 2,\n 3,, 4,\n 5 ;",
            " 1,\n 2,\n 1.5q, 4,\n 5 ;",
            " 1,\n 2,\n x, y,\n 5 ;",
            " 1,\n 2,\n 3,\n",
            " {1, 2},\n 3,\n 4 ;",
            "\n 1, 2,\r\n 3, 4,\r\n 5 ;",
        ];
        for text in cases {
            let expected = one_by_one(text);
            for max in [1, 8, 64, 1 << 16] {
                let (got, blocks) = with_plain_lines(text, max);
                assert_eq!(got, expected, "{text:?}, {max} bytes at most");
                if max >= 8 && !text.contains('{') {
                    assert!(blocks > 0, "{text:?}: no plain line taken");
                }
            }
        }
    }
}
