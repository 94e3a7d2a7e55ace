//! [`ZarrWriter`]: a Zarr store being written: under a temporary name on a local disk,
//! in place in an object store (which cannot rename), metadata last either way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use kv::StoreKey;
use ncmodel::{Dataset, Format, Layout, Values};
use store::{
    Access, ChunkFeed, ChunkWrite, RawBuffer, RemoteStores, StoreError, StoreRoot, StoreWriter,
    VarPath, ZarrFlavor, ZarrLocation, ZarrVersion,
};

use crate::error::{Result, ZarrError};
use crate::meta::ArrayMeta;
use crate::plan::{plan, PlannedVar};
use crate::storage::{archive_error, open_root, Store};
use crate::wmeta::MetaWriter;

/// A Zarr store (NCZarr, Zarr v2 or v3) being written.
pub struct ZarrWriter {
    text: String,
    /// How the store written becomes the target.
    commit: Commit,
    /// The store being written (the temporary one on a local disk), through keys.
    store: Store,
    flavor: ZarrFlavor,
    /// Whether arrays name their dimensions in `_ARRAY_DIMENSIONS`.
    dimension_names: bool,
    version: ZarrVersion,
    /// Whether consolidated metadata is written.
    consolidated: bool,
    /// Whether version 3 arrays keep the `numcodecs.*` forms of their filters
    /// (`mode=...,numcodecs`) rather than core codecs ([`crate::codec::v3_core_codecs`]).
    numcodecs_kept: bool,
    no_fill: bool,
    finished: bool,
    state: Mutex<State>,
    /// Held while chunks are written: two slabs that share a chunk must not both
    /// read, modify and write it at once.
    chunk_io: Mutex<()>,
    /// Strings cut to their variable's maximum length.
    truncations: crate::strings::Truncations,
    /// The shard shapes asked for (`nccopy --shards`).
    shards: chunkspec::ShardSpecs,
    /// A region of an existing store being filled (`nccopy --region`), with each
    /// variable's first chunk there.
    region: Option<crate::region::RegionWrite>,
}

/// How a store being written becomes the target.
enum Commit {
    /// Written in a temporary directory beside the target, renamed onto it at the end.
    Rename {
        target: PathBuf,
        temp: PathBuf,
        /// The temporary store's entry in the table of temporaries signal handlers
        /// remove.
        _registration: cleanup::Registration,
    },
    /// Written in place (an object store): chunks first, metadata last, the root's last
    /// of all; what was written is removed when the writer is dropped unfinished (also
    /// after a signal: the registration lets the writer stop at a check point first).
    InPlace {
        /// The count of outputs written in place, which signal handling consults.
        _registration: cleanup::InPlaceOutput,
    },
    /// Chunks written into a region of an existing store, in place; nothing else is
    /// written, and nothing is removed when the writer stops unfinished.
    Region,
    /// Written into a zip archive under a temporary name beside the target, which gets
    /// its central directory and is renamed onto the target at the end (removed when the
    /// writer is dropped unfinished).
    Zip {
        archive: std::sync::Arc<kv::zip::ZipWriter>,
        /// Its temporary file while entries are written.
        temp: PathBuf,
    },
}

#[derive(Default)]
struct State {
    dataset: Option<Dataset>,
    vars: Vec<PlannedVar>,
    lens: HashMap<i32, usize>,
}

impl State {
    /// Grows the dimensions of `var` to reach `ends` (one per dimension): an unlimited
    /// one grows; a fixed one that would have to is an error.
    fn grow(&mut self, var: &ncmodel::Var, ends: &[usize]) -> Result<()> {
        let Self { dataset, lens, .. } = self;
        for (id, end) in var.dim_ids.iter().zip(ends) {
            let unlimited = dataset
                .as_ref()
                .and_then(|ds| ds.dim(*id))
                .is_some_and(|x| x.unlimited);
            let len = lens.entry(*id).or_insert(0);
            if *end > *len {
                if !unlimited {
                    return Err(ZarrError::Invalid(format!(
                        "variable {}: the slab ends at {end} beyond the dimension's length {len}",
                        var.name
                    )));
                }
                *len = *end;
            }
        }
        Ok(())
    }
}

impl ZarrWriter {
    /// Starts writing the store `location` names, in a temporary directory beside it (a
    /// remote store in place, opened through `remote`).
    pub fn create(
        location: &ZarrLocation,
        format: Format,
        remote: &dyn RemoteStores,
    ) -> Result<Self, StoreError> {
        let context = format!("creating {}", location.text);
        refuse_format(location, format, &context)?;
        let (commit, store) = match &location.root {
            StoreRoot::Directory(root) => {
                let (commit, temp) = Self::temporary(root, &context)?;
                let store: Store = std::sync::Arc::new(kv::DirectoryStore::new(&temp));
                (commit, store)
            }
            StoreRoot::Zip(zip) => {
                let writer =
                    kv::zip::ZipWriter::create(&zip.path, zip.dataset_directory().as_deref())
                        .map_err(|e| archive_error(e, &context))?;
                let writer = std::sync::Arc::new(writer);
                let temp = writer.temporary_path();
                let commit = Commit::Zip {
                    archive: writer.clone(),
                    temp,
                };
                (commit, writer as Store)
            }
            StoreRoot::Remote(_) => {
                let store = open_root(&location.root, Access::Write, remote, &context)?;
                let registration = cleanup::InPlaceOutput::register();
                clear_remote_target(store.as_ref()).map_err(|e| e.into_store(context.clone()))?;
                let commit = Commit::InPlace {
                    _registration: registration,
                };
                (commit, store)
            }
        };
        Ok(Self::new(location, commit, store))
    }

    /// A writer of `location` committed as `commit`, writing into `store`, before
    /// anything is defined.
    fn new(location: &ZarrLocation, commit: Commit, store: Store) -> Self {
        Self {
            text: location.text.clone(),
            commit,
            store,
            flavor: location.flavor,
            dimension_names: location.dimension_names(),
            version: location.version,
            consolidated: location.consolidated(),
            numcodecs_kept: location.numcodecs_kept(),
            no_fill: false,
            finished: false,
            state: Mutex::new(State::default()),
            chunk_io: Mutex::new(()),
            truncations: Default::default(),
            shards: chunkspec::ShardSpecs::default(),
            region: None,
        }
    }

    /// Opens the existing store `location` names to fill `region` of it with chunks
    /// only: [`StoreWriter::define`] checks that the dataset defined matches the store's
    /// metadata, and the store's metadata is never written. A zip archive takes appends
    /// only (one writer, [`ZarrWriter::rewritten_archive`]); regions are refused there, as
    /// it cannot take several writers at once.
    pub fn open_region(
        location: &ZarrLocation,
        format: Format,
        region: store::Region,
        remote: &dyn RemoteStores,
    ) -> Result<Self, StoreError> {
        let context = format!("writing a region of {}", location.text);
        let mut writer = Self::create_unopened(location, format, &context)?;
        let store = match &location.root {
            StoreRoot::Zip(zip) if region.extend => {
                let (commit, archive) = Self::rewritten_archive(zip, &context)?;
                writer.commit = commit;
                archive
            }
            StoreRoot::Zip(_) => {
                let e = ZarrError::Invalid(format!(
                    "{}: a zip archive is written whole, by one writer: it cannot take \
                     region writes; write the store in a directory or an object store, \
                     then zip it (appends are taken, one at a time)",
                    location.text
                ));
                return Err(e.into_store(context));
            }
            root => open_root(root, Access::Write, remote, &context)?,
        };
        writer.store = store;
        writer.region = Some(crate::region::RegionWrite::new(region));
        if !location.form_named() {
            writer
                .take_the_stores_form()
                .map_err(|e| e.into_store(&context))?;
        }
        Ok(writer)
    }

    /// Where the URL names no form (no `mode=`): the form of the existing store written
    /// into, so that a store xarray wrote (pure Zarr, version 2 or 3) takes appends and
    /// regions as it is, not as NCZarr.
    fn take_the_stores_form(&mut self) -> Result<()> {
        let root = StoreKey::root();
        let v3_only = self.store.contains(&root.child("zarr.json")?)?
            && !self.store.contains(&root.child(".zgroup")?)?;
        if v3_only {
            self.version = ZarrVersion::V3;
            self.flavor = ZarrFlavor::Xarray;
            self.dimension_names = true;
            return Ok(());
        }
        let source = crate::source::Source::open(self.store.clone(), false, false, false)?;
        if !crate::schema::has_superblock(&source)? {
            self.flavor = ZarrFlavor::Xarray;
            self.dimension_names = true;
        }
        Ok(())
    }

    /// A new archive under a temporary name beside the zip archive `zip`, holding every
    /// entry of the old one (as stored, those beside the store root too) in its order
    /// and under the same root, for an append to write
    /// into; renamed onto the old archive when the append is finished, so that a reader
    /// sees the archive before the append or after it, and a failed append leaves it as
    /// it was.
    fn rewritten_archive(
        zip: &store::ZipRoot,
        context: &str,
    ) -> Result<(Commit, Store), StoreError> {
        let old = kv::zip::ZipStore::open(&zip.path).map_err(|e| archive_error(e, context))?;
        let root = old.root_directory().trim_end_matches('/').to_string();
        let archive = kv::zip::ZipWriter::create(&zip.path, (!root.is_empty()).then_some(&*root))
            .map_err(|e| archive_error(e, context))?;
        // The old entries are copied as they are stored, never inflated, with those
        // beside the store root.
        archive
            .copy_entries_of(&old)
            .map_err(|e| ZarrError::from(e).into_store(context))?;
        let archive = std::sync::Arc::new(archive);
        let commit = Commit::Zip {
            archive: archive.clone(),
            temp: archive.temporary_path(),
        };
        Ok((commit, archive as Store))
    }

    /// A writer of `location` in region mode, before its store is opened.
    fn create_unopened(
        location: &ZarrLocation,
        format: Format,
        context: &str,
    ) -> Result<Self, StoreError> {
        refuse_format(location, format, context)?;
        let store: Store = std::sync::Arc::new(kv::MemoryStore::new());
        Ok(Self::new(location, Commit::Region, store))
    }

    /// The temporary directory a store replacing the directory `root` is written in.
    fn temporary(root: &Path, context: &str) -> Result<(Commit, PathBuf), StoreError> {
        // A link to a store is written through: the directory it leads to is replaced,
        // and the link stays.
        let target = cleanup::resolve_links(root);
        // Made with mkdir under a fresh unpredictable name, which fails on anything
        // already there (a planted link is not followed); registered before it exists
        // and made through the gate, so a signal handler that removes it never races it.
        // The system's refusal keeps its errno, for the front end's explanation.
        let (temp, registration) =
            cleanup::create_temporary_dir(&target).map_err(|e| StoreError::io(&e, context))?;
        let commit = Commit::Rename {
            target,
            temp: temp.clone(),
            _registration: registration,
        };
        Ok((commit, temp))
    }

    /// Stores the variables `shards` names in shards (Zarr version 3's
    /// `sharding_indexed`), before [`StoreWriter::define`]. Only a version 3 store has
    /// shards: asking for them in any other is an error.
    pub fn set_shards(&mut self, shards: chunkspec::ShardSpecs) -> Result<(), StoreError> {
        if shards.is_set() && self.version != ZarrVersion::V3 {
            let e = ZarrError::Invalid(format!("{}: {}", self.text, crate::wshard::NOT_V3));
            return Err(e.into_store(format!("creating {}", self.text)));
        }
        self.shards = shards;
        Ok(())
    }

    /// The string variables (by path, `/g/v`) some of whose values were longer than the
    /// variable's maximum length (`_nczarr_maxstrlen`, else `_nczarr_default_maxstrlen`,
    /// else 128 bytes), and how many values were cut to it so far. netCDF-C cuts them
    /// silently; this lets a caller say so.
    pub fn truncated_strings(&self) -> Vec<crate::strings::StringTruncation> {
        self.truncations.list()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes every metadata document of the dataset in `state` into `store`.
    fn write_metadata(&self, state: &State, store: &dyn kv::KeyValueStore) -> Result<()> {
        let Some(dataset) = &state.dataset else {
            return Ok(());
        };
        MetaWriter {
            dataset,
            vars: &state.vars,
            lens: &state.lens,
            flavor: self.flavor,
            dimension_names: self.dimension_names,
            version: self.version,
            consolidated: self.consolidated,
        }
        .write_all(store)
    }

    /// The key of the variable's array: every name on the way checked.
    fn array_key(&self, var: &PlannedVar) -> Result<StoreKey> {
        let mut key = StoreKey::root();
        for g in &var.group_path {
            key = crate::wmeta::node_key(&key, g, "group")?;
        }
        crate::wmeta::node_key(&key, &var.var.name, "variable")
    }

    /// Writes `data` (machine order) to the slab of the variable `index` of the plan.
    fn write_bytes(
        &self,
        index: usize,
        start: &[usize],
        count: &[usize],
        data: &[u8],
    ) -> Result<()> {
        let mut state = self.lock();
        let var = state
            .vars
            .get(index)
            .cloned()
            .ok_or_else(|| ZarrError::Invalid("no such variable".into()))?;
        let scalar = var.var.dim_ids.is_empty();
        let (start, count) = if scalar {
            (vec![0], vec![1])
        } else {
            (start.to_vec(), count.to_vec())
        };
        let elements: usize = count.iter().product();
        if start.len() != var.chunks.len() || data.len() != elements * var.dtype.size {
            return Err(ZarrError::Invalid(format!(
                "variable {}: the slab {start:?}+{count:?} does not fit the variable or the values given",
                var.var.name
            )));
        }
        let ends: Vec<usize> = start.iter().zip(&count).map(|(s, c)| s + c).collect();
        state.grow(&var.var, &ends)?;
        let meta = self.meta_of(&var, &state)?;
        drop(state);
        let start = self.shifted(&var, start);
        let quantized = var
            .quantize
            .map(|q| crate::quantized::quantized(data, var.dtype.atomic, &var.fill, q));
        let data = quantized.as_deref().unwrap_or(data);
        let _chunk_io = self
            .chunk_io
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        crate::wdata::write_slab(&meta, &var.fill, &var.var.name, &start, &count, data)
    }

    /// Writes the strings `values` as the slab `start`/`count` of the variable `index`,
    /// chunk by chunk; returns how many were cut to its fixed width.
    fn write_strings(
        &self,
        index: usize,
        start: &[usize],
        count: &[usize],
        values: &Values,
    ) -> Result<usize> {
        let mut state = self.lock();
        let var = state
            .vars
            .get(index)
            .cloned()
            .ok_or_else(|| ZarrError::Invalid("no such variable".into()))?;
        let Values::String(strings) = values else {
            return Err(ZarrError::BadType(format!(
                "variable {}: strings are written as strings",
                var.var.name
            )));
        };
        let scalar = var.var.dim_ids.is_empty();
        let (start, count) = if scalar {
            (vec![0], vec![1])
        } else {
            (start.to_vec(), count.to_vec())
        };
        let elements = count.iter().try_fold(1usize, |a, c| a.checked_mul(*c));
        if start.len() != var.chunks.len() || elements != Some(strings.len()) {
            return Err(ZarrError::Invalid(format!(
                "variable {}: the slab {start:?}+{count:?} does not fit the variable or the values given",
                var.var.name
            )));
        }
        let ends: Vec<usize> = start.iter().zip(&count).map(|(s, c)| s + c).collect();
        state.grow(&var.var, &ends)?;
        let meta = self.meta_of(&var, &state)?;
        drop(state);
        let start = self.shifted(&var, start);
        let _chunk_io = self
            .chunk_io
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        crate::vlen::write_string_slab(&meta, &var.fill, &var.var.name, &start, &count, strings)
    }

    /// Writes whole chunks of the variable `index`, which grows to `shape` first.
    fn write_whole_chunks<'a>(
        &self,
        index: usize,
        shape: &[usize],
        jobs: impl Iterator<Item = store::ChunkJob<'a>>,
    ) -> Result<(), StoreError> {
        let context = || format!("writing {}", self.text);
        let mut state = self.lock();
        let var =
            state.vars.get(index).cloned().ok_or_else(|| {
                ZarrError::Invalid("no such variable".into()).into_store(context())
            })?;
        if self.shift_of(&var).is_some() {
            // The input's chunks straddle the store's: each is written as a slab.
            drop(state);
            return self.write_chunks_as_slabs(index, &var.stored_chunks(), shape, jobs);
        }
        state
            .grow(&var.var, shape)
            .map_err(|e| e.into_store(context()))?;
        let meta = self
            .meta_of(&var, &state)
            .map_err(|e| e.into_store(context()))?;
        drop(state);
        let target = crate::wdata::ChunkTarget {
            fill: &var.fill,
            quantize: var.quantize,
            name: &var.var.name,
        };
        let _chunk_io = self
            .chunk_io
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        crate::wdata::write_whole_chunks(&meta, &target, shape, jobs)
    }

    /// Writes whole chunks (of shape `chunks`, of an array of shape `shape`) of the
    /// variable `index` as slabs, each cut to its part inside the array.
    fn write_chunks_as_slabs<'a>(
        &self,
        index: usize,
        chunks: &[usize],
        shape: &[usize],
        jobs: impl Iterator<Item = store::ChunkJob<'a>>,
    ) -> Result<(), StoreError> {
        let context = || format!("writing {}", self.text);
        let element = self.lock().vars.get(index).map_or(1, |v| v.dtype.size);
        for job in jobs {
            let chunk = (job.read)()?;
            let extent = store::extent_in(shape, chunks, &job.offset);
            let part = if extent == chunks {
                chunk
            } else {
                store::cut_from_chunk(&chunk, chunks, &extent, element)
            };
            self.write_bytes(index, &job.offset, &extent, &part)
                .map_err(|e| e.into_store(context()))?;
        }
        Ok(())
    }

    /// Makes the fixed-length strings of the variable `index` wide enough for `values`
    /// when no width was set for it (its `_nczarr_maxstrlen`, the root group's
    /// `_nczarr_default_maxstrlen`) and the wider variable stays within
    /// [`crate::strings::widening_allowed`]: the chunks written so far are written again
    /// at the new width, so that nothing is cut that the user did not ask to cut. Past
    /// that bound the width stays, and longer strings are cut to it (and reported).
    fn fit_strings(&self, index: usize, values: &Values) -> Result<()> {
        let Values::String(strings) = values else {
            return Ok(());
        };
        let lengths = || {
            strings
                .iter()
                .flatten()
                .map(|s| s.iter().position(|b| *b == 0).unwrap_or(s.len()))
        };
        let longest = lengths().max().unwrap_or(0);
        // What the values hold: their bytes and a terminating NUL each.
        let held = lengths().fold(strings.len() as u64, |a, n| a.saturating_add(n as u64));
        let _chunk_io = self
            .chunk_io
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut state = self.lock();
        let Some(var) = state.vars.get(index).cloned() else {
            return Ok(());
        };
        if var.dtype.text != crate::dtype::Text::Bytes || longest <= var.dtype.size {
            return Ok(());
        }
        let Some(dataset) = state.dataset.clone() else {
            return Ok(());
        };
        if width_set_by_user(&dataset, &var) {
            return Ok(());
        }
        let old = self.meta_of(&var, &state)?;
        let elements = old
            .shape
            .iter()
            .try_fold(1u64, |a, n| a.checked_mul(*n as u64))
            .unwrap_or(u64::MAX)
            .max(strings.len() as u64);
        if !crate::strings::widening_allowed(elements, longest, held) {
            return Ok(());
        }
        let mut wider = var.clone();
        let width = i32::try_from(longest)
            .map_err(|_| ZarrError::Invalid(format!("a string of {longest} bytes")))?;
        wider.var.atts.push(ncmodel::Attribute {
            name: crate::strings::MAXSTRLEN_ATTR.to_string(),
            type_ref: ncmodel::TypeRef::Atomic(ncmodel::AtomicType::Int),
            values: Values::Int(vec![width]),
        });
        let wider = crate::plan::replan(&dataset, &wider, self.no_fill)?;
        let new = self.meta_of(&wider, &state)?;
        let start = vec![0; old.shape.len()];
        for chunk in store::grid::chunks_touched(&start, &old.shape, &old.chunks) {
            let Some(bytes) = crate::wdata::read_whole(&old, &chunk)? else {
                continue;
            };
            let strings: Vec<Option<Vec<u8>>> = bytes
                .chunks_exact(old.dtype.size.max(1))
                .map(|e| Some(crate::strings::from_fixed(e)))
                .collect();
            let (widened, _) = crate::strings::to_fixed(&strings, new.dtype.size);
            crate::wdata::store_chunk(&new, &wider.fill, &var.var.name, &chunk, widened)?;
        }
        state.vars[index] = wider;
        Ok(())
    }

    /// Grows the dimensions of the variable `index` of the plan to reach `ends`.
    pub(crate) fn grow(&self, index: usize, ends: &[usize]) -> Result<()> {
        let mut state = self.lock();
        let var = state
            .vars
            .get(index)
            .map(|v| v.var.clone())
            .ok_or_else(|| ZarrError::Invalid("no such variable".into()))?;
        state.grow(&var, ends)
    }

    fn meta_of(&self, var: &PlannedVar, state: &State) -> Result<ArrayMeta> {
        let v3 = self.version == ZarrVersion::V3;
        let scalar = var.var.dim_ids.is_empty();
        let chunks = if v3 && scalar {
            Vec::new()
        } else {
            var.stored_chunks()
        };
        let sharding = var.shard.as_ref().map(|_| {
            Box::new(crate::wshard::sharding_of(
                &var.chunks,
                &var.codecs,
                var.dtype.big_endian,
            ))
        });
        Ok(ArrayMeta {
            store: self.store.clone(),
            node: self.array_key(var)?,
            shape: {
                let mut shape: Vec<usize> = var
                    .var
                    .dim_ids
                    .iter()
                    .map(|d| state.lens.get(d).copied().unwrap_or(0))
                    .collect();
                // An append inside a chunk: the array as the store will hold it.
                if let Some((axis, origin)) = self.shift_of(var) {
                    if let Some(len) = shape.get_mut(axis) {
                        *len += origin;
                    }
                }
                shape
            },
            chunks,
            dtype: var.dtype,
            fill: Some(var.fill.clone()),
            // A shard's codecs are its inner chunks'.
            codecs: if sharding.is_some() {
                Vec::new()
            } else {
                var.codecs.clone()
            },
            key_prefix: v3.then_some("c"),
            separator: if v3 { '/' } else { '.' },
            transpose: None,
            sharding,
            key_offset: self
                .region
                .as_ref()
                .map(|r| r.key_offset(&var.group_path, &var.var.name))
                .unwrap_or_default(),
        })
    }

    /// The axis and the store's length by which an append moves the variable's records,
    /// when it starts inside one of its chunks ([`crate::region::RegionWrite::shift`]).
    fn shift_of(&self, var: &PlannedVar) -> Option<(usize, usize)> {
        self.region
            .as_ref()
            .and_then(|r| r.shift(&var.group_path, &var.var.name))
    }

    /// `start` moved to where an append inside a chunk writes it.
    fn shifted(&self, var: &PlannedVar, mut start: Vec<usize>) -> Vec<usize> {
        if let Some((axis, origin)) = self.shift_of(var) {
            if let Some(at) = start.get_mut(axis) {
                *at += origin;
            }
        }
        start
    }

    /// The index in the plan of the variable `var`.
    fn find(&self, var: &VarPath) -> Option<usize> {
        self.lock()
            .vars
            .iter()
            .position(|v| v.group_path == var.groups && v.var.name == var.name)
    }

    fn finish_inner(&mut self) -> Result<()> {
        if self.region.is_some() {
            // A region's chunks are described by the store's metadata already; an
            // append's, once the metadata takes the new length, now.
            if let Some(region) = &self.region {
                let state = self.lock();
                if let Some(dataset) = &state.dataset {
                    region.extend_metadata(&crate::region::RegionCheck {
                        dataset,
                        vars: &state.vars,
                        lens: &state.lens,
                        flavor: self.flavor,
                        dimension_names: self.dimension_names,
                        version: self.version,
                        store: self.store.as_ref(),
                    })?;
                }
            }
            // An append to a zip archive: the rewritten archive replaces the old one.
            if let Commit::Zip { archive, .. } = &self.commit {
                archive
                    .finish()
                    .map_err(|e| ZarrError::Invalid(e.to_string()))?;
            }
            self.finished = true;
            return Ok(());
        }
        {
            let state = self.lock();
            self.write_metadata(&state, self.store.as_ref())?;
        }
        if let Commit::Zip { archive, .. } = &self.commit {
            archive
                .finish()
                .map_err(|e| ZarrError::Invalid(e.to_string()))?;
            self.finished = true;
            return Ok(());
        }
        let Commit::Rename { target, temp, .. } = &self.commit else {
            // In place: the root's metadata, written last, made the store whole.
            self.finished = true;
            // The store is whole; a marker that stays (the server failed just now) only
            // lets a later write replace the store, as it would anyway.
            let _ = self.store.remove(&marker_key()?);
            return Ok(());
        };
        // `.NAME.nctools-PID-RANDOM.old`: the store being replaced, for the moment between the
        // two renames.
        let old = temp.with_extension("old");
        let had_target = target.exists();
        cleanup::keep_permissions_of(target, temp);
        if had_target {
            std::fs::rename(target, &old).map_err(|e| ZarrError::io(target, e))?;
        }
        if let Err(e) = std::fs::rename(temp, target) {
            if had_target {
                let _ = std::fs::rename(&old, target);
            }
            return Err(ZarrError::io(target, e));
        }
        self.finished = true;
        if had_target {
            let _ = std::fs::remove_dir_all(&old).or_else(|_| std::fs::remove_file(&old));
        }
        Ok(())
    }
}

/// Fails unless `format` is one a Zarr store holds: the netCDF-4 model.
fn refuse_format(location: &ZarrLocation, format: Format, context: &str) -> Result<(), StoreError> {
    if format == Format::Netcdf4 || format == Format::Netcdf4Classic {
        return Ok(());
    }
    let e = ZarrError::Invalid(format!(
        "Zarr stores hold the netCDF-4 model; format {} cannot be written to {}",
        format.name(),
        location.text
    ));
    Err(e.into_store(context))
}

/// Refuses a variable whose chunk (a shard's inner chunk) is larger than the chunk
/// limit: a chunk is built whole in memory before it is written, an unwritten one as
/// fill values (red team s35 RB5 and RB6: `_ChunkSizes = 500000000` in a 100-byte CDL
/// took 3.9 GB in ncgen, and nccopy of a 6 KB file with 800 MB chunks, nothing written,
/// 1.6 GB).
fn refuse_chunks_past_the_limit(vars: &[PlannedVar]) -> Result<(), ZarrError> {
    let limit = codecs::partial::decoded_chunk_cap();
    for var in vars {
        let bytes = var
            .chunks
            .iter()
            .try_fold(var.dtype.size, |n, c| n.checked_mul(*c));
        if bytes.is_none_or(|bytes| bytes > limit) {
            return Err(ZarrError::TooLarge(format!(
                "variable {}: its chunks of {:?} values of {} bytes are larger than the \
                 {limit}-byte chunk limit (a chunk is built whole before it is written); \
                 choose smaller chunks (nccopy -c, ncgen's _ChunkSizes), or set {}=BYTES",
                crate::codec::var_path(&var.group_path, &var.var.name),
                var.chunks,
                var.dtype.size,
                codecs::partial::CHUNK_LIMIT_VARIABLE
            )));
        }
    }
    Ok(())
}

/// The object an in-place write puts at the top of its prefix first and removes once the
/// root's metadata is written: what a failed write left is known by it, and replaced.
const INCOMPLETE_MARKER: &str = ".nctools-incomplete";

/// Makes the object-store prefix of the target ready for a new store, as a local target
/// is: nothing there, or a Zarr store that the new one replaces (removed now, since an
/// object store cannot swap a store in by renaming), or what a failed write of ours left
/// ([`INCOMPLETE_MARKER`]). Other objects are refused, as a directory that is not a store
/// is. Then puts the marker.
fn clear_remote_target(store: &dyn kv::KeyValueStore) -> Result<()> {
    let root = StoreKey::root();
    let listing = store.list_dir(&root)?;
    if !listing.values.is_empty() || !listing.prefixes.is_empty() {
        let ours = kv::ZARR_MARKERS
            .iter()
            .chain(&[INCOMPLETE_MARKER])
            .any(|marker| listing.values.iter().any(|v| v == marker));
        if !ours {
            return Err(ZarrError::Invalid(format!(
                "{} holds objects but no Zarr store (no .zgroup, .zarray or zarr.json at its \
                 top), and writing the store would replace them; remove them yourself, or \
                 give another prefix for the store",
                store.describe(&root)
            )));
        }
        store.remove_all(&root)?;
    }
    store.set(&marker_key()?, b"")?;
    Ok(())
}

/// The key of [`INCOMPLETE_MARKER`].
fn marker_key() -> Result<StoreKey> {
    crate::storage::child_key(&StoreKey::root(), INCOMPLETE_MARKER, "the marker")
}

impl Drop for ZarrWriter {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        match &self.commit {
            Commit::Rename { temp, .. } => {
                let _ = std::fs::remove_dir_all(temp);
            }
            // Best effort: a server that stopped answering keeps what reached it (chunks
            // and inner metadata, never the root's).
            Commit::InPlace { .. } => {
                let _ = self.store.remove_all(&StoreKey::root());
            }
            // Its temporary file goes with the last reference to it.
            Commit::Zip { .. } => {}
            // The store is not ours: chunks written stay, and a region written again
            // replaces them.
            Commit::Region => {}
        }
    }
}

impl StoreWriter for ZarrWriter {
    fn warnings(&self) -> Vec<String> {
        let mut warnings: Vec<String> = self
            .truncated_strings()
            .iter()
            .map(crate::strings::StringTruncation::message)
            .collect();
        if !crate::wmeta::writes_nczarr(self.flavor, self.version) {
            if let Some(dataset) = &self.lock().dataset {
                warnings.extend(crate::wmeta::latin1_warnings(&dataset.root, ""));
                // A new store only: an append or a region into one says nothing new.
                if self.temporary_path().is_some() {
                    warnings.extend(crate::wmeta::unlimited_warnings(&dataset.root, ""));
                }
            }
        }
        warnings
    }

    fn target(&self) -> &str {
        &self.text
    }

    fn temporary_path(&self) -> Option<&Path> {
        match &self.commit {
            Commit::Rename { temp, .. } => Some(temp),
            Commit::Zip { temp, .. } => Some(temp),
            Commit::InPlace { .. } | Commit::Region => None,
        }
    }

    fn set_no_fill(&mut self) -> Result<(), StoreError> {
        self.no_fill = true;
        Ok(())
    }

    fn define(&mut self, dataset: &Dataset) -> Result<(), StoreError> {
        let context = format!("defining {}", self.text);
        let nczarr = crate::wmeta::writes_nczarr(self.flavor, self.version);
        let mut vars = plan(dataset, self.no_fill, !nczarr, &self.shards)
            .map_err(|e| e.into_store(&context))?;
        // Version 3 arrays take core codecs (an existing store's too, as nctools wrote
        // them; the comparison with the store names any difference).
        if self.version == ZarrVersion::V3 && !self.numcodecs_kept {
            for var in &mut vars {
                var.codecs = crate::codec::v3_core_codecs(&var.codecs);
            }
        }
        if !crate::wmeta::writes_nczarr(self.flavor, self.version) {
            for var in &vars {
                crate::codec::refuse_nczarr_only(&var.codecs, &var.group_path, &var.var.name)
                    .map_err(|e| e.into_store(&context))?;
            }
        }
        let mut lens = HashMap::new();
        collect_lens(&dataset.root, &mut lens);
        if let Some(region) = &mut self.region {
            let check = crate::region::RegionCheck {
                dataset,
                vars: &vars,
                lens: &lens,
                flavor: self.flavor,
                dimension_names: self.dimension_names,
                version: self.version,
                store: self.store.as_ref(),
            };
            region.prepare(&check).map_err(|e| e.into_store(&context))?;
        } else {
            refuse_chunks_past_the_limit(&vars).map_err(|e| e.into_store(&context))?;
        }
        let mut state = self.lock();
        *state = State {
            dataset: Some(dataset.clone()),
            vars,
            lens,
        };
        for var in &state.vars {
            let meta = self
                .meta_of(var, &state)
                .map_err(|e| e.into_store(&context))?;
            crate::codec::check_runs(&meta.codecs, &meta.codec_array(meta.dtype.size)).map_err(
                |problem| {
                    let path = crate::codec::var_path(&var.group_path, &var.var.name);
                    ZarrError::Invalid(format!("variable {path}: {problem}")).into_store(&context)
                },
            )?;
        }
        // Every document is made now, into memory, so that a name or an attribute the
        // store cannot hold fails before any data is written; the documents themselves
        // are written at the end, after the chunks they describe.
        self.write_metadata(&state, &kv::MemoryStore::new())
            .map_err(|e| e.into_store(context))
    }

    fn write(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        values: &Values,
    ) -> Result<(), StoreError> {
        let context = || format!("writing variable {var}");
        let index = self
            .find(var)
            .ok_or_else(|| ZarrError::Invalid("not defined".into()).into_store(context()))?;
        self.fit_strings(index, values)
            .map_err(|e| e.into_store(context()))?;
        let dtype = self.lock().vars[index].dtype;
        if matches!(values, Values::String(_)) {
            let cut = self
                .write_strings(index, start, count, values)
                .map_err(|e| e.into_store(context()))?;
            if cut > 0 {
                self.truncations.record(&var.to_string(), dtype.size, cut);
            }
            return Ok(());
        }
        let (bytes, cut) =
            crate::values::element_bytes(values, &dtype).map_err(|e| e.into_store(context()))?;
        if cut > 0 {
            self.truncations.record(&var.to_string(), dtype.size, cut);
        }
        self.write_bytes(index, start, count, &bytes)
            .map_err(|e| e.into_store(context()))
    }

    fn layout(&self, var: &VarPath) -> Result<Layout, StoreError> {
        let state = self.lock();
        state
            .vars
            .iter()
            .find(|v| v.group_path == var.groups && v.var.name == var.name)
            // A shard is what is written whole: slabs are made of whole shards.
            .map(|v| Layout::Chunked(v.stored_chunks()))
            .ok_or_else(|| ZarrError::Invalid("no such variable".into()).into_store("layout"))
    }

    fn unwritten_value(&self, var: &VarPath, size: usize) -> Option<Vec<u8>> {
        // A new store only: a region or an append may write over chunks already there.
        if self.region.is_some() || self.no_fill {
            return None;
        }
        let state = self.lock();
        let planned = state
            .vars
            .iter()
            .find(|v| v.group_path == var.groups && v.var.name == var.name)?;
        // Every reader takes a chunk never written for its fill value.
        let meta = self.meta_of(planned, &state).ok()?;
        meta.fill.filter(|fill| fill.len() == size)
    }

    fn write_raw(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        buffer: &RawBuffer,
    ) -> Result<(), StoreError> {
        let index = self
            .find(var)
            .ok_or_else(|| ZarrError::Invalid("no such variable".into()).into_store("writing"))?;
        self.write_bytes(index, start, count, buffer.as_bytes())
            .map_err(|e| e.into_store(format!("writing {}", self.text)))
    }

    fn write_chunks(&self, var: &VarPath, write: ChunkWrite<'_>) -> Result<(), StoreError> {
        let index = self
            .find(var)
            .ok_or_else(|| ZarrError::Invalid("no such variable".into()).into_store("writing"))?;
        match write.feed {
            ChunkFeed::Slab {
                start,
                count,
                values,
            } => self
                .write_bytes(index, start, count, values.as_bytes())
                .map_err(|e| e.into_store(format!("writing {}", self.text))),
            ChunkFeed::Chunks(jobs) => self.write_whole_chunks(index, write.shape, jobs),
        }
    }

    fn stored_chunk_sink(&self, var: &VarPath) -> Option<Box<dyn store::ChunkSink + '_>> {
        let index = self.find(var)?;
        let state = self.lock();
        let var = state.vars.get(index)?.clone();
        // A shard is built from values: stored chunks become its inner chunks only
        // through them.
        if var.quantize.is_some()
            || var.var.dim_ids.is_empty()
            || var.shard.is_some()
            || self.shift_of(&var).is_some()
        {
            return None;
        }
        let filters = var
            .var
            .storage
            .as_ref()
            .map(|s| s.filters.clone())
            .unwrap_or_default();
        // Codecs that are not the filters' own (core codecs in version 3) take values.
        let declared = filters
            .iter()
            .map(|f| crate::codec::codec_of_filter(f, var.dtype.size).ok())
            .collect::<Option<Vec<_>>>()?;
        if declared != var.codecs {
            return None;
        }
        let meta = self.meta_of(&var, &state).ok()?;
        drop(state);
        Some(Box::new(crate::stored::ChunkFileSink {
            meta,
            filters,
            writer: self,
            index,
        }))
    }

    fn finish(mut self: Box<Self>) -> Result<(), StoreError> {
        let context = format!("finishing {}", self.text);
        self.finish_inner().map_err(|e| e.into_store(context))
    }
}

/// Whether the width of the string variable `var` was set in the dataset defined: its
/// `_nczarr_maxstrlen`, or the root group's `_nczarr_default_maxstrlen`.
fn width_set_by_user(dataset: &Dataset, var: &PlannedVar) -> bool {
    let mut group = &dataset.root;
    for name in &var.group_path {
        match group.groups.iter().find(|g| &g.name == name) {
            Some(g) => group = g,
            None => return true,
        }
    }
    let defined = group.vars.iter().find(|v| v.name == var.var.name);
    dataset
        .root
        .atts
        .iter()
        .any(|a| a.name == crate::strings::DEFAULT_MAXSTRLEN_ATTR)
        || defined.is_none_or(|v| {
            v.atts
                .iter()
                .any(|a| a.name == crate::strings::MAXSTRLEN_ATTR)
        })
}

fn collect_lens(group: &ncmodel::Group, lens: &mut HashMap<i32, usize>) {
    for d in &group.dims {
        lens.insert(d.id, d.len);
    }
    for g in &group.groups {
        collect_lens(g, lens);
    }
}
