//! `nccopy -F` arguments (DECISIONS D2): `none`, `*,none`, `VARS,none`, `VARS,SPECLIST`,
//! where `VARS` is `*` or full variable paths joined by `&`.

use std::ops::Range;

use crate::error::{SpecError, SpecErrorKind};
use crate::spec::{parse_checked_spec_list_in, trim_range, FilterSpec};
pub use ncmodel::VarPath;

/// A variable named in a `-F` argument, with where its name stands in the argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedVar {
    /// The variable's full path.
    pub path: VarPath,
    /// The byte range of the name as written.
    pub span: Range<usize>,
}

/// Which variables a `-F` argument concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarSelection {
    /// `*`: every variable.
    All,
    /// Names joined by `&`.
    Named(Vec<NamedVar>),
}

/// What a `-F` argument asks for its variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterAction {
    /// `none`: no output filters.
    None,
    /// A spec list: these output filters.
    Specs(Vec<FilterSpec>),
}

/// One parsed `-F` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterArg {
    /// `none` or `*,none`: the global `-F none` flag.
    GlobalNone,
    /// `VARS,none` or `VARS,SPECLIST`.
    Select {
        /// The variables.
        vars: VarSelection,
        /// What they get.
        action: FilterAction,
    },
}

/// Parses one `-F` argument.
pub fn parse_filter_arg(input: &str) -> Result<FilterArg, SpecError> {
    let all = 0..input.len();
    let Some(comma) = first_unescaped(input, ',')? else {
        let trimmed = trim_range(input, all.clone());
        if input[trimmed.clone()].eq_ignore_ascii_case("none") {
            return Ok(FilterArg::GlobalNone);
        }
        let kind = if trimmed.is_empty() {
            SpecErrorKind::EmptyInput
        } else {
            SpecErrorKind::MissingFilterSpec
        };
        return Err(SpecError::new(kind, trimmed, input));
    };
    let vars = parse_var_list(input, 0..comma)?;
    let rest = comma + 1..input.len();
    let action_range = trim_range(input, rest.clone());
    let action = if input[action_range].eq_ignore_ascii_case("none") {
        FilterAction::None
    } else {
        FilterAction::Specs(parse_checked_spec_list_in(input, rest)?)
    };
    Ok(match (vars, action) {
        (VarSelection::All, FilterAction::None) => FilterArg::GlobalNone,
        (vars, action) => FilterArg::Select { vars, action },
    })
}

/// Parses the `VARS` part of an argument shaped like `-F`'s, `VARS,REST`: `*` or names
/// joined by `&`, ending at the first unescaped `,`. Returns the selection and the byte
/// range of `REST` (nctools' `--quantize VARS,ALGORITHM,N` uses it).
pub fn parse_var_selection(input: &str) -> Result<(VarSelection, Range<usize>), SpecError> {
    let Some(comma) = first_unescaped(input, ',')? else {
        let trimmed = trim_range(input, 0..input.len());
        return Err(SpecError::new(
            SpecErrorKind::MissingFilterSpec,
            trimmed,
            input,
        ));
    };
    Ok((parse_var_list(input, 0..comma)?, comma + 1..input.len()))
}

/// The byte offset of the first `target` not escaped by a backslash.
fn first_unescaped(input: &str, target: char) -> Result<Option<usize>, SpecError> {
    let mut chars = input.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            if chars.next().is_none() {
                return Err(SpecError::new(
                    SpecErrorKind::TrailingBackslash,
                    i..i + 1,
                    input,
                ));
            }
        } else if c == target {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Splits `input[range]` at unescaped `sep` characters.
fn split_unescaped(input: &str, range: Range<usize>, sep: char) -> Vec<Range<usize>> {
    let mut pieces = Vec::new();
    let mut start = range.start;
    let mut escaped = false;
    for (offset, c) in input[range.clone()].char_indices() {
        let at = range.start + offset;
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == sep {
            pieces.push(start..at);
            start = at + 1;
        }
    }
    pieces.push(start..range.end);
    pieces
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' {
            chars.next().unwrap_or(c)
        } else {
            c
        });
    }
    out
}

fn parse_var_list(input: &str, range: Range<usize>) -> Result<VarSelection, SpecError> {
    let pieces = split_unescaped(input, range.clone(), '&');
    let single = pieces.len() == 1;
    let mut named: Vec<NamedVar> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let span = trim_range(input, piece.clone());
        let text = &input[span.clone()];
        if text.is_empty() {
            let at = piece.start.min(input.len().saturating_sub(1));
            let caret = if range.is_empty() { at..at } else { at..at + 1 };
            return Err(SpecError::new(
                SpecErrorKind::EmptyVariableName,
                caret,
                input,
            ));
        }
        if text == "*" {
            if single {
                return Ok(VarSelection::All);
            }
            return Err(SpecError::new(SpecErrorKind::StarNotAlone, span, input));
        }
        let path = parse_path(input, span.clone())?;
        if named.iter().any(|n| n.path == path) {
            return Err(SpecError::new(
                SpecErrorKind::DuplicateInArgument {
                    path: path.to_string(),
                },
                span,
                input,
            ));
        }
        named.push(NamedVar { path, span });
    }
    Ok(VarSelection::Named(named))
}

fn parse_path(input: &str, span: Range<usize>) -> Result<VarPath, SpecError> {
    let text = &input[span.clone()];
    let absolute = text.starts_with('/');
    let body = if absolute {
        span.start + 1..span.end
    } else {
        span.clone()
    };
    let mut components: Vec<String> = split_unescaped(input, body, '/')
        .into_iter()
        .map(|r| unescape(&input[r]))
        .collect();
    if components.iter().any(String::is_empty) {
        return Err(SpecError::new(
            SpecErrorKind::EmptyPathComponent { path: text.into() },
            span,
            input,
        ));
    }
    let name = components.pop().unwrap_or_default();
    Ok(VarPath::new(components, name))
}

/// Whether a character would need a backslash in a `-F` variable name.
fn needs_escape(c: char) -> bool {
    matches!(c, ',' | '&' | '|' | '\\' | '/' | '*')
}

/// Writes a path so that [`parse_filter_arg`] reads it back (backslash before `,`, `&`,
/// `|`, `\`, and `/` or `*` inside a name).
pub fn escape_path(path: &VarPath) -> String {
    let mut out = String::new();
    for part in path.groups.iter().chain(std::iter::once(&path.name)) {
        out.push('/');
        for c in part.chars() {
            if needs_escape(c) {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::split_range;

    #[test]
    fn splitting_respects_escapes() {
        let s = r"a\&b&c";
        assert_eq!(split_unescaped(s, 0..s.len(), '&'), vec![0..4, 5..6]);
        assert_eq!(unescape(r"a\&b\\"), r"a&b\");
        assert_eq!(split_range("a,b", 0..3, ','), vec![0..1, 2..3]);
    }

    #[test]
    fn plain_paths() {
        assert_eq!(
            VarPath::from_plain("v"),
            Some(VarPath::new(Vec::<String>::new(), "v"))
        );
        assert_eq!(
            VarPath::from_plain("/g/h/v").map(|p| p.to_string()),
            Some("/g/h/v".into())
        );
        assert_eq!(VarPath::from_plain("g//v"), None);
        assert_eq!(VarPath::from_plain(""), None);
    }
}
