//! Reading hyperslabs of filtered netCDF-4 variables by decoding their stored chunks here,
//! on every core, instead of through HDF5's pipeline (one chunk at a time, on one core).
//! Only variables whose whole pipeline `codecs` decodes take this way; the stored
//! chunks are read raw under the library lock, decoded in parallel, and their parts
//! gathered into the slab. Anything unusual (a chunk never written, a chunk our decoders
//! cannot decode) gives the slab back to libnetcdf, so answers and errors stay HDF5's,
//! except a chunk that decodes to more than its size: that is an error here, since
//! HDF5's own deflate would decode it to whatever its stream holds (a 6 KB file of two
//! deflates over zeros took 1.5 GB, and HDF5's chunk cache kept such chunks at their
//! nominal size, one each).

use std::ffi::{c_int, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use codecs::ChunkDecoder;
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

/// A decoded chunk, by its grid index.
type DecodedChunk = (Vec<usize>, Arc<Vec<u8>>);

/// One variable read by decoding its stored chunks here.
pub(crate) struct ChunkedVar {
    origin: ChunkOrigin,
    decoder: ChunkDecoder,
    shape: Vec<usize>,
    chunks: Vec<usize>,
    /// The bytes of one decoded chunk.
    chunk_bytes: usize,
    element: usize,
    /// Whether stored values are in the other byte order than the machine's.
    swap: bool,
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
        var.read(start, count).map_err(|e| self.too_large(varid, e))
    }

    /// The error for a chunk of the variable `varid` that decodes beyond its size.
    fn too_large(&self, varid: c_int, bomb: Bomb) -> NcError {
        NcError {
            kind: store::ErrorKind::Corrupt,
            message: format!(
                "a stored chunk at {:?} decodes to more than the chunk's {} bytes ({}); the \
                 file is probably corrupt (or hostile), and HDF5 is not asked to decode it",
                bomb.offset, bomb.chunk_bytes, bomb.error
            ),
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
            let atomic = AtomicType::from_nc_type(info.xtype)?;
            if atomic == AtomicType::String {
                return None;
            }
            let Layout::Chunked(chunks) = read_layout(lib, grp, varid, &context).ok()? else {
                return None;
            };
            let mut filters = read_filters(lib, grp, varid, &context).ok()?;
            let chunk_bytes = chunks
                .iter()
                .try_fold(atomic.size(), |a, c| a.checked_mul(*c))?;
            // Chunks up to the chunk limit are decoded here, bounded; larger ones (a
            // limit raised for them) are HDF5's.
            if filters.is_empty()
                || chunk_bytes == 0
                || chunk_bytes > codecs::partial::decoded_chunk_cap()
            {
                return None;
            }
            let group = group_path(lib, file, group_ncid)?;
            let origin = ChunkOrigin::open(lib, &file_name, &group, &info.name)?;
            // libnetcdf reports two of szip's four words; HDF5 stores them all.
            for filter in filters.iter_mut().filter(|f| f.id == codecs::known::SZIP) {
                if let Some(words) = origin.filter_params(lib, filter.id) {
                    filter.params = words;
                }
            }
            let decoder = ChunkDecoder::new(&filters, atomic.size())?;
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
                origin,
                decoder,
                shape,
                chunks,
                chunk_bytes,
                element: atomic.size(),
                swap,
                carried: Mutex::new(Vec::new()),
                decoded: AtomicU64::new(0),
            })
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

/// A stored chunk that decodes to more than its size.
#[derive(Debug)]
pub(crate) struct Bomb {
    offset: Vec<usize>,
    chunk_bytes: usize,
    error: String,
}

impl ChunkedVar {
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
                    return Ok(None);
                };
                grid.chunk_to_slab(index, &chunk, &mut out);
                if self.reaches_past(index, start, count) && kept_bytes + chunk.len() <= CARRY_LIMIT
                {
                    kept_bytes += chunk.len();
                    keep.push((index.clone(), chunk));
                }
            }
        }
        *self.carried.lock().unwrap_or_else(PoisonError::into_inner) = keep;
        Ok(Some(out))
    }

    /// One chunk decoded, in the machine's byte order; `None` when it was never written
    /// or does not decode (libnetcdf then says why); an error when it decodes to more
    /// than its size.
    fn decode_chunk(&self, index: &[usize]) -> Result<Option<Vec<u8>>, Bomb> {
        let offset: Vec<usize> = index.iter().zip(&self.chunks).map(|(i, c)| i * c).collect();
        let Ok(Some(stored)) = with_lib(|lib| self.origin.read(lib, &offset)) else {
            return Ok(None);
        };
        // Decoded chunks in flight across all threads stay within the process's budget.
        let _permit = store::budget::decode_budget().acquire(self.chunk_bytes);
        let mut data =
            match self
                .decoder
                .decode(&stored.bytes, stored.filter_mask, self.chunk_bytes)
            {
                Ok(data) => data,
                Err(e @ codecs::wire::WireError::TooLarge { .. }) => {
                    return Err(Bomb {
                        offset,
                        chunk_bytes: self.chunk_bytes,
                        error: e.to_string(),
                    })
                }
                Err(_) => return Ok(None),
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
