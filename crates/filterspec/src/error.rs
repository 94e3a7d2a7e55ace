//! Errors in filter spec text and `-F` arguments: what went wrong, where (a byte span
//! of the input), and a hint, rendered with a caret under the offending text.

use std::fmt;
use std::ops::Range;

use crate::constant::TypeTag;

/// Where in a spec list a constant stands: which filter, and which parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamPosition {
    /// The filter id the parameter belongs to.
    pub filter: u32,
    /// The parameter's 1-based index, not counting the id.
    pub index: usize,
}

impl fmt::Display for ParamPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter {} of filter {}", self.index, self.filter)
    }
}

/// What is wrong with a piece of filter spec text or of a `-F` argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecErrorKind {
    /// Nothing but blanks where a spec list was expected.
    #[error("empty filter spec")]
    EmptyInput,
    /// A `|` with nothing before it, or two in a row.
    #[error("empty filter spec in a pipeline")]
    EmptySpec,
    /// A spec that starts with `,`.
    #[error("missing filter id")]
    MissingId,
    /// The reference's undocumented `[N]` format prefix.
    #[error("a [N] format prefix is not supported")]
    FormatPrefix,
    /// An id that is neither a decimal number nor a name.
    #[error("invalid filter id `{text}`")]
    InvalidId {
        /// The offending text.
        text: String,
    },
    /// An id outside HDF5's range.
    #[error("filter id {text} is out of range")]
    IdOutOfRange {
        /// The offending text.
        text: String,
    },
    /// A name that is not in the known-filter table.
    #[error("unknown filter name `{name}`")]
    UnknownName {
        /// The name as written.
        name: String,
        /// The closest known name, if any is close.
        suggestion: Option<&'static str>,
    },
    /// An empty parameter: `307,,9` or a trailing `,`.
    #[error("missing {at}")]
    EmptyParameter {
        /// Which parameter.
        at: ParamPosition,
    },
    /// A parameter that does not start like a number.
    #[error("{at} is not a number")]
    NotANumber {
        /// Which parameter.
        at: ParamPosition,
    },
    /// A number followed by something that is not a type tag.
    #[error("unknown type tag in {at}")]
    UnknownTypeTag {
        /// Which parameter.
        at: ParamPosition,
    },
    /// A blank inside a parameter (`9 9`).
    #[error("unexpected blank inside {at}")]
    UnexpectedBlank {
        /// Which parameter.
        at: ParamPosition,
    },
    /// A decimal point or exponent without an `f` or `d` tag.
    #[error("{at} has a fraction or exponent but no f or d tag")]
    FractionWithoutFloatTag {
        /// Which parameter.
        at: ParamPosition,
    },
    /// A fraction, exponent or hex digits with a tag that cannot take them.
    #[error("{at} is not an integer, but its tag `{tag}` needs one")]
    NotAnInteger {
        /// Which parameter.
        at: ParamPosition,
        /// The tag as written.
        tag: TypeTag,
    },
    /// A value that does not fit the type its tag (or lack of one) names.
    #[error("{at} is out of range for {}", tag.type_name())]
    OutOfRange {
        /// Which parameter.
        at: ParamPosition,
        /// The tag that sets the range.
        tag: TypeTag,
    },
    /// A parameter of a built-in filter outside what the filter takes.
    #[error("{at} is out of {filter}'s range")]
    FilterParameter {
        /// Which parameter.
        at: ParamPosition,
        /// The filter's name.
        filter: &'static str,
        /// What it takes, e.g. `a level from 1 to 9`.
        valid: &'static str,
    },
    /// A `-F` argument with a variable list but no `,` and spec list after it.
    #[error("missing filter spec after the variable list")]
    MissingFilterSpec,
    /// An empty name in a `&` list, or an empty variable list.
    #[error("empty variable name")]
    EmptyVariableName,
    /// An empty group or variable name inside a path (`g//v`, `g/`).
    #[error("empty name in variable path `{path}`")]
    EmptyPathComponent {
        /// The path as written.
        path: String,
    },
    /// `*` combined with other names.
    #[error("`*` must stand alone in the variable list")]
    StarNotAlone,
    /// A backslash at the very end of a name.
    #[error("backslash at the end of a variable name")]
    TrailingBackslash,
    /// The same variable twice in one `-F` argument.
    #[error("variable {path} is named twice")]
    DuplicateInArgument {
        /// The variable's full path.
        path: String,
    },
    /// The same variable named explicitly in two `-F` options.
    #[error("variable {path} is named in two -F options")]
    RepeatedVariable {
        /// The variable's full path.
        path: String,
    },
    /// `*,SPECLIST` given in two `-F` options.
    #[error("`*` is given filters in two -F options")]
    RepeatedStar,
}

impl SpecErrorKind {
    /// What the user can do about it: shown after the caret.
    pub fn hint(&self) -> String {
        const NUMBER: &str =
            "expected a number, optionally followed by b, ub, s, us, u, f, d, l or ul";
        match self {
            Self::EmptyInput => "expected a filter id or name, e.g. 307,9 or bzip2,9".into(),
            Self::EmptySpec => "expected a filter spec here; remove the extra |".into(),
            Self::MissingId => "a spec starts with a filter id or name, e.g. 307,9".into(),
            Self::FormatPrefix => "write the spec without the prefix, e.g. 307,9".into(),
            Self::InvalidId { .. } => {
                "expected a decimal filter id (1 to 65535) or a known filter name".into()
            }
            Self::IdOutOfRange { .. } => "HDF5 filter ids are 1 to 65535".into(),
            Self::UnknownName {
                suggestion: Some(s),
                ..
            } => format!("did you mean {s}? (or write the numeric id)"),
            Self::UnknownName { .. } => {
                "not a known filter name; write the numeric id (see --list-filters)".into()
            }
            Self::EmptyParameter { .. } => "expected a parameter; remove the extra ,".into(),
            Self::NotANumber { .. } | Self::UnknownTypeTag { .. } => NUMBER.into(),
            Self::UnexpectedBlank { .. } => {
                "blanks may stand only around , and |; remove it or add the missing ,".into()
            }
            Self::FractionWithoutFloatTag { .. } => {
                "write 1.5f for a 32-bit float or 1.5d for a 64-bit double".into()
            }
            Self::NotAnInteger { tag, .. } => {
                format!("`{tag}` takes a whole number; use f or d for fractions, no hex")
            }
            Self::OutOfRange { tag, .. } => tag.range_hint(),
            Self::FilterParameter { filter, valid, .. } => format!("{filter} takes {valid}"),
            Self::MissingFilterSpec => {
                "write VARS,none or VARS,ID[,PARAMS...], e.g. v,307,9".into()
            }
            Self::EmptyVariableName => "names are joined by &, e.g. v1&/g/v2".into(),
            Self::EmptyPathComponent { .. } => {
                "write a full path like /group/var or a name like var".into()
            }
            Self::StarNotAlone => "`*` already selects every variable".into(),
            Self::TrailingBackslash => "a backslash escapes the character after it".into(),
            Self::DuplicateInArgument { .. } => "name each variable once".into(),
            Self::RepeatedVariable { .. } | Self::RepeatedStar => {
                "use | to chain filters in one -F option, e.g. -F 'v,307,9|1,5'".into()
            }
        }
    }
}

/// An error in filter spec text, with the input and the byte span it concerns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct SpecError {
    /// What is wrong.
    pub kind: SpecErrorKind,
    /// The byte range of the offending text in `input`.
    pub span: Range<usize>,
    /// The whole text that was being parsed.
    pub input: String,
}

impl SpecError {
    /// An error of `kind` at `span` of `input`.
    pub fn new(kind: SpecErrorKind, span: Range<usize>, input: &str) -> Self {
        Self {
            kind,
            span,
            input: input.to_owned(),
        }
    }

    /// The offending text.
    pub fn snippet(&self) -> &str {
        self.input.get(self.span.clone()).unwrap_or("")
    }

    /// The whole message: headline, the input, a caret line under the span and the hint.
    ///
    /// ```text
    /// error: unknown type tag in parameter 2 of filter 307
    ///   307,9,5x
    ///         ^^ expected a number, optionally followed by b, ub, s, us, u, f, d, l or ul
    /// ```
    pub fn render(&self) -> String {
        let shown: String = self
            .input
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let start = self.span.start.min(self.input.len());
        let end = self.span.end.clamp(start, self.input.len());
        let column = char_count(&self.input, 0..start);
        let width = char_count(&self.input, start..end).max(1);
        format!(
            "error: {}\n  {}\n  {}{} {}",
            self.kind,
            shown,
            " ".repeat(column),
            "^".repeat(width),
            self.kind.hint()
        )
    }
}

fn char_count(text: &str, range: Range<usize>) -> usize {
    // Spans always fall on char boundaries; `get` guards against a bad one anyway.
    text.get(range).map_or(0, |s| s.chars().count())
}
