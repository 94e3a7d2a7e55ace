//! Fuzzes the CDL parser as ncgen drives it: the header pass, then every data entry.
//!
//! Run with `cargo fuzz run cdl_parse` from the repository root (see docs/development.md).
//! The input is CDL text (any bytes). Checks that nothing panics, that every error renders,
//! that data entries lie inside the source, that the header reads the same from a reader
//! that returns a few bytes at a time, and two oracles on each entry's values:
//!
//! - read token by token from the whole source, and from a reader that returns a few bytes
//!   at a time, they are the same (tokens, positions, and the error that ends them);
//! - read with plain lines taken ahead (`DataReader::take_plain_lines`, up to a few blocks
//!   at a time as ncgen does) and lexed apart (`DataReader::plain_lines`), they are the
//!   same as token by token, for several block sizes.
#![no_main]

use std::io::{self, BufRead, Read};

use cdl::parse::{parse_header_as, DataEntry, DataReader, DataToken, Dialect, ParseError};
use libfuzzer_sys::fuzz_target;

const NAME: &str = "fuzz.cdl";

/// What reading a data entry gave: its tokens, then the error that ended it, if any.
#[derive(Debug, PartialEq)]
struct Reading {
    tokens: Vec<String>,
    error: Option<ErrorView>,
}

/// The parts of a parse error a user sees.
#[derive(Debug, PartialEq)]
struct ErrorView {
    rendered: String,
    kind: String,
    line: u32,
    col: u32,
}

impl ErrorView {
    fn of(e: &ParseError) -> Self {
        Self {
            rendered: e.render(),
            kind: format!("{:?}", e.kind),
            line: e.line,
            col: e.col,
        }
    }
}

/// Tokens compare by their debug text: exact for floats (`-0.0` and NaN included).
fn token_text(t: &DataToken) -> String {
    format!("{t:?}")
}

/// A reader returning at most `step` bytes per read (and per `fill_buf`).
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

impl BufRead for Trickle<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let n = self.step.min(self.data.len());
        Ok(&self.data[..n])
    }
    fn consume(&mut self, amt: usize) {
        self.data = &self.data[amt..];
    }
}

/// The whole entry, token by token.
fn one_by_one<R: BufRead>(mut reader: DataReader<R>) -> Reading {
    let mut tokens = Vec::new();
    loop {
        match reader.next() {
            Ok(Some(t)) => tokens.push(token_text(&t)),
            Ok(None) => {
                return Reading {
                    tokens,
                    error: None,
                }
            }
            Err(e) => {
                return Reading {
                    tokens,
                    error: Some(ErrorView::of(&e)),
                }
            }
        }
    }
}

/// The whole entry, taking up to `blocks` blocks of plain lines of at most `max` bytes
/// ahead whenever the list goes on with some, and reading them apart.
fn with_plain_lines(mut reader: DataReader<&[u8]>, max: usize, blocks: usize) -> Reading {
    let mut tokens = Vec::new();
    let fail = |tokens, e: &ParseError| Reading {
        tokens,
        error: Some(ErrorView::of(e)),
    };
    loop {
        let mut taken = Vec::new();
        while taken.len() < blocks {
            let mut text = Vec::new();
            match reader.take_plain_lines(max, &mut text) {
                Ok(Some(at)) => {
                    assert!(!text.is_empty(), "an empty block of plain lines");
                    taken.push((text, at));
                }
                Ok(None) => break,
                Err(e) => return fail(tokens, &e),
            }
        }
        if !taken.is_empty() {
            for (text, at) in &taken {
                let mut apart = DataReader::plain_lines(text.as_slice(), NAME, *at);
                loop {
                    match apart.next() {
                        Ok(Some(t)) => tokens.push(token_text(&t)),
                        Ok(None) => break,
                        Err(e) => return fail(tokens, &e),
                    }
                }
            }
            continue;
        }
        match reader.next() {
            Ok(Some(t)) => tokens.push(token_text(&t)),
            Ok(None) => {
                return Reading {
                    tokens,
                    error: None,
                }
            }
            Err(e) => return fail(tokens, &e),
        }
    }
}

fn check_entry(data: &[u8], entry: &DataEntry) {
    let at = usize::try_from(entry.offset).unwrap_or(usize::MAX);
    assert!(
        at <= data.len(),
        "entry {entry:?} past the end ({} bytes)",
        data.len()
    );
    let rest = &data[at..];
    let expected = one_by_one(DataReader::for_entry(rest, NAME, entry));
    let trickled = one_by_one(DataReader::for_entry(
        Trickle {
            data: rest,
            step: 3,
        },
        NAME,
        entry,
    ));
    assert_eq!(trickled, expected, "{entry:?} read 3 bytes at a time");
    for (max, blocks) in [(1, 1), (7, 3), (64, 2), (1 << 16, 16)] {
        let got = with_plain_lines(DataReader::for_entry(rest, NAME, entry), max, blocks);
        assert_eq!(
            got, expected,
            "{entry:?} with plain lines of {max} bytes, {blocks} blocks at a time"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    // The dialect only changes which type names are reserved; vary it with the input.
    let dialect = match data.len() % 3 {
        0 => Dialect::Enhanced,
        1 => Dialect::Cdf5,
        _ => Dialect::Classic,
    };
    let parsed = parse_header_as(data, NAME, dialect);
    let trickled = parse_header_as(Trickle { data, step: 5 }, NAME, dialect);
    let header = match (parsed, trickled) {
        (Ok(header), Ok(again)) => {
            assert_eq!(
                format!("{again:?}"),
                format!("{header:?}"),
                "header read 5 bytes at a time"
            );
            header
        }
        (Err(e), Err(again)) => {
            assert_eq!(
                ErrorView::of(&again),
                ErrorView::of(&e),
                "header read 5 bytes at a time"
            );
            return;
        }
        (parsed, trickled) => panic!("header read 5 bytes at a time: {trickled:?}, not {parsed:?}"),
    };
    for entry in &header.data {
        check_entry(data, entry);
    }
});
