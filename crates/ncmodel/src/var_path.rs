//! [`VarPath`]: how a variable is named across the storage boundary and in `-F`
//! arguments, by its groups from the root and its name.

use std::fmt;

/// The full path of a variable: its groups from the root, then its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarPath {
    /// Group names from the root group down (empty for a root variable).
    pub groups: Vec<String>,
    /// The variable's name.
    pub name: String,
}

impl VarPath {
    /// A path from its groups and name.
    pub fn new<G: Into<String>>(
        groups: impl IntoIterator<Item = G>,
        name: impl Into<String>,
    ) -> Self {
        Self {
            groups: groups.into_iter().map(Into::into).collect(),
            name: name.into(),
        }
    }

    /// The path of the variable `name` of the root group.
    pub fn in_root(name: impl Into<String>) -> Self {
        Self {
            groups: Vec::new(),
            name: name.into(),
        }
    }

    /// A path from unescaped text like `/g/v` or `v` (a missing leading `/` means the root
    /// group); `None` if a component is empty.
    pub fn from_plain(path: &str) -> Option<Self> {
        let mut parts: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return None;
        }
        let name = parts.pop()?;
        Some(Self::new(parts, name))
    }
}

impl fmt::Display for VarPath {
    /// The full path, `/g/v`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for g in &self.groups {
            write!(f, "/{g}")?;
        }
        write!(f, "/{}", self.name)
    }
}
