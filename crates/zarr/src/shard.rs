//! Zarr v3 codec lists, and the `sharding_indexed` codec: a stored chunk (a shard) that
//! holds a grid of inner chunks, each encoded on its own, and an index of where each one
//! is (offset and length, two little- or big-endian 64-bit numbers per inner chunk,
//! [`MISSING`] twice for one never written) at its end or start.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use codecs::zarr_codec::{V3_BYTES, V3_SHARDING_INDEXED};
use rayon::prelude::*;

use crate::codec::{decode_chain, CodecFail};
use crate::error::{Result, ZarrError};
use crate::meta::ArrayMeta;
use store::grid::{copy_box, filled, Region};

/// How deep sharding codecs may nest: one level (a shard of shards is refused, so that
/// no inner chunk is itself a shard built whole).
const MAX_NESTING: usize = 1;

/// A v3 codec list, read: the array-to-array and array-to-bytes parts apart from the
/// bytes-to-bytes codecs (numcodecs' JSON).
#[derive(Debug, Clone, Default)]
pub struct Chain {
    /// The `bytes` codec's endianness is big.
    pub big_endian: bool,
    /// The `vlen-utf8` codec is there.
    pub vlen: bool,
    /// The `transpose` codec's axis order.
    pub transpose: Option<Vec<usize>>,
    /// The bytes-to-bytes codecs, in numcodecs' JSON, in encoding order.
    pub codecs: Vec<Value>,
    /// The `sharding_indexed` codec, when chunks are shards.
    pub sharding: Option<Box<Sharding>>,
}

/// A `sharding_indexed` codec.
#[derive(Debug, Clone)]
pub struct Sharding {
    /// The inner chunks' shape.
    pub inner_chunks: Vec<usize>,
    /// How inner chunks are encoded.
    pub inner: Chain,
    /// The index's codecs after `bytes` (only `crc32c` has a fixed size).
    pub index_codecs: Vec<Value>,
    /// The index's numbers are big-endian.
    pub index_big_endian: bool,
    /// The index is at the end of the shard (else at its start).
    pub index_at_end: bool,
    /// The indexes of the shards read last.
    pub index_cache: IndexCache,
}

/// What an index entry's offset and length both hold for an inner chunk not stored.
pub const MISSING: u64 = u64::MAX;

/// The most bytes of shard indexes an array keeps (16 per inner chunk).
const INDEX_CACHE_BYTES: usize = 8 << 20;

/// An index entry: offset and length of one inner chunk.
type Entry = (u64, u64);

/// A shard's index as kept: the shard's key, its length then, and its entries.
type Kept = (String, u64, Arc<Vec<Entry>>);

/// The indexes of the shards of one array read last (at most [`INDEX_CACHE_BYTES`], the
/// oldest dropped first), each with the shard's length when it was read: a shard read in
/// several parts (slabs that each meet part of it) has its index fetched once.
#[derive(Debug, Clone, Default)]
pub struct IndexCache(Arc<Mutex<VecDeque<Kept>>>);

impl IndexCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Kept>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The index of the shard `key`, if it was read while the shard was `length` bytes.
    fn get(&self, key: &str, length: u64) -> Option<Arc<Vec<Entry>>> {
        self.lock()
            .iter()
            .find(|(k, l, _)| k == key && *l == length)
            .map(|(_, _, index)| index.clone())
    }

    /// The length of the shard `key` when its index was kept.
    fn length_of(&self, key: &str) -> Option<u64> {
        self.lock()
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, length, _)| *length)
    }

    /// Keeps the index of the shard `key`, `length` bytes long.
    fn put(&self, key: &str, length: u64, index: Arc<Vec<Entry>>) {
        let mut kept = self.lock();
        kept.retain(|(k, _, _)| k != key);
        kept.push_back((key.to_string(), length, index));
        let bytes =
            |kept: &VecDeque<Kept>| kept.iter().map(|(_, _, i)| i.len() * 16).sum::<usize>();
        while kept.len() > 1 && bytes(&kept) > INDEX_CACHE_BYTES {
            kept.pop_front();
        }
    }
}

/// Reads the v3 codec list `list` of arrays (or shards) of `chunks`; `what` names the
/// metadata document for messages.
pub fn parse_chain(list: Option<&Value>, chunks: &[usize], what: &str) -> Result<Chain> {
    parse_nested(list, chunks, what, 0)
}

fn parse_nested(list: Option<&Value>, chunks: &[usize], what: &str, depth: usize) -> Result<Chain> {
    let mut chain = Chain::default();
    for codec in list.and_then(Value::as_array).into_iter().flatten() {
        let name = codec.get("name").and_then(Value::as_str).unwrap_or("?");
        let config = codec.get("configuration");
        match name {
            "transpose" => {
                chain.transpose = Some(crate::meta::transpose_order(config, chunks.len(), what)?)
            }
            V3_BYTES => {
                chain.big_endian =
                    config.and_then(|c| c.get("endian")).and_then(Value::as_str) == Some("big")
            }
            crate::vlen::VLEN_UTF8 | crate::vlen::VLEN_BYTES => chain.vlen = true,
            V3_SHARDING_INDEXED => {
                if depth >= MAX_NESTING {
                    return Err(ZarrError::Corrupt(format!(
                        "{what}: sharding codecs nested inside sharding codecs are not supported by \
                         nctools"
                    )));
                }
                chain.sharding = Some(Box::new(sharding(config, chunks, what, depth)?));
            }
            _ => chain
                .codecs
                .push(codecs::zarr_codec::numcodecs_of_v3_codec(name, config)),
        }
    }
    Ok(chain)
}

fn sharding(
    config: Option<&Value>,
    chunks: &[usize],
    what: &str,
    depth: usize,
) -> Result<Sharding> {
    let bad = |problem: String| {
        ZarrError::Corrupt(format!(
            "{what}: the sharding codec {problem}; the store is damaged"
        ))
    };
    let inner_chunks: Vec<usize> = config
        .and_then(|c| c.get("chunk_shape"))
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter()
                .map(|n| n.as_u64().and_then(|n| usize::try_from(n).ok()))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| bad("has no valid chunk_shape".into()))?;
    let divides = inner_chunks.len() == chunks.len()
        && inner_chunks
            .iter()
            .zip(chunks)
            .all(|(i, c)| *i > 0 && c % i == 0);
    if !divides {
        return Err(bad(format!(
            "has inner chunks {inner_chunks:?} that do not divide its shards {chunks:?}"
        )));
    }
    let inner = parse_nested(
        config.and_then(|c| c.get("codecs")),
        &inner_chunks,
        what,
        depth + 1,
    )?;
    let index = parse_nested(
        config.and_then(|c| c.get("index_codecs")),
        &inner_chunks,
        what,
        MAX_NESTING,
    )?;
    let checksum = codecs::registry::shard_index_checksum().numcodecs_id;
    if let Some(other) = index
        .codecs
        .iter()
        .map(crate::codec::codec_id)
        .find(|id| *id != checksum)
    {
        return Err(bad(format!(
            "has the index codec {other:?}; an index holds bytes and {checksum} only"
        )));
    }
    let index_at_end = config
        .and_then(|c| c.get("index_location"))
        .and_then(Value::as_str)
        != Some("start");
    Ok(Sharding {
        inner_chunks,
        inner: Chain {
            sharding: inner.sharding,
            ..inner
        },
        index_codecs: index.codecs,
        index_big_endian: index.big_endian,
        index_at_end,
        index_cache: IndexCache::default(),
    })
}

impl Sharding {
    /// How many inner chunks a shard of `chunks` holds.
    fn inner_count(&self, chunks: &[usize]) -> usize {
        chunks
            .iter()
            .zip(&self.inner_chunks)
            .map(|(c, i)| c / i)
            .fold(1usize, usize::saturating_mul)
    }

    /// The metadata of one inner chunk of the array `outer`.
    pub fn inner_meta(&self, outer: &ArrayMeta) -> ArrayMeta {
        let mut dtype = outer.dtype;
        dtype.big_endian = self.inner.big_endian;
        ArrayMeta {
            chunks: self.inner_chunks.clone(),
            dtype,
            codecs: self.inner.codecs.clone(),
            transpose: self.inner.transpose.clone(),
            sharding: self.inner.sharding.clone(),
            ..outer.clone()
        }
    }

    /// The codecs of the shard, inner chunks and index alike, by numcodecs id.
    pub fn codecs(&self) -> Vec<Value> {
        let mut all = self.inner.codecs.clone();
        all.extend(self.index_codecs.iter().cloned());
        if let Some(nested) = &self.inner.sharding {
            all.extend(nested.codecs());
        }
        all
    }

    /// The most bytes a shard of `meta` can hold: every inner chunk at its most, and the
    /// index.
    pub fn encoded_cap(&self, meta: &ArrayMeta) -> u64 {
        let inner = self.inner_meta(meta);
        let per_inner = crate::read::encoded_cap(&inner);
        let count = self.inner_count(&meta.chunks) as u64;
        count
            .saturating_mul(per_inner)
            .saturating_add(count.saturating_mul(16))
            .saturating_add(64)
    }
}

/// A shard in a store, read a range at a time (its index, then the inner chunks wanted);
/// or, when the array has codecs after `sharding_indexed` (zarr-python's default
/// compressor after a sharding serializer), read whole and decoded first, since its
/// ranges are ranges of the decoded bytes.
struct Ranged<'a> {
    meta: &'a ArrayMeta,
    key: &'a kv::StoreKey,
    length: u64,
    decoded: Option<Vec<u8>>,
}

/// The shard `key` of the array `meta`, to read ranges of; `None` when it was never
/// written. A shard under codecs of its own is read whole, within the cap on its stored
/// size, and decoded within the chunk limit.
fn open_shard<'a>(
    meta: &'a ArrayMeta,
    sharding: &Sharding,
    key: &'a kv::StoreKey,
) -> Result<Option<Ranged<'a>>> {
    let Some(length) = shard_length(meta, sharding, key)? else {
        return Ok(None);
    };
    if meta.codecs.is_empty() {
        return Ok(Some(Ranged {
            meta,
            key,
            length,
            decoded: None,
        }));
    }
    let Some(stored) = meta.store.get(key, length)? else {
        return Ok(None);
    };
    let cap = usize::try_from(sharding.encoded_cap(meta))
        .unwrap_or(usize::MAX)
        .min(codecs::partial::decoded_chunk_cap());
    let decoded =
        decode_chain(&meta.codecs, &meta.codec_array(1), stored, cap).map_err(|e| match e {
            CodecFail::Unavailable(id) => crate::read::unavailable(&id),
            CodecFail::Failed(m) => ZarrError::Corrupt(format!(
                "chunk {} cannot be decoded: {m}; the store is probably damaged",
                meta.describe(key)
            )),
        })?;
    Ok(Some(Ranged {
        meta,
        key,
        length: decoded.len() as u64,
        decoded: Some(decoded),
    }))
}

impl Ranged<'_> {
    /// The bytes of each range of `ranges` (offset and length), exactly: ranges that
    /// touch or overlap are read as one, and all of them in one request to the store (a
    /// directory store opens the shard once).
    fn read(&self, ranges: &[(u64, u64)]) -> std::result::Result<Vec<Vec<u8>>, CodecFail> {
        let what = self.meta.describe(self.key);
        if let Some(decoded) = &self.decoded {
            return ranges
                .iter()
                .map(|(offset, length)| {
                    let from = usize::try_from(*offset).ok();
                    let to = from.and_then(|f| f.checked_add(usize::try_from(*length).ok()?));
                    from.zip(to)
                        .and_then(|(from, to)| decoded.get(from..to))
                        .map(<[u8]>::to_vec)
                        .ok_or_else(|| {
                            CodecFail::Failed(format!("{what} ends before a range its index gives"))
                        })
                })
                .collect();
        }
        let merged = coalesce(ranges);
        let spans: Vec<(u64, u64)> = merged
            .iter()
            .map(|(start, end)| (*start, end - start))
            .collect();
        let parts = self
            .meta
            .store
            .get_ranges(self.key, &spans)
            .map_err(|e| CodecFail::Failed(e.to_string()))?
            .unwrap_or_default();
        if parts.len() != spans.len()
            || parts.iter().zip(&spans).any(|(p, s)| p.len() as u64 != s.1)
        {
            return Err(CodecFail::Failed(format!(
                "{what} ends before a range its index gives"
            )));
        }
        ranges
            .iter()
            .map(|(offset, length)| {
                // The merged range holding it: the last that starts at or before it.
                let i = merged
                    .partition_point(|(start, _)| start <= offset)
                    .saturating_sub(1);
                let from = offset.saturating_sub(merged.get(i).map_or(0, |m| m.0));
                let slice = usize::try_from(from).ok().and_then(|from| {
                    let to = from.checked_add(usize::try_from(*length).ok()?)?;
                    parts.get(i)?.get(from..to)
                });
                slice.map(<[u8]>::to_vec).ok_or_else(|| {
                    CodecFail::Failed(format!("{what}: the range {offset}+{length} was not read"))
                })
            })
            .collect()
    }
}

/// The ranges `ranges` (offset and length) merged where they touch or overlap: sorted
/// `(start, end)` pairs.
fn coalesce(ranges: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut sorted: Vec<(u64, u64)> = ranges
        .iter()
        .map(|(offset, length)| (*offset, offset.saturating_add(*length)))
        .collect();
    sorted.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(sorted.len());
    for (start, end) in sorted {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// The box `region` (start and extent in the shard) of the shard `key` of the array
/// `meta`, decoded, in C order and the machine's byte order: its index is read once
/// (and kept for the next reads of the same shard, see [`IndexCache`]), then the inner
/// chunks that meet the box: their stored bytes up to [`FETCH_BYTES`] at a time, in one
/// request to the store (byte ranges merged where they touch), decoded in parallel a
/// batch at a time; inner chunks never written hold the fill value. Memory is the box,
/// [`FETCH_BYTES`] of stored bytes and one batch of inner chunks (within the in-flight
/// budget), whatever the shard's declared size. `None` when the
/// shard was never written.
pub fn read_region(
    meta: &ArrayMeta,
    sharding: &Sharding,
    key: &kv::StoreKey,
    region: (&[usize], &[usize]),
) -> Result<Option<Vec<u8>>> {
    let Some(source) = open_shard(meta, sharding, key)? else {
        return Ok(None);
    };
    let what = meta.describe(key);
    assemble(meta, sharding, &source, region, &what)
        .map(Some)
        .map_err(|e| match e {
            CodecFail::Unavailable(id) => crate::read::unavailable(&id),
            CodecFail::Failed(m) => ZarrError::Corrupt(format!(
                "chunk {what} cannot be decoded: {m}; the store is probably damaged"
            )),
        })
}

/// Whether the inner chunk at `at` (its first element in the shard) of shape `inner`
/// meets the box `region`.
fn meets(at: &[usize], inner: &[usize], region: (&[usize], &[usize])) -> bool {
    let (start, extent) = region;
    at.iter()
        .zip(inner)
        .zip(start.iter().zip(extent))
        .all(|((a, i), (s, e))| a + i > *s && *a < s + e)
}

/// The index of a shard read from `source`: each inner chunk's offset and length, in C
/// order of the inner chunks.
fn read_index(
    sharding: &Sharding,
    count: usize,
    source: &Ranged<'_>,
    what: &str,
) -> std::result::Result<Vec<(u64, u64)>, CodecFail> {
    let damaged = |m: String| CodecFail::Failed(format!("{what}: {m}"));
    // A declared shape whose index cannot be counted can be no shard's.
    let index_bytes = (count as u64)
        .saturating_mul(16)
        .saturating_add(4 * sharding.index_codecs.len() as u64);
    let total = source.length;
    if total < index_bytes {
        return Err(damaged(format!(
            "a shard of {total} bytes cannot hold its index of {index_bytes}"
        )));
    }
    let index_at = if sharding.index_at_end {
        total - index_bytes
    } else {
        0
    };
    let index_raw = source
        .read(&[(index_at, index_bytes)])?
        .pop()
        .unwrap_or_default();
    let index = if sharding.index_codecs.is_empty() {
        index_raw
    } else {
        decode_chain(
            &sharding.index_codecs,
            &crate::codec::ZarrArray::of_element(8),
            index_raw,
            count * 16,
        )?
    };
    if index.len() != count * 16 {
        return Err(damaged(format!(
            "its index holds {} bytes, not {}",
            index.len(),
            count * 16
        )));
    }
    let number = |bytes: &[u8]| {
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        if sharding.index_big_endian {
            u64::from_be_bytes(word)
        } else {
            u64::from_le_bytes(word)
        }
    };
    Ok(index
        .chunks_exact(16)
        .map(|entry| (number(&entry[..8]), number(&entry[8..])))
        .collect())
}

/// The length of the shard `key` of the array `meta`: as kept with its index from an
/// earlier read (a store does not change under its reader; each write makes its arrays
/// afresh), else asked of the store and checked against what such a shard can hold.
/// `None` when the shard was never written. On an object store, a shard read in parts
/// costs no request for its length or index after the first.
fn shard_length(meta: &ArrayMeta, sharding: &Sharding, key: &kv::StoreKey) -> Result<Option<u64>> {
    if let Some(length) = sharding.index_cache.length_of(key.as_str()) {
        return Ok(Some(length));
    }
    let Some(length) = meta.store.size(key)? else {
        return Ok(None);
    };
    let what = || meta.describe(key);
    kv::StorageError::within_cap(what, length, sharding.encoded_cap(meta))?;
    Ok(Some(length))
}

/// The index of the shard `source` of the array `meta`: kept from an earlier read of the
/// same shard, else read (and kept).
fn cached_index(
    meta: &ArrayMeta,
    sharding: &Sharding,
    source: &Ranged<'_>,
    what: &str,
) -> std::result::Result<Arc<Vec<Entry>>, CodecFail> {
    let key = source.key.as_str();
    let count = sharding.inner_count(&meta.chunks);
    if source.decoded.is_some() {
        // Kept by the stored length, which a decoded shard's is not.
        return Ok(Arc::new(read_index(sharding, count, source, what)?));
    }
    if let Some(index) = sharding.index_cache.get(key, source.length) {
        return Ok(index);
    }
    let index = Arc::new(read_index(sharding, count, source, what)?);
    sharding.index_cache.put(key, source.length, index.clone());
    Ok(index)
}

/// The stored bytes of the inner chunk at `position` (in inner chunks) of the shard
/// `index` of the array `meta`, as they are (not decoded); `None` when the shard or the
/// inner chunk was never written.
pub fn read_inner_stored(
    meta: &ArrayMeta,
    sharding: &Sharding,
    index: &[usize],
    position: &[usize],
) -> Result<Option<Vec<u8>>> {
    let key = meta.chunk_key(index);
    let Some(source) = open_shard(meta, sharding, &key)? else {
        return Ok(None);
    };
    let length = source.length;
    let what = meta.describe(&key);
    let damaged = |e: CodecFail| match e {
        CodecFail::Unavailable(id) => crate::read::unavailable(&id),
        CodecFail::Failed(m) => ZarrError::Corrupt(format!(
            "chunk {what} cannot be read: {m}; the store is probably damaged"
        )),
    };
    let entries = cached_index(meta, sharding, &source, &what).map_err(damaged)?;
    let per: Vec<usize> = meta
        .chunks
        .iter()
        .zip(&sharding.inner_chunks)
        .map(|(c, i)| c / i)
        .collect();
    let number = position
        .iter()
        .zip(&per)
        .fold(0usize, |n, (p, count)| n * count + p);
    let Some(&(offset, stored)) = entries.get(number) else {
        return Err(ZarrError::Invalid(format!(
            "{what}: no inner chunk at {position:?}"
        )));
    };
    if offset == MISSING && stored == MISSING {
        return Ok(None);
    }
    let inner_cap = crate::read::encoded_cap(&sharding.inner_meta(meta));
    let inside = offset
        .checked_add(stored)
        .is_some_and(|end| end <= length && stored <= inner_cap);
    if !inside {
        return Err(damaged(CodecFail::Failed(format!(
            "its index places an inner chunk at {offset}+{stored}, beyond its {length} bytes \
             or its size"
        ))));
    }
    let mut parts = source.read(&[(offset, stored)]).map_err(damaged)?;
    Ok(parts.pop())
}

/// How many inner chunks of the shard `index` of the array `meta` are stored, counting
/// only those inside the array (a shard at its end may hold some past it).
pub fn stored_inner_count(meta: &ArrayMeta, sharding: &Sharding, index: &[usize]) -> Result<u64> {
    let key = meta.chunk_key(index);
    let Some(source) = open_shard(meta, sharding, &key)? else {
        return Ok(0);
    };
    let what = meta.describe(&key);
    let entries = cached_index(meta, sharding, &source, &what).map_err(|e| {
        ZarrError::Corrupt(format!(
            "chunk {what} cannot be read: {}; the store is probably damaged",
            match e {
                CodecFail::Unavailable(id) => format!("codec {id:?} is not available"),
                CodecFail::Failed(m) => m,
            }
        ))
    })?;
    let inner = &sharding.inner_chunks;
    let per: Vec<usize> = meta.chunks.iter().zip(inner).map(|(c, i)| c / i).collect();
    let mut count = 0;
    let mut position = vec![0usize; per.len()];
    for &(offset, stored) in entries.iter() {
        let inside = (0..per.len())
            .all(|d| index[d] * meta.chunks[d] + position[d] * inner[d] < meta.shape[d]);
        if inside && (offset != MISSING || stored != MISSING) {
            count += 1;
        }
        for d in (0..per.len()).rev() {
            position[d] += 1;
            if position[d] < per[d] {
                break;
            }
            position[d] = 0;
        }
    }
    Ok(count)
}

/// An inner chunk to read: where it starts in the shard, and its bytes' range.
struct Wanted {
    at: Vec<usize>,
    offset: u64,
    length: u64,
}

/// The box `region` of a shard read from `source`, from the inner chunks that meet it.
fn assemble(
    meta: &ArrayMeta,
    sharding: &Sharding,
    source: &Ranged<'_>,
    region: (&[usize], &[usize]),
    what: &str,
) -> std::result::Result<Vec<u8>, CodecFail> {
    let total = source.length;
    let index = cached_index(meta, sharding, source, what)?;
    let elem = meta.dtype.size;
    let fill = meta.fill.as_deref().map_or_else(
        || vec![0; elem],
        |f| crate::strings::padded_fill(f, &meta.dtype).into_owned(),
    );
    let mut part = filled(&fill, region.1.iter().product());
    let inner = sharding.inner_meta(meta);
    let inner_cap = crate::read::encoded_cap(&inner);
    let per: Vec<usize> = meta
        .chunks
        .iter()
        .zip(&sharding.inner_chunks)
        .map(|(c, i)| c / i)
        .collect();
    let mut wanted = Vec::new();
    let mut position = vec![0usize; per.len()];
    for &(offset, length) in index.iter() {
        let at: Vec<usize> = position
            .iter()
            .zip(&sharding.inner_chunks)
            .map(|(p, i)| p * i)
            .collect();
        let stored = offset != MISSING || length != MISSING;
        if stored && meets(&at, &sharding.inner_chunks, region) {
            let inside = offset
                .checked_add(length)
                .is_some_and(|end| end <= total && length <= inner_cap);
            if !inside {
                return Err(CodecFail::Failed(format!(
                    "{what}: its index places an inner chunk at {offset}+{length}, beyond \
                     its {total} bytes or its size"
                )));
            }
            wanted.push(Wanted { at, offset, length });
        }
        // The next inner chunk, in C order.
        for d in (0..per.len()).rev() {
            position[d] += 1;
            if position[d] < per[d] {
                break;
            }
            position[d] = 0;
        }
    }
    let batch = store::grid::batch_len(inner.chunk_bytes());
    for fetch in fetch_groups(&wanted) {
        let ranges: Vec<(u64, u64)> = fetch.iter().map(|w| (w.offset, w.length)).collect();
        let mut stored = source.read(&ranges)?.into_iter();
        for group in fetch.chunks(batch) {
            let decoded: Vec<Vec<u8>> = stored
                .by_ref()
                .take(group.len())
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|bytes| crate::read::decode(&inner, bytes, what))
                .collect::<std::result::Result<_, _>>()?;
            for (w, chunk) in group.iter().zip(decoded) {
                place(
                    &chunk,
                    &w.at,
                    &sharding.inner_chunks,
                    &mut part,
                    region,
                    elem,
                );
            }
        }
    }
    Ok(part)
}

/// The most stored bytes of inner chunks read from a shard at once: 8 MiB (an eighth of
/// the in-flight budget). On an object store, where a request costs more than the bytes
/// it brings, the inner chunks of several decoding batches are so read in one request
/// (their ranges touch), then decoded a batch at a time.
const FETCH_BYTES: u64 = (store::grid::IN_FLIGHT_BYTES / 8) as u64;

/// `wanted`, in runs of inner chunks holding at most [`FETCH_BYTES`] stored bytes (at
/// least one inner chunk each), in order.
fn fetch_groups(wanted: &[Wanted]) -> Vec<&[Wanted]> {
    let mut groups = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, w) in wanted.iter().enumerate() {
        if i > start && bytes.saturating_add(w.length) > FETCH_BYTES {
            groups.push(&wanted[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes = bytes.saturating_add(w.length);
    }
    if start < wanted.len() {
        groups.push(&wanted[start..]);
    }
    groups
}

/// Copies the part of the inner chunk `chunk` at `at` (of shape `inner`) that lies in
/// the box `region` to where it goes in `part`, the box's values.
fn place(
    chunk: &[u8],
    at: &[usize],
    inner: &[usize],
    part: &mut [u8],
    region: (&[usize], &[usize]),
    elem: usize,
) {
    let (region_start, region_extent) = region;
    let mut in_inner = Vec::with_capacity(at.len());
    let mut in_part = Vec::with_capacity(at.len());
    let mut extent = Vec::with_capacity(at.len());
    for d in 0..at.len() {
        let low = at[d].max(region_start[d]);
        let high = (at[d] + inner[d]).min(region_start[d] + region_extent[d]);
        in_inner.push(low - at[d]);
        in_part.push(low - region_start[d]);
        extent.push(high - low);
    }
    let from = Region {
        shape: inner,
        offset: &in_inner,
    };
    let to = Region {
        shape: region_extent,
        offset: &in_part,
    };
    copy_box(chunk, &from, part, &to, &extent, elem);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_chunks_are_fetched_in_runs_of_at_most_fetch_bytes() {
        let w = |length: u64| Wanted {
            at: vec![0],
            offset: 0,
            length,
        };
        let half = FETCH_BYTES / 2;
        let wanted = [w(half), w(half), w(1), w(FETCH_BYTES * 2), w(3)];
        let lengths: Vec<usize> = fetch_groups(&wanted).iter().map(|g| g.len()).collect();
        assert_eq!(lengths, [2, 1, 1, 1]);
        assert!(fetch_groups(&[]).is_empty());
    }

    #[test]
    fn touching_ranges_are_read_as_one() {
        assert_eq!(
            coalesce(&[(10, 5), (0, 10), (20, 1), (15, 0), (18, 4)]),
            vec![(0, 15), (18, 22)]
        );
        assert!(coalesce(&[]).is_empty());
    }
}
