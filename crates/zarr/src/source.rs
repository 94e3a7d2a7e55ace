//! Where metadata comes from: the store's documents, or its consolidated metadata
//! (`.zmetadata`, or version 3's inline `consolidated_metadata`), checked against the
//! store.
//! Nodes are named by [`StoreKey`]s: a name from the store's metadata (an NCZarr
//! `vars` list, a `.zmetadata` key) becomes a key only once it is checked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use kv::StoreKey;
use serde_json::{Map, Value};

use crate::error::{Result, ZarrError};
use crate::json;
use crate::storage::{child_key, Store, MAX_METADATA};

/// The metadata of a store.
pub struct Source {
    /// The store.
    pub store: Store,
    /// The consolidated metadata by key (`g/v/.zarray`, `g/v/zarr.json`), when there is
    /// some and it is used.
    consolidated: Option<Map<String, Value>>,
    /// The consolidated metadata's nodes by the prefix of their parent (`` for the root,
    /// `g/` below): each node's name and the document's name (`.zarray`), made at the
    /// first listing, so that listing every group costs one pass over the keys in all.
    consolidated_children: OnceLock<HashMap<String, Vec<(String, String)>>>,
    /// Where the consolidated metadata was found, for messages: `.zmetadata`, or
    /// `zarr.json's consolidated_metadata`.
    consolidated_in: &'static str,
    /// Whether the store is Zarr version 3.
    v3: bool,
    /// What the user should know about how the metadata was read.
    pub warnings: Vec<String>,
    /// The weight of the documents parsed so far ([`json::weight_of`]), against
    /// [`MAX_STORE_WEIGHT`].
    weight_read: AtomicUsize,
    /// The documents counted in `weight_read`, by key.
    weighed: std::sync::Mutex<std::collections::HashSet<String>>,
}

/// The most the metadata documents of one store may weigh in all ([`json::weight_of`]):
/// 4 Mi, twice what one document may. What the documents' attributes keep once parsed
/// (8 bytes a number, a few tens a string) stays near 200 MiB at most whatever the number
/// of arrays; the documents of some 60,000 arrays of CF metadata fit (about 66 each).
pub const MAX_STORE_WEIGHT: usize = 4 << 20;

/// The documents that make a version 2 node an array or a group, or hold its
/// attributes.
const V2_DOCUMENTS: [&str; 3] = [".zarray", ".zgroup", ".zattrs"];

impl Source {
    /// The metadata of `store` (Zarr version 3 when `v3`). With `consolidated`, its
    /// consolidated metadata is read when it has some (`.zmetadata`; the root
    /// `zarr.json`'s inline `consolidated_metadata` in version 3) and used in place of
    /// the documents, after a check that costs one listing per group: every node it
    /// names is in the store and every node of the store is in it, and the root's own
    /// documents are the same as its copies of them. When not, a warning says so and the
    /// documents themselves are read. The other documents of an array are compared with
    /// their copies when its data is read ([`Source::stale_array`]).
    ///
    /// With `compare_arrays` (a store on local disk or in a local zip archive, where a
    /// document costs no request), every array's documents are compared with their
    /// copies here too, so that a stale copy is a warning and the store's own documents
    /// are read, as netCDF-C reads them, rather than a refusal when the data is read.
    pub fn open(store: Store, consolidated: bool, v3: bool, compare_arrays: bool) -> Result<Self> {
        let mut source = Self {
            store,
            consolidated: None,
            consolidated_children: OnceLock::new(),
            consolidated_in: if v3 {
                "zarr.json's consolidated_metadata"
            } else {
                crate::wmeta::ZMETADATA
            },
            v3,
            warnings: Vec::new(),
            weight_read: AtomicUsize::new(0),
            weighed: Default::default(),
        };
        if !consolidated {
            return Ok(source);
        }
        let meta = if v3 {
            source.v3_consolidated()
        } else {
            source.v2_consolidated()
        };
        let meta = match meta {
            Ok(Some(meta)) => meta,
            Ok(None) => return Ok(source),
            // Too heavy to parse at once: each node's own documents are light.
            Err(ZarrError::TooLarge(why)) if !v3 => {
                source.warnings.push(format!(
                    "{why}; the consolidated metadata of {} ({}) was set aside and the \
                     store's own metadata documents were read instead",
                    source.name(),
                    source.consolidated_in
                ));
                return Ok(source);
            }
            Err(e) => return Err(e),
        };
        check_consolidated_keys(&meta, source.consolidated_in)?;
        source.consolidated = Some(meta);
        let problem = match source.disagreement()? {
            Some(problem) => Some(problem),
            None if compare_arrays => source.first_stale_array()?,
            None => None,
        };
        if let Some(problem) = problem {
            source.warnings.push(format!(
                "the consolidated metadata of {} ({}) does not match the store: {problem}; \
                 the store's own metadata documents were read instead (consolidate the \
                 metadata again to read it faster)",
                source.name(),
                source.consolidated_in
            ));
            source.consolidated = None;
        }
        Ok(source)
    }

    /// `.zmetadata`'s `metadata`, when there is one.
    fn v2_consolidated(&self) -> Result<Option<Map<String, Value>>> {
        let all = self.document(&StoreKey::root(), crate::wmeta::ZMETADATA)?;
        Ok(match all {
            Some(Value::Object(mut all)) => match all.remove("metadata") {
                Some(Value::Object(meta)) => Some(meta),
                _ => None,
            },
            _ => None,
        })
    }

    /// The root `zarr.json`'s inline `consolidated_metadata` as zarr-python 3 writes it
    /// (each node's `zarr.json` by path), keyed as documents (`g/v/zarr.json`), with the
    /// root's own; entries of nested groups' own consolidated metadata are taken too.
    fn v3_consolidated(&self) -> Result<Option<Map<String, Value>>> {
        let Some(root) = self.document(&StoreKey::root(), "zarr.json")? else {
            return Ok(None);
        };
        let mut meta = Map::new();
        if !inline_entries(&root, "", &mut meta) {
            return Ok(None);
        }
        meta.insert("zarr.json".to_string(), root);
        Ok(Some(meta))
    }

    /// How the consolidated metadata disagrees with the store, if it does, found with
    /// one listing per group it names: a node in one and not in the other, or a root
    /// document (version 2) not the same as its copy. Not checked in a store that
    /// cannot list (a plain HTTP server).
    fn disagreement(&self) -> Result<Option<String>> {
        let Some(meta) = &self.consolidated else {
            return Ok(None);
        };
        if !self.store.lists() {
            // A plain HTTP server: the consolidated metadata is all there is to go by.
            return Ok(None);
        }
        let mut groups: Vec<&str> = meta
            .iter()
            .filter_map(|(key, doc)| {
                if self.v3 {
                    let node = key.strip_suffix("zarr.json")?;
                    (doc.get("node_type").and_then(Value::as_str) == Some("group")).then_some(node)
                } else {
                    key.strip_suffix(".zgroup")
                }
            })
            .map(|node| node.trim_end_matches('/'))
            .collect();
        groups.sort_unstable();
        let markers: &[&str] = if self.v3 {
            &["zarr.json"]
        } else {
            &V2_DOCUMENTS
        };
        for group in groups {
            let node = StoreKey::parse(group)?;
            let listing = self.store.list_dir(&node)?;
            if node.is_root() && !self.v3 {
                for name in V2_DOCUMENTS {
                    let real = if listing.values.iter().any(|v| v == name) {
                        self.document(&node, name)?
                    } else {
                        None
                    };
                    if !same_document(real.as_ref(), meta.get(name), name) {
                        return Ok(Some(format!("the store's {name} is not the same")));
                    }
                }
            }
            // Both sides sorted: each lookup a binary search, not a scan (a scan made
            // a store of 80,000 arrays quadratic).
            let named = self.children(&node, markers)?;
            let mut listed: Vec<&String> = listing.prefixes.iter().collect();
            listed.sort_unstable();
            for child in &listing.prefixes {
                if named.binary_search(child).is_ok() {
                    continue;
                }
                let key = child_key(&node, child, "the store holds a node named")?;
                for marker in markers {
                    if self
                        .store
                        .contains(&child_key(&key, marker, "a document")?)?
                    {
                        return Ok(Some(format!("it lacks /{}", key.as_str())));
                    }
                }
            }
            if let Some(missing) = named.iter().find(|c| listed.binary_search(c).is_err()) {
                let key = child_key(&node, missing, "the consolidated metadata names")?;
                return Ok(Some(format!(
                    "it names /{}, which the store does not hold",
                    key.as_str()
                )));
            }
        }
        Ok(None)
    }

    /// What the first array whose documents differ from their copies says about it
    /// ([`Source::stale_array`]); `None` when every array's are the same.
    fn first_stale_array(&self) -> Result<Option<String>> {
        let Some(meta) = &self.consolidated else {
            return Ok(None);
        };
        let mut arrays: Vec<&str> = meta
            .iter()
            .filter_map(|(key, doc)| {
                if self.v3 {
                    let node = key.strip_suffix("zarr.json")?;
                    (doc.get("node_type").and_then(Value::as_str) == Some("array")).then_some(node)
                } else {
                    key.strip_suffix(".zarray")
                }
            })
            .map(|node| node.trim_end_matches('/'))
            .collect();
        arrays.sort_unstable();
        for node in arrays {
            let node = StoreKey::parse(node)?;
            let Some(problem) = self.stale_array(&node)? else {
                continue;
            };
            // The part before the advice to read without it, which is what is done.
            let what = problem.split("; read the store").next().unwrap_or(&problem);
            let what = what
                .split_once(" is stale: ")
                .map_or(what, |(_, rest)| rest);
            return Ok(Some(what.to_string()));
        }
        Ok(None)
    }

    /// Whether the documents of the array at `node` differ from their copies in the
    /// consolidated metadata: `None` when they are the same (or no consolidated metadata
    /// is used), else what differs. Each document is read, one request each: done once
    /// per array whose data is read, next to the requests of its chunks.
    pub fn stale_array(&self, node: &StoreKey) -> Result<Option<String>> {
        let Some(meta) = &self.consolidated else {
            return Ok(None);
        };
        let names: &[&str] = if self.v3 {
            &["zarr.json"]
        } else {
            &[".zarray", ".zattrs"]
        };
        for name in names {
            let key = key_of(node, name);
            let real = self.document(node, name)?;
            if !same_document(real.as_ref(), meta.get(&key), name) {
                return Ok(Some(format!(
                    "the consolidated metadata of {name} ({}) is stale: its copy of {key} is \
                     not the same as the store's; read the store without it, with \
                     noconsolidated among the mode words of its URL \
                     (file://{name}#mode=nczarr,noconsolidated, or zarr,noconsolidated), or \
                     consolidate its metadata again",
                    self.consolidated_in,
                    name = self.name(),
                )));
            }
        }
        Ok(None)
    }

    /// Whether the metadata comes from consolidated metadata.
    pub fn is_consolidated(&self) -> bool {
        self.consolidated.is_some()
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
        // Counted once per document (some are read more than once), and only when the
        // document itself may be parsed (else its own refusal says more).
        let weight = json::weight_of(&bytes);
        let first_time = self
            .weighed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.as_str().to_string());
        let added = if first_time && weight <= json::MAX_DOCUMENT_WEIGHT {
            weight
        } else {
            0
        };
        let total = self
            .weight_read
            .fetch_add(added, Ordering::Relaxed)
            .saturating_add(added);
        if total > MAX_STORE_WEIGHT {
            return Err(ZarrError::TooLarge(format!(
                "the metadata documents of {} hold more than {MAX_STORE_WEIGHT} JSON values \
                 and names in all (strings counting one per {} bytes; at {what}), more than \
                 nctools reads from one store",
                self.name(),
                json::STRING_BYTES_PER_UNIT
            )));
        }
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
            let by_parent = self
                .consolidated_children
                .get_or_init(|| consolidated_children(meta));
            let prefix = key_of(node, "");
            for (child, file) in by_parent.get(&prefix).into_iter().flatten() {
                if markers.contains(&file.as_str()) {
                    names.push(child.clone());
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

/// Checks that every key of consolidated metadata (found in `what`) is a valid store
/// key: one that names something outside the store (`../.zarray`, `/etc/x/.zarray`)
/// means the store is damaged or hostile.
fn check_consolidated_keys(meta: &Map<String, Value>, what: &str) -> Result<()> {
    for key in meta.keys() {
        if let Err(e) = StoreKey::parse(key) {
            return Err(ZarrError::Corrupt(format!(
                "{what} names the key {key:?}, which cannot name anything in a store ({}); \
                 the store is damaged",
                e.reason
            )));
        }
    }
    Ok(())
}

/// Adds the entries of the inline `consolidated_metadata` of the version 3 document
/// `doc` at `prefix` (`""` for the root, else `g/`) to `meta`, keyed `PATH/zarr.json`,
/// and those of its groups' own; false when `doc` has none of that kind.
fn inline_entries(doc: &Value, prefix: &str, meta: &mut Map<String, Value>) -> bool {
    let Some(consolidated) = doc.get("consolidated_metadata") else {
        return false;
    };
    if consolidated.get("kind").and_then(Value::as_str) != Some("inline") {
        return false;
    }
    let Some(entries) = consolidated.get("metadata").and_then(Value::as_object) else {
        return false;
    };
    for (path, entry) in entries {
        let path = format!("{prefix}{path}");
        inline_entries(entry, &format!("{path}/"), meta);
        meta.insert(format!("{path}/zarr.json"), entry.clone());
    }
    true
}

/// Whether the document `name` as the store holds it (`real`) and its copy in the
/// consolidated metadata say the same. A missing `.zattrs` is the same as an empty one;
/// members that say nothing (null, empty arrays and objects; v2's default
/// `dimension_separator` `.`) and a group's own `consolidated_metadata`, which
/// zarr-python 3 adds to its copies of groups, are left out of the comparison of other
/// documents. Members are compared whatever their order.
fn same_document(real: Option<&Value>, copy: Option<&Value>, name: &str) -> bool {
    let attributes = name == ".zattrs";
    let normal = |doc: Option<&Value>| -> Option<Value> {
        let mut doc = match doc {
            None if attributes => Value::Object(Map::new()),
            None => return None,
            Some(doc) => doc.clone(),
        };
        if let (Value::Object(members), false) = (&mut doc, attributes) {
            members.retain(|key, value| {
                let silent = match value {
                    Value::Null => true,
                    Value::Array(items) => items.is_empty(),
                    Value::Object(map) => map.is_empty(),
                    Value::String(text) => key == "dimension_separator" && text == ".",
                    _ => false,
                };
                !silent && key != "consolidated_metadata"
            });
        }
        Some(doc)
    };
    let (real, copy) = (normal(real), normal(copy));
    real == copy || matches!((&real, &copy), (Some(r), Some(c)) if appended_to(r, c, false))
}

/// Whether `real` is `copy` after an append (`nccopy --append`): the same but for
/// lengths (members `shape`, and NCZarr's dimension lengths, `dims` and `dimensions`) that grew. An
/// append updates the documents first and the consolidated metadata last, so a reader
/// between the two reads the consolidated copies: the store as it was, whose chunks are
/// all there.
fn appended_to(real: &Value, copy: &Value, lengths: bool) -> bool {
    match (real, copy) {
        (Value::Object(r), Value::Object(c)) => {
            r.len() == c.len()
                && r.iter().all(|(name, value)| {
                    c.get(name).is_some_and(|other| {
                        let lengths =
                            lengths || matches!(name.as_str(), "shape" | "dims" | "dimensions");
                        appended_to(value, other, lengths)
                    })
                })
        }
        (Value::Array(r), Value::Array(c)) => {
            r.len() == c.len() && r.iter().zip(c).all(|(x, y)| appended_to(x, y, lengths))
        }
        (Value::Number(r), Value::Number(c)) if lengths => {
            matches!((r.as_u64(), c.as_u64()), (Some(r), Some(c)) if r >= c)
        }
        _ => real == copy,
    }
}

/// The `.zmetadata` key of the document `name` of the node `node` (`g/v/.zarray`).
/// The nodes of the consolidated metadata `meta` by their parent's prefix (`` or `g/`):
/// `g/v/.zarray` is (`v`, `.zarray`) under `g/`, as a listing of `g` would find it.
fn consolidated_children(meta: &Map<String, Value>) -> HashMap<String, Vec<(String, String)>> {
    let mut by_parent: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for key in meta.keys() {
        let Some((node, file)) = key.rsplit_once('/') else {
            continue;
        };
        let (parent, child) = match node.rsplit_once('/') {
            Some((parent, child)) => (format!("{parent}/"), child),
            None => (String::new(), node),
        };
        by_parent
            .entry(parent)
            .or_default()
            .push((child.to_string(), file.to_string()));
    }
    by_parent
}

fn key_of(node: &StoreKey, name: &str) -> String {
    if node.is_root() {
        name.to_string()
    } else {
        format!("{}/{name}", node.as_str())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// zarr-python 3's copies add an empty `consolidated_metadata` to groups and its
    /// defaults to arrays; neither is a difference. A changed member or attribute is.
    #[test]
    fn copies_differ_only_in_what_they_say() {
        let group = json!({"zarr_format": 2});
        let copy = json!({"zarr_format": 2, "consolidated_metadata":
            {"kind": "inline", "must_understand": false, "metadata": {}}});
        assert!(same_document(Some(&group), Some(&copy), ".zgroup"));
        let array = json!({"zarr_format": 2, "shape": [3], "filters": null});
        let copy = json!({"shape": [3], "zarr_format": 2, "dimension_separator": "."});
        assert!(same_document(Some(&array), Some(&copy), ".zarray"));
        let grown = json!({"shape": [4], "zarr_format": 2});
        assert!(!same_document(Some(&array), Some(&grown), ".zarray"));
        // A store appended to: its document grew first, its copy follows.
        assert!(same_document(Some(&grown), Some(&array), ".zarray"));
        let other = json!({"shape": [4], "zarr_format": 3});
        assert!(!same_document(Some(&other), Some(&array), ".zarray"));
        assert!(!same_document(None, Some(&array), ".zarray"));
        assert!(same_document(None, Some(&json!({})), ".zattrs"));
        let attrs = json!({"units": "K", "missing": null});
        assert!(!same_document(
            Some(&attrs),
            Some(&json!({"units": "K"})),
            ".zattrs"
        ));
    }

    /// v3's inline entries are keyed as documents, nested groups' own entries too.
    #[test]
    fn inline_entries_are_keyed_as_documents() {
        let root = json!({"zarr_format": 3, "node_type": "group", "consolidated_metadata": {
            "kind": "inline", "must_understand": false, "metadata": {
                "g": {"node_type": "group", "consolidated_metadata": {
                    "kind": "inline", "must_understand": false,
                    "metadata": {"w": {"node_type": "array"}}}},
                "v": {"node_type": "array"}}}});
        let mut meta = Map::new();
        assert!(inline_entries(&root, "", &mut meta));
        let keys: Vec<&String> = meta.keys().collect();
        assert_eq!(keys, ["g/w/zarr.json", "g/zarr.json", "v/zarr.json"]);
        let mut none = Map::new();
        let other = json!({"consolidated_metadata": {"kind": "external", "metadata": {}}});
        assert!(!inline_entries(&other, "", &mut none));
        assert!(!inline_entries(&json!({"zarr_format": 3}), "", &mut none));
    }
}
