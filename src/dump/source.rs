//! ncdump's data source over an open file, the checks of `-v` and `-g` names, and the
//! message for data that cannot be read (DECISIONS D6).

use anyhow::anyhow;
use cdl::{DataSource, DumpOptions};
use ncmodel::{Dataset, Group, Values, Var};
use store::{StoreError, StoreReader, VarPath};

/// Reads variable data from the open file.
pub struct FileSource<'a> {
    file: &'a dyn StoreReader,
    dataset: &'a Dataset,
    /// The variable last read (group id and variable id, and its path), named in a
    /// crash message.
    reading: Option<((i32, i32), VarPath)>,
}

impl<'a> FileSource<'a> {
    /// A source reading from `file`, whose schema is `dataset`.
    pub fn new(file: &'a dyn StoreReader, dataset: &'a Dataset) -> Self {
        Self {
            file,
            dataset,
            reading: None,
        }
    }

    /// The message for a failed read of the variable at `path`: for a filter failure, the
    /// filters that are not available and where they were looked for.
    pub fn describe_failure(&self, path: &str, error: &StoreError) -> String {
        let filters = find_var(&self.dataset.root, path)
            .and_then(|v| v.storage.as_ref())
            .map(|s| s.filters.clone())
            .unwrap_or_default();
        if !error.is_filter_error() {
            if !filters.is_empty() && error.is_library_failure() {
                // A filter that is there but fails: a chunk it cannot decode.
                return format!(
                    "{}: cannot read variable {path}: HDF5 failed decoding a chunk through \
                     its filters ({}); the chunk is probably corrupt",
                    self.file.path(),
                    filterspec::format_spec_list(&filters)
                );
            }
            return format!("{}: variable {path}: {}", self.file.path(), error.message);
        }
        let missing: Vec<String> = filters
            .iter()
            .filter(|f| !self.file.filter_available(f.id))
            .map(|f| {
                let text = crate::plugins::describe_filter(f.id);
                text.trim_start_matches("filter ").to_string()
            })
            .collect();
        if missing.is_empty() && error.kind == store::ErrorKind::CodecMissing {
            // A Zarr codec nctools lacks: the backend's words name it and what to do,
            // in netCDF-C's sentence ("Variable V has unsupported codec: (ID)").
            return format!(
                "{}: Variable {path} has {}",
                self.file.path(),
                error.message
            );
        }
        let what = if missing.is_empty() {
            format!("a filter failed ({})", error.message)
        } else {
            format!("filter {} is not available", missing.join(", "))
        };
        format!(
            "{}: cannot read variable {path}: {what}; {}; `ncdump -hs` shows the \
             file's filters without needing them",
            self.file.path(),
            self.file.filter_remedy()
        )
    }
}

fn find_var<'d>(group: &'d Group, path: &str) -> Option<&'d Var> {
    let trimmed = path.trim_start_matches('/');
    match trimmed.split_once('/') {
        None => group.var(trimmed),
        Some((first, rest)) => {
            let child = group.groups.iter().find(|g| g.name == first)?;
            find_var(child, rest)
        }
    }
}

impl DataSource for FileSource<'_> {
    type Error = StoreError;

    fn read(
        &mut self,
        group: &Group,
        var: &Var,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, StoreError> {
        let ids = (group.ncid, var.id);
        let path = match &self.reading {
            Some((read, path)) if *read == ids => path,
            _ => {
                let path = self
                    .dataset
                    .var_path(group.ncid, var)
                    .unwrap_or_else(|| VarPath::new(Vec::<String>::new(), var.name.clone()));
                crash_guard::set_activity(&format!("reading variable {path}"));
                &self.reading.insert((ids, path)).1
            }
        };
        self.file.read_slab(self.dataset, path, start, count)
    }
}

/// Every variable of a group tree: its full path, its group's full path (`/` for the
/// root) and its name.
fn all_vars(group: &Group, prefix: &str, out: &mut Vec<(String, String, String)>) {
    let group_path = if prefix.is_empty() { "/" } else { prefix };
    for v in &group.vars {
        out.push((
            format!("{prefix}/{}", v.name),
            group_path.to_string(),
            v.name.clone(),
        ));
    }
    for g in &group.groups {
        all_vars(g, &format!("{prefix}/{}", g.name), out);
    }
}

fn all_groups(group: &Group, prefix: &str, out: &mut Vec<String>) {
    for g in &group.groups {
        let path = format!("{prefix}/{}", g.name);
        out.push(path.clone());
        all_groups(g, &path, out);
    }
}

/// Checks that every `-v` variable and `-g` group exists.
pub fn check_selection(dataset: &Dataset, options: &DumpOptions, path: &str) -> anyhow::Result<()> {
    let mut vars = Vec::new();
    all_vars(&dataset.root, "", &mut vars);
    for name in options.variables.iter().flatten() {
        let found = vars
            .iter()
            .any(|(_, group, short)| cdl::writer::variable_selected(name, group, short));
        if !found {
            let names: Vec<&str> = if name.contains('/') {
                vars.iter().map(|(full, _, _)| full.as_str()).collect()
            } else {
                vars.iter().map(|(_, _, short)| short.as_str()).collect()
            };
            let close = filterspec::close_matches(name, names);
            let hint = match close.first() {
                Some(c) => format!("; did you mean {c}?"),
                None => String::new(),
            };
            return Err(anyhow!("-v: {path} has no variable {name}{hint}"));
        }
    }
    let mut groups = Vec::new();
    all_groups(&dataset.root, "", &mut groups);
    for name in options.groups.iter().flatten() {
        let found = match name.as_str() {
            "" | "/" => true,
            absolute if absolute.starts_with('/') => groups.iter().any(|g| g == absolute),
            relative => groups
                .iter()
                .any(|g| g.rsplit('/').next() == Some(relative)),
        };
        if !found {
            return Err(anyhow!("-g: {path} has no group {name}"));
        }
    }
    Ok(())
}
