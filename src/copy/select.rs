//! nccopy's `-v`/`-V` variable lists and `-g`/`-G` group lists. A name with a leading `/`
//! is a full path; a relative name (`v`, `grp/v`) matches every variable (or group) whose
//! full path ends with it. A name that matches nothing is an error.

use anyhow::bail;
use filterspec::VarPath;
use ncmodel::Group;

/// A comma-separated list of names given to `-v`, `-V`, `-g` or `-G`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameList {
    option: &'static str,
    names: Vec<String>,
}

impl NameList {
    /// Parses the list given to `option` (e.g. `-v`).
    pub fn parse(option: &'static str, text: &str) -> anyhow::Result<Self> {
        let names: Vec<String> = text
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            bail!("{option} needs one or more names separated by commas");
        }
        Ok(Self { option, names })
    }

    /// Whether `full` (a full path, `/g/v`) is named by the list.
    pub fn matches(&self, full: &str) -> bool {
        self.names.iter().any(|name| names_path(name, full))
    }

    /// Fails when a name matches none of `paths`, suggesting close matches.
    pub fn check_against(&self, what: &str, paths: &[String]) -> anyhow::Result<()> {
        for name in &self.names {
            if paths.iter().any(|p| names_path(name, p)) {
                continue;
            }
            // A relative name is compared with the paths without their leading `/`.
            let strip = |p: &str| {
                if name.starts_with('/') {
                    p.to_string()
                } else {
                    p.trim_start_matches('/').to_string()
                }
            };
            let candidates: Vec<String> = paths.iter().map(|p| strip(p)).collect();
            let close = filterspec::close_matches(name, candidates.iter().map(String::as_str));
            let hint = match close.first() {
                Some(c) => format!("; did you mean {c}?"),
                None => String::new(),
            };
            bail!(
                "{} {name}: the input has no {what} {name}{hint}",
                self.option
            );
        }
        Ok(())
    }
}

fn names_path(name: &str, full: &str) -> bool {
    if name == "/" {
        return full == "/";
    }
    if name.starts_with('/') {
        return full == name;
    }
    full.strip_suffix(name)
        .is_some_and(|head| head.ends_with('/'))
}

/// The full path of the group at `groups` (`/` for the root).
pub fn group_text(groups: &[String]) -> String {
    if groups.is_empty() {
        "/".to_string()
    } else {
        groups.iter().map(|g| format!("/{g}")).collect()
    }
}

/// Whether a dimension called `name` is defined anywhere in the tree.
pub fn has_dim_named(group: &Group, name: &str) -> bool {
    group.dims.iter().any(|d| d.name == name) || group.groups.iter().any(|g| has_dim_named(g, name))
}

/// Every variable of the tree, as full paths, in schema order.
pub fn all_var_paths(root: &Group) -> Vec<VarPath> {
    fn walk(group: &Group, groups: &mut Vec<String>, out: &mut Vec<VarPath>) {
        for v in &group.vars {
            out.push(VarPath::new(groups.clone(), v.name.clone()));
        }
        for g in &group.groups {
            groups.push(g.name.clone());
            walk(g, groups, out);
            groups.pop();
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), &mut out);
    out
}

/// Every group of the tree below the root, as full paths.
pub fn all_group_paths(root: &Group) -> Vec<String> {
    fn walk(group: &Group, prefix: &str, out: &mut Vec<String>) {
        for g in &group.groups {
            let path = format!("{prefix}/{}", g.name);
            out.push(path.clone());
            walk(g, &path, out);
        }
    }
    let mut out = vec!["/".to_string()];
    walk(root, "", &mut out);
    out
}

/// What `-v`, `-V`, `-g` and `-G` select.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// `-v`: copy the data of these variables only.
    pub data_vars: Option<NameList>,
    /// `-V`: copy these variables only.
    pub only_vars: Option<NameList>,
    /// `-g`: copy the data of these groups only.
    pub data_groups: Option<NameList>,
    /// `-G`: copy these groups only.
    pub only_groups: Option<NameList>,
}

impl Selection {
    /// Checks every name against the input's variables and groups.
    pub fn check(&self, root: &Group) -> anyhow::Result<()> {
        let vars: Vec<String> = all_var_paths(root).iter().map(VarPath::to_string).collect();
        let groups = all_group_paths(root);
        for list in [&self.data_vars, &self.only_vars].into_iter().flatten() {
            list.check_against("variable", &vars)?;
        }
        for list in [&self.data_groups, &self.only_groups].into_iter().flatten() {
            list.check_against("group", &groups)?;
        }
        self.check_parents(&groups)
    }

    /// Whether the group at `groups` is in the output: with `-G`, the root and the listed
    /// groups only (their subgroups are not implied, as in the reference).
    pub fn keeps_group(&self, groups: &[String]) -> bool {
        match &self.only_groups {
            None => true,
            Some(_) if groups.is_empty() => true,
            Some(list) => list.matches(&group_text(groups)),
        }
    }

    /// Whether the variable at `path` is in the output (`-V`; its group must be kept).
    pub fn keeps_var(&self, path: &VarPath) -> bool {
        self.keeps_group(&path.groups)
            && self
                .only_vars
                .as_ref()
                .is_none_or(|list| list.matches(&path.to_string()))
    }

    /// Whether the data of the variable at `path` is copied: `-v` lists it (or is not
    /// given), and `-g` and `-G` list its own group (or are not given).
    pub fn copies_data(&self, path: &VarPath) -> bool {
        let group = group_text(&path.groups);
        let listed = |list: &Option<NameList>| list.as_ref().is_none_or(|l| l.matches(&group));
        self.data_vars
            .as_ref()
            .is_none_or(|list| list.matches(&path.to_string()))
            && listed(&self.data_groups)
            && listed(&self.only_groups)
    }

    /// With `-G`, fails when a listed group's parent is not in the output.
    fn check_parents(&self, groups: &[String]) -> anyhow::Result<()> {
        let Some(list) = &self.only_groups else {
            return Ok(());
        };
        for path in groups.iter().filter(|g| list.matches(g)) {
            let parent = path.rsplit_once('/').map_or("/", |(head, _)| head);
            if !parent.is_empty() && !list.matches(parent) {
                bail!(
                    "-G: group {path} is listed but its parent {parent} is not; list both \
                     (-G {parent},{path})"
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> NameList {
        NameList::parse("-v", text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn absolute_and_relative_names() {
        let l = list("/g/v,t,h/w");
        assert!(l.matches("/g/v"));
        assert!(!l.matches("/v"));
        assert!(l.matches("/t") && l.matches("/a/b/t"));
        assert!(!l.matches("/at"));
        assert!(l.matches("/x/h/w") && !l.matches("/w"));
    }

    #[test]
    fn unknown_names_are_errors_with_suggestions() {
        let paths = vec!["/temp".to_string(), "/g/rh".to_string()];
        assert!(list("temp,rh").check_against("variable", &paths).is_ok());
        let err = list("tmp").check_against("variable", &paths);
        let text = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("did you mean temp?"), "{text}");
    }

    #[test]
    fn listed_groups_only_and_their_data() {
        let names = |o, t| NameList::parse(o, t).unwrap_or_else(|e| panic!("{e}"));
        let selection = Selection {
            only_groups: Some(names("-G", "g1")),
            ..Selection::default()
        };
        let path = |g: &[&str]| g.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(selection.keeps_group(&path(&[])));
        assert!(selection.keeps_group(&path(&["g1"])));
        assert!(!selection.keeps_group(&path(&["g1", "sub"])));
        assert!(!selection.keeps_group(&path(&["g2"])));
        assert!(selection.keeps_var(&VarPath::new(Vec::<String>::new(), "x")));
        assert!(!selection.copies_data(&VarPath::new(Vec::<String>::new(), "x")));
        assert!(selection.copies_data(&VarPath::new(["g1"], "a")));
        let orphan = Selection {
            only_groups: Some(names("-G", "sub")),
            ..Selection::default()
        };
        let groups = vec!["/".to_string(), "/g1".to_string(), "/g1/sub".to_string()];
        assert!(orphan.check_parents(&groups).is_err());
        let data = Selection {
            data_groups: Some(names("-g", "g1")),
            ..Selection::default()
        };
        assert!(data.keeps_group(&path(&["g1", "sub"])));
        assert!(!data.copies_data(&VarPath::new(["g1", "sub"], "d")));
        assert!(data.copies_data(&VarPath::new(["g1"], "a")));
    }
}
