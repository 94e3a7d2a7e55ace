//! Writing metadata: NCZarr exactly as netCDF-C 4.9.0 writes it, pure Zarr v2, or v3.

use std::collections::HashMap;

use codecs::zarr_codec::{V3_BYTES, V3_SHARDING_INDEXED};
use kv::{KeyValueStore, StoreKey};
use ncmodel::{Attribute, Dataset, Group};
use store::{ZarrFlavor, ZarrVersion};

use crate::attrs::attribute_json;
use crate::error::{Result, ZarrError};
use crate::json::J;
use crate::plan::PlannedVar;
use crate::values::bytes_to_values;

/// The `_NCProperties` written to NCZarr stores: netCDF-C 4.9.0's, so that the
/// reference tools print the same headers for our stores as for theirs.
pub const NC_PROPERTIES: &str = "version=2,netcdf=4.9.0,nczarr=2.0.0";

/// What the metadata writer needs.
pub struct MetaWriter<'a> {
    /// The dataset.
    pub dataset: &'a Dataset,
    /// Its variables, planned.
    pub vars: &'a [PlannedVar],
    /// Current dimension lengths by id.
    pub lens: &'a HashMap<i32, usize>,
    /// Conventions.
    pub flavor: ZarrFlavor,
    /// Whether arrays name their dimensions in `_ARRAY_DIMENSIONS` where the flavor
    /// allows it ([`store::location::ZarrLocation::dimension_names`]).
    pub dimension_names: bool,
    /// Zarr version.
    pub version: ZarrVersion,
    /// Whether consolidated metadata is written too: `.zmetadata` (version 2) or the
    /// root `zarr.json`'s `consolidated_metadata` (version 3).
    pub consolidated: bool,
}

/// A metadata document to write.
struct Document {
    /// Its key.
    key: StoreKey,
    /// Its content.
    json: J,
    /// How its text is laid out.
    style: Style,
}

/// How a document's text is laid out.
#[derive(Clone, Copy)]
enum Style {
    /// netCDF-C's (`{"k": v}`, `[a,b]`), for every version 2 document.
    Nczarr,
    /// zarr-python 3's `zarr.json` (two spaces per level).
    Pretty,
    /// zarr-python 2's `.zmetadata` (four spaces per level, ASCII).
    Python,
}

impl Document {
    fn text(&self) -> String {
        match self.style {
            Style::Nczarr => self.json.nczarr_text(),
            Style::Pretty => self.json.pretty_text(),
            Style::Python => self.json.python_text(),
        }
    }
}

/// Whether a store of `flavor` and `version` is written as NCZarr (netCDF-C's
/// conventions, Zarr v2 only) rather than pure Zarr.
pub fn writes_nczarr(flavor: ZarrFlavor, version: ZarrVersion) -> bool {
    matches!(flavor, ZarrFlavor::NcZarr | ZarrFlavor::Detect) && version == ZarrVersion::V2
}

/// Adds the metadata document `name` of the node `node` to `docs`.
fn write(docs: &mut Vec<Document>, node: &StoreKey, name: &str, json: J) -> Result<()> {
    let key = node
        .child(name)
        .map_err(|e| ZarrError::Invalid(e.to_string()))?;
    let style = if name == "zarr.json" {
        Style::Pretty
    } else {
        Style::Nczarr
    };
    docs.push(Document { key, json, style });
    Ok(())
}

/// The name under which a consolidated version 2 store holds every document.
pub const ZMETADATA: &str = ".zmetadata";

/// zarr-python 3's consolidated metadata of a version 3 group: `inline`, not to be
/// understood by every reader, with the documents of the nodes below by path.
fn inline_consolidated(metadata: Vec<(String, J)>) -> J {
    J::obj([
        ("kind", J::Str("inline".into())),
        ("must_understand", J::Bool(false)),
        ("metadata", J::Obj(metadata)),
    ])
}

/// Whether the document `json` is a version 3 group's `zarr.json`.
fn is_v3_group(json: &J) -> bool {
    matches!(json, J::Obj(members)
        if members.iter().any(|(k, v)| k == "node_type" && *v == J::Str("group".into())))
}

/// Adds the consolidated metadata of `docs` (every document of the store, the root's
/// last) to them, as zarr-python writes it: version 2 appends `.zmetadata`, zarr-python
/// 2's `{"metadata": {KEY: DOCUMENT, ...}, "zarr_consolidated_format": 1}` with the keys
/// sorted, so that it is the last key written; version 3 adds `consolidated_metadata` to
/// the root's `zarr.json` (already the last), zarr-python 3's inline form with each node's
/// `zarr.json` by path, and, as zarr-python 3 writes and needs to read them, an empty one
/// in each group's entry. zarr-python 2 also sorted the members of each document; they
/// keep their order here, since the order of a `.zattrs` is the order of the netCDF
/// attributes.
fn consolidate(docs: &mut Vec<Document>, version: ZarrVersion) -> Result<()> {
    if version == ZarrVersion::V2 {
        let mut metadata: Vec<(String, J)> = docs
            .iter()
            .map(|d| (d.key.as_str().to_string(), d.json.clone()))
            .collect();
        metadata.sort_by(|a, b| a.0.cmp(&b.0));
        let json = J::Obj(vec![
            ("metadata".into(), J::Obj(metadata)),
            ("zarr_consolidated_format".into(), J::int(1)),
        ]);
        return write(docs, &StoreKey::root(), ZMETADATA, json).map(|()| {
            if let Some(last) = docs.last_mut() {
                last.style = Style::Python;
            }
        });
    }
    let Some((root, below)) = docs.split_last_mut() else {
        return Ok(());
    };
    let mut metadata: Vec<(String, J)> = below
        .iter()
        .filter_map(|d| {
            let path = d.key.as_str().strip_suffix("/zarr.json")?;
            let mut json = d.json.clone();
            if let (true, J::Obj(members)) = (is_v3_group(&json), &mut json) {
                members.push((
                    "consolidated_metadata".into(),
                    inline_consolidated(Vec::new()),
                ));
            }
            Some((path.to_string(), json))
        })
        .collect();
    metadata.sort_by(|a, b| a.0.cmp(&b.0));
    match &mut root.json {
        J::Obj(members) if root.key.as_str() == "zarr.json" => {
            members.push((
                "consolidated_metadata".into(),
                inline_consolidated(metadata),
            ));
            Ok(())
        }
        _ => Err(ZarrError::Invalid(
            "the root group's zarr.json is not the last document".into(),
        )),
    }
}

/// The key of the group or variable `name` below `node`: a name that could name
/// anything outside its place in the store is refused (`what` says what it names).
pub fn node_key(node: &StoreKey, name: &str, what: &str) -> Result<StoreKey> {
    node.child(name).map_err(|e| {
        ZarrError::Invalid(format!(
            "the {what} {name:?} cannot be written to a Zarr store: {}",
            e.reason
        ))
    })
}

impl MetaWriter<'_> {
    /// netCDF-C 4.9.0's dtype for NCZarr (`<U1` for char); `|S1` for char in pure Zarr,
    /// where `<U1` means UTF-32. One-byte integers are `|i1` and `|u1`, numpy's spelling:
    /// zarr-python refuses 4.9.0's `<i1`, and netCDF-C reads both.
    fn v2_dtype(&self, var: &PlannedVar) -> String {
        use ncmodel::AtomicType as A;
        match var.dtype.atomic {
            A::String if var.dtype.text == crate::dtype::Text::Vlen => return "|O".into(),
            A::String => return var.dtype.v2_string(),
            A::Char if !self.nczarr() => return "|S1".into(),
            A::Byte => return "|i1".into(),
            A::UByte => return "|u1".into(),
            _ => {}
        }
        crate::dtype::Dtype::v2_name(var.dtype.atomic, var.dtype.big_endian).unwrap_or_default()
    }

    fn nczarr(&self) -> bool {
        writes_nczarr(self.flavor, self.version)
    }

    /// Writes the metadata of every group and variable into `store`, each node's own
    /// documents after those of the nodes below it, the root's last, and then the
    /// consolidated metadata when it is asked for.
    pub fn write_all(&self, store: &dyn KeyValueStore) -> Result<()> {
        let mut docs = Vec::new();
        self.group(
            &mut docs,
            &StoreKey::root(),
            &self.dataset.root,
            &mut Vec::new(),
        )?;
        if self.consolidated {
            consolidate(&mut docs, self.version)?;
        }
        for doc in &docs {
            store.set(&doc.key, doc.text().as_bytes())?;
        }
        Ok(())
    }

    fn dim_path(&self, id: i32) -> (String, bool, String) {
        fn find(g: &Group, id: i32, path: &str, root: bool) -> Option<(String, bool, String)> {
            if let Some(d) = g.dims.iter().find(|d| d.id == id) {
                return Some((format!("{path}/{}", d.name), root, d.name.clone()));
            }
            g.groups
                .iter()
                .find_map(|c| find(c, id, &format!("{path}/{}", c.name), false))
        }
        find(&self.dataset.root, id, "", true).unwrap_or_default()
    }

    fn len(&self, id: i32) -> usize {
        self.lens.get(&id).copied().unwrap_or(0)
    }

    fn group(
        &self,
        docs: &mut Vec<Document>,
        dir: &StoreKey,
        group: &Group,
        path: &mut Vec<String>,
    ) -> Result<()> {
        let is_root = path.is_empty();
        let owner = if is_root {
            "/".to_string()
        } else {
            format!("/{}", path.join("/"))
        };
        for var in self.vars.iter().filter(|v| v.group_path == *path) {
            let node = node_key(dir, &var.var.name, "variable")?;
            self.array(docs, &node, var, is_root)?;
        }
        for child in &group.groups {
            let node = node_key(dir, &child.name, "group")?;
            path.push(child.name.clone());
            self.group(docs, &node, child, path)?;
            path.pop();
        }
        // A group's own documents come after everything below it, the root's last: a
        // reader of a store being written (an object store, where nothing is renamed)
        // finds no node whose members are not there yet.
        let maxstrlen = crate::strings::default_maxstrlen(&self.dataset.root.atts);
        let mut atts = attributes(&group.atts, &owner, maxstrlen)?;
        if self.version == ZarrVersion::V3 {
            let text = J::Obj(vec![
                ("zarr_format".into(), J::int(3)),
                ("node_type".into(), J::Str("group".into())),
                ("attributes".into(), J::Obj(atts.0)),
            ]);
            write(docs, dir, "zarr.json", text)?;
        } else {
            let mut zgroup = vec![("zarr_format".to_string(), J::int(2))];
            if self.nczarr() {
                if is_root {
                    zgroup.push((
                        "_NCZARR_SUPERBLOCK".into(),
                        J::obj([("version", J::Str("2.0.0".into()))]),
                    ));
                }
                // netCDF-C 4.9.0 reads a dimension's length as a number only, and crashes
                // on netCDF-C 4.10's `{"size": N, "unlimited": 1}`; 4.10 reads
                // `dimensions` before `dims`. A group with an unlimited dimension gets
                // both: `dims` as numbers, which 4.9.0 reads as fixed lengths, and
                // `dimensions` in 4.10's form, which 4.10 and nctools read.
                let len = |d: &ncmodel::Dim| J::int(self.len(d.id) as u64);
                let mut content: Vec<(String, J)> = vec![(
                    "dims".into(),
                    J::Obj(
                        group
                            .dims
                            .iter()
                            .map(|d| (d.name.clone(), len(d)))
                            .collect(),
                    ),
                )];
                if group.dims.iter().any(|d| d.unlimited) {
                    let dims = group.dims.iter().map(|d| {
                        let unlimited = J::int(u64::from(d.unlimited));
                        (
                            d.name.clone(),
                            J::obj([("size", len(d)), ("unlimited", unlimited)]),
                        )
                    });
                    content.push(("dimensions".into(), J::Obj(dims.collect())));
                }
                let names = |v: Vec<String>| J::Arr(v.into_iter().map(J::Str).collect());
                content.push((
                    "vars".into(),
                    names(group.vars.iter().map(|v| v.name.clone()).collect()),
                ));
                content.push((
                    "groups".into(),
                    names(group.groups.iter().map(|g| g.name.clone()).collect()),
                ));
                zgroup.push(("_NCZARR_GROUP".into(), J::Obj(content)));
            }
            if is_root {
                atts.0
                    .push(("_NCProperties".into(), J::Str(NC_PROPERTIES.into())));
                atts.1.push(("_NCProperties".into(), J::Str("<U1".into())));
            }
            if !atts.0.is_empty() {
                if self.nczarr() {
                    atts.0
                        .push(("_NCZARR_ATTR".into(), types_json(atts.1, &group.atts)));
                }
                write(docs, dir, ".zattrs", J::Obj(atts.0))?;
            }
            // The document that makes the node a group, after its attributes.
            write(docs, dir, ".zgroup", J::Obj(zgroup))?;
        }
        Ok(())
    }

    fn array(
        &self,
        docs: &mut Vec<Document>,
        dir: &StoreKey,
        var: &PlannedVar,
        in_root: bool,
    ) -> Result<()> {
        let owner = format!(
            "/{}",
            var.group_path
                .iter()
                .chain([&var.var.name])
                .cloned()
                .collect::<Vec<_>>()
                .join("/")
        );
        let scalar = var.var.dim_ids.is_empty();
        let mut shape: Vec<usize> = var.var.dim_ids.iter().map(|d| self.len(*d)).collect();
        let dims: Vec<(String, bool, String)> =
            var.var.dim_ids.iter().map(|d| self.dim_path(*d)).collect();
        let string = var.dtype.atomic == ncmodel::AtomicType::String;
        // Byte strings' fill values are base64 in pure Zarr v2 (zarr-python refuses a
        // number for `|S1`); NCZarr keeps netCDF-C's forms.
        let char_v2 = var.dtype.atomic == ncmodel::AtomicType::Char
            && !self.nczarr()
            && self.version == ZarrVersion::V2;
        let vlen = var.dtype.text == crate::dtype::Text::Vlen;
        let fill = match string || char_v2 {
            true if var.no_fill && self.version != ZarrVersion::V3 => J::Null,
            // Strings of variable length: the fill string as is (zarr-python's form),
            // but netCDF's default ("") as xarray writes it in version 2, null, so that
            // xarray does not read empty strings as missing.
            true if vlen => {
                let fill = crate::strings::from_fixed(&var.fill);
                if fill.is_empty() && self.version == ZarrVersion::V2 {
                    J::Null
                } else {
                    J::Str(String::from_utf8_lossy(&fill).into_owned())
                }
            }
            true => crate::strings::fill_json(&var.fill, self.nczarr()),
            // netCDF-C writes char's fill in NCZarr as its text (`""` for NUL); 4.9.0
            // cannot open an array whose `<U1` fill is a number.
            false
                if var.dtype.atomic == ncmodel::AtomicType::Char
                    && self.nczarr()
                    && !var.no_fill =>
            {
                J::Str(
                    var.fill
                        .first()
                        .filter(|b| **b != 0)
                        .map(|b| char::from(*b).to_string())
                        .unwrap_or_default(),
                )
            }
            false => fill_json(var, self.nczarr()),
        };
        let ints = |v: &[usize]| J::Arr(v.iter().map(|n| J::int(*n as u64)).collect());
        let maxstrlen = crate::strings::var_maxstrlen(&self.dataset.root.atts, &var.var.atts);
        let (mut atts, types) = attributes(&var.var.atts, &owner, maxstrlen)?;
        if self.version == ZarrVersion::V3 {
            xarray_float_fill(&mut atts, var);
            if vlen {
                // xarray refuses a string `_FillValue` attribute in version 3 (it cannot
                // write one either); `fill_value` holds it, and is read back as it.
                atts.retain(|(name, _)| name != "_FillValue");
            }
            let (chunks, shape) = if scalar {
                (Vec::new(), Vec::new())
            } else {
                (var.stored_chunks(), shape)
            };
            let bytes_codec = J::obj([
                ("name", J::Str(V3_BYTES.into())),
                (
                    "configuration",
                    J::obj([(
                        "endian",
                        J::Str(
                            if var.dtype.big_endian {
                                "big"
                            } else {
                                "little"
                            }
                            .into(),
                        ),
                    )]),
                ),
            ]);
            // Byte strings have no byte order (zarr-python writes no configuration);
            // strings of variable length are serialized by `vlen-utf8` instead.
            let mut codecs = vec![if vlen {
                J::obj([
                    ("name", J::Str(crate::vlen::VLEN_UTF8.into())),
                    ("configuration", J::Obj(Vec::new())),
                ])
            } else if string {
                J::obj([("name", J::Str(V3_BYTES.into()))])
            } else {
                bytes_codec
            }];
            codecs.extend(var.codecs.iter().map(|c| {
                J::from_value(&codecs::zarr_codec::v3_codec_of_numcodecs(
                    c,
                    var.dtype.size,
                ))
            }));
            if var.shard.is_some() && !scalar {
                codecs = vec![sharding_codec(&var.chunks, codecs)];
            }
            let mut members = vec![
                ("zarr_format".to_string(), J::int(3)),
                ("node_type".into(), J::Str("array".into())),
                ("shape".into(), ints(&shape)),
                ("data_type".into(), v3_data_type(var)),
                (
                    "chunk_grid".into(),
                    J::obj([
                        ("name", J::Str("regular".into())),
                        ("configuration", J::obj([("chunk_shape", ints(&chunks))])),
                    ]),
                ),
                (
                    "chunk_key_encoding".into(),
                    J::obj([
                        ("name", J::Str("default".into())),
                        ("configuration", J::obj([("separator", J::Str("/".into()))])),
                    ]),
                ),
                (
                    "fill_value".into(),
                    if matches!(fill, J::Null) {
                        // Version 3 has no null fill value: the variable's own.
                        stored_fill(var)
                    } else {
                        fill
                    },
                ),
                ("codecs".into(), J::Arr(codecs)),
                ("attributes".into(), J::Obj(atts)),
            ];
            members.push((
                "dimension_names".into(),
                J::Arr(dims.into_iter().map(|d| J::Str(d.2)).collect()),
            ));
            return write(docs, dir, "zarr.json", J::Obj(members));
        }
        if scalar {
            shape = vec![1];
        }
        let (mut filters, compressor) = match var.codecs.split_last() {
            None => (Vec::new(), J::Null),
            Some((last, rest)) => (
                rest.iter().map(J::from_value).collect(),
                J::from_value(last),
            ),
        };
        if vlen {
            // numcodecs' object codec comes first among the filters.
            filters.insert(0, J::obj([("id", J::Str(crate::vlen::VLEN_UTF8.into()))]));
        }
        let filters = if filters.is_empty() {
            J::Null
        } else {
            J::Arr(filters)
        };
        let mut zarray = vec![
            ("zarr_format".to_string(), J::int(2)),
            ("shape".into(), ints(&shape)),
            ("dtype".into(), J::Str(self.v2_dtype(var))),
            ("chunks".into(), ints(&var.chunks)),
            ("fill_value".into(), fill),
            ("order".into(), J::Str("C".into())),
            ("compressor".into(), compressor),
            ("filters".into(), filters),
        ];
        let xarray = self.dimension_names
            && match self.flavor {
                ZarrFlavor::NoXarray => false,
                ZarrFlavor::Xarray => true,
                _ => in_root && dims.iter().all(|d| d.1),
            };
        if self.nczarr() {
            let refs = J::Arr(dims.iter().map(|d| J::Str(d.0.clone())).collect());
            let storage = J::Str(if scalar { "scalar" } else { "chunked" }.into());
            zarray.push((
                "_NCZARR_ARRAY".into(),
                J::obj([("dimrefs", refs), ("storage", storage)]),
            ));
        }
        if xarray {
            // A scalar is an array of one value in version 2; netCDF-C 4.10 names its
            // dimension `_scalar_` (xarray refuses an array without a name per axis).
            let names = if scalar {
                vec![J::Str(crate::pure::SCALAR_DIM.into())]
            } else {
                dims.into_iter().map(|d| J::Str(d.2)).collect()
            };
            atts.push(("_ARRAY_DIMENSIONS".into(), J::Arr(names)));
        }
        if self.nczarr() && !atts.is_empty() {
            atts.push(("_NCZARR_ATTR".into(), types_json(types, &var.var.atts)));
        }
        if !atts.is_empty() {
            write(docs, dir, ".zattrs", J::Obj(atts))?;
        }
        // The document that makes the node an array, after its attributes.
        write(docs, dir, ".zarray", J::Obj(zarray))
    }
}

type Members = Vec<(String, J)>;

/// The `sharding_indexed` codec of shards of inner chunks of `inner_chunks`, encoded
/// with `inner_codecs`: the index little-endian and checksummed, at the shard's end
/// (zarr-python's defaults; see `wshard::sharding_of`).
fn sharding_codec(inner_chunks: &[usize], inner_codecs: Vec<J>) -> J {
    let checksum =
        serde_json::json!({ "id": codecs::registry::shard_index_checksum().numcodecs_id });
    let index_codecs = J::Arr(vec![
        J::obj([
            ("name", J::Str(V3_BYTES.into())),
            (
                "configuration",
                J::obj([("endian", J::Str("little".into()))]),
            ),
        ]),
        J::from_value(&codecs::zarr_codec::v3_codec_of_numcodecs(&checksum, 8)),
    ]);
    J::obj([
        ("name", J::Str(V3_SHARDING_INDEXED.into())),
        (
            "configuration",
            J::obj([
                (
                    "chunk_shape",
                    J::Arr(inner_chunks.iter().map(|n| J::int(*n as u64)).collect()),
                ),
                ("codecs", J::Arr(inner_codecs)),
                ("index_codecs", index_codecs),
                ("index_location", J::Str("end".into())),
            ]),
        ),
    ])
}

/// The Zarr v3 `data_type` of a variable: a fixed-length string is zarr-python's
/// `null_terminated_bytes` of its maximum length (numpy's `S`, as in Zarr v2).
fn v3_data_type(var: &PlannedVar) -> J {
    if var.dtype.text == crate::dtype::Text::Vlen {
        return J::Str("string".into());
    }
    match crate::dtype::Dtype::v3_name(var.dtype.atomic) {
        Some(name) => J::Str(name.into()),
        None => J::obj([
            ("name", J::Str("null_terminated_bytes".into())),
            (
                "configuration",
                J::obj([("length_bytes", J::int(var.dtype.size as u64))]),
            ),
        ]),
    }
}

/// The attributes' JSON values and NCZarr types; string attributes are typed by
/// `maxstrlen`, their container's maximum string length.
fn attributes(atts: &[Attribute], owner: &str, maxstrlen: usize) -> Result<(Members, Members)> {
    let mut values = Vec::new();
    let mut types = Vec::new();
    for att in atts {
        let (value, dtype) = attribute_json(att, owner, maxstrlen)?;
        values.push((att.name.clone(), value));
        types.push((att.name.clone(), J::Str(dtype)));
    }
    Ok((values, types))
}

/// A float or double `_FillValue` in the form xarray reads from Zarr v3 attributes
/// (base64 of a little-endian 8-byte float); xarray fails on a plain number there.
fn xarray_float_fill(atts: &mut Members, var: &PlannedVar) {
    use ncmodel::AtomicType as A;
    if !matches!(var.dtype.atomic, A::Float | A::Double) {
        return;
    }
    let Some(att) = var.var.atts.iter().find(|a| a.name == "_FillValue") else {
        return;
    };
    let number = match &att.values {
        ncmodel::Values::Float(v) => v.first().map(|f| f64::from(*f)),
        ncmodel::Values::Double(v) => v.first().copied(),
        _ => None,
    };
    if let (Some(number), Some(slot)) = (number, atts.iter_mut().find(|(n, _)| n == "_FillValue")) {
        slot.1 = J::Str(crate::attrs::xarray_fill_text(number));
    }
}

/// NCZarr's `_nczarr_attr`: the attributes' types, and the char attributes of `atts`
/// written as Latin-1 text because their bytes are not UTF-8.
fn types_json(types: Members, atts: &[Attribute]) -> J {
    let mut members = Vec::new();
    if !types.is_empty() {
        members.push(("types".into(), J::Obj(types)));
    }
    let latin1: Vec<J> = latin1_attributes(atts)
        .map(|att| J::Str(att.name.clone()))
        .collect();
    if !latin1.is_empty() {
        members.push((crate::attrs::LATIN1_KEY.into(), J::Arr(latin1)));
    }
    J::Obj(members)
}

/// The char attributes of `atts` whose bytes are not UTF-8.
fn latin1_attributes(atts: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    atts.iter().filter(
        |att| matches!(&att.values, ncmodel::Values::Char(bytes) if crate::attrs::needs_latin1(bytes)),
    )
}

/// One warning per char attribute of `group` (and below) whose bytes are not UTF-8, for
/// a pure Zarr store: its text is written as Latin-1 (one character per byte), which a
/// reader takes for the characters, not for the bytes; NCZarr marks such attributes and
/// keeps the bytes.
pub fn latin1_warnings(group: &Group, path: &str) -> Vec<String> {
    let owner = if path.is_empty() { "/" } else { path };
    let mut warnings: Vec<String> = latin1_attributes(&group.atts)
        .map(|att| latin1_warning(owner, &att.name))
        .collect();
    for var in &group.vars {
        let owner = format!("{path}/{}", var.name);
        warnings.extend(latin1_attributes(&var.atts).map(|att| latin1_warning(&owner, &att.name)));
    }
    for child in &group.groups {
        warnings.extend(latin1_warnings(child, &format!("{path}/{}", child.name)));
    }
    warnings
}

/// Warnings for the unlimited dimensions of `group` (at `path`, `""` for the root) and
/// of the groups below it: pure Zarr has no place for UNLIMITED (netCDF-C 4.10 and
/// nctools read every dimension of a pure Zarr store as fixed, in name order).
pub fn unlimited_warnings(group: &Group, path: &str) -> Vec<String> {
    let mut warnings: Vec<String> = group
        .dims
        .iter()
        .filter(|dim| dim.unlimited)
        .map(|dim| {
            format!(
                "dimension {path}/{} is UNLIMITED, which pure Zarr has no place for: the \
                 store can be appended to along it, but a copy back to netCDF makes it a \
                 fixed dimension; write NCZarr version 2 (#mode=nczarr, the default) to keep it",
                dim.name
            )
        })
        .collect();
    for child in &group.groups {
        warnings.extend(unlimited_warnings(child, &format!("{path}/{}", child.name)));
    }
    warnings
}

fn latin1_warning(owner: &str, name: &str) -> String {
    format!(
        "attribute {owner}:{name} is not UTF-8 text: written as Latin-1 (each byte one \
         character), which readers of this pure Zarr store see as characters, not the \
         original bytes; write NCZarr (#mode=nczarr) to keep every byte"
    )
}

/// The variable's fill value as its attribute would be written.
fn first_fill(var: &PlannedVar) -> J {
    let values = bytes_to_values(&var.fill, &var.dtype);
    attribute_json(
        &Attribute {
            name: String::new(),
            type_ref: var.var.type_ref,
            values,
        },
        "",
        var.dtype.size,
    )
    .map(|j| j.0)
    .unwrap_or(J::int(0))
}

/// The array's `fill_value`: null for a variable written without fill values (NCZarr's
/// record of `_NoFill`), else its fill value. In pure Zarr, which has no `_NoFill`, a
/// variable with a `_FillValue` has it as its `fill_value` whatever its fill mode: xarray
/// reads `fill_value` as the mask, typed by the dtype (a float32 compares equal), where
/// the attribute's JSON number is a double that leaves `1e20f` unmasked.
fn fill_json(var: &PlannedVar, nczarr: bool) -> J {
    let has_fill_attribute = var.var.atts.iter().any(|a| a.name == "_FillValue");
    if var.no_fill && (nczarr || !has_fill_attribute) {
        return J::Null;
    }
    stored_fill(var)
}

/// The fill value as the array's data type holds it: char's fill byte as a number (char
/// is stored as bytes, `uint8` in Zarr version 3), other types as their attribute would be.
fn stored_fill(var: &PlannedVar) -> J {
    if var.dtype.atomic == ncmodel::AtomicType::Char {
        // The fill byte's number, whatever its text would be.
        return J::int(u32::from(var.fill.first().copied().unwrap_or(0)));
    }
    first_fill(var)
}

#[cfg(test)]
mod tests {
    use kv::ReadableStore;
    use std::sync::Mutex;

    use kv::{Listing, MemoryStore, StorageError};
    use ncmodel::{AtomicType, Dim, Format, GlobalSpecials, TypeRef, Values, Var};

    use super::*;

    /// A memory store that notes the order in which keys are written.
    #[derive(Debug, Default)]
    struct Recording {
        inner: MemoryStore,
        order: Mutex<Vec<String>>,
    }

    impl ReadableStore for Recording {
        fn describe(&self, key: &StoreKey) -> String {
            self.inner.describe(key)
        }

        fn get(&self, key: &StoreKey, cap: u64) -> Result<Option<Vec<u8>>, StorageError> {
            self.inner.get(key, cap)
        }

        fn get_range(
            &self,
            key: &StoreKey,
            offset: u64,
            length: u64,
        ) -> Result<Option<Vec<u8>>, StorageError> {
            self.inner.get_range(key, offset, length)
        }

        fn size(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
            self.inner.size(key)
        }
    }

    impl kv::ListableStore for Recording {
        fn list_dir(&self, prefix: &StoreKey) -> Result<Listing, StorageError> {
            self.inner.list_dir(prefix)
        }
    }

    impl kv::WritableStore for Recording {
        fn set(&self, key: &StoreKey, value: &[u8]) -> Result<(), StorageError> {
            if let Ok(mut order) = self.order.lock() {
                order.push(key.as_str().to_string());
            }
            self.inner.set(key, value)
        }
    }

    fn dataset() -> Dataset {
        let var = |id: i32, name: &str, atts: Vec<Attribute>| Var {
            id,
            name: name.into(),
            type_ref: TypeRef::Atomic(AtomicType::Char),
            dim_ids: vec![0],
            atts,
            storage: None,
        };
        let latin1 = Attribute {
            name: "units".into(),
            type_ref: TypeRef::Atomic(AtomicType::Char),
            values: Values::Char(b"deg\xb0C".to_vec()),
        };
        let child = Group {
            name: "g".into(),
            vars: vec![var(1, "w", Vec::new())],
            ..Group::default()
        };
        let root = Group {
            name: "/".into(),
            dims: vec![Dim {
                id: 0,
                name: "x".into(),
                len: 2,
                unlimited: false,
            }],
            vars: vec![var(0, "v", vec![latin1])],
            groups: vec![child],
            ..Group::default()
        };
        Dataset {
            format: Format::Netcdf4,
            is_nczarr: false,
            specials: GlobalSpecials::default(),
            types: Vec::new(),
            root,
        }
    }

    /// Every node's own document (`.zgroup`, `.zarray`, `zarr.json`) is written after
    /// everything below it and after its attributes, the root's last: the order an
    /// object store needs for a reader never to find a node before its members. The
    /// consolidated `.zmetadata` comes after all of them.
    #[test]
    fn documents_are_written_last() -> Result<()> {
        let dataset = dataset();
        let vars = crate::plan::plan(&dataset, false, false, &Default::default())?;
        let lens = HashMap::from([(0, 2)]);
        for consolidated in [false, true] {
            for (flavor, version, marks) in [
                (ZarrFlavor::NcZarr, ZarrVersion::V2, [".zgroup", ".zarray"]),
                (
                    ZarrFlavor::Xarray,
                    ZarrVersion::V3,
                    ["zarr.json", "zarr.json"],
                ),
            ] {
                let store = Recording::default();
                MetaWriter {
                    dataset: &dataset,
                    vars: &vars,
                    lens: &lens,
                    flavor,
                    dimension_names: true,
                    version,
                    consolidated,
                }
                .write_all(&store)?;
                let mut order = store.order.lock().map(|o| o.clone()).unwrap_or_default();
                if consolidated && version == ZarrVersion::V2 {
                    assert_eq!(order.pop().as_deref(), Some(ZMETADATA), "{order:?}");
                }
                assert!(!order.iter().any(|k| k == ZMETADATA), "{order:?}");
                assert_eq!(
                    order.last().map(String::as_str),
                    Some(marks[0]),
                    "{order:?}"
                );
                for (i, key) in order.iter().enumerate() {
                    let Some(node) = marks.iter().find_map(|m| key.strip_suffix(m)) else {
                        continue;
                    };
                    let below: Vec<&String> = order[i + 1..]
                        .iter()
                        .filter(|k| k.starts_with(node))
                        .collect();
                    assert!(below.is_empty(), "{key} is written before {below:?}");
                }
            }
        }
        Ok(())
    }

    /// The consolidated metadata holds every other document, as written: `.zmetadata`
    /// by key (version 2), the root `zarr.json`'s `consolidated_metadata` by node path,
    /// an empty one in each group's entry (version 3).
    #[test]
    fn consolidated_metadata_holds_every_document() -> Result<()> {
        let dataset = dataset();
        let vars = crate::plan::plan(&dataset, false, false, &chunkspec::ShardSpecs::default())?;
        let lens = HashMap::from([(0, 2)]);
        let parse = |store: &MemoryStore, key: &str| -> Result<serde_json::Value> {
            let key = StoreKey::parse(key).map_err(|e| ZarrError::Invalid(e.to_string()))?;
            let bytes = store.get(&key, 1 << 20)?.unwrap_or_default();
            crate::json::parse(&String::from_utf8_lossy(&bytes), "t")
        };
        for version in [ZarrVersion::V2, ZarrVersion::V3] {
            let store = MemoryStore::new();
            MetaWriter {
                dataset: &dataset,
                vars: &vars,
                lens: &lens,
                flavor: ZarrFlavor::NcZarr,
                dimension_names: true,
                version,
                consolidated: true,
            }
            .write_all(&store)?;
            if version == ZarrVersion::V2 {
                let all = parse(&store, ZMETADATA)?;
                assert_eq!(all["zarr_consolidated_format"], 1);
                let keys: Vec<&String> = all["metadata"]
                    .as_object()
                    .map(|m| m.keys().collect())
                    .unwrap_or_default();
                assert_eq!(
                    keys,
                    [
                        ".zattrs",
                        ".zgroup",
                        "g/.zgroup",
                        "g/w/.zarray",
                        "v/.zarray",
                        "v/.zattrs"
                    ]
                );
                for key in keys {
                    assert_eq!(all["metadata"][key], parse(&store, key)?, "{key}");
                }
            } else {
                let root = parse(&store, "zarr.json")?;
                let consolidated = &root["consolidated_metadata"];
                assert_eq!(consolidated["kind"], "inline");
                assert_eq!(consolidated["must_understand"], false);
                let metadata = &consolidated["metadata"];
                assert_eq!(metadata["v"], parse(&store, "v/zarr.json")?);
                assert_eq!(metadata["g/w"], parse(&store, "g/w/zarr.json")?);
                let mut group = parse(&store, "g/zarr.json")?;
                group["consolidated_metadata"] = serde_json::json!(
                    {"kind": "inline", "must_understand": false, "metadata": {}}
                );
                assert_eq!(metadata["g"], group);
                assert_eq!(metadata.as_object().map(|m| m.len()), Some(3));
            }
        }
        Ok(())
    }

    /// A char attribute that is not UTF-8 is written as Latin-1 text and named in
    /// `_nczarr_attr`, and reads back as the same bytes.
    #[test]
    fn latin1_attributes_read_back_as_their_bytes() -> Result<()> {
        let dataset = dataset();
        let vars = crate::plan::plan(&dataset, false, false, &Default::default())?;
        let store = MemoryStore::new();
        MetaWriter {
            dataset: &dataset,
            vars: &vars,
            lens: &HashMap::from([(0, 2)]),
            flavor: ZarrFlavor::NcZarr,
            dimension_names: true,
            version: ZarrVersion::V2,
            consolidated: false,
        }
        .write_all(&store)?;
        let key = StoreKey::parse("v/.zattrs").map_err(|e| ZarrError::Invalid(e.to_string()))?;
        let text = store.get(&key, 1 << 20)?.unwrap_or_default();
        let value = crate::json::parse(&String::from_utf8_lossy(&text), "t")?;
        assert_eq!(value["units"], "deg\u{b0}C");
        assert_eq!(value["_NCZARR_ATTR"][crate::attrs::LATIN1_KEY][0], "units");
        let map = value.as_object().cloned().unwrap_or_default();
        let atts = crate::attrs::read_attributes(&map, "/v", None)?;
        assert_eq!(atts[0].values, Values::Char(b"deg\xb0C".to_vec()));
        assert_eq!(
            latin1_warnings(&dataset.root, ""),
            vec![latin1_warning("/v", "units")]
        );
        Ok(())
    }
}
