//! How long a name in an NCZarr or Zarr store on disk can be. Names come from the store's
//! JSON metadata (`.zgroup`, `.zarray`, `.zattrs`), which bounds nothing, and libnetcdf
//! copies them into its callers' buffers whatever their length. A name is never longer than
//! the metadata file that holds it (JSON escapes only shorten text), so the largest
//! metadata file of the store bounds every name.

use std::path::{Path, PathBuf};

/// The metadata files of a store directory.
const METADATA: [&str; 4] = [".zgroup", ".zarray", ".zattrs", ".zmetadata"];

/// The directory of a `file://` URL (`file:///data/x.zarr#mode=nczarr,file`), if it is one.
pub(crate) fn store_directory(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("file://")?;
    let path = rest.split('#').next().unwrap_or(rest);
    let path = path.split('?').next().unwrap_or(path);
    Some(PathBuf::from(path))
}

/// The size in bytes of the largest metadata file under `dir`: groups are walked, arrays'
/// chunk directories are not.
pub(crate) fn largest_metadata(dir: &Path) -> u64 {
    let mut largest = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let mut is_array = false;
        for name in METADATA {
            if let Ok(meta) = std::fs::metadata(dir.join(name)) {
                largest = largest.max(meta.len());
                is_array |= name == ".zarray";
            }
        }
        if is_array {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        pending.extend(
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path()),
        );
    }
    largest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_metadata_file_of_groups_and_arrays_counts_not_chunks() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let write = |path: &Path, bytes: usize| {
            std::fs::create_dir_all(path.parent().unwrap_or(root))
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(path, vec![b' '; bytes]).unwrap_or_else(|e| panic!("{e}"));
        };
        write(&root.join(".zgroup"), 10);
        write(&root.join("g/.zgroup"), 20);
        write(&root.join("g/v/.zarray"), 30);
        write(&root.join("g/v/.zattrs"), 70);
        write(&root.join("g/v/0/.zattrs"), 500);
        assert_eq!(largest_metadata(root), 70);
        let url = format!("file://{}#mode=nczarr,file", root.display());
        assert_eq!(store_directory(&url).as_deref(), Some(root));
    }
}
