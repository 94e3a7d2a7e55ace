//! nccopy's `-d N` and `-s`, applied after the precedence table (DECISIONS D2): `-d 1`
//! to `-d 9` put deflate at that level into the pipeline (replacing any deflate), `-d 0`
//! removes deflate only, `-s` adds shuffle. They never drop other filters.

use crate::known::{DEFLATE, SHUFFLE};
use crate::pipeline::Pipeline;
use crate::spec::FilterSpec;

/// What `-d` and `-s` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeflateOptions {
    /// `-d N`: `Some(0)` removes deflate, `Some(1..=9)` sets its level.
    pub level: Option<u32>,
    /// `-s`: add shuffle.
    pub shuffle: bool,
}

impl DeflateOptions {
    /// Whether the options change anything at all.
    pub fn is_set(&self) -> bool {
        self.level.is_some() || self.shuffle
    }

    /// The pipeline after `-d` and `-s`, in stored order.
    pub fn apply(&self, pipeline: &Pipeline) -> Pipeline {
        let mut out = pipeline.clone();
        match self.level {
            Some(0) => out.remove(DEFLATE),
            Some(level) => out.define(FilterSpec::new(DEFLATE, [level])),
            None => {}
        }
        if self.shuffle && !out.contains(SHUFFLE) {
            out.define(FilterSpec::new(SHUFFLE, []));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse_spec_list;

    fn after(pipeline: &str, level: Option<u32>, shuffle: bool) -> String {
        let specs = parse_spec_list(pipeline).unwrap_or_default();
        let input = Pipeline::from_definitions(specs);
        DeflateOptions { level, shuffle }.apply(&input).to_string()
    }

    #[test]
    fn deflate_level_is_set_or_replaced_in_place() {
        assert_eq!(after("307,9", Some(1), false), "307,9|1,1");
        assert_eq!(after("1,5|307,9", Some(2), false), "1,2|307,9");
    }

    #[test]
    fn deflate_zero_removes_deflate_only() {
        assert_eq!(after("3|1,5|307,9", Some(0), false), "3|307,9");
        assert_eq!(after("307,9", Some(0), false), "307,9");
    }

    #[test]
    fn shuffle_goes_after_fletcher32_and_is_not_doubled() {
        assert_eq!(after("3|307,9", None, true), "3|2|307,9");
        assert_eq!(after("2,4|1,1", Some(1), true), "2,4|1,1");
        assert_eq!(after("", Some(1), true), "2|1,1");
        assert!(!DeflateOptions::default().is_set());
    }
}
