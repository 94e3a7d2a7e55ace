//! Where metadata comes from: the store's files, or its consolidated `.zmetadata`.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{Result, ZarrError};
use crate::json;

/// The metadata of a store on disk.
pub struct Source {
    /// The store's root directory.
    pub root: PathBuf,
    /// The consolidated metadata (`.zmetadata`'s `metadata`), when there is one.
    consolidated: Option<Map<String, Value>>,
}

/// The largest metadata file read (a guard against a hostile store).
const MAX_METADATA: u64 = 256 << 20;

impl Source {
    /// The metadata of the store at `root`; `consolidated` reads `.zmetadata` when present.
    pub fn open(root: &Path, consolidated: bool) -> Result<Self> {
        let mut source = Self {
            root: root.to_path_buf(),
            consolidated: None,
        };
        if consolidated {
            if let Some(Value::Object(mut all)) = source.file(Path::new(""), ".zmetadata")? {
                if let Some(Value::Object(meta)) = all.remove("metadata") {
                    source.consolidated = Some(meta);
                }
            }
        }
        Ok(source)
    }

    /// The JSON of the metadata file `name` of the node at `rel` (relative to the root);
    /// `None` when there is none.
    pub fn json(&self, rel: &Path, name: &str) -> Result<Option<Value>> {
        if let Some(meta) = &self.consolidated {
            let key = key_of(rel, name);
            return Ok(meta.get(&key).cloned());
        }
        self.file(rel, name)
    }

    fn file(&self, rel: &Path, name: &str) -> Result<Option<Value>> {
        let path = self.root.join(rel).join(name);
        let text = match std::fs::metadata(&path) {
            Ok(m) if m.len() > MAX_METADATA => {
                return Err(ZarrError::Corrupt(format!(
                    "{}: metadata file of {} bytes is too large; the store is damaged",
                    path.display(),
                    m.len()
                )))
            }
            Ok(_) => std::fs::read_to_string(&path).map_err(|e| ZarrError::io(&path, e))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ZarrError::io(&path, e)),
        };
        json::parse(&text, &path.display().to_string()).map(Some)
    }

    /// The object members of a metadata file (empty when absent or not an object).
    pub fn object(&self, rel: &Path, name: &str) -> Result<Map<String, Value>> {
        Ok(match self.json(rel, name)? {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        })
    }

    /// The names of the child nodes of `rel` that hold the metadata file `marker` (or any
    /// of them), sorted.
    pub fn children(&self, rel: &Path, markers: &[&str]) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::new();
        if let Some(meta) = &self.consolidated {
            let prefix = key_of(rel, "");
            for key in meta.keys() {
                let Some(rest) = key.strip_prefix(&prefix) else {
                    continue;
                };
                if let Some((child, file)) = rest.split_once('/') {
                    if markers.contains(&file) && !names.iter().any(|n| n == child) {
                        names.push(child.to_string());
                    }
                }
            }
        } else {
            let dir = self.root.join(rel);
            let entries = std::fs::read_dir(&dir).map_err(|e| ZarrError::io(&dir, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| ZarrError::io(&dir, e))?;
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                if markers.iter().any(|m| entry.path().join(m).is_file()) {
                    names.push(name);
                }
            }
        }
        names.sort();
        Ok(names)
    }
}

/// The `.zmetadata` key of the file `name` of the node `rel` (`g/v/.zarray`).
fn key_of(rel: &Path, name: &str) -> String {
    let rel = rel.to_string_lossy().replace('\\', "/");
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}
