//! Where filter implementations are looked for, as messages tell the user (DECISIONS D6).

/// Where HDF5 looks for filter plugins, as the user should read it.
pub fn plugin_search_path() -> String {
    let dirs = ncio::plugin_search_paths().join(":");
    match std::env::var("HDF5_PLUGIN_PATH") {
        Ok(_) => format!("{dirs} (from HDF5_PLUGIN_PATH)"),
        Err(_) => format!("{dirs} (HDF5's default; set HDF5_PLUGIN_PATH to change it)"),
    }
}
