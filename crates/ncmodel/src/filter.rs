//! [`FilterSpec`]: one filter of a pipeline, as HDF5 stores it. Data only: the codecs
//! that run a filter, and the table of known filters' names, sit in the `codecs` crate.

use std::fmt;

/// One filter: its HDF5 id and its parameter words.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FilterSpec {
    /// The HDF5 filter id.
    pub id: u32,
    /// The parameters as HDF5 stores them (32-bit words).
    pub params: Vec<u32>,
}

impl FilterSpec {
    /// A filter with the given id and parameters.
    pub fn new(id: u32, params: impl Into<Vec<u32>>) -> Self {
        Self {
            id,
            params: params.into(),
        }
    }
}

impl fmt::Display for FilterSpec {
    /// `_Filter` syntax: the numeric id and plain unsigned decimal parameters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.id)?;
        for p in &self.params {
            write!(f, ",{p}")?;
        }
        Ok(())
    }
}
