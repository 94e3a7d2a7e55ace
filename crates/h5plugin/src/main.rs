//! Lists the plugin libraries to install, one per line: file name, filter name and HDF5
//! filter id, separated by spaces (`libnctools_h5zstd.so zstd 32015`). scripts/install-plugins
//! copies the library once under each file name.

use std::io::Write;

fn main() -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    for plugin in nctools_h5plugin::plugins() {
        writeln!(out, "{} {} {}", plugin.file_name, plugin.name, plugin.id)?;
    }
    Ok(())
}
