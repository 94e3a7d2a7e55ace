//! Reading hyperslabs of filtered netCDF-4 variables, so that no stored chunk reaches
//! HDF5's pipeline unchecked: HDF5's own deflate decodes a stream to whatever it holds,
//! and its chunk cache keeps each chunk at its nominal size (a 6 KB file of two deflates
//! over zeros took 1.5 GB).
//!
//! - A variable whose whole pipeline `codecs` decodes is decoded here, on every core: the
//!   stored chunks are read raw under the library lock, decoded in parallel within their
//!   size, and gathered into the slab.
//! - Any other filtered variable (a filter only HDF5 or a plugin has; strings and user
//!   types) is checked chunk by chunk ([`codecs::ChunkChecker`]), then read by HDF5.
//! - A slab with a chunk never written goes to HDF5 once every other chunk of it is
//!   checked. A chunk that does not decode, or decodes beyond its size, is an error here;
//!   filtered chunks larger than the chunk limit are refused.

use std::collections::HashSet;
use std::ffi::{c_int, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use codecs::{ChunkChecker, ChunkDecoder};
use ncmodel::{AtomicType, Layout};
use rayon::prelude::*;
use store::grid::SlabGrid;

use crate::error::NcError;
use crate::file::NcFile;
use crate::storage::{read_endianness, read_filters, read_layout};
use crate::sys::{inquire, with_lib, ChunkOrigin, Grp, Lib, OpenFile};
use crate::var_cache::{VarCache, NC_FORMATX_NC_HDF5};

/// The most bytes of decoded chunks kept from one slab for the next (chunks that reach
/// past the slab's end).
const CARRY_LIMIT: usize = 64 << 20;

/// The most chunk indexes remembered as checked.
const MAX_CHECKED: usize = 1 << 20;

/// A decoded chunk, by its grid index.
type DecodedChunk = (Vec<usize>, Arc<Vec<u8>>);

/// How the chunks of a filtered variable are read.
enum Mode {
    /// Decoded here: the whole pipeline is implemented here.
    Decode(ChunkDecoder),
    /// Read by HDF5 once every chunk of the slab is checked (the pipeline holds filters
    /// implemented only in HDF5 or a plugin).
    Check,
    /// Not read at all: chunks larger than the chunk limit, which neither nctools nor
    /// HDF5 may decode within bounds (the message says why).
    Refuse(String),
}

/// One variable read by decoding its stored chunks here.
pub(crate) struct ChunkedVar {
    /// The dataset (none for a variable refused whole).
    origin: Option<ChunkOrigin>,
    mode: Mode,
    /// The pipeline, checked chunk by chunk before HDF5 decodes a chunk.
    checker: ChunkChecker,
    shape: Vec<usize>,
    chunks: Vec<usize>,
    /// The bytes of one decoded chunk.
    chunk_bytes: usize,
    element: usize,
    /// Whether stored values are in the other byte order than the machine's.
    swap: bool,
    /// The chunks already checked for HDF5 (at most [`MAX_CHECKED`]), so that a chunk
    /// spanning many slabs is checked once.
    checked: Mutex<HashSet<Vec<usize>>>,
    /// Decoded chunks of the last slab that reach past it, by grid index.
    carried: Mutex<Vec<DecodedChunk>>,
    /// How many chunks were decoded here.
    decoded: AtomicU64,
}

/// The variables of one file decoded here, as found on first read.
pub(crate) type ChunkedVars = VarCache<ChunkedVar>;

impl NcFile {
    /// The hyperslab `start`/`count` of the variable `varid` of the group `group_ncid`, as
    /// values in the machine's byte order, decoded here from the stored chunks; `None`
    /// when this variable or slab is for libnetcdf to read.
    /// A chunk that decodes to more than its size is an error, whatever libnetcdf
    /// would do with it.
    pub(crate) fn read_decoded(
        &self,
        group_ncid: c_int,
        varid: c_int,
        start: &[usize],
        count: &[usize],
    ) -> Result<Option<Vec<u8>>, NcError> {
        let Some(var) = self.chunked_var(group_ncid, varid) else {
            return Ok(None);
        };
        var.refusal().map_err(|e| self.too_large(varid, e))?;
        var.read(start, count).map_err(|e| self.too_large(varid, e))
    }

    /// The error for a chunk of the variable `varid` that may not be decoded.
    fn too_large(&self, varid: c_int, bomb: Bomb) -> NcError {
        let message = match bomb {
            Bomb::Chunk {
                offset,
                chunk_bytes,
                error,
            } => format!(
                "a stored chunk at {offset:?} decodes to more than the chunk's {chunk_bytes} \
                 bytes ({error}); the file is probably corrupt (or hostile), and HDF5 is not \
                 asked to decode it"
            ),
            Bomb::Corrupt { offset, error } => format!(
                "cannot read the stored chunk at {offset:?}: it does not decode ({error}); \
                 the chunk is probably corrupt, and HDF5 is not asked to decode it"
            ),
            Bomb::Variable(why) => why,
        };
        let kind = store::ErrorKind::Corrupt;
        NcError {
            kind,
            message,
            context: format!("{}: reading variable id {varid}", self.path()),
        }
    }

    /// The chunk of the variable `varid` of the group `group_ncid` whose first element is
    /// at `offset`, whole, decoded here from its stored bytes; `None` when this variable
    /// or chunk is for libnetcdf to read (the chunk never written, or not decoded here);
    /// an error for a chunk that decodes to more than its size.
    pub(crate) fn decode_whole_chunk(
        &self,
        group_ncid: c_int,
        varid: c_int,
        offset: &[usize],
    ) -> Result<Option<Vec<u8>>, NcError> {
        let Some(var) = self.chunked_var(group_ncid, varid) else {
            return Ok(None);
        };
        if offset.len() != var.chunks.len() {
            return Ok(None);
        }
        let index: Vec<usize> = offset
            .iter()
            .zip(&var.chunks)
            .map(|(o, c)| o / (*c).max(1))
            .collect();
        var.refusal().map_err(|e| self.too_large(varid, e))?;
        var.decode_chunk(&index)
            .map_err(|e| self.too_large(varid, e))
    }

    /// How many stored chunks were decoded here rather than by HDF5's pipeline so far.
    pub fn chunks_decoded_here(&self) -> u64 {
        self.chunked_vars()
            .opened()
            .iter()
            .map(|v| v.decoded.load(Ordering::Relaxed))
            .sum()
    }

    fn chunked_var(&self, group_ncid: c_int, varid: c_int) -> Option<Arc<ChunkedVar>> {
        self.chunked_vars()
            .get_or_open((group_ncid, varid), || self.open_chunked(group_ncid, varid))
    }

    fn open_chunked(&self, group_ncid: c_int, varid: c_int) -> Option<ChunkedVar> {
        if !self.hands_out_stored_chunks() || !crate::direct_chunks_enabled() {
            return None;
        }
        let file_name = CString::new(self.path().as_bytes()).ok()?;
        with_lib(|lib| {
            let context = || self.path().to_string();
            let file = self.open_file();
            let grp = file.group(group_ncid)?;
            let (_, formatx, _) = inquire::format(lib, grp, &context).ok()?;
            if formatx != NC_FORMATX_NC_HDF5 {
                return None;
            }
            let info = inquire::var(lib, grp, varid, &context).ok()?;
            // Numbers are decoded here; strings and user types only checked.
            let numbers = AtomicType::from_nc_type(info.xtype).filter(|a| *a != AtomicType::String);
            let Layout::Chunked(chunks) = read_layout(lib, grp, varid, &context).ok()? else {
                return None;
            };
            let filters = read_filters(lib, grp, varid, &context).ok()?;
            if filters.is_empty() {
                return None;
            }
            // A filtered variable whose chunks cannot be checked is not read: libnetcdf
            // would hand them to HDF5 unchecked.
            let set_up = || -> Option<ChunkedVar> {
                let mut filters = filters.clone();
                let group = group_path(lib, file, group_ncid)?;
                let origin = ChunkOrigin::open(lib, &file_name, &group, &info.name)?;
                // HDF5's own list: the bits of a chunk's filter mask count its places.
                if let Some(pipeline) = origin.pipeline(lib) {
                    filters = pipeline
                        .into_iter()
                        .map(|(id, params)| filterspec::FilterSpec::new(id, params))
                        .collect();
                }
                // The stored element's size: libnetcdf may report a narrower type (an int
                // of 16-bit precision as a short), and a chunk holds stored elements.
                let stored_element = origin.element_size(lib)?;
                let numbers = numbers.filter(|atomic| atomic.size() == stored_element);
                let element = stored_element;
                let chunk_bytes = chunks.iter().try_fold(element, |a, c| a.checked_mul(*c))?;
                if chunk_bytes == 0 {
                    return None;
                }
                let checker = ChunkDecoder::checker(&filters, element);
                let limit = codecs::partial::decoded_chunk_cap();
                // Chunks up to the chunk limit are decoded or checked here, bounded; larger
                // ones are refused: HDF5's deflate and a plugin's decoding know no bound, and
                // checking them would cost what they declare.
                let mode = if chunk_bytes > limit {
                    Mode::Refuse(format!(
                        "its filtered chunks of {chunk_bytes} bytes are larger than the chunk \
                     limit ({limit} bytes), and neither nctools nor HDF5 would decode them \
                     within bounds; for a file you trust, raise the limit \
                     (NCTOOLS_CHUNK_LIMIT={chunk_bytes})"
                    ))
                } else {
                    match numbers.and_then(|_| ChunkDecoder::new(&filters, element)) {
                        Some(decoder) => Mode::Decode(decoder),
                        None => Mode::Check,
                    }
                };
                let shape = info
                    .dim_ids
                    .iter()
                    .map(|d| inquire::dim(lib, grp, *d, &context).map(|(_, len)| len))
                    .collect::<Result<Vec<usize>, _>>()
                    .ok()?;
                let swap = !read_endianness(lib, grp, varid, &context)
                    .ok()?
                    .is_machine_order();
                Some(ChunkedVar {
                    origin: Some(origin),
                    mode,
                    checker,
                    shape,
                    chunks,
                    chunk_bytes,
                    element,
                    swap,
                    checked: Mutex::new(HashSet::new()),
                    carried: Mutex::new(Vec::new()),
                    decoded: AtomicU64::new(0),
                })
            };
            Some(set_up().unwrap_or_else(|| {
                ChunkedVar::refused(
                    "nctools cannot find or read the variable's HDF5 dataset to check its \
                     filtered chunks before HDF5 decodes them"
                        .into(),
                )
            }))
        })
    }
}

/// The HDF5 path (`/g/h`, empty for the root) of the group `ncid`, found from the root.
pub(crate) fn group_path(lib: &Lib, file: &OpenFile, ncid: c_int) -> Option<String> {
    fn search(lib: &Lib, grp: Grp<'_>, ncid: c_int, prefix: &str) -> Option<String> {
        if grp.id() == ncid {
            return Some(prefix.to_string());
        }
        let context = String::new;
        for child in inquire::child_groups(lib, grp, &context).ok()? {
            let name = inquire::group_name(lib, child, &context).ok()?;
            if let Some(found) = search(lib, child, ncid, &format!("{prefix}/{name}")) {
                return Some(found);
            }
        }
        None
    }
    search(lib, file.root(), ncid, "")
}

/// What may not be decoded: a stored chunk that decodes to more than its size (or
/// whose decoding HDF5 could not bound), or a whole variable.
#[derive(Debug)]
pub(crate) enum Bomb {
    /// One chunk.
    Chunk {
        offset: Vec<usize>,
        chunk_bytes: usize,
        error: String,
    },
    /// One chunk that does not decode.
    Corrupt { offset: Vec<usize>, error: String },
    /// The whole variable, and why.
    Variable(String),
}

impl ChunkedVar {
    /// A variable refused whole, for `why`.
    fn refused(why: String) -> Self {
        Self {
            origin: None,
            mode: Mode::Refuse(why),
            checker: ChunkDecoder::checker(&[], 1),
            shape: Vec::new(),
            chunks: Vec::new(),
            chunk_bytes: 0,
            element: 1,
            swap: false,
            checked: Mutex::new(HashSet::new()),
            carried: Mutex::new(Vec::new()),
            decoded: AtomicU64::new(0),
        }
    }

    /// `Err` when the variable may not be read at all.
    fn refusal(&self) -> Result<(), Bomb> {
        match &self.mode {
            Mode::Refuse(why) => Err(Bomb::Variable(why.clone())),
            _ => Ok(()),
        }
    }

    /// The slab, decoded here; `None` for libnetcdf to read it; an error for a chunk that
    /// decodes beyond its size.
    fn read(&self, start: &[usize], count: &[usize]) -> Result<Option<Vec<u8>>, Bomb> {
        let rank = self.shape.len();
        if start.len() != rank || count.len() != rank {
            return Ok(None);
        }
        let inside = start
            .iter()
            .zip(count)
            .zip(&self.shape)
            .all(|((s, c), len)| s.checked_add(*c).is_some_and(|end| end <= *len));
        let Some(total) = count
            .iter()
            .try_fold(self.element, |a, c| a.checked_mul(*c))
        else {
            return Ok(None);
        };
        if !inside || total == 0 {
            return Ok(None);
        }
        let mut out = vec![0u8; total];
        let grid = SlabGrid {
            start,
            count,
            chunks: &self.chunks,
            elem: self.element,
        };
        let carried =
            std::mem::take(&mut *self.carried.lock().unwrap_or_else(PoisonError::into_inner));
        let mut keep = Vec::new();
        let mut kept_bytes = 0usize;
        // A slab goes to HDF5 only once every chunk of it is checked: a chunk never
        // written or not decoded here must not let later ones through unseen.
        let mut for_hdf5 = false;
        for batch in grid.batches(self.chunks.iter().product::<usize>() * self.element) {
            let decoded: Vec<Option<Arc<Vec<u8>>>> = batch
                .par_iter()
                .map(|index| {
                    if let Some((_, chunk)) = carried.iter().find(|(i, _)| i == index) {
                        return Ok(Some(Arc::clone(chunk)));
                    }
                    self.decode_chunk(index).map(|c| c.map(Arc::new))
                })
                .collect::<Result<_, Bomb>>()?;
            for (index, chunk) in batch.iter().zip(decoded) {
                let Some(chunk) = chunk else {
                    for_hdf5 = true;
                    continue;
                };
                if for_hdf5 {
                    continue;
                }
                grid.chunk_to_slab(index, &chunk, &mut out);
                if self.reaches_past(index, start, count) && kept_bytes + chunk.len() <= CARRY_LIMIT
                {
                    kept_bytes += chunk.len();
                    keep.push((index.clone(), chunk));
                }
            }
        }
        *self.carried.lock().unwrap_or_else(PoisonError::into_inner) = keep;
        Ok((!for_hdf5).then_some(out))
    }

    /// One chunk decoded, in the machine's byte order; `None` when it was never written
    /// or does not decode (libnetcdf then says why); an error when it decodes to more
    /// than its size.
    fn decode_chunk(&self, index: &[usize]) -> Result<Option<Vec<u8>>, Bomb> {
        let checking = !matches!(self.mode, Mode::Decode(_));
        let seen = || {
            self.checked
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(index)
        };
        if checking && seen() {
            return Ok(None);
        }
        let offset: Vec<usize> = index.iter().zip(&self.chunks).map(|(i, c)| i * c).collect();
        let Some(origin) = &self.origin else {
            return Ok(None);
        };
        let stored = match with_lib(|lib| origin.read(lib, &offset)) {
            Ok(Some(stored)) => stored,
            // Never written: HDF5 gives the fill value.
            Ok(None) => return Ok(None),
            // HDF5 could not read its index entry or bytes: not HDF5's to decode either.
            Err(()) => {
                return Err(Bomb::Corrupt {
                    offset,
                    error: "HDF5 cannot read its stored bytes, or its index is inconsistent \
                            or places them beyond what the file stores"
                        .into(),
                })
            }
        };
        // Decoded chunks in flight across all threads stay within the process's budget.
        let _permit = store::budget::decode_budget().acquire(self.chunk_bytes);
        let bomb = |error: String| Bomb::Chunk {
            offset: offset.clone(),
            chunk_bytes: self.chunk_bytes,
            error,
        };
        let corrupt = |error: String| Bomb::Corrupt {
            offset: offset.clone(),
            error,
        };
        let decoder = match &self.mode {
            Mode::Decode(decoder) => decoder,
            Mode::Check | Mode::Refuse(_) => {
                // HDF5 decodes it once it is known to be bounded.
                return match self.checker.check_with(
                    &stored.bytes,
                    stored.filter_mask,
                    self.chunk_bytes,
                    &crate::plugin_codecs::run_plugin_filter,
                ) {
                    Ok(()) => {
                        let mut checked =
                            self.checked.lock().unwrap_or_else(PoisonError::into_inner);
                        if checked.len() < MAX_CHECKED {
                            checked.insert(index.to_vec());
                        }
                        Ok(None)
                    }
                    Err(codecs::CheckFailure::Decode(
                        e @ codecs::wire::WireError::TooLarge { .. },
                    )) => Err(bomb(e.to_string())),
                    Err(
                        e @ (codecs::CheckFailure::Unbounded { .. }
                        | codecs::CheckFailure::Foreign(codecs::ForeignFailure::TooLarge(_))),
                    ) => Err(bomb(e.to_string())),
                    // A plugin that fails (or crashes, or runs out of the memory it may
                    // use, as hdf5plugin's Blosc2 did allocating a frame's claim) on a
                    // chunk in the check would do the same inside HDF5.
                    Err(codecs::CheckFailure::Foreign(e @ codecs::ForeignFailure::Failed(_))) => {
                        Err(corrupt(e.to_string()))
                    }
                    Err(codecs::CheckFailure::Hdf5(e)) => Err(corrupt(e)),
                    // A chunk nctools cannot undo is never HDF5's to decode unchecked
                    // (before: a checksum form nctools refused sent the slab to HDF5).
                    Err(codecs::CheckFailure::Decode(e)) => Err(corrupt(e.to_string())),
                };
            }
        };
        let mut data = match decoder.decode(&stored.bytes, stored.filter_mask, self.chunk_bytes) {
            Ok(data) => data,
            Err(e @ codecs::wire::WireError::TooLarge { .. }) => return Err(bomb(e.to_string())),
            Err(e) => return Err(corrupt(e.to_string())),
        };
        self.decoded.fetch_add(1, Ordering::Relaxed);
        if self.swap {
            for element in data.chunks_exact_mut(self.element) {
                element.reverse();
            }
        }
        Ok(Some(data))
    }

    /// Whether the chunk `index` holds elements past the end of the slab (in row-major
    /// order; slabs read in order are contiguous), so that the next slab may need it.
    fn reaches_past(&self, index: &[usize], start: &[usize], count: &[usize]) -> bool {
        let last_of_slab: Vec<usize> = start.iter().zip(count).map(|(s, c)| s + c - 1).collect();
        let last_of_chunk: Vec<usize> = index
            .iter()
            .zip(&self.chunks)
            .zip(&self.shape)
            .map(|((i, c), len)| ((i + 1) * c).min(*len) - 1)
            .collect();
        last_of_chunk > last_of_slab
    }
}
