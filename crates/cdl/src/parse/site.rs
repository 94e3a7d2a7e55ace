//! Where the special attributes (names starting with `_`) are in the source, kept so that
//! errors found after parsing (ncgen's checks of `_ChunkSizes`, `_Storage`...) show the
//! line and a caret under the attribute like parse errors do.

use super::error::{ErrorKind, ParseError};

/// Where one attribute whose name starts with `_` is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeSite {
    /// The owner: a variable's full path (`/v`, `/g/v`), or a group's (`/`, `/g`) for a
    /// group attribute.
    pub owner: String,
    /// The attribute's name.
    pub name: String,
    /// An error located at the attribute, its message left empty.
    at: ParseError,
}

impl AttributeSite {
    /// The site of attribute `name` of `owner`, located by `at` (a decorated error).
    pub(crate) fn new(owner: String, name: String, at: ParseError) -> Self {
        Self { owner, name, at }
    }

    /// An error at this attribute with `message` and an optional `hint`, rendered like
    /// parse errors (file, line, column, the line with a caret).
    pub fn error(&self, message: &str, hint: Option<&str>) -> ParseError {
        let mut e = self.at.clone();
        e.kind = ErrorKind::BadValue;
        e.message = message.to_string();
        e.hint = hint.map(str::to_string);
        e
    }
}

/// Where attribute `name` of `owner` (a variable's full path such as `/g/v`, or a
/// group's, `/` for the root) is defined among `sites`; the last definition if there are
/// several (the one that counts).
pub fn find_site<'a>(
    sites: &'a [AttributeSite],
    owner: &str,
    name: &str,
) -> Option<&'a AttributeSite> {
    sites
        .iter()
        .rev()
        .find(|s| s.owner == owner && s.name == name)
}

/// The path of an owner as [`AttributeSite::owner`] spells it: `group_path` (names below
/// the root) and a variable name, or the group itself when `var` is `None`.
pub(crate) fn owner_path(group_path: &[String], var: Option<&str>) -> String {
    let mut path: String = group_path.iter().map(|g| format!("/{g}")).collect();
    match var {
        Some(v) => {
            path.push('/');
            path.push_str(v);
        }
        None if path.is_empty() => path.push('/'),
        None => {}
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_full_paths() {
        assert_eq!(owner_path(&[], Some("v")), "/v");
        assert_eq!(owner_path(&["g".into(), "h".into()], Some("v")), "/g/h/v");
        assert_eq!(owner_path(&[], None), "/");
        assert_eq!(owner_path(&["g".into()], None), "/g");
    }
}
