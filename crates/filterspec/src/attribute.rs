//! The `_Filter` special attribute both ways, and the split of a pipeline into the special
//! attributes `ncdump -s` prints (`_Fletcher32`, `_Shuffle`, `_DeflateLevel`, `_Filter`).

use crate::error::SpecError;
use crate::known::{DEFLATE, FLETCHER32, SHUFFLE};
use crate::spec::{format_spec_list, parse_checked_spec_list, FilterSpec};

/// Which filters `_Filter` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterAttributeStyle {
    /// Plain `ncdump -s`: deflate (1), shuffle (2) and fletcher32 (3) have attributes of
    /// their own and are left out of `_Filter`.
    WithoutBuiltins,
    /// `ncdump -s -F`: every filter, in stored order.
    All,
}

/// The `_Filter` value for a pipeline in stored order, or `None` when nothing is left to
/// show (the attribute is then omitted).
pub fn format_filter_attribute(
    filters: &[FilterSpec],
    style: FilterAttributeStyle,
) -> Option<String> {
    let shown: Vec<FilterSpec> = filters
        .iter()
        .filter(|f| style == FilterAttributeStyle::All || !is_builtin(f.id))
        .cloned()
        .collect();
    (!shown.is_empty()).then(|| format_spec_list(&shown))
}

/// Parses a `_Filter` value (names accepted as ids).
pub fn parse_filter_attribute(value: &str) -> Result<Vec<FilterSpec>, SpecError> {
    parse_checked_spec_list(value)
}

fn is_builtin(id: u32) -> bool {
    matches!(id, DEFLATE | SHUFFLE | FLETCHER32)
}

/// The filter-related special attributes of one variable, as `ncdump -s` prints them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FilterAttributes {
    /// `_Fletcher32 = "true"`.
    pub fletcher32: bool,
    /// `_Shuffle = "true"`.
    pub shuffle: bool,
    /// `_DeflateLevel = N`.
    pub deflate_level: Option<u32>,
    /// `_Filter = "..."`.
    pub filter: Option<String>,
}

impl FilterAttributes {
    /// Splits a stored pipeline into the attributes shown in `style`. With
    /// [`FilterAttributeStyle::All`] only `_Filter` is set.
    pub fn of(filters: &[FilterSpec], style: FilterAttributeStyle) -> Self {
        let has = |id| filters.iter().any(|f| f.id == id);
        let builtins = style == FilterAttributeStyle::WithoutBuiltins;
        Self {
            fletcher32: builtins && has(FLETCHER32),
            shuffle: builtins && has(SHUFFLE),
            deflate_level: filters
                .iter()
                .find(|f| builtins && f.id == DEFLATE)
                .map(|f| f.params.first().copied().unwrap_or(0)),
            filter: format_filter_attribute(filters, style),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipeline() -> Vec<FilterSpec> {
        // As the reference shows it with `ncdump -hsF`: "3|2,4|1,3|307,9".
        vec![
            FilterSpec::new(3, []),
            FilterSpec::new(2, [4]),
            FilterSpec::new(1, [3]),
            FilterSpec::new(307, [9]),
        ]
    }

    #[test]
    fn plain_style_leaves_out_builtins() {
        let p = pipeline();
        let attrs = FilterAttributes::of(&p, FilterAttributeStyle::WithoutBuiltins);
        assert_eq!(
            attrs,
            FilterAttributes {
                fletcher32: true,
                shuffle: true,
                deflate_level: Some(3),
                filter: Some("307,9".into()),
            }
        );
        assert_eq!(
            format_filter_attribute(&p[..3], FilterAttributeStyle::WithoutBuiltins),
            None
        );
    }

    #[test]
    fn all_style_shows_everything_in_filter() {
        let attrs = FilterAttributes::of(&pipeline(), FilterAttributeStyle::All);
        assert_eq!(attrs.filter.as_deref(), Some("3|2,4|1,3|307,9"));
        assert!(!attrs.fletcher32 && !attrs.shuffle && attrs.deflate_level.is_none());
        assert_eq!(
            format_filter_attribute(&[], FilterAttributeStyle::All),
            None
        );
    }

    #[test]
    fn parse_accepts_names() {
        let parsed = parse_filter_attribute("bzip2,9|szip,32,32");
        assert_eq!(
            parsed.ok(),
            Some(vec![
                FilterSpec::new(307, [9]),
                FilterSpec::new(4, [32, 32])
            ])
        );
    }
}
