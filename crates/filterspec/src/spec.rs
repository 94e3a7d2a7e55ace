//! Filter specs and spec lists: `ID[,P1,P2,...]` joined by `|` (DECISIONS D1).

use std::ops::Range;

use crate::constant::{parse_constant, ConstantError};
use crate::error::{ParamPosition, SpecError, SpecErrorKind};
use crate::known::{self, MAX_FILTER_ID};
pub use ncmodel::FilterSpec;

/// Writes specs in `_Filter` syntax, joined by `|` (e.g. `307,9|4,32,32`).
pub fn format_spec_list(specs: &[FilterSpec]) -> String {
    let parts: Vec<String> = specs.iter().map(FilterSpec::to_string).collect();
    parts.join("|")
}

/// Parses a spec list such as `307,9|4,32,32` or `bzip2,9 | szip,32,32`.
pub fn parse_spec_list(input: &str) -> Result<Vec<FilterSpec>, SpecError> {
    parse_spec_list_in(input, 0..input.len())
}

/// Parses one spec such as `307,9` (no `|`).
pub fn parse_spec(input: &str) -> Result<FilterSpec, SpecError> {
    parse_one_spec(input, 0..input.len()).map(|(spec, _)| spec)
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The sub-range of `range` in `input` without leading and trailing blanks.
pub(crate) fn trim_range(input: &str, range: Range<usize>) -> Range<usize> {
    let text = &input[range.clone()];
    let start = range.start + (text.len() - text.trim_start_matches(is_blank).len());
    let end = range.end - (text.len() - text.trim_end_matches(is_blank).len());
    start..end.max(start)
}

/// Byte ranges of the pieces of `input[range]` between separators `sep`.
pub(crate) fn split_range(input: &str, range: Range<usize>, sep: char) -> Vec<Range<usize>> {
    let mut pieces = Vec::new();
    let mut start = range.start;
    for (offset, c) in input[range.clone()].char_indices() {
        if c == sep {
            pieces.push(start..range.start + offset);
            start = range.start + offset + c.len_utf8();
        }
    }
    pieces.push(start..range.end);
    pieces
}

/// Parses the spec list in `input[range]`; errors point into the whole `input`.
pub(crate) fn parse_spec_list_in(
    input: &str,
    range: Range<usize>,
) -> Result<Vec<FilterSpec>, SpecError> {
    let parsed = parse_specs_with_spans(input, range)?;
    Ok(parsed.into_iter().map(|(spec, _)| spec).collect())
}

/// The specs of `input[range]`, each with the spans of its parameter words.
fn parse_specs_with_spans(
    input: &str,
    range: Range<usize>,
) -> Result<Vec<SpecWithSpans>, SpecError> {
    let whole = trim_range(input, range.clone());
    if whole.is_empty() {
        return Err(SpecError::new(SpecErrorKind::EmptyInput, whole, input));
    }
    if input[whole.clone()].starts_with('[') {
        let end = input[whole.clone()]
            .find(']')
            .map_or(whole.end, |i| whole.start + i + 1);
        return Err(SpecError::new(
            SpecErrorKind::FormatPrefix,
            whole.start..end,
            input,
        ));
    }
    let pieces = split_range(input, range, '|');
    let last = pieces.len() - 1;
    let mut specs = Vec::with_capacity(pieces.len());
    for (i, piece) in pieces.into_iter().enumerate() {
        let trimmed = trim_range(input, piece.clone());
        if trimmed.is_empty() {
            if i == last {
                // A trailing `|` is accepted, as the reference does.
                break;
            }
            // Point at the `|` that ends the empty spec.
            return Err(SpecError::new(
                SpecErrorKind::EmptySpec,
                piece.end..piece.end + 1,
                input,
            ));
        }
        specs.push(parse_one_spec(input, piece)?);
    }
    Ok(specs)
}

/// A parsed spec, with the parameter's index and span in the input of each word.
type SpecWithSpans = (FilterSpec, Vec<(usize, Range<usize>)>);

fn parse_one_spec(input: &str, range: Range<usize>) -> Result<SpecWithSpans, SpecError> {
    let range_end = range.end;
    let items = split_range(input, range, ',');
    let id_range = trim_range(input, items[0].clone());
    let id = parse_id(input, id_range)?;
    let mut params = Vec::new();
    // The span of the constant each parameter word came from.
    let mut spans = Vec::new();
    for (index, item) in items.iter().enumerate().skip(1) {
        let at = ParamPosition { filter: id, index };
        let span = trim_range(input, item.clone());
        if span.is_empty() {
            // Point at the extra comma: the one after the gap, or the trailing one.
            let comma = if item.end < range_end {
                item.end
            } else {
                item.start.saturating_sub(1)
            };
            return Err(SpecError::new(
                SpecErrorKind::EmptyParameter { at },
                comma..comma + 1,
                input,
            ));
        }
        let text = &input[span.clone()];
        if text.contains(is_blank) {
            let kind = SpecErrorKind::UnexpectedBlank { at };
            return Err(SpecError::new(kind, span, input));
        }
        let constant = parse_constant(text)
            .map_err(|e| SpecError::new(constant_error_kind(e, at), span.clone(), input))?;
        if let Some(words) = constant.words() {
            params.extend_from_slice(words.as_slice());
            spans.extend(words.as_slice().iter().map(|_| (index, span.clone())));
        }
    }
    Ok((FilterSpec { id, params }, spans))
}

/// Parses like [`parse_spec_list`], then checks the parameters of the built-in filters
/// nctools applies itself (deflate, bzip2, zstd) against what they take, pointing at the
/// first that is out of range. The tools' `-F` and `_Filter` parse this way; the syntax
/// alone (the spec's constants, on any filter id) is [`parse_spec_list`]'s.
pub fn parse_checked_spec_list(input: &str) -> Result<Vec<FilterSpec>, SpecError> {
    parse_checked_spec_list_in(input, 0..input.len())
}

/// [`parse_checked_spec_list`] of `input[range]`; errors point into the whole `input`.
pub(crate) fn parse_checked_spec_list_in(
    input: &str,
    range: Range<usize>,
) -> Result<Vec<FilterSpec>, SpecError> {
    let parsed = parse_specs_with_spans(input, range)?;
    for (spec, spans) in &parsed {
        if let Some((word, filter, valid)) = out_of_range_parameter(spec.id, &spec.params) {
            if let Some((index, span)) = spans.get(word).cloned() {
                let at = ParamPosition {
                    filter: spec.id,
                    index,
                };
                let kind = SpecErrorKind::FilterParameter { at, filter, valid };
                return Err(SpecError::new(kind, span, input));
            }
        }
    }
    Ok(parsed.into_iter().map(|(spec, _)| spec).collect())
}

/// One checked parameter word of a filter: its position, what it takes, and the check.
type WordCheck = (usize, &'static str, fn(u32) -> bool);

/// The first parameter word of a built-in filter that the filter cannot take, with the
/// filter's name and what it takes; `None` when all are fine (or the filter is not one
/// whose parameters are checked here). The ranges are the libraries' own: deflate's
/// levels 0 to 9 (zlib), bzip2's block sizes 1 to 9 (libbz2), zstd's levels -131072
/// (`ZSTD_minCLevel`) to 22 (`ZSTD_maxCLevel`), stored as a 32-bit word; szip's pixels
/// per block, even and from 2 to 32 (libaec, HDF5); blosc's level 0 to 9, shuffle 0 to
/// 2 (none, byte, bit) and compressor 0 to 5 (blosclz, lz4, lz4hc, snappy, zlib, zstd),
/// its fifth to seventh words. lz4's block size is any number (the filter bounds it).
fn out_of_range_parameter(id: u32, params: &[u32]) -> Option<(usize, &'static str, &'static str)> {
    let word = |i: usize| params.get(i).copied();
    let checks: &[WordCheck] = match id {
        known::DEFLATE => &[(0, "a level from 0 to 9", |w| w <= 9)],
        known::BZIP2 => &[(0, "a block size from 1 to 9", |w| (1..=9).contains(&w))],
        known::ZSTD => &[(0, "a level from -131072 to 22", |w| {
            (-131_072..=22).contains(&i32::from_ne_bytes(w.to_ne_bytes()))
        })],
        known::SZIP => &[(1, "an even number of pixels per block from 2 to 32", |w| {
            (2..=32).contains(&w) && w % 2 == 0
        })],
        known::BLOSC => &[
            (4, "a level from 0 to 9", |w| w <= 9),
            (5, "a shuffle of 0 (none), 1 (byte) or 2 (bit)", |w| w <= 2),
            (
                6,
                "a compressor from 0 to 5 (blosclz, lz4, lz4hc, snappy, zlib, zstd)",
                |w| w <= 5,
            ),
        ],
        _ => return None,
    };
    let name = known::by_id(id)
        .and_then(|f| f.names.first().copied())
        .unwrap_or("filter");
    checks
        .iter()
        .find(|(at, _, fits)| word(*at).is_some_and(|w| !fits(w)))
        .map(|(at, valid, _)| (*at, name, *valid))
}

fn constant_error_kind(error: ConstantError, at: ParamPosition) -> SpecErrorKind {
    match error {
        ConstantError::NotANumber => SpecErrorKind::NotANumber { at },
        ConstantError::UnknownTag => SpecErrorKind::UnknownTypeTag { at },
        ConstantError::FractionWithoutFloatTag => SpecErrorKind::FractionWithoutFloatTag { at },
        ConstantError::NotAnInteger(tag) => SpecErrorKind::NotAnInteger { at, tag },
        ConstantError::OutOfRange(tag) => SpecErrorKind::OutOfRange { at, tag },
    }
}

fn parse_id(input: &str, span: Range<usize>) -> Result<u32, SpecError> {
    let text = &input[span.clone()];
    let error = |kind| Err(SpecError::new(kind, span.clone(), input));
    if text.is_empty() {
        return error(SpecErrorKind::MissingId);
    }
    if text.starts_with(|c: char| c.is_ascii_alphabetic()) {
        if !text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return error(SpecErrorKind::InvalidId { text: text.into() });
        }
        return match known::by_name(text) {
            Some(filter) => Ok(filter.id),
            None => error(SpecErrorKind::UnknownName {
                name: text.into(),
                suggestion: known::closest_name(text),
            }),
        };
    }
    if !text.chars().all(|c| c.is_ascii_digit()) {
        return error(SpecErrorKind::InvalidId { text: text.into() });
    }
    match text.parse::<u32>() {
        Ok(id) if (1..=MAX_FILTER_ID).contains(&id) => Ok(id),
        _ => error(SpecErrorKind::IdOutOfRange { text: text.into() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_trimmed_and_split() {
        let s = " a |b| ";
        assert_eq!(trim_range(s, 0..s.len()), 1..6);
        assert_eq!(split_range(s, 0..s.len(), '|'), vec![0..3, 4..5, 6..7]);
        assert_eq!(trim_range("   ", 0..3), 3..3);
    }

    #[test]
    fn display_is_filter_syntax() {
        assert_eq!(FilterSpec::new(3, []).to_string(), "3");
        let list = [FilterSpec::new(307, [9]), FilterSpec::new(4, [32, 32])];
        assert_eq!(format_spec_list(&list), "307,9|4,32,32");
    }
}
