//! Reading hyperslabs: the chunks a slab touches are read and decoded on all cores (a
//! few at a time, so memory stays near the slab plus the chunks in flight) and their
//! parts gathered into the slab.

use rayon::prelude::*;

use crate::codec::{available_list, codec_id, decode_chain, is_available, CodecFail};
use crate::dtype::{swap_in_place, widen_half, Special};
use crate::error::{Result, ZarrError};
use crate::meta::ArrayMeta;
use crate::schema::VarEntry;
use store::grid::SlabGrid;

/// The slab `start`/`count` of a variable, as elements in the machine's byte order.
pub fn read_slab(entry: &VarEntry, start: &[usize], count: &[usize]) -> Result<Vec<u8>> {
    let meta = &entry.meta;
    let (start, count) = checked_slab(entry, start, count)?;
    let elem = meta.dtype.size;
    let total = count
        .iter()
        .try_fold(elem, |a, c| a.checked_mul(*c))
        .ok_or_else(|| ZarrError::Invalid(format!("the slab {count:?} is too large")))?;
    let fill = crate::strings::padded_fill(&entry.missing, &meta.dtype);
    let fill = &fill[..];
    let grid = SlabGrid {
        start,
        count,
        chunks: &meta.chunks,
        elem,
    };
    // A slab that is one whole chunk is that chunk's decoded bytes, moved rather than
    // copied: a chunk re-encoded by nccopy is held once, not twice.
    if let Some(index) = whole_chunk_index(start, count, &meta.chunks) {
        match read_chunk(entry, &index, &grid)? {
            Some(Chunk::Whole(chunk)) if chunk.len() == total => return Ok(chunk),
            None => {
                let mut out = vec![0u8; total];
                grid.fill_slab_part(&index, fill, &mut out);
                return Ok(out);
            }
            // Of another size (refused below as the general path refuses it), or a part.
            Some(_) => {}
        }
    }
    let mut out = vec![0u8; total];
    for indices in grid.batches(meta.chunk_bytes()) {
        let decoded: Vec<Result<Option<Chunk>>> = indices
            .par_iter()
            .map(|index| read_chunk(entry, index, &grid))
            .collect();
        for (index, chunk) in indices.iter().zip(decoded) {
            match chunk? {
                Some(Chunk::Whole(chunk)) => grid.chunk_to_slab(index, &chunk, &mut out),
                Some(Chunk::Part(part)) => grid.part_to_slab(index, &part, &mut out),
                None => grid.fill_slab_part(index, fill, &mut out),
            }
        }
    }
    Ok(out)
}

/// The index of the chunk (of shape `chunks`) that the slab `start`/`count` is exactly,
/// if it is one.
fn whole_chunk_index(start: &[usize], count: &[usize], chunks: &[usize]) -> Option<Vec<usize>> {
    let exact = count == chunks && start.iter().zip(chunks).all(|(s, c)| *c > 0 && s % c == 0);
    exact.then(|| start.iter().zip(chunks).map(|(s, c)| s / c).collect())
}

/// The slab `start`/`count` checked against the variable's shape (NCZarr's scalars,
/// arrays of shape `[1]`, read with an empty slab), after checking that its codecs are
/// available.
pub fn checked_slab<'a>(
    entry: &VarEntry,
    start: &'a [usize],
    count: &'a [usize],
) -> Result<(&'a [usize], &'a [usize])> {
    let meta = &entry.meta;
    // NCZarr stores scalars as arrays of shape [1].
    let (start, count) = if start.is_empty() && meta.shape.len() == 1 {
        (&[0usize][..], &[1usize][..])
    } else {
        (start, count)
    };
    if start.len() != meta.shape.len() || count.len() != meta.shape.len() {
        return Err(ZarrError::Invalid(format!(
            "the slab has rank {} but the variable has rank {}",
            start.len(),
            meta.shape.len()
        )));
    }
    let beyond = start
        .iter()
        .zip(count)
        .zip(&meta.shape)
        .any(|((s, c), len)| s.checked_add(*c).is_none_or(|end| end > *len));
    if beyond {
        return Err(ZarrError::Invalid(format!(
            "the slab {start:?}+{count:?} goes beyond the variable's shape {:?}",
            meta.shape
        )));
    }
    check_codecs(entry)?;
    Ok((start, count))
}

/// The ids of the variable's codecs that nctools cannot decode.
pub fn unavailable_codecs(entry: &VarEntry) -> Vec<String> {
    entry
        .meta
        .all_codecs()
        .iter()
        .map(codec_id)
        .filter(|id| !is_available(id))
        .map(str::to_string)
        .collect()
}

/// Fails before any chunk is read when a codec of the variable is not available.
fn check_codecs(entry: &VarEntry) -> Result<()> {
    match unavailable_codecs(entry).first() {
        Some(id) => Err(unavailable(id)),
        None => Ok(()),
    }
}

/// The error for a codec nctools does not have. It starts with netCDF-C's words
/// (`unsupported codec: (ID)`, after `Variable NAME has` in ncdump's message), which
/// scripts written for netCDF-C look for.
pub fn unavailable(id: &str) -> ZarrError {
    ZarrError::NoCodec(format!(
        "unsupported codec: ({id}); nctools reads {}; ncdump -hs shows the variable's \
         codecs without reading its data",
        available_list()
    ))
}

/// One chunk decoded, in the machine's byte order; `None` when its file is missing.
fn read_chunk(entry: &VarEntry, index: &[usize], grid: &SlabGrid<'_>) -> Result<Option<Chunk>> {
    let meta = &entry.meta;
    match &meta.sharding {
        // Of a shard, only the part the slab meets is read and built.
        Some(sharding) => {
            let (in_chunk, _, extent) =
                store::grid::overlap(index, &meta.chunks, grid.start, grid.count);
            let key = meta.chunk_key(index);
            let part = crate::shard::read_region(meta, sharding, &key, (&in_chunk, &extent))?;
            Ok(part.map(Chunk::Part))
        }
        None => {
            let (in_chunk, _, extent) =
                store::grid::overlap(index, &meta.chunks, grid.start, grid.count);
            if extent == meta.chunks {
                return Ok(read_meta_chunk(meta, index)?.map(Chunk::Whole));
            }
            read_chunk_part(entry, index, &in_chunk, &extent)
        }
    }
}

/// Chunks of at most this many bytes are decoded whole even when a slab needs only part
/// of them (the usual case, and the cheaper one); larger ones are decoded in pieces when
/// their codecs allow it (see [`codecs::partial`]).
const DECODE_WHOLE_BELOW: usize = 4 << 20;

/// The part `in_chunk`/`extent` of the chunk `index`, which a slab needs only part of:
/// decoded in pieces, keeping only that part, when the chunk is large and its codecs are
/// one streaming compressor; otherwise decoded whole, unless its declared size is over
/// the limit ([`codecs::partial::decoded_chunk_cap`]) while less of it lies inside the
/// array (then refused, naming the variable).
fn read_chunk_part(
    entry: &VarEntry,
    index: &[usize],
    in_chunk: &[usize],
    extent: &[usize],
) -> Result<Option<Chunk>> {
    let meta = &entry.meta;
    let declared = meta.stored_chunk_bytes();
    if meta.codecs.is_empty() && meta.transpose.is_none() && declared > DECODE_WHOLE_BELOW {
        return read_uncompressed_part(meta, index, in_chunk, extent);
    }
    if declared <= DECODE_WHOLE_BELOW || meta.codecs.is_empty() {
        return Ok(read_meta_chunk(meta, index)?.map(Chunk::Whole));
    }
    let Some(stream) = stream_of(meta) else {
        let covered = covered_bytes(meta, index);
        let limit = codecs::partial::decoded_chunk_cap();
        if declared > limit && covered < declared {
            return Err(ZarrError::Corrupt(format!(
                "chunk {} of {declared} bytes declared for {covered} bytes of data: \
                 larger than the {limit}-byte limit on chunks decoded whole (its codecs \
                 cannot be decoded in pieces); the store is damaged, or set {}=BYTES to \
                 read it",
                meta.describe(&meta.chunk_key(index)),
                codecs::partial::CHUNK_LIMIT_VARIABLE
            )));
        }
        return Ok(read_meta_chunk(meta, index)?.map(Chunk::Whole));
    };
    let key = meta.chunk_key(index);
    let Some(raw) = meta.store.get(&key, encoded_cap(meta))? else {
        return Ok(None);
    };
    let region = codecs::partial::ChunkBox {
        chunk: &meta.chunks,
        offset: in_chunk,
        extent,
        element: meta.dtype.stored_size(),
    };
    let part_bytes = extent.iter().product::<usize>() * region.element;
    let _permit = store::budget::decode_budget().acquire(part_bytes);
    let part = codecs::partial::decode_box(stream, &raw, &region).map_err(|e| {
        ZarrError::Corrupt(format!(
            "chunk {} cannot be decoded: {e}; the store is probably damaged",
            meta.describe(&key)
        ))
    })?;
    Ok(Some(Chunk::Part(to_machine(meta, part))))
}

/// The part `in_chunk`/`extent` of the chunk `index` of an array stored without codecs,
/// read by range: from the part's first byte to its last, never the whole chunk (before,
/// four values of a chunk declared as a GiB cost a GiB, from a zip archive that inflates
/// it from 1 MB or stores it over holes; red team s35 RA5). The chunk must hold exactly
/// the chunk's bytes, as when it is read whole; a span past the chunk limit is refused.
fn read_uncompressed_part(
    meta: &ArrayMeta,
    index: &[usize],
    in_chunk: &[usize],
    extent: &[usize],
) -> Result<Option<Chunk>> {
    let key = meta.chunk_key(index);
    let what = meta.describe(&key);
    let declared = meta.stored_chunk_bytes();
    let Some(size) = meta.store.size(&key)? else {
        return Ok(None);
    };
    if size != declared as u64 {
        return Err(ZarrError::Corrupt(format!(
            "chunk {what} cannot be decoded: it holds {size} bytes where a chunk has \
             {declared}; the store is probably damaged"
        )));
    }
    let region = codecs::partial::ChunkBox {
        chunk: &meta.chunks,
        offset: in_chunk,
        extent,
        element: meta.dtype.stored_size(),
    };
    let Some((start, length)) = codecs::partial::byte_span(&region) else {
        return Err(ZarrError::Corrupt(format!(
            "{what}: the part read is not in the chunk"
        )));
    };
    let limit = codecs::partial::decoded_chunk_cap();
    if length > limit {
        return Err(ZarrError::Corrupt(format!(
            "{what}: the {length} bytes that hold the part read are more than the \
             {limit}-byte limit on what one chunk may cost; set {}=BYTES to read it",
            codecs::partial::CHUNK_LIMIT_VARIABLE
        )));
    }
    let _permit = store::budget::decode_budget().acquire(length);
    let Some(span) = meta.store.get_range(&key, start as u64, length as u64)? else {
        return Ok(None);
    };
    let part = codecs::partial::cut_box(&span, &region)
        .map_err(|e| ZarrError::Corrupt(format!("{what}: {e}")))?;
    Ok(Some(Chunk::Part(to_machine(meta, part))))
}

/// The streaming compressor a chunk of `meta` is stored through, when its chunks can be
/// decoded in pieces: one codec of [`codecs::partial::Stream`], elements in C order.
fn stream_of(meta: &ArrayMeta) -> Option<codecs::partial::Stream> {
    match meta.codecs.as_slice() {
        [codec] if meta.transpose.is_none() => {
            codecs::partial::Stream::of_numcodecs_id(codec_id(codec))
        }
        _ => None,
    }
}

/// The bytes (as stored) of the part of the chunk `index` inside the array.
fn covered_bytes(meta: &ArrayMeta, index: &[usize]) -> usize {
    let elements: usize = index
        .iter()
        .zip(&meta.chunks)
        .zip(&meta.shape)
        .map(|((i, c), len)| len.saturating_sub(i.saturating_mul(*c)).min(*c))
        .product();
    elements.saturating_mul(meta.dtype.stored_size())
}

/// A chunk as read for a slab: whole, or only its part inside the slab (of a shard).
enum Chunk {
    /// The whole chunk.
    Whole(Vec<u8>),
    /// The part of the chunk inside the slab, in the part's own shape.
    Part(Vec<u8>),
}

/// One chunk of the array `meta` decoded, in the machine's byte order; `None` when it
/// was never written.
pub fn read_meta_chunk(meta: &ArrayMeta, index: &[usize]) -> Result<Option<Vec<u8>>> {
    let key = meta.chunk_key(index);
    let what = meta.describe(&key);
    // A chunk read whole costs its declared size: over the limit it is refused, however
    // much of it lies inside the array and whatever its codecs (a 785-byte chunk of
    // bzip2 and shuffle filling an array of 2^28 values would cost 2 GB; a chunk without
    // codecs a zip archive inflates from 1 MB, or stores over holes, a GiB: red team s35
    // RA5; chunks that need only part of themselves and stream, or have no codecs, are
    // read in part before this). Checked before anything is read.
    let declared = meta.stored_chunk_bytes();
    let limit = codecs::partial::decoded_chunk_cap();
    if declared > limit {
        // A chunk never written costs nothing, whatever it declares.
        if meta.store.size(&key)?.is_none() {
            return Ok(None);
        }
        return Err(ZarrError::Corrupt(format!(
            "chunk {what} decodes to {declared} bytes, larger than the {limit}-byte limit \
             on chunks decoded whole; the store is damaged, or set {}=BYTES to read it",
            codecs::partial::CHUNK_LIMIT_VARIABLE
        )));
    }
    let Some(raw) = meta.store.get(&key, encoded_cap(meta))? else {
        return Ok(None);
    };
    // Decoded chunks in flight across all threads stay within the process's budget.
    let _permit = store::budget::decode_budget().acquire(declared);
    decode(meta, raw, &what).map(Some).map_err(|e| match e {
        CodecFail::Unavailable(id) => unavailable(&id),
        CodecFail::Failed(m) => ZarrError::Corrupt(format!(
            "chunk {what} cannot be decoded: {m}; the store is probably damaged"
        )),
    })
}

/// The most bytes a stored chunk of `meta` can hold: a chunk's bytes when it has no
/// codecs, else as much with the slack compressors may add to data they cannot shrink.
pub fn encoded_cap(meta: &ArrayMeta) -> u64 {
    if let Some(sharding) = &meta.sharding {
        return sharding.encoded_cap(meta);
    }
    let bytes = meta.stored_chunk_bytes();
    let limit = codecs::partial::decoded_chunk_cap();
    let cap = if meta.codecs.is_empty() {
        bytes
    } else if meta.codecs.iter().any(crate::codec::is_plugin_codec) {
        // What a plugin's filter stores is not bounded by its data (netCDF-C's test
        // filter stores 8 times the chunk): the chunk limit is.
        limit.max(codecs::with_slack(bytes))
    } else {
        codecs::with_slack(crate::codec::widened(&meta.codecs, bytes))
    };
    // Whatever the chunk declares, its stored bytes, read whole, are at most the chunk
    // limit (and the slack a compressor adds): a zip archive inflates a GiB from 1 MB
    // (red team s35 RA5).
    cap.min(codecs::with_slack(limit)) as u64
}

/// Decodes the bytes of one chunk file, to exactly one chunk's size: its codecs undone,
/// its axes in C order, its elements in the machine's byte order (half floats widened
/// to floats).
pub fn decode(meta: &ArrayMeta, raw: Vec<u8>, what: &str) -> Result<Vec<u8>, CodecFail> {
    if meta.sharding.is_some() {
        // Shards are read through their index (`shard::read_region`), never whole.
        return Err(CodecFail::Failed(format!(
            "{what} is a shard, read through its index only"
        )));
    }
    let expected = meta.stored_chunk_bytes();
    let stored = meta.dtype.stored_size();
    let mut data = if meta.codecs.is_empty() {
        raw
    } else {
        decode_chain(&meta.codecs, &meta.codec_array(stored), raw, expected)?
    };
    if data.len() != expected {
        return Err(CodecFail::Failed(format!(
            "{what} holds {} bytes where a chunk has {expected}",
            data.len()
        )));
    }
    if let Some(order) = &meta.transpose {
        data = crate::transpose::to_c_order(&data, &meta.chunks, order, stored);
    }
    Ok(to_machine(meta, data))
}

/// Elements of `meta` as stored, in C order, in the machine's byte order (half floats
/// widened to floats).
fn to_machine(meta: &ArrayMeta, mut data: Vec<u8>) -> Vec<u8> {
    let stored = meta.dtype.stored_size();
    if meta.dtype.needs_swap() {
        let width = if meta.dtype.special == Special::Half {
            stored
        } else {
            meta.dtype.swap_width()
        };
        swap_in_place(&mut data, width);
    }
    if meta.dtype.special == Special::Half {
        data = widen_half(&data);
    }
    data
}
