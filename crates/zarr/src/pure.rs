//! The schema of a pure Zarr store (v2 from zarr-python or xarray, or v3): groups and
//! arrays found by listing, dimensions named by `_ARRAY_DIMENSIONS` (v2) or
//! `dimension_names` (v3), all defined in the root group as netCDF-C does; axes without a
//! name get netCDF-C 4.10's anonymous dimension `_Anonymous_Dim_<len>` (4.9.0 named it
//! `_zdim_<len>`).

use ncmodel::{AtomicType, Dim, Group};
use std::collections::HashMap;

use kv::StoreKey;
use serde_json::{Map, Value};

use crate::attrs::read_attributes;
use crate::error::{Result, ZarrError};
use crate::meta::ArrayMeta;
use crate::schema::{full_path, Builder};
use crate::source::Source;
use crate::storage::child_key;

/// The prefix of anonymous dimensions' names: netCDF-C 4.10's `_Anonymous_Dim_` (its
/// `NCDIMANON`; 4.9.0 used `_zdim_`, a defect 4.10 fixed).
pub const ANONYMOUS_DIM: &str = "_Anonymous_Dim_";

/// The one dimension name that marks a netCDF scalar stored as an array of one value,
/// as netCDF-C 4.10 writes scalars in pure Zarr (its `XARRAYSCALAR`). Read back, it is a
/// dimension of length 1, as 4.10 reads it.
pub const SCALAR_DIM: &str = "_scalar_";

/// Where an array is: its node, its variable's name, the groups above it, and its
/// (group id, variable id).
struct ArrayAt<'a> {
    node: &'a StoreKey,
    name: &'a str,
    parents: &'a [String],
    ids: (i32, i32),
}

/// Where the dimensions an array names are defined: in its own group, as netCDF-C 4.10
/// defines the names of `_ARRAY_DIMENSIONS` (and xarray, which opens one group at a
/// time, sees them); anonymous dimensions go into the root group, shared by length.
struct DimScope<'a> {
    /// The root group's dimensions.
    root: &'a mut Vec<Dim>,
    /// The array's group's own dimensions and their index by name; `None` in the root.
    own: Option<(&'a mut Vec<Dim>, &'a mut HashMap<String, usize>)>,
}

/// Options of a pure store's reading.
pub struct Pure {
    /// Zarr version 3 (`zarr.json`) rather than 2.
    pub v3: bool,
    /// Whether dimension names are taken from the store.
    pub named: bool,
    /// Who wrote the store (v2: netCDF-C, whose `<U1` is one byte per char, or not).
    pub dialect: crate::dtype::Dialect,
}

impl Pure {
    /// Reads the group at `rel` and below; dims are collected in `root_dims`.
    pub fn group(
        &self,
        source: &Source,
        builder: &mut Builder,
        rel: &StoreKey,
        parents: &[String],
        name: &str,
        root_dims: &mut Vec<Dim>,
    ) -> Result<Group> {
        builder.count_node(rel, source)?;
        let ncid = builder.next_ncid;
        builder.next_ncid += 1;
        let is_root = rel.is_root();
        let owner = if is_root {
            "/".to_string()
        } else {
            full_path(parents, name)
        };
        let mut group = Group {
            ncid,
            name: name.to_string(),
            ..Group::default()
        };
        let (attrs, _) = self.node(source, rel)?;
        group.atts = read_attributes(&attrs, &owner, None)?;
        let my_parents: Vec<String> = if is_root {
            Vec::new()
        } else {
            parents.iter().cloned().chain([name.to_string()]).collect()
        };
        let markers: &[&str] = if self.v3 {
            &["zarr.json"]
        } else {
            &[".zarray"]
        };
        let mut var_id = 0;
        let mut own_dims = Vec::new();
        let mut own_index = HashMap::new();
        for child in source.children(rel, markers)? {
            let child_rel = child_key(rel, &child, "the store holds a node named")?;
            builder.count_node(&child_rel, source)?;
            let at = ArrayAt {
                node: &child_rel,
                name: &child,
                parents: &my_parents,
                ids: (ncid, var_id),
            };
            let mut scope = DimScope {
                root: &mut *root_dims,
                own: (!is_root).then_some((&mut own_dims, &mut own_index)),
            };
            if let Some(var) = self.array(source, builder, &at, &mut scope)? {
                group.vars.push(var);
                var_id += 1;
            }
        }
        group.dims = own_dims;
        let group_markers: &[&str] = if self.v3 {
            &["zarr.json"]
        } else {
            &[".zgroup"]
        };
        for child in source.children(rel, group_markers)? {
            let child_rel = child_key(rel, &child, "the store holds a node named")?;
            if self.v3 {
                let meta = source.json(&child_rel, "zarr.json")?;
                if meta.and_then(|m| m.get("node_type").cloned()) != Some(Value::from("group")) {
                    continue;
                }
            }
            let g = self.group(source, builder, &child_rel, &my_parents, &child, root_dims)?;
            group.groups.push(g);
        }
        Ok(group)
    }

    /// The variable of the array at `at`; `None` when the node is not an array.
    fn array(
        &self,
        source: &Source,
        builder: &mut Builder,
        at: &ArrayAt<'_>,
        dims: &mut DimScope<'_>,
    ) -> Result<Option<ncmodel::Var>> {
        let (attrs, meta_json) = self.node(source, at.node)?;
        let Some(meta_json) = meta_json else {
            return Ok(None);
        };
        if self.v3 && meta_json.get("node_type").and_then(Value::as_str) != Some("array") {
            return Ok(None);
        }
        let path = full_path(at.parents, at.name);
        let meta = if self.v3 {
            ArrayMeta::from_v3(&meta_json, &source.store, at.node)
        } else {
            ArrayMeta::from_v2(&meta_json, &source.store, at.node, self.dialect)
        };
        let Some(meta) = builder.readable(&path, meta)? else {
            return Ok(None);
        };
        let names = if self.v3 {
            meta_json.get("dimension_names").cloned()
        } else {
            attrs.get("_ARRAY_DIMENSIONS").cloned()
        };
        let dim_ids = self.dims_of(&meta.shape, names.as_ref(), dims, builder, &path)?;
        let fill_attribute = self.xarray_fill_value(&meta, &attrs);
        let mut var = builder.add_var(at.ids, at.name, path, meta, &attrs, dim_ids)?;
        if let Some(fill) = fill_attribute {
            var.atts.insert(0, fill);
        }
        Ok(Some(var))
    }

    /// The `_FillValue` an array written by xarray means without saying it: in Zarr
    /// version 2, xarray writes a variable's `_FillValue` as the array's `fill_value` and
    /// no attribute, and reads any non-null `fill_value` back as `_FillValue` (its
    /// missing-value mask). So an array that follows xarray's convention
    /// (`_ARRAY_DIMENSIONS`), with no `_FillValue` attribute, a number type and a
    /// non-null `fill_value` other than NaN, gets it as `_FillValue`. netCDF-C's own pure Zarr stores
    /// (`_NCProperties` in the root) write the attribute where there is one, and are read
    /// as they are.
    fn xarray_fill_value(
        &self,
        meta: &ArrayMeta,
        attrs: &Map<String, Value>,
    ) -> Option<ncmodel::Attribute> {
        let xarray = !self.v3
            && self.dialect == crate::dtype::Dialect::Pure
            && attrs.contains_key("_ARRAY_DIMENSIONS")
            && !attrs.contains_key("_FillValue");
        let atomic = meta.dtype.atomic;
        let number = !matches!(atomic, AtomicType::Char | AtomicType::String)
            && meta.dtype.cf_units().is_none();
        let fill = meta.fill.as_ref().filter(|_| xarray && number)?;
        let values = crate::values::bytes_to_values(fill, &meta.dtype);
        // NaN, xarray's default for floats, masks nothing a reader would not see as NaN
        // anyway: no attribute, and the store reads as netCDF-C 4.10 reads it.
        if values.number_at(0).is_some_and(f64::is_nan) {
            return None;
        }
        Some(ncmodel::Attribute {
            name: "_FillValue".to_string(),
            type_ref: ncmodel::TypeRef::Atomic(atomic),
            values,
        })
    }

    /// The root group of a store whose root is an array: one variable, `name`, with
    /// the array's attributes.
    pub fn root_array(
        &self,
        source: &Source,
        builder: &mut Builder,
        name: &str,
        root_dims: &mut Vec<Dim>,
    ) -> Result<Group> {
        let root = StoreKey::root();
        builder.count_node(&root, source)?;
        let ncid = builder.next_ncid;
        builder.next_ncid += 1;
        let at = ArrayAt {
            node: &root,
            name,
            parents: &[],
            ids: (ncid, 0),
        };
        let mut scope = DimScope {
            root: root_dims,
            own: None,
        };
        let vars = self.array(source, builder, &at, &mut scope)?;
        Ok(Group {
            ncid,
            name: "/".to_string(),
            vars: vars.into_iter().collect(),
            ..Group::default()
        })
    }

    /// A node's attributes and its array metadata (v2 `.zarray` or v3 `zarr.json`).
    fn node(&self, source: &Source, rel: &StoreKey) -> Result<(Map<String, Value>, Option<Value>)> {
        if self.v3 {
            let meta = source.json(rel, "zarr.json")?;
            let attrs = meta
                .as_ref()
                .and_then(|m| m.get("attributes"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            Ok((attrs, meta))
        } else {
            Ok((source.object(rel, ".zattrs")?, source.json(rel, ".zarray")?))
        }
    }

    fn dims_of(
        &self,
        shape: &[usize],
        names: Option<&Value>,
        scope: &mut DimScope<'_>,
        builder: &mut Builder,
        path: &str,
    ) -> Result<Vec<i32>> {
        let names: Vec<Option<String>> = match names.and_then(Value::as_array) {
            Some(list) if self.named && list.len() == shape.len() => list
                .iter()
                .map(|n| n.as_str().map(str::to_string))
                .collect(),
            _ => vec![None; shape.len()],
        };
        if builder.root_dim_index.len() != scope.root.len() {
            builder.root_dim_index = scope
                .root
                .iter()
                .enumerate()
                .map(|(at, d)| (d.name.clone(), at))
                .collect();
        }
        let mut ids = Vec::new();
        for (len, name) in shape.iter().zip(names) {
            let (name, dims, index) = match (name, scope.own.as_mut()) {
                (Some(name), Some((dims, index))) => (name, &mut **dims, &mut **index),
                (name, _) => (
                    name.unwrap_or_else(|| format!("{ANONYMOUS_DIM}{len}")),
                    &mut *scope.root,
                    &mut builder.root_dim_index,
                ),
            };
            let known = index.get(&name).and_then(|&at| dims.get(at));
            let id = match known {
                Some(d) if d.len == *len => d.id,
                Some(d) => {
                    return Err(ZarrError::Corrupt(format!(
                        "variable {path}: dimension {name} has length {len} here but {} \
                         elsewhere; read the store with mode=noxarray to ignore the names",
                        d.len
                    )))
                }
                None => {
                    let id = builder.next_dim;
                    builder.next_dim += 1;
                    index.insert(name.clone(), dims.len());
                    dims.push(Dim {
                        id,
                        name,
                        len: *len,
                        unlimited: false,
                    });
                    id
                }
            };
            ids.push(id);
        }
        Ok(ids)
    }
}
