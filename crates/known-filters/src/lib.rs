//! The facts about HDF5 filters that the `-F` grammar, messages and listings need and no
//! codec's code does: [`known`], the one table of filter ids, names, summaries and
//! parameters (DECISIONS D3), and [`suggest`], "did you mean" by edit distance. Pure
//! Rust with no dependency, at the bottom of the graph, so that the filter grammar
//! (`filterspec`) and CDL (`cdl`) compile no codec; `codecs` adds what its registry
//! knows of each filter (its numcodecs id).

pub mod known;
pub mod suggest;

pub use known::{KnownFilter, KNOWN_FILTERS};
