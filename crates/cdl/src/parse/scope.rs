//! The dataset under construction: the stack of open groups, ids, and name lookup
//! (current group first, then its ancestors; or absolute paths from the root).

use ncmodel::{Dim, Group, TypeId, UserType, Var};

/// First id given to user-defined types (netCDF's `NC_FIRSTUSERTYPEID`).
const FIRST_USER_TYPE_ID: i32 = 32;

/// Groups being defined (root first, innermost last) and every user type so far.
pub(crate) struct Scope {
    stack: Vec<Group>,
    pub(crate) types: Vec<UserType>,
    /// The size of one value of each compound type, worked out once at its declaration
    /// (fields without padding), so that a type nested in many others is not walked
    /// again for each.
    pub(crate) compound_sizes: std::collections::HashMap<TypeId, u128>,
    next_dim_id: i32,
}

impl Scope {
    /// A scope holding just an empty root group.
    pub(crate) fn new() -> Self {
        Self {
            stack: vec![Group {
                name: "/".into(),
                ..Group::default()
            }],
            types: Vec::new(),
            compound_sizes: std::collections::HashMap::new(),
            next_dim_id: 0,
        }
    }

    /// The innermost open group.
    pub(crate) fn current(&mut self) -> &mut Group {
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// The innermost open group, read-only.
    pub(crate) fn current_ref(&self) -> &Group {
        &self.stack[self.stack.len() - 1]
    }

    /// Names of the open groups below the root.
    pub(crate) fn path(&self) -> Vec<String> {
        self.stack[1..].iter().map(|g| g.name.clone()).collect()
    }

    /// Opens a child group of the current one.
    pub(crate) fn open_group(&mut self, name: String) {
        self.stack.push(Group {
            name,
            ..Group::default()
        });
    }

    /// Closes the current group (not the root), attaching it to its parent.
    pub(crate) fn close_group(&mut self) {
        if self.stack.len() > 1 {
            if let Some(g) = self.stack.pop() {
                self.current().groups.push(g);
            }
        }
    }

    /// Finishes: the root group (closing any groups left open).
    pub(crate) fn finish(mut self) -> (Group, Vec<UserType>) {
        while self.stack.len() > 1 {
            self.close_group();
        }
        let root = self.stack.pop().unwrap_or_default();
        (root, self.types)
    }

    /// Defines a dimension in the current group; its id is the next file-wide one.
    pub(crate) fn add_dim(&mut self, name: String, len: usize, unlimited: bool) {
        let id = self.next_dim_id;
        self.next_dim_id += 1;
        self.current().dims.push(Dim {
            id,
            name,
            len,
            unlimited,
        });
    }

    /// Defines a variable in the current group (its id is its position).
    pub(crate) fn add_var(&mut self, mut var: Var) {
        let g = self.current();
        var.id = i32::try_from(g.vars.len()).unwrap_or(i32::MAX);
        g.vars.push(var);
    }

    /// Defines a user type in the current group, giving it the next id.
    pub(crate) fn add_type(&mut self, mut t: UserType) -> TypeId {
        let id = TypeId(FIRST_USER_TYPE_ID + i32::try_from(self.types.len()).unwrap_or(0));
        t.id = id;
        t.group_path = self.path();
        self.types.push(t);
        self.current().type_ids.push(id);
        id
    }

    /// The user type `id`.
    pub(crate) fn user_type(&self, id: TypeId) -> Option<&UserType> {
        let index = usize::try_from(id.0.checked_sub(FIRST_USER_TYPE_ID)?).ok()?;
        self.types.get(index)
    }

    /// The group at `path` (names from the root), open or already closed.
    pub(crate) fn group_at(&self, path: &[String]) -> Option<&Group> {
        let mut g = &self.stack[0];
        let mut on_stack = true;
        for (i, name) in path.iter().enumerate() {
            match self.stack.get(i + 1) {
                Some(open) if on_stack && open.name == *name => g = open,
                _ => {
                    on_stack = false;
                    g = g.groups.iter().find(|c| c.name == *name)?;
                }
            }
        }
        Some(g)
    }

    /// The dimension `name` in the current group or the nearest ancestor defining it.
    pub(crate) fn find_dim(&self, name: &str) -> Option<&Dim> {
        self.stack
            .iter()
            .rev()
            .find_map(|g| g.dims.iter().find(|d| d.name == name))
    }

    /// The dimension at an absolute path (`["g", "d"]` for `/g/d`).
    pub(crate) fn find_dim_path(&self, path: &[String]) -> Option<&Dim> {
        let (name, groups) = path.split_last()?;
        self.group_at(groups)?.dims.iter().find(|d| d.name == *name)
    }

    /// The user type `name` in the current group or the nearest ancestor defining it;
    /// failing that (as ncgen does), the first type of that name defined anywhere.
    pub(crate) fn find_type(&self, name: &str) -> Option<&UserType> {
        let path = self.path();
        (0..=path.len())
            .rev()
            .find_map(|depth| {
                self.types
                    .iter()
                    .find(|t| t.name == name && t.group_path[..] == path[..depth])
            })
            .or_else(|| self.types.iter().find(|t| t.name == name))
    }

    /// The user type at an absolute path.
    pub(crate) fn find_type_path(&self, path: &[String]) -> Option<&UserType> {
        let (name, groups) = path.split_last()?;
        self.types
            .iter()
            .find(|t| t.name == *name && t.group_path[..] == groups[..])
    }

    /// Whether the current group already has a group, dimension... named `name`
    /// (checks the kind given by `kind`).
    pub(crate) fn has_type_here(&self, name: &str) -> bool {
        let path = self.path();
        self.types
            .iter()
            .any(|t| t.name == name && t.group_path == path)
    }

    /// Every name visible as a type from here (for suggestions).
    pub(crate) fn visible_type_names(&self) -> Vec<String> {
        let path = self.path();
        let mut names: Vec<String> = self
            .types
            .iter()
            .filter(|t| path.starts_with(&t.group_path))
            .map(|t| t.name.clone())
            .collect();
        names.extend(
            ncmodel::AtomicType::ALL
                .iter()
                .map(|t| t.cdl_name().to_string()),
        );
        names
    }

    /// Every dimension name visible from here (for suggestions).
    pub(crate) fn visible_dim_names(&self) -> Vec<String> {
        self.stack
            .iter()
            .flat_map(|g| g.dims.iter().map(|d| d.name.clone()))
            .collect()
    }
}

/// The candidate closest to `name` (edit distance at most a third of its length, at
/// least 2 for names of 4 characters or more).
pub(crate) fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let len = name.chars().count();
    let limit = if len >= 4 { (len / 3).max(2) } else { 1 };
    candidates
        .into_iter()
        .map(|c| (filterspec::edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}
