//! Names as ncdump prints them: escaped, and qualified with a group path where the plain
//! name would be ambiguous (dimensions) or out of scope (user types).

use std::collections::HashMap;

use ncmodel::{Dataset, Dim, Group, TypeRef};

use crate::escape::escape_name;

/// The group being written and its ancestors, root first, with indexes of their
/// dimensions: a name written for each axis of each variable is found in constant time,
/// not by a search of every dimension (which made a store of 80,000 arrays, each with its
/// own dimension, take minutes).
pub(crate) struct Scope<'a> {
    chain: Vec<&'a Group>,
    /// The dimensions of each group of `chain` by name (the first of a name).
    dims_by_name: Vec<HashMap<&'a str, &'a Dim>>,
    /// Every dimension of the dataset by id (the first of an id).
    dims_by_id: HashMap<i32, &'a Dim>,
}

/// The dimensions of `group` by name; the first of a name wins, as a search would find.
fn dims_by_name(group: &Group) -> HashMap<&str, &Dim> {
    let mut by_name = HashMap::with_capacity(group.dims.len());
    for dim in &group.dims {
        by_name.entry(dim.name.as_str()).or_insert(dim);
    }
    by_name
}

/// Adds the dimensions of `group` and its descendants to `by_id`, in the order
/// `Group::find_dim` searches them (a group's own first, then its children's).
fn index_dims<'a>(group: &'a Group, by_id: &mut HashMap<i32, &'a Dim>) {
    for dim in &group.dims {
        by_id.entry(dim.id).or_insert(dim);
    }
    for child in &group.groups {
        index_dims(child, by_id);
    }
}

impl<'a> Scope<'a> {
    /// The scope of the root group.
    pub(crate) fn root(root: &'a Group) -> Self {
        let mut dims_by_id = HashMap::new();
        index_dims(root, &mut dims_by_id);
        Self {
            chain: vec![root],
            dims_by_name: vec![dims_by_name(root)],
            dims_by_id,
        }
    }

    /// The dimension `id`, wherever it is defined.
    pub(crate) fn dim(&self, id: i32) -> Option<&'a Dim> {
        self.dims_by_id.get(&id).copied()
    }

    /// Whether a dimension named `name` is visible here (here or in an ancestor).
    pub(crate) fn has_dim_named(&self, name: &str) -> bool {
        self.dims_by_name.iter().any(|dims| dims.contains_key(name))
    }

    /// The current group.
    pub(crate) fn group(&self) -> &'a Group {
        self.chain[self.chain.len() - 1]
    }

    /// Whether the current group is the root group.
    pub(crate) fn is_root(&self) -> bool {
        self.chain.len() == 1
    }

    /// Enters a child group.
    pub(crate) fn push(&mut self, child: &'a Group) {
        self.chain.push(child);
        self.dims_by_name.push(dims_by_name(child));
    }

    /// Leaves the current group.
    pub(crate) fn pop(&mut self) {
        self.chain.pop();
        self.dims_by_name.pop();
    }

    /// The full path of the current group: `/` or `/g1/g2`.
    pub(crate) fn path(&self) -> String {
        group_path(self.chain.iter().skip(1).map(|g| g.name.as_str()))
    }

    /// The full path of a variable of the current group.
    pub(crate) fn var_path(&self, name: &str) -> String {
        let base = self.path();
        if base == "/" {
            format!("/{name}")
        } else {
            format!("{base}/{name}")
        }
    }

    /// A type's name as written here: the plain (escaped) name when a type of that name
    /// is defined here or in an ancestor, else prefixed with its group's path.
    pub(crate) fn type_name(&self, dataset: &Dataset, type_ref: TypeRef) -> String {
        let id = match type_ref {
            TypeRef::Atomic(t) => return t.cdl_name().to_string(),
            TypeRef::User(id) => id,
        };
        let Some(user) = dataset.user_type(id) else {
            return format!("type{}", id.0);
        };
        let inherited = self.chain.iter().any(|g| {
            g.type_ids
                .iter()
                .filter_map(|t| dataset.user_type(*t))
                .any(|t| t.name == user.name)
        });
        let name = escape_name(&user.name);
        if inherited {
            name
        } else {
            let path = group_path(user.group_path.iter().map(String::as_str));
            format!("{}/{name}", escape_name(&path))
        }
    }

    /// A dimension's name as written in a variable's shape here: the plain name, unless an
    /// ancestor's dimension of the same name hides it or it is not in scope at all; then
    /// its group's full path is prefixed.
    pub(crate) fn dim_name(&self, dataset: &Dataset, dim_id: i32) -> String {
        let Some(dim) = self.dim(dim_id) else {
            return format!("dim{dim_id}");
        };
        let mut duplicate = false;
        let mut found = false;
        for dims in self.dims_by_name.iter().rev() {
            if let Some(same_name) = dims.get(dim.name.as_str()) {
                if same_name.id == dim_id {
                    found = true;
                    break;
                }
                duplicate = true;
            }
        }
        let name = escape_name(&dim.name);
        if found && !duplicate {
            return name;
        }
        let owner = find_dim_group(&dataset.root, dim_id, &mut Vec::new()).unwrap_or_default();
        let path = group_path(owner.iter().map(String::as_str));
        let prefix = escape_name(&path);
        if path == "/" {
            format!("{prefix}{name}")
        } else {
            format!("{prefix}/{name}")
        }
    }
}

/// `/` for no names, else `/a/b`.
fn group_path<'s>(names: impl Iterator<Item = &'s str>) -> String {
    let mut path = String::new();
    for name in names {
        path.push('/');
        path.push_str(name);
    }
    if path.is_empty() {
        path.push('/');
    }
    path
}

/// The names of the groups from the root down to the one defining `dim_id`.
fn find_dim_group(group: &Group, dim_id: i32, trail: &mut Vec<String>) -> Option<Vec<String>> {
    if group.dims.iter().any(|d| d.id == dim_id) {
        return Some(trail.clone());
    }
    for child in &group.groups {
        trail.push(child.name.clone());
        let found = find_dim_group(child, dim_id, trail);
        trail.pop();
        if found.is_some() {
            return found;
        }
    }
    None
}
