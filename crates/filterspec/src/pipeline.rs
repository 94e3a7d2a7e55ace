//! A variable's filter pipeline in HDF5's stored order (the spec's "Order of Invocation"):
//! fletcher32 first, shuffle next, all others in the order they were first defined;
//! defining an id again keeps its place and takes the new parameters.

use std::fmt;

use crate::known::{FLETCHER32, SHUFFLE};
use crate::spec::{format_spec_list, FilterSpec};

/// Filters in the order HDF5 stores and applies them when writing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Pipeline {
    filters: Vec<FilterSpec>,
}

impl Pipeline {
    /// An empty pipeline (unfiltered).
    pub fn new() -> Self {
        Self::default()
    }

    /// The pipeline that results from defining `specs` one after the other.
    pub fn from_definitions<I: IntoIterator<Item = FilterSpec>>(specs: I) -> Self {
        let mut pipeline = Self::new();
        for spec in specs {
            pipeline.define(spec);
        }
        pipeline
    }

    /// A pipeline read from a file, which is in stored order already; kept as it is.
    pub fn from_stored(filters: Vec<FilterSpec>) -> Self {
        Self { filters }
    }

    /// Defines a filter as `nc_def_var_filter` would: a new id takes its stored place,
    /// an id already present keeps its place and takes the new parameters.
    pub fn define(&mut self, spec: FilterSpec) {
        if let Some(existing) = self.filters.iter_mut().find(|f| f.id == spec.id) {
            existing.params = spec.params;
            return;
        }
        let position = match spec.id {
            FLETCHER32 => 0,
            SHUFFLE => usize::from(self.contains(FLETCHER32)),
            _ => self.filters.len(),
        };
        self.filters.insert(position, spec);
    }

    /// Removes the filter with this id, if present.
    pub fn remove(&mut self, id: u32) {
        self.filters.retain(|f| f.id != id);
    }

    /// Whether a filter with this id is in the pipeline.
    pub fn contains(&self, id: u32) -> bool {
        self.filters.iter().any(|f| f.id == id)
    }

    /// The filter with this id, if present.
    pub fn get(&self, id: u32) -> Option<&FilterSpec> {
        self.filters.iter().find(|f| f.id == id)
    }

    /// Whether the pipeline has no filter.
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty()
    }

    /// The filters in stored order.
    pub fn filters(&self) -> &[FilterSpec] {
        &self.filters
    }

    /// The ids in stored order.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.filters.iter().map(|f| f.id)
    }
}

impl fmt::Display for Pipeline {
    /// `_Filter` syntax with every filter (`3|2,4|307,9`), or `-` when unfiltered (the
    /// form of `nccopy --dry-run` plans).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.filters.is_empty() {
            f.write_str("-")
        } else {
            f.write_str(&format_spec_list(&self.filters))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse_spec_list;

    fn stored(definitions: &str) -> String {
        let specs = parse_spec_list(definitions).unwrap_or_default();
        Pipeline::from_definitions(specs).to_string()
    }

    #[test]
    fn fletcher32_first_shuffle_next_others_in_definition_order() {
        // Observed with the reference nccopy: `-F v,2|307,9|3` stores "3|2,4|307,9"
        // (HDF5 fills in shuffle's element size, 4 for float, which a plan adds later).
        assert_eq!(stored("2|307,9|3"), "3|2|307,9");
        assert_eq!(stored("307,9|4,32,32|2|1,5"), "2|307,9|4,32,32|1,5");
        assert_eq!(stored("3|2"), "3|2");
        assert_eq!(stored("1,5|3"), "3|1,5");
    }

    #[test]
    fn redefinition_keeps_place_and_takes_new_parameters() {
        assert_eq!(stored("307,9|1,5|307,1"), "307,1|1,5");
        assert_eq!(stored("2|3|2,4"), "3|2,4");
    }

    #[test]
    fn empty_pipeline_shows_a_dash() {
        assert_eq!(Pipeline::new().to_string(), "-");
        let mut p = Pipeline::from_definitions([FilterSpec::new(1, [5])]);
        p.remove(1);
        assert!(p.is_empty());
    }
}
