//! [`ZarrReader`]: a Zarr or NCZarr store open for reading.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use kv::StoreKey;
use ncmodel::{Dataset, Format, GlobalSpecials, Values};
use serde_json::Value;
use store::{
    Access, RawBuffer, RemoteStores, StoreError, StoreReader, VarPath, ZarrFlavor, ZarrLocation,
    ZarrVersion,
};

use crate::error::{Result, ZarrError};
use crate::pure::Pure;
use crate::schema::{has_superblock, nczarr_group, Builder, VarEntry};
use crate::source::Source;
use crate::storage::Store;

/// A Zarr store (NCZarr, Zarr v2 or v3) open for reading.
pub struct ZarrReader {
    text: String,
    dataset: Dataset,
    /// The arrays of the variables, by full path (`/g/v`).
    vars: HashMap<String, VarEntry>,
    warnings: Vec<String>,
    left_out: Vec<String>,
    /// The metadata, kept while it comes from consolidated metadata: an array's own
    /// documents are compared with their copies the first time its data is read.
    consolidated: Option<Source>,
    /// The arrays compared so far, by node, with what was found stale.
    compared: Mutex<HashMap<StoreKey, Option<String>>>,
    /// What the store can hold and do, as read: its flavor and version.
    capabilities: store::Capabilities,
}

/// Whether a directory without a root document holds Zarr version 2 arrays or groups
/// directly below it (a `.zarray` or `.zgroup` one level down): xarray and other writers
/// leave the root's `.zgroup` out at times, and netCDF-C reads such a store as a group
/// (its `run_interop` test). A store that cannot list is not asked.
fn has_v2_children(store: &Store) -> Result<bool> {
    if !store.lists() {
        return Ok(false);
    }
    let root = StoreKey::root();
    for child in store.list_dir(&root)?.prefixes {
        let Ok(prefix) = root.child(&child) else {
            continue;
        };
        for document in [".zarray", ".zgroup"] {
            let key = crate::storage::child_key(&prefix, document, "a document")?;
            if store.contains(&key)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

impl ZarrReader {
    /// Opens the store `location` names (a remote one through `remote`) and reads its
    /// whole schema.
    pub fn open(location: &ZarrLocation, remote: &dyn RemoteStores) -> Result<Self, StoreError> {
        let context = format!("opening {}", location.text);
        let store = crate::storage::open_root(&location.root, Access::Read, remote, &context)?;
        Self::open_store(store, location)
    }

    /// Opens the store `store`, read as `location` says (its flavor and version; its
    /// root's name names a root array's variable; its text is for messages).
    pub fn open_store(store: Store, location: &ZarrLocation) -> Result<Self, StoreError> {
        let context = format!("opening {}", location.text);
        Self::open_inner(store, location).map_err(|e| e.into_store(context))
    }

    fn open_inner(store: Store, location: &ZarrLocation) -> Result<Self> {
        let rel = &StoreKey::root();
        let has = |name: &str| -> Result<bool> {
            let key = crate::storage::child_key(rel, name, "a document")?;
            Ok(store.contains(&key)?)
        };
        let v3 = location.version == ZarrVersion::V3 || has("zarr.json")?;
        let v2_marker = has(".zgroup")? || has(".zarray")? || has(".zmetadata")?;
        if !v3 && !v2_marker && !has_v2_children(&store)? {
            return Err(ZarrError::NotAStore(format!(
                "{} is not a Zarr store: it has no .zgroup, .zmetadata or zarr.json",
                store.describe(rel)
            )));
        }
        // On local disk every array's documents are compared with their consolidated
        // copies at once; in an object store, where each costs a request, when the
        // array's data is read.
        let local = matches!(
            location.root,
            store::StoreRoot::Directory(_) | store::StoreRoot::Zip(_)
        );
        let mut source = Source::open(store, location.consolidated(), v3, local)?;
        if v3 {
            refuse_prerelease_v3(&source)?;
        }
        let mut builder = Builder::default();
        // `mode=zarr` (or `xarray`, `noxarray`) reads pure Zarr, NCZarr keys or not, as
        // netCDF-C 4.10 does.
        let pure_asked = matches!(location.flavor, ZarrFlavor::Xarray | ZarrFlavor::NoXarray);
        let nczarr = !v3 && !pure_asked && has_superblock(&source)?;
        builder.nczarr = nczarr;
        let root_group = if nczarr {
            nczarr_group(&source, &mut builder, rel, &[], "/", &mut HashMap::new())?
        } else {
            // netCDF-C writes `_NCProperties` in the root of its pure Zarr stores too.
            let by_netcdf_c = !v3 && source.object(rel, ".zattrs")?.contains_key("_NCProperties");
            let pure = Pure {
                v3,
                named: location.flavor != ZarrFlavor::NoXarray,
                dialect: if by_netcdf_c {
                    crate::dtype::Dialect::NetcdfPure
                } else {
                    crate::dtype::Dialect::Pure
                },
            };
            let mut dims = Vec::new();
            let mut group = match root_array_name(&source, v3, location)? {
                Some(name) => pure.root_array(&source, &mut builder, &name, &mut dims)?,
                None => pure.group(&source, &mut builder, rel, &[], "/", &mut dims)?,
            };
            group.dims = dims;
            group
        };
        let root_is_array = !nczarr && root_array_name(&source, v3, location)?.is_some();
        let root_attrs = if root_is_array {
            None
        } else if v3 {
            source
                .json(rel, "zarr.json")?
                .and_then(|m| m.get("attributes").cloned())
        } else {
            source.json(rel, ".zattrs")?
        };
        let nc_properties = root_attrs
            .as_ref()
            .and_then(|a| a.get("_NCProperties"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let dataset = Dataset {
            format: Format::Netcdf4,
            is_nczarr: nczarr,
            specials: GlobalSpecials {
                nc_properties,
                superblock_version: Some(if nczarr { 2 } else { 0 }),
                is_netcdf4: None,
            },
            types: Vec::new(),
            root: root_group,
        };
        let mut warnings = std::mem::take(&mut source.warnings);
        warnings.extend(builder.warnings);
        Ok(Self {
            text: location.text.clone(),
            dataset,
            vars: builder
                .vars
                .into_values()
                .map(|entry| (entry.path.clone(), entry))
                .collect(),
            warnings,
            left_out: builder.left_out,
            consolidated: source.is_consolidated().then_some(source),
            compared: Mutex::new(HashMap::new()),
            capabilities: crate::capabilities(
                if nczarr {
                    ZarrFlavor::NcZarr
                } else {
                    ZarrFlavor::Xarray
                },
                if v3 { ZarrVersion::V3 } else { ZarrVersion::V2 },
            ),
        })
    }

    /// Fails when the documents of the array of `entry` are not the same as their copies
    /// in the consolidated metadata the schema was read from (compared once per array):
    /// its data would be read by the wrong metadata.
    fn check_consolidated(&self, entry: &VarEntry) -> Result<()> {
        let Some(source) = &self.consolidated else {
            return Ok(());
        };
        let node = &entry.meta.node;
        let mut compared = self
            .compared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let stale = match compared.get(node) {
            Some(stale) => stale.clone(),
            None => {
                let stale = source.stale_array(node)?;
                compared.insert(node.clone(), stale.clone());
                stale
            }
        };
        match stale {
            Some(problem) => Err(ZarrError::Corrupt(problem)),
            None => Ok(()),
        }
    }

    fn entry(&self, var: &VarPath) -> Result<&VarEntry> {
        self.vars
            .get(&var.to_string())
            .ok_or_else(|| ZarrError::Invalid(format!("no variable {var} in {}", self.text)))
    }
}

impl StoreReader for ZarrReader {
    fn path(&self) -> &str {
        &self.text
    }

    fn schema(&self) -> Result<Dataset, StoreError> {
        Ok(self.dataset.clone())
    }

    fn capabilities(&self) -> store::Capabilities {
        self.capabilities.clone()
    }

    fn read_slab(
        &self,
        _dataset: &Dataset,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, StoreError> {
        let context = || format!("{}: reading variable {var}", self.text);
        let entry = self.entry(var).map_err(|e| e.into_store(context()))?;
        self.check_consolidated(entry)
            .map_err(|e| e.into_store(context()))?;
        if entry.meta.dtype.atomic == ncmodel::AtomicType::String {
            // Strings cost what they hold: gathered chunk by chunk as strings, never as
            // a slab of elements of the declared width.
            return crate::vlen::read_string_slab(entry, start, count)
                .map_err(|e| e.into_store(context()));
        }
        let bytes =
            crate::read::read_slab(entry, start, count).map_err(|e| e.into_store(context()))?;
        Ok(crate::values::bytes_to_values(&bytes, &entry.meta.dtype))
    }

    fn read_raw(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        buffer: &mut RawBuffer,
    ) -> Result<(), StoreError> {
        let entry = self.entry(var).map_err(|e| e.into_store("reading"))?;
        let context = || format!("{}: reading variable {}", self.text, entry.path);
        self.check_consolidated(entry)
            .map_err(|e| e.into_store(context()))?;
        if entry.meta.dtype.atomic == ncmodel::AtomicType::String {
            let e = ZarrError::BadType("string variables cannot be read as raw bytes".into());
            return Err(e.into_store(context()));
        }
        let bytes =
            crate::read::read_slab(entry, start, count).map_err(|e| e.into_store(context()))?;
        buffer.resize(bytes.len());
        buffer.as_bytes_mut().copy_from_slice(&bytes);
        Ok(())
    }

    fn decoded_chunk_reader(
        &self,
        dataset: &Dataset,
        path: &VarPath,
    ) -> Option<Box<dyn store::DecodedChunkReader + '_>> {
        let entry = self.entry(path).ok()?;
        let (_, var) = dataset.var_at(path)?;
        // A stale consolidated copy is reported by the slab path, in its words.
        self.check_consolidated(entry).ok()?;
        let reader = crate::chunk_reader::ZarrChunkReader::new(entry, var, &self.text)?;
        Some(Box::new(reader))
    }

    fn filter_available(&self, id: u32) -> bool {
        crate::codec_available(id)
    }

    fn filter_remedy(&self) -> String {
        format!(
            "nctools decodes the Zarr codecs {} itself; others need a plugin pair in \
             HDF5_PLUGIN_PATH (the HDF5 filter plugin with its NCZarr codec library; \
             nctools --list-filters lists them)",
            crate::codec::available_list()
        )
    }

    fn unreadable_codecs(&self, var: &VarPath) -> Vec<String> {
        self.entry(var)
            .map(crate::read::unavailable_codecs)
            .unwrap_or_default()
    }

    fn is_netcdf4_attribute(&self) -> Option<i32> {
        Some(1)
    }

    fn stored_chunk_source(&self, var: &VarPath) -> Option<Box<dyn store::ChunkSource + '_>> {
        let entry = self.entry(var).ok()?;
        // Stale consolidated metadata fails the reads of the variable instead.
        self.check_consolidated(entry).ok()?;
        // Chunks whose bytes are not the variable's values in C order as netCDF reads
        // them (strings of variable length, half floats, permuted axes) or not the bytes
        // of its filters (a codec with no HDF5 filter) are decoded. A shard's inner
        // chunks are its chunks to netCDF, read through the shard's index.
        let meta = &entry.meta;
        let (codecs, transposed) = match &meta.sharding {
            Some(sharding) => (&sharding.inner.codecs, sharding.inner.transpose.is_some()),
            None => (&meta.codecs, meta.transpose.is_some()),
        };
        if meta.dtype.text == crate::dtype::Text::Vlen
            || meta.dtype.special == crate::dtype::Special::Half
            || transposed
            || meta.transpose.is_some()
            || !crate::codec::all_filters(codecs)
        {
            return None;
        }
        match &meta.sharding {
            Some(sharding) => Some(Box::new(crate::stored::ShardedChunks {
                meta: meta.clone(),
                sharding: (**sharding).clone(),
            })),
            None => Some(Box::new(crate::stored::ChunkFiles { meta: meta.clone() })),
        }
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn left_out(&self) -> Vec<String> {
        self.left_out.clone()
    }

    fn stored_sizes(&self, vars: &[VarPath]) -> Vec<Option<u64>> {
        vars.iter()
            .map(|path| {
                let entry = self.entry(path).ok()?;
                Some(chunk_bytes_stored(&entry.meta))
            })
            .collect()
    }
}

/// The name of the one variable of a store whose root is an array (zarr-python's
/// `zarr.save` and `open_array`, zarrs, most examples): the store's directory name
/// without `.zarr`, when that is a netCDF name, else `data`. `None` when the root is a
/// group. netCDF-C has no rule for such stores (its 4.9.0 ncdump prints an empty
/// dataset with the array's attributes as global ones).
fn root_array_name(source: &Source, v3: bool, location: &ZarrLocation) -> Result<Option<String>> {
    let root = StoreKey::root();
    let is_array = if v3 {
        source
            .json(&root, "zarr.json")?
            .is_some_and(|m| m.get("node_type").and_then(Value::as_str) == Some("array"))
    } else {
        source.json(&root, ".zarray")?.is_some() && source.json(&root, ".zgroup")?.is_none()
    };
    if !is_array {
        return Ok(None);
    }
    let name = location.root.last_name();
    let stem = name.strip_suffix(".zarr").unwrap_or(name);
    Ok(Some(if is_plain_name(stem) {
        stem.to_string()
    } else {
        "data".to_string()
    }))
}

/// Whether `name` can name a netCDF variable as it is: it starts with a letter, a digit,
/// `_` or a multi-byte character, holds no `/` or control character, and does not end
/// in a space.
fn is_plain_name(name: &str) -> bool {
    let Some(first) = name.chars().next() else {
        return false;
    };
    (first.is_alphanumeric() || first == '_' || !first.is_ascii())
        && !name.chars().any(|c| c == '/' || c.is_control())
        && !name.ends_with(' ')
}

/// Refuses a store in the layout of a pre-release of Zarr v3 (`zarr.json` whose
/// `zarr_format` is a URL, with `meta/root/...` documents), which no released Zarr
/// library reads; read as v3 it would look empty.
fn refuse_prerelease_v3(source: &Source) -> Result<()> {
    let root = source.json(&StoreKey::root(), "zarr.json")?;
    let format = root.as_ref().and_then(|m| m.get("zarr_format"));
    match format {
        None | Some(Value::Number(_)) => Ok(()),
        Some(other) => Err(ZarrError::Invalid(format!(
            "{} is in the layout of a pre-release of Zarr version 3 (zarr_format {other}, \
             metadata under meta/root/); nctools reads Zarr version 2 and the released \
             version 3 only: convert it with a Zarr library that still reads that layout",
            source.name()
        ))),
    }
}

/// The bytes of every chunk under an array's node (metadata documents, whose names
/// start with `.` or are `zarr.json`, and the arrays of nested v3 nodes excluded). A
/// directory reached twice (links between siblings) is counted once.
fn chunk_bytes_stored(meta: &crate::meta::ArrayMeta) -> u64 {
    let store = &meta.store;
    let mut total = 0;
    let mut visited = HashSet::new();
    let mut pending = vec![meta.node.clone()];
    while let Some(node) = pending.pop() {
        if store
            .identity(&node)
            .is_some_and(|place| !visited.insert(place))
        {
            continue;
        }
        let Ok(listing) = store.list_dir(&node) else {
            continue;
        };
        for name in listing.prefixes {
            let Ok(child) = node.child(&name) else {
                continue;
            };
            let nested_node = child
                .child("zarr.json")
                .is_ok_and(|k| store.contains(&k).unwrap_or(false));
            if !nested_node && child.depth() <= meta.node.depth() + 64 {
                pending.push(child);
            }
        }
        for name in listing.values {
            if name.starts_with('.') || name == "zarr.json" {
                continue;
            }
            if let Some(size) = node
                .child(&name)
                .ok()
                .and_then(|k| store.size(&k).ok().flatten())
            {
                total += size;
            }
        }
    }
    total
}
