//! Where metadata comes from: the store's documents, or its consolidated `.zmetadata`.
//! Nodes are named by [`StoreKey`]s: a name from the store's metadata (an NCZarr
//! `vars` list, a `.zmetadata` key) becomes a key only once it is checked.

use serde_json::{Map, Value};
use store::StoreKey;

use crate::error::{Result, ZarrError};
use crate::json;
use crate::storage::{child_key, Store, MAX_METADATA};

/// The metadata of a store.
pub struct Source {
    /// The store.
    pub store: Store,
    /// The consolidated metadata (`.zmetadata`'s `metadata`), when there is one.
    consolidated: Option<Map<String, Value>>,
}

impl Source {
    /// The metadata of `store`; `consolidated` reads `.zmetadata` when present.
    pub fn open(store: Store, consolidated: bool) -> Result<Self> {
        let mut source = Self {
            store,
            consolidated: None,
        };
        if consolidated {
            if let Some(Value::Object(mut all)) =
                source.document(&StoreKey::root(), ".zmetadata")?
            {
                if let Some(Value::Object(meta)) = all.remove("metadata") {
                    check_consolidated_keys(&meta)?;
                    source.consolidated = Some(meta);
                }
            }
        }
        Ok(source)
    }

    /// How messages name the store.
    pub fn name(&self) -> String {
        self.store.describe(&StoreKey::root())
    }

    /// The JSON of the metadata document `name` of the node `node`; `None` when there is
    /// none.
    pub fn json(&self, node: &StoreKey, name: &str) -> Result<Option<Value>> {
        if let Some(meta) = &self.consolidated {
            let key = key_of(node, name);
            return Ok(meta.get(&key).cloned());
        }
        self.document(node, name)
    }

    fn document(&self, node: &StoreKey, name: &str) -> Result<Option<Value>> {
        let key = child_key(node, name, "a metadata document is named")?;
        let Some(bytes) = self.store.get(&key, MAX_METADATA)? else {
            return Ok(None);
        };
        let what = self.store.describe(&key);
        match String::from_utf8(bytes) {
            Ok(text) => json::parse(&text, &what).map(Some),
            // netCDF-C writes a char attribute's bytes as they are.
            Err(e) => {
                crate::attrs::parse_raw_document(e.as_bytes(), name == ".zattrs", &what).map(Some)
            }
        }
    }

    /// The object members of a metadata document (empty when absent or not an object).
    pub fn object(&self, node: &StoreKey, name: &str) -> Result<Map<String, Value>> {
        Ok(match self.json(node, name)? {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        })
    }

    /// The names of the child nodes of `node` that hold the metadata document `marker`
    /// (or any of them), sorted, each once.
    pub fn children(&self, node: &StoreKey, markers: &[&str]) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::new();
        if let Some(meta) = &self.consolidated {
            let prefix = key_of(node, "");
            for key in meta.keys() {
                let Some(rest) = key.strip_prefix(&prefix) else {
                    continue;
                };
                if let Some((child, file)) = rest.split_once('/') {
                    if markers.contains(&file) {
                        names.push(child.to_string());
                    }
                }
            }
        } else {
            for child in self.store.list_dir(node)?.prefixes {
                let key = child_key(node, &child, "the store holds a node named")?;
                for marker in markers {
                    if self
                        .store
                        .contains(&child_key(&key, marker, "a document")?)?
                    {
                        names.push(child);
                        break;
                    }
                }
            }
        }
        names.sort();
        names.dedup();
        Ok(names)
    }
}

/// Checks that every key of consolidated metadata is a valid store key: one that names
/// something outside the store (`../.zarray`, `/etc/x/.zarray`) means the store is
/// damaged or hostile.
fn check_consolidated_keys(meta: &Map<String, Value>) -> Result<()> {
    for key in meta.keys() {
        if let Err(e) = StoreKey::parse(key) {
            return Err(ZarrError::Corrupt(format!(
                ".zmetadata names the key {key:?}, which cannot name anything in a store ({}); \
                 the store is damaged",
                e.reason
            )));
        }
    }
    Ok(())
}

/// The `.zmetadata` key of the document `name` of the node `node` (`g/v/.zarray`).
fn key_of(node: &StoreKey, name: &str) -> String {
    if node.is_root() {
        name.to_string()
    } else {
        format!("{}/{name}", node.as_str())
    }
}
