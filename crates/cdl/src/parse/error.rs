//! Parse errors with positions, rendered like rustc's diagnostics.

/// A position in a CDL source: byte offset and 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    /// Byte offset from the start of the source.
    pub offset: u64,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub col: u32,
}

impl Position {
    /// The start of a source.
    pub const START: Position = Position {
        offset: 0,
        line: 1,
        col: 1,
    };
}

/// What kind of error a [`ParseError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Reading the source failed.
    Io,
    /// A token that the grammar does not allow here.
    Syntax,
    /// The source ended in the middle of something.
    UnexpectedEof,
    /// A string or character constant without its closing quote.
    UnterminatedString,
    /// A `/* ...` comment without its `*/`.
    UnterminatedComment,
    /// A malformed number.
    BadNumber,
    /// A type name that is not defined.
    UnknownType,
    /// A dimension name that is not defined.
    UnknownDimension,
    /// A variable name that is not defined.
    UnknownVariable,
    /// A group name (in a path) that is not defined.
    UnknownGroup,
    /// A name defined twice in the same group.
    Duplicate,
    /// `UNLIMITED` where it is not allowed, or a bad dimension length.
    BadDimension,
    /// A value that cannot be converted to the type it must have.
    BadValue,
}

/// An error found while parsing CDL, with where it is and what would have been right.
/// Its details ([`Diagnostic`]) are boxed (errors stay small) and reachable by deref:
/// `err.line`, `err.kind`...
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{}:{}: {}", .0.source_name, .0.line, .0.col, .0.message)]
pub struct ParseError(pub Box<Diagnostic>);

impl std::ops::Deref for ParseError {
    type Target = Diagnostic;
    fn deref(&self) -> &Diagnostic {
        &self.0
    }
}

impl std::ops::DerefMut for ParseError {
    fn deref_mut(&mut self) -> &mut Diagnostic {
        &mut self.0
    }
}

/// The details of a [`ParseError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The kind of error.
    pub kind: ErrorKind,
    /// The name of the source (a file name) as given by the caller.
    pub source_name: String,
    /// 1-based line of the start of the offending text.
    pub line: u32,
    /// 1-based column (characters) of the start of the offending text.
    pub col: u32,
    /// Length in characters of the offending text (at least 1 when rendered).
    pub len: u32,
    /// The one-line message (`expected X, found Y` for syntax errors).
    pub message: String,
    /// What was found, as shown to the user (`` `;` ``, `end of file`...).
    pub found: Option<String>,
    /// What was expected instead.
    pub expected: Option<String>,
    /// A hint on how to fix it.
    pub hint: Option<String>,
    /// The text of the source line (or a window of it), when still available.
    pub line_text: Option<String>,
    /// 0-based character column in `line_text` where the caret goes.
    pub caret: usize,
}

impl ParseError {
    /// An error of `kind` at `pos` with a free-form message.
    pub(crate) fn new(kind: ErrorKind, pos: Position, message: impl Into<String>) -> Self {
        Self(Box::new(Diagnostic {
            kind,
            source_name: String::new(),
            line: pos.line,
            col: pos.col,
            len: 1,
            message: message.into(),
            found: None,
            expected: None,
            hint: None,
            line_text: None,
            caret: 0,
        }))
    }

    /// A syntax error: `expected <expected>, found <found>`.
    pub(crate) fn expected(pos: Position, len: u32, expected: &str, found: &str) -> Self {
        let kind = if found == "end of file" {
            ErrorKind::UnexpectedEof
        } else {
            ErrorKind::Syntax
        };
        let mut e = Self::new(kind, pos, format!("expected {expected}, found {found}"));
        e.len = len.max(1);
        e.found = Some(found.to_string());
        e.expected = Some(expected.to_string());
        e
    }

    /// Sets the hint.
    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Sets the span length (characters).
    pub(crate) fn with_len(mut self, len: usize) -> Self {
        self.len = u32::try_from(len).unwrap_or(u32::MAX).max(1);
        self
    }

    /// The error as rustc shows its diagnostics: message, location, source line, caret, hint.
    pub fn render(&self) -> String {
        let mut out = format!("error: {}\n", self.message);
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        out.push_str(&format!(
            "{pad}--> {}:{}:{}\n",
            self.source_name, self.line, self.col
        ));
        if let Some(text) = &self.line_text {
            let shown: String = text
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            out.push_str(&format!("{pad} |\n"));
            out.push_str(&format!("{num} | {}\n", shown.trim_end()));
            let width = (self.len as usize).clamp(1, 80);
            out.push_str(&format!(
                "{pad} | {}{}\n",
                " ".repeat(self.caret),
                "^".repeat(width)
            ));
        }
        if let Some(hint) = &self.hint {
            out.push_str(&format!("{pad} = hint: {hint}\n"));
        }
        out
    }
}
