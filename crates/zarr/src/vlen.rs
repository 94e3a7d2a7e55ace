//! Reading arrays of variable-length strings: zarr-python's object arrays of the
//! `vlen-utf8` codec (v2 dtype `|O`, v3 data type `string`). A chunk is a count and then
//! each string as a length and its bytes (little-endian 32-bit numbers). The chunks a
//! slab touches are decoded on all cores, and the slab is gathered as indices into the
//! strings read, with the grid code of fixed-size elements. Writing is the same in
//! reverse: each chunk a slab touches is assembled from the strings it held (or the fill
//! value) and the slab's, so that a chunk costs what its strings hold, whatever their
//! lengths.

use std::sync::atomic::{AtomicUsize, Ordering};

use ncmodel::Values;
use rayon::prelude::*;

use crate::codec::{decode_chain, encode_chain, CodecFail};
use crate::dtype::{Text, VLEN_INDEX};
use crate::error::{Result, ZarrError};
use crate::meta::ArrayMeta;
use crate::read::{checked_slab, unavailable};
use crate::schema::VarEntry;
use crate::strings::from_fixed;
use store::grid::SlabGrid;

pub use codecs::zarr_codec::{VLEN_BYTES, VLEN_UTF8};

/// Strings taken from a chunk, each with its place in the slab.
type Picked = Vec<(usize, Vec<u8>)>;

/// What one element of a chunk of strings costs in memory while the chunk is read or
/// written, besides its bytes: the string object of each (24 bytes), its place in the
/// slab or the chunk being assembled (8 and 16), and the old string of a chunk rewritten
/// in part (24). A chunk of strings may hold at most the chunk limit's worth of these
/// (4 Mi elements at the default): before, a 7 KB chunk of 60 million empty strings took
/// 3.18 GB to copy, and a store of 195 bytes declaring a chunk of 100 million, nothing
/// written, 2.78 GB (red team s34 RB1, RB2).
pub const STRING_ELEMENT_COST: usize = 64;

/// Refuses a string array whose chunks hold more than nctools holds at once of `elements`
/// ([`STRING_ELEMENT_COST`] each, within the chunk limit): the elements of a chunk within
/// the array when it is read (a chunk larger than its array is read only where the array
/// is), the whole chunk when it is assembled to be written; `name` is for messages.
pub fn check_string_chunks(elements: usize, name: &str) -> Result<()> {
    let limit = codecs::partial::decoded_chunk_cap();
    if elements.saturating_mul(STRING_ELEMENT_COST) > limit {
        return Err(ZarrError::TooLarge(format!(
            "variable {name}: its chunks hold {elements} strings each, more than the {} \
             strings nctools holds at once ({STRING_ELEMENT_COST} bytes each besides their \
             text, within the chunk limit of {limit} bytes, {}); rechunk it smaller (nccopy \
             -c)",
            limit / STRING_ELEMENT_COST,
            codecs::partial::CHUNK_LIMIT_VARIABLE
        )));
    }
    Ok(())
}

/// The strings of the slab `start`/`count` of a string variable, of variable length or
/// fixed-length (`|S`, `<U`): a chunk never written is the fill string for all its
/// elements; a chunk written is decoded within the chunk limit, and only the strings the
/// slab takes of it are kept, so that a chunk of a hundred million empty strings costs
/// its decoded bytes, not a string object each.
pub fn read_string_slab(entry: &VarEntry, start: &[usize], count: &[usize]) -> Result<Values> {
    let meta = &entry.meta;
    let (start, count) = checked_slab(entry, start, count)?;
    let total = count
        .iter()
        .try_fold(1usize, |a, c| a.checked_mul(*c))
        .filter(|n| n.checked_mul(VLEN_INDEX).is_some())
        .ok_or_else(|| ZarrError::Invalid(format!("the slab {count:?} is too large")))?;
    let within: usize = meta
        .chunks
        .iter()
        .zip(&meta.shape)
        .fold(1usize, |n, (c, d)| n.saturating_mul((*c).min((*d).max(1))));
    check_string_chunks(within, &entry.path)?;
    let fill = from_fixed(&entry.missing);
    // Every element starts as its own copy of the fill string: a long fill in a store of
    // a few kilobytes must not become gigabytes (before: a 60 KB `fill_value` over 20,000
    // unwritten elements, 1.2 GB for ncdump and 2.4 GB for nccopy).
    let limit = codecs::partial::decoded_chunk_cap();
    let element = size_of::<Option<Vec<u8>>>();
    if fill.len().saturating_add(element).saturating_mul(total) > limit {
        return Err(ZarrError::TooLarge(format!(
            "its fill value, a string of {} bytes, would be copied to each of the {total} \
             elements of a slab, more than the {limit} bytes nctools reads at once \
             (NCTOOLS_CHUNK_LIMIT)",
            fill.len()
        )));
    }
    let mut out: Vec<Option<Vec<u8>>> = vec![Some(fill); total];
    let grid = SlabGrid {
        start,
        count,
        chunks: &meta.chunks,
        elem: VLEN_INDEX,
    };
    let vlen = meta.dtype.text == Text::Vlen;
    let batch_bytes =
        meta.chunk_elements()
            .saturating_mul(if vlen { VLEN_INDEX } else { meta.dtype.size });
    // The strings a slab keeps, together, within the chunk limit too, counted as each
    // chunk's are picked on whatever thread (red team s34 RB3: 20 chunks of one 200 MB
    // string each, 180 KB stored, aborted ncdump at 3.4 GB).
    let kept = AtomicUsize::new(element.saturating_mul(total));
    let over = || {
        ZarrError::TooLarge(format!(
            "variable {}: the strings of a slab of {total} elements take more than the \
             chunk limit of {limit} bytes ({})",
            entry.path,
            codecs::partial::CHUNK_LIMIT_VARIABLE
        ))
    };
    for indices in grid.batches(batch_bytes) {
        let decoded: Vec<Result<Option<Picked>>> = indices
            .par_iter()
            .map(|index| {
                let picks = crate::slab_picks::picks(start, count, &meta.chunks, index);
                let room = |bytes: usize| kept.fetch_add(bytes, Ordering::Relaxed) + bytes <= limit;
                let picked = if vlen {
                    read_vlen_chunk(meta, index, &picks, &room)
                } else {
                    read_fixed_chunk(meta, index, &picks, &room)
                };
                match picked {
                    Ok(Some(None)) => Err(over()),
                    Ok(Some(Some(strings))) => Ok(Some(strings)),
                    Ok(None) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .collect();
        for chunk in decoded {
            for (at, string) in chunk?.into_iter().flatten() {
                if let Some(slot) = out.get_mut(at) {
                    *slot = Some(string);
                }
            }
        }
    }
    Ok(Values::String(out))
}

/// The strings `picks` takes of the fixed-length chunk `index` (each with its place in
/// the slab); `None` when the chunk was never written.
fn read_fixed_chunk(
    meta: &ArrayMeta,
    index: &[usize],
    picks: &[(usize, usize)],
    room: &dyn Fn(usize) -> bool,
) -> Result<Option<Option<Picked>>> {
    // Strings are held about three times over while read and written out: a chunk of
    // them decodes to at most a quarter of the chunk limit, as `vlen-utf8` chunks do (red
    // team s35 RC3: one `|S250000000` string in a 210-byte chunk took 762 MB before it
    // was refused). A chunk never written costs nothing.
    let cap = codecs::partial::decoded_chunk_cap() / 4;
    if meta.stored_chunk_bytes() > cap {
        if meta.store.size(&meta.chunk_key(index))?.is_none() {
            return Ok(None);
        }
        return Err(ZarrError::TooLarge(format!(
            "chunk {} holds {} bytes of strings, more than a quarter of the chunk limit \
             ({cap} bytes; NCTOOLS_CHUNK_LIMIT)",
            meta.describe(&meta.chunk_key(index)),
            meta.stored_chunk_bytes()
        )));
    }
    let Some(bytes) = crate::wdata::read_whole(meta, index)? else {
        return Ok(None);
    };
    let size = meta.dtype.size.max(1);
    if !room(picks.len().saturating_mul(size)) {
        return Ok(Some(None));
    }
    let mut picked = Vec::with_capacity(picks.len().saturating_mul(size));
    for (in_chunk, _) in picks {
        let from = in_chunk.saturating_mul(size);
        match bytes.get(from..from.saturating_add(size)) {
            Some(element) => picked.extend_from_slice(element),
            None => picked.resize(picked.len() + size, 0),
        }
    }
    let strings = match crate::values::bytes_to_values(&picked, &meta.dtype) {
        Values::String(s) => s,
        _ => Vec::new(),
    };
    // One string is one value: at most the value limit, whatever width is declared (a
    // width alone costs nothing: unwritten strings are one shared fill value).
    let longest = codecs::partial::value_cap();
    if let Some(long) = strings.iter().flatten().find(|s| s.len() > longest) {
        return Err(ZarrError::TooLarge(format!(
            "chunk {} holds a string of {} bytes, more than the value limit of {longest} \
             bytes (a sixteenth of the chunk limit, NCTOOLS_CHUNK_LIMIT)",
            meta.describe(&meta.chunk_key(index)),
            long.len()
        )));
    }
    Ok(Some(Some(
        picks
            .iter()
            .zip(strings)
            .map(|((_, at), s)| (*at, s.unwrap_or_default()))
            .collect(),
    )))
}

/// The strings `picks` takes of the `vlen-utf8` chunk `index` (each with its place in the
/// slab); `None` when its file is missing.
fn read_vlen_chunk(
    meta: &ArrayMeta,
    index: &[usize],
    picks: &[(usize, usize)],
    room: &dyn Fn(usize) -> bool,
) -> Result<Option<Option<Picked>>> {
    let mut out = Vec::with_capacity(picks.len());
    let mut next = picks.iter().peekable();
    let mut full = false;
    let walked = walk_vlen_chunk(meta, index, |i, s| {
        let Some(&&(wanted, at)) = next.peek() else {
            return false;
        };
        if i == wanted {
            if !room(s.len()) {
                full = true;
                return false;
            }
            out.push((at, s.to_vec()));
            next.next();
        }
        true
    })?;
    Ok(walked.then_some((!full).then_some(out)))
}

/// Every string of the `vlen-utf8` chunk `index`, for rewriting it whole; `None` when its
/// file is missing. Sized by the strings there, not by the chunk shape declared.
fn read_whole_vlen_chunk(meta: &ArrayMeta, index: &[usize]) -> Result<Option<Vec<Vec<u8>>>> {
    let mut out = Vec::new();
    let walked = walk_vlen_chunk(meta, index, |_, s| {
        out.push(s.to_vec());
        true
    })?;
    Ok(walked.then_some(out))
}

/// Reads and decodes the `vlen-utf8` chunk `index` within the chunk limit and hands each
/// string to `visit` with its offset in the chunk, until `visit` says to stop; false when
/// the chunk's file is missing.
fn walk_vlen_chunk(
    meta: &ArrayMeta,
    index: &[usize],
    visit: impl FnMut(usize, &[u8]) -> bool,
) -> Result<bool> {
    if meta.sharding.is_some() || meta.transpose.is_some() {
        return Err(ZarrError::BadType(
            "strings of variable length in shards or in Fortran or transposed order are not \
             supported by nctools"
                .into(),
        ));
    }
    let key = meta.chunk_key(index);
    // A quarter of the chunk limit (64 MiB by default): the strings are held about three
    // times over while they are read and written out (the decoded chunk, the strings, the
    // output's copy; red team s35 RB2: a 341-byte chunk of 16 strings of 16 MB took 540 MB
    // in ncdump and 685 MB in nccopy).
    let cap = codecs::partial::decoded_chunk_cap() / 4;
    let Some(raw) = meta.store.get(&key, cap as u64)? else {
        return Ok(false);
    };
    let damaged = |m: String| {
        ZarrError::Corrupt(format!(
            "chunk {} cannot be decoded: {m}; the store is probably damaged (or its strings \
             take more than a quarter of the chunk limit, {cap} bytes, NCTOOLS_CHUNK_LIMIT)",
            meta.describe(&key)
        ))
    };
    let data = if meta.codecs.is_empty() {
        raw
    } else {
        decode_chain(&meta.codecs, &meta.codec_array(1), raw, cap).map_err(|e| match e {
            CodecFail::Unavailable(id) => unavailable(&id),
            CodecFail::Failed(m) => damaged(m),
        })?
    };
    walk_vlen(
        &data,
        meta.chunk_elements(),
        codecs::partial::value_cap(),
        visit,
    )
    .map_err(damaged)?;
    Ok(true)
}

/// Walks a `vlen-utf8` buffer that must hold `elements` strings, each of at most
/// `longest` bytes (one value: the value limit; red team s35 RB1, one string of 250 MB
/// from a 210-byte chunk took 2.2 GB to print), handing each to `visit` with its offset
/// until `visit` says to stop (the strings after it are not read).
fn walk_vlen(
    data: &[u8],
    elements: usize,
    longest: usize,
    mut visit: impl FnMut(usize, &[u8]) -> bool,
) -> Result<(), String> {
    let mut rest = data;
    let n = take_u32(&mut rest).ok_or("the vlen-utf8 data ends inside its count")?;
    if n != elements {
        return Err(format!("it holds {n} strings where a chunk has {elements}"));
    }
    for i in 0..n {
        let len = take_u32(&mut rest).ok_or("the vlen-utf8 data ends inside a length")?;
        if len > rest.len() {
            return Err("the vlen-utf8 data ends inside a string".into());
        }
        if len > longest {
            return Err(format!(
                "string {i} is {len} bytes long, more than the value limit of {longest} \
                 bytes (a sixteenth of the chunk limit, NCTOOLS_CHUNK_LIMIT)"
            ));
        }
        let (s, tail) = rest.split_at(len);
        if !visit(i, s) {
            break;
        }
        rest = tail;
    }
    Ok(())
}

/// Writes the strings `strings` (a null string is empty) as the slab `start`/`count` of
/// the string array `meta`, of variable length or NUL-padded to a fixed width, whose
/// fill string is `fill`; `name` is for messages. Chunks the slab covers in part keep
/// their other strings. Returns how many strings were cut to the fixed width. Each chunk
/// is assembled and encoded alone: memory is the slab's strings plus the chunks in
/// flight, never the slab at a fixed width.
pub fn write_string_slab(
    meta: &ArrayMeta,
    fill: &[u8],
    name: &str,
    start: &[usize],
    count: &[usize],
    strings: &[Option<Vec<u8>>],
) -> Result<usize> {
    let vlen = meta.dtype.text == Text::Vlen;
    if vlen && (meta.sharding.is_some() || meta.transpose.is_some()) {
        return Err(ZarrError::BadType(format!(
            "variable {name}: strings of variable length are not written in shards"
        )));
    }
    let per_chunk = meta.chunk_elements();
    check_string_chunks(per_chunk, name)?;
    // In a chunk's index buffer, ids below `per_chunk` are the strings the chunk held,
    // the others the slab's.
    let slab_ids: Vec<u8> = (0..strings.len() as u64)
        .flat_map(|i| (per_chunk as u64 + i).to_ne_bytes())
        .collect();
    let grid = SlabGrid {
        start,
        count,
        chunks: &meta.chunks,
        elem: VLEN_INDEX,
    };
    let fill_string = from_fixed(fill);
    let batch_bytes = per_chunk.saturating_mul(if vlen { VLEN_INDEX } else { meta.dtype.size });
    let mut cut = 0;
    for indices in grid.batches(batch_bytes) {
        let cuts = indices
            .par_iter()
            .map(|index| {
                let old = if grid.covers_within(index, &meta.shape) {
                    None
                } else if vlen {
                    read_whole_vlen_chunk(meta, index)?
                } else {
                    crate::wdata::read_whole(meta, index)?.map(|bytes| {
                        bytes
                            .chunks_exact(meta.dtype.size.max(1))
                            .map(from_fixed)
                            .collect()
                    })
                };
                let mut ids: Vec<u8> = (0..per_chunk as u64).flat_map(u64::to_ne_bytes).collect();
                grid.slab_to_chunk(index, &slab_ids, &mut ids);
                let chunk: Vec<&[u8]> = ids
                    .chunks_exact(VLEN_INDEX)
                    .map(|id| {
                        let mut a = [0u8; VLEN_INDEX];
                        a.copy_from_slice(id);
                        let id = usize::try_from(u64::from_ne_bytes(a)).unwrap_or(usize::MAX);
                        match id.checked_sub(per_chunk) {
                            Some(i) => strings.get(i).and_then(|s| s.as_deref()).unwrap_or(&[]),
                            None => old
                                .as_ref()
                                .and_then(|o| o.get(id))
                                .map_or(&fill_string[..], Vec::as_slice),
                        }
                    })
                    .collect();
                if !vlen {
                    let (bytes, cut) = crate::strings::slices_to_fixed(&chunk, meta.dtype.size);
                    drop(old);
                    crate::wdata::store_chunk(meta, fill, name, index, bytes)?;
                    return Ok(cut);
                }
                // A chunk nctools writes is one it can read back: within the chunk limit
                // (red team s34 RB9: a 60 KB fill value in each of 100,000 elements, from
                // 60 KB of CDL, aborted ncgen allocating 6 GB; M3: a 400 MB chunk written,
                // then refused).
                let limit = codecs::partial::decoded_chunk_cap();
                let bytes = chunk
                    .iter()
                    .fold(4usize, |n, s| n.saturating_add(4).saturating_add(s.len()));
                if bytes > limit {
                    return Err(ZarrError::TooLarge(format!(
                        "variable {name}: a chunk of its strings would take {bytes} bytes, \
                         more than the chunk limit of {limit} ({}); give it smaller chunks \
                         (_ChunkSizes, nccopy -c) or a shorter fill value",
                        codecs::partial::CHUNK_LIMIT_VARIABLE
                    )));
                }
                let data = encode_vlen(&chunk)
                    .map_err(|m| ZarrError::Invalid(format!("variable {name}: {m}")))?;
                let encoded = encode_chain(&meta.codecs, &meta.codec_array(1), data)
                    .map_err(|e| crate::wdata::fail(name, e))?;
                meta.store.set(&meta.chunk_key(index), &encoded)?;
                Ok(0)
            })
            .collect::<Result<Vec<usize>>>()?;
        cut += cuts.iter().sum::<usize>();
    }
    Ok(cut)
}

/// `strings` as a `vlen-utf8` buffer: their count, then each as its length and bytes.
pub fn encode_vlen(strings: &[&[u8]]) -> Result<Vec<u8>, String> {
    let too_long = || "a chunk of strings holds more than vlen-utf8 can (4 GiB)".to_string();
    let total = strings.iter().map(|s| 4 + s.len()).sum::<usize>() + 4;
    let mut out = Vec::with_capacity(total);
    let n = u32::try_from(strings.len()).map_err(|_| too_long())?;
    out.extend_from_slice(&n.to_le_bytes());
    for s in strings {
        let len = u32::try_from(s.len()).map_err(|_| too_long())?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(s);
    }
    Ok(out)
}

/// The next little-endian 32-bit number of `rest`, which moves past it.
fn take_u32(rest: &mut &[u8]) -> Option<usize> {
    let (head, tail) = rest.split_first_chunk::<4>()?;
    *rest = tail;
    usize::try_from(u32::from_le_bytes(*head)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlen_utf8_decodes() {
        let data = b"\x02\0\0\0\x01\0\0\0x\x06\0\0\0h\xc3\xa9llo";
        let walked = |data: &[u8], n: usize| {
            let mut seen = Vec::new();
            walk_vlen(data, n, usize::MAX, |i, s| {
                seen.push((i, s.to_vec()));
                true
            })
            .map(|()| seen)
        };
        assert_eq!(
            walked(data, 2),
            Ok(vec![
                (0, b"x".to_vec()),
                (1, "h\u{e9}llo".as_bytes().to_vec())
            ])
        );
        // A walk stopped early reads no further.
        let mut first = Vec::new();
        assert_eq!(
            walk_vlen(data, 2, usize::MAX, |i, _| {
                first.push(i);
                false
            }),
            Ok(())
        );
        assert_eq!(first, [0]);
        assert!(walked(data, 3).is_err());
        assert!(walked(&data[..12], 2).is_err());
        let strings: [&[u8]; 2] = [b"x", "h\u{e9}llo".as_bytes()];
        assert_eq!(encode_vlen(&strings).as_deref(), Ok(&data[..]));
    }
}
