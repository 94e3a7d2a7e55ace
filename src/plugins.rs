//! Where filter implementations are looked for, as messages tell the user (DECISIONS D6).

/// Where HDF5 looks for filter plugins, as the user should read it.
pub fn plugin_search_path() -> String {
    crate::storage::backends::plugin_search_path()
}

/// The filter (id and name) a failed `nc_def_var_filter` was about, from the error's
/// context (`...: filter ID`).
fn filter_of(error: &store::StoreError) -> String {
    let id = error
        .context
        .rsplit("filter ")
        .next()
        .and_then(|t| t.trim().parse::<u32>().ok());
    match id {
        Some(id) => describe_filter(id),
        None => "a filter".to_string(),
    }
}

/// How missing-filter messages (DECISIONS D6) name a filter, saying whether nctools
/// carries it: `filter 32013 (zfp; not built into nctools)`, `filter 40000 (unregistered;
/// not built into nctools)`, or for one of nctools' own turned off by
/// `NCTOOLS_BUILTIN_FILTERS=0`: `filter 307 (bzip2; built into nctools, turned off by
/// NCTOOLS_BUILTIN_FILTERS=0)`.
pub fn describe_filter(id: u32) -> String {
    let name = filterspec::known::name_of(id).unwrap_or("unregistered");
    let carried = codecs::registry::is_carried_into_hdf5(id);
    if !carried {
        format!("filter {id} ({name}; not built into nctools)")
    } else if !codecs::builtins_enabled() {
        format!(
            "filter {id} ({name}; built into nctools, turned off by {}=0)",
            codecs::DISABLE_VARIABLE
        )
    } else {
        format!("filter {id} ({name})")
    }
}

/// A failure of the library while creating a file, explained: an unavailable filter names
/// the filter, where plugins were looked for and what to do (`remedy`, e.g. "remove the
/// filter from the CDL") (DECISIONS D6).
pub fn explain_write_error(error: store::StoreError, remedy: &str) -> anyhow::Error {
    if !error.is_filter_error() {
        return anyhow::anyhow!(error);
    }
    let place = error
        .context
        .rsplit_once(": filter ")
        .map_or(error.context.as_str(), |(place, _)| place);
    anyhow::anyhow!(
        "{place}: {} is not available; plugins were searched in {}. Install the plugin \
         there or set HDF5_PLUGIN_PATH, or {remedy}; no file was written",
        filter_of(&error),
        plugin_search_path()
    )
}
