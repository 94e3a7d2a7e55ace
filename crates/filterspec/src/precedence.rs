//! The spec's table "The rules for all possible cases of the -F none flag", as a pure
//! function (DECISIONS D2). Output filters replace input filters; they are never merged.

use std::fmt;

use crate::pipeline::Pipeline;
use crate::spec::FilterSpec;

/// What the `-F` options say for one variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarRequest<'a> {
    /// No `-F VARS,...` names the variable (the table's "undefined").
    Undefined,
    /// `-F VARS,none` names it (the table's "none").
    None,
    /// `-F VARS,SPECLIST` names it, by name or by `*` (the table's "defined").
    Specs(&'a [FilterSpec]),
}

/// One row of the precedence table, numbered as in the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrecedenceRow(u8);

impl PrecedenceRow {
    /// All eight rows, in the spec's order.
    pub const ALL: [PrecedenceRow; 8] = [
        Self(1),
        Self(2),
        Self(3),
        Self(4),
        Self(5),
        Self(6),
        Self(7),
        Self(8),
    ];

    /// The row's number, 1 to 8.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The row's four cells as the spec writes them: `-F none`, `-Fvar,...`,
    /// input filter, applied output filter.
    pub const fn cells(self) -> [&'static str; 4] {
        match self.0 {
            1 => ["true", "undefined", "NA", "unfiltered"],
            2 => ["true", "none", "NA", "unfiltered"],
            3 => ["true", "defined", "NA", "use output filter(s)"],
            4 => ["false", "undefined", "defined", "use input filter(s)"],
            5 => ["false", "none", "NA", "unfiltered"],
            6 => ["false", "defined", "undefined", "use output filter(s)"],
            7 => ["false", "undefined", "undefined", "unfiltered"],
            _ => ["false", "defined", "defined", "use output filter(s)"],
        }
    }
}

impl fmt::Display for PrecedenceRow {
    /// `table row N`, the form used in `nccopy --dry-run` plans.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "table row {}", self.0)
    }
}

/// The pipeline the table gives a variable, and the row that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrecedenceOutcome {
    /// The output pipeline, in stored order.
    pub pipeline: Pipeline,
    /// The deciding row.
    pub row: PrecedenceRow,
}

/// Applies the table. `global_none` is whether `-F none` (or `*,none`) was given;
/// `request` is what `-F` says for this variable; `input` is the variable's filters in the
/// input file (deflate, shuffle and fletcher32 included), in stored order.
pub fn decide(global_none: bool, request: VarRequest<'_>, input: &Pipeline) -> PrecedenceOutcome {
    let output = |specs: &[FilterSpec]| Pipeline::from_definitions(specs.iter().cloned());
    let (row, pipeline) = match (global_none, request, input.is_empty()) {
        (true, VarRequest::Undefined, _) => (1, Pipeline::new()),
        (true, VarRequest::None, _) => (2, Pipeline::new()),
        (true, VarRequest::Specs(specs), _) => (3, output(specs)),
        (false, VarRequest::Undefined, false) => (4, input.clone()),
        (false, VarRequest::None, _) => (5, Pipeline::new()),
        (false, VarRequest::Specs(specs), true) => (6, output(specs)),
        (false, VarRequest::Undefined, true) => (7, Pipeline::new()),
        (false, VarRequest::Specs(specs), false) => (8, output(specs)),
    };
    PrecedenceOutcome {
        pipeline,
        row: PrecedenceRow(row),
    }
}
