//! The filter specification text shared by nctools' `nccopy`, `ncgen` and `ncdump`.
//!
//! Everything here is pure Rust with no C dependency (no codec: the filter names come
//! from `known_filters`), so it can be tested and fuzzed on its own:
//!
//! - [`parse_spec_list`]: spec lists like `307,9|4,32,32` or `bzip2,9|szip,32,32`, with
//!   every parameter constant of the spec's table ([`constant`]) and the 8-byte fix
//!   ([`fix8`]);
//! - [`parse_filter_arg`] and [`FilterRequests`]: `nccopy -F` arguments;
//! - [`decide`]: the spec's `-F none` precedence table as a pure function;
//! - [`Pipeline`]: HDF5's stored filter order; [`DeflateOptions`]: nccopy's `-d`/`-s`;
//! - [`format_filter_attribute`] / [`FilterAttributes`]: `_Filter` values as ncdump shows them;
//! - [`known`]: the one known-filter table.
//!
//! Errors are [`SpecError`]s: a kind, the byte span of the offending text and the input,
//! which [`SpecError::render`] shows with a caret and a hint.

pub mod attribute;
pub mod compress;
pub mod constant;
pub mod error;
pub mod fix8;
pub use known_filters::known;
pub mod pipeline;
pub mod precedence;
pub mod requests;
pub mod selector;
pub mod spec;

pub use attribute::{
    format_filter_attribute, parse_filter_attribute, FilterAttributeStyle, FilterAttributes,
};
pub use compress::DeflateOptions;
pub use constant::{parse_constant, Constant, Number, TypeTag, Words};
pub use error::{ParamPosition, SpecError, SpecErrorKind};
pub use known::{KnownFilter, KNOWN_FILTERS};
pub use known_filters::suggest::{close_matches, edit_distance};
pub use pipeline::Pipeline;
pub use precedence::{decide, PrecedenceOutcome, PrecedenceRow, VarRequest};
pub use requests::{FilterRequests, UnmatchedName};
pub use selector::{
    escape_path, parse_filter_arg, parse_var_selection, FilterAction, FilterArg, NamedVar, VarPath,
    VarSelection,
};
pub use spec::{
    format_spec_list, parse_checked_spec_list, parse_spec, parse_spec_list, FilterSpec,
};
