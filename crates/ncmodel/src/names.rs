//! netCDF's rules for names, as libnetcdf's `NC_check_name` applies them to every name it
//! defines (libdispatch/dstring.c), checked before an output is created so that a name
//! from an input (`../../EVIL`, `/etc/cron.d`, `..`, a control character, an empty name)
//! is refused before anything is written, whatever the output format.
//!
//! A name is not empty and holds no `/`; it starts with an ASCII letter, digit or `_`, or
//! any non-ASCII character; its other ASCII characters are printable (no control character
//! and no DEL); it does not end in ASCII white space; and it is at most
//! [`NC_MAX_NAME`] bytes long. So `.` and `..` are refused (they start with `.`).

use crate::schema::{Attribute, Dataset, Group};
use crate::types::UserTypeKind;

/// The longest name libnetcdf defines, in bytes (`NC_MAX_NAME`).
pub const NC_MAX_NAME: usize = 256;

/// Why a name is not a netCDF name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameProblem {
    /// libnetcdf's `NC_EBADNAME`.
    #[error("NetCDF: Name contains illegal characters")]
    Illegal,
    /// libnetcdf's `NC_EMAXNAME`.
    #[error("NetCDF: NC_MAX_NAME exceeded")]
    TooLong,
}

/// Checks `name` as `NC_check_name` does (same verdict, same order of checks).
pub fn check_name(name: &str) -> Result<(), NameProblem> {
    let mut chars = name.char_indices();
    let Some((_, first)) = chars.next() else {
        return Err(NameProblem::Illegal);
    };
    if name.contains('/') {
        return Err(NameProblem::Illegal);
    }
    if first.is_ascii() && !(first.is_ascii_alphanumeric() || first == '_') {
        return Err(NameProblem::Illegal);
    }
    let mut last = first;
    for (at, c) in chars {
        if c.is_ascii() && (c < ' ' || c == '\x7f') {
            return Err(NameProblem::Illegal);
        }
        // libnetcdf measures the length after each character past the first.
        if at + c.len_utf8() > NC_MAX_NAME {
            return Err(NameProblem::TooLong);
        }
        last = c;
    }
    // (A vertical tab is a control character, refused above.)
    if last.is_ascii_whitespace() {
        return Err(NameProblem::Illegal);
    }
    Ok(())
}

/// A name of a dataset that netCDF refuses: what it names, where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{kind} {}{place}: {problem} (netCDF names start with a letter, a digit, `_` or a \
     non-ASCII character, hold no `/` or control character, do not end in a space and \
     are at most 256 bytes long)",
    shown(.name)
)]
pub struct BadName {
    /// `variable`, `dimension`, `attribute`, `group`, `type`, `field` or `enum member`.
    pub kind: &'static str,
    /// The name, as the input has it.
    pub name: String,
    /// Where it is, for messages: empty in the root group, else ` in group /g`,
    /// ` of variable /g/v`, ` of type /g/t`; ` (global)` for a root group attribute.
    pub place: String,
    /// Why netCDF refuses it.
    pub problem: NameProblem,
}

/// The first name of `dataset` (types with their fields and members, then group by group
/// its attributes, dimensions, variables with their attributes, and groups) that netCDF
/// refuses for its characters or its length (more than [`NC_MAX_NAME`] bytes), whatever
/// the output.
pub fn check_dataset_names(dataset: &Dataset) -> Result<(), BadName> {
    for t in &dataset.types {
        let group = join(&t.group_path);
        check(&t.name, "type", || in_group(&group))?;
        let of_type = || format!(" of type {group}{}", t.name);
        match &t.kind {
            UserTypeKind::Compound { fields } => {
                for f in fields {
                    check(&f.name, "field", of_type)?;
                }
            }
            UserTypeKind::Enum { members, .. } => {
                for (m, _) in members {
                    check(m, "enum member", of_type)?;
                }
            }
            UserTypeKind::Opaque | UserTypeKind::Vlen { .. } => {}
        }
    }
    check_group(&dataset.root, "/")
}

/// A name as a message shows it: quoted, and a long one cut, with its length.
fn shown(name: &str) -> String {
    const SHOWN: usize = 40;
    if name.chars().count() <= 2 * SHOWN {
        return format!("{name:?}");
    }
    let head: String = name.chars().take(SHOWN).collect();
    format!("{head:?}... ({} bytes)", name.len())
}

/// `/a/b/` for the groups `["a", "b"]`, `/` for none.
fn join(groups: &[String]) -> String {
    let mut out = String::from("/");
    for g in groups {
        out.push_str(g);
        out.push('/');
    }
    out
}

/// ` in group /g` for the prefix `/g/`, nothing for the root's `/`.
fn in_group(prefix: &str) -> String {
    match prefix.strip_suffix('/').filter(|p| !p.is_empty()) {
        Some(group) => format!(" in group {group}"),
        None => String::new(),
    }
}

fn check(name: &str, kind: &'static str, place: impl FnOnce() -> String) -> Result<(), BadName> {
    match check_name(name) {
        // Every output refuses names past NC_MAX_NAME: netCDF files cannot hold them,
        // and netCDF-C overflows its buffers reading them from a Zarr store (a dimension
        // name of 1000 bytes in a store nccopy wrote killed the reference ncdump).
        Ok(()) => Ok(()),
        Err(problem) => Err(BadName {
            kind,
            name: name.to_string(),
            place: place(),
            problem,
        }),
    }
}

fn check_atts(atts: &[Attribute], place: &str) -> Result<(), BadName> {
    for a in atts {
        check(&a.name, "attribute", || place.to_string())?;
    }
    Ok(())
}

fn check_group(group: &Group, prefix: &str) -> Result<(), BadName> {
    let here = in_group(prefix);
    let global = if here.is_empty() {
        " (global)".to_string()
    } else {
        format!(" of group {}", &prefix[..prefix.len() - 1])
    };
    check_atts(&group.atts, &global)?;
    for d in &group.dims {
        check(&d.name, "dimension", || here.clone())?;
    }
    for v in &group.vars {
        check(&v.name, "variable", || here.clone())?;
        check_atts(&v.atts, &format!(" of variable {prefix}{}", v.name))?;
    }
    for g in &group.groups {
        check(&g.name, "group", || here.clone())?;
        check_group(g, &format!("{prefix}{}/", g.name))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_nc_check_name_judges_them() {
        for good in ["x", "_FillValue", "9lives", "a b", "a.b", "ü", "é", "a~"] {
            assert_eq!(check_name(good), Ok(()), "{good:?}");
        }
        for bad in [
            "",
            "..",
            ".",
            "../../EVIL",
            "/etc/cron.d",
            "a/b",
            "-x",
            " x",
            "x ",
            "a\u{1}b",
            "a\tb",
            "a\u{7f}",
            "\n",
        ] {
            assert_eq!(check_name(bad), Err(NameProblem::Illegal), "{bad:?}");
        }
        assert_eq!(check_name(&"x".repeat(NC_MAX_NAME)), Ok(()));
        assert_eq!(
            check_name(&"x".repeat(NC_MAX_NAME + 1)),
            Err(NameProblem::TooLong)
        );
    }
}
