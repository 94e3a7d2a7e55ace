//! Reading arrays of variable-length strings: zarr-python's object arrays of the
//! `vlen-utf8` codec (v2 dtype `|O`, v3 data type `string`). A chunk is a count and then
//! each string as a length and its bytes (little-endian 32-bit numbers). The chunks a
//! slab touches are decoded on all cores, and the slab is gathered as indices into the
//! strings read, with the grid code of fixed-size elements. Writing is the same in
//! reverse: each chunk a slab touches is assembled from the strings it held (or the fill
//! value) and the slab's, so that a chunk costs what its strings hold, whatever their
//! lengths.

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

/// The id of the codec of variable-length UTF-8 strings.
pub const VLEN_UTF8: &str = "vlen-utf8";

/// The largest decoded chunk of strings read (4 GiB), against damaged or hostile input.
const MAX_CHUNK_BYTES: u64 = 1 << 32;

/// The strings of the slab `start`/`count` of a string variable, of variable length or
/// fixed-length (`|S`, `<U`): a chunk never written is the fill string (one string for
/// all its elements), a chunk written costs what its stored bytes hold, and the slab is
/// gathered as indices (8 bytes an element) into the strings read.
pub fn read_string_slab(entry: &VarEntry, start: &[usize], count: &[usize]) -> Result<Values> {
    let meta = &entry.meta;
    let (start, count) = checked_slab(entry, start, count)?;
    let total = count
        .iter()
        .try_fold(VLEN_INDEX, |a, c| a.checked_mul(*c))
        .ok_or_else(|| ZarrError::Invalid(format!("the slab {count:?} is too large")))?;
    // Index 0 is the fill string: elements of chunks never written keep it.
    let mut table = vec![from_fixed(&entry.missing)];
    let mut out = vec![0u8; total];
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
    for indices in grid.batches(batch_bytes) {
        let decoded: Vec<Result<Option<Vec<Vec<u8>>>>> = indices
            .par_iter()
            .map(|index| {
                if vlen {
                    return read_vlen_chunk(meta, index);
                }
                let Some(bytes) = crate::wdata::read_whole(meta, index)? else {
                    return Ok(None);
                };
                let strings = match crate::values::bytes_to_values(&bytes, &meta.dtype) {
                    Values::String(s) => s.into_iter().map(Option::unwrap_or_default).collect(),
                    _ => Vec::new(),
                };
                Ok(Some(strings))
            })
            .collect();
        for (index, chunk) in indices.iter().zip(decoded) {
            let Some(strings) = chunk? else { continue };
            let base = table.len() as u64;
            let ids: Vec<u8> = (0..strings.len() as u64)
                .flat_map(|i| (base + i).to_ne_bytes())
                .collect();
            table.extend(strings);
            grid.chunk_to_slab(index, &ids, &mut out);
        }
    }
    let strings = out
        .chunks_exact(VLEN_INDEX)
        .map(|id| {
            let mut a = [0u8; VLEN_INDEX];
            a.copy_from_slice(id);
            let id = usize::try_from(u64::from_ne_bytes(a)).unwrap_or(0);
            Some(table.get(id).cloned().unwrap_or_default())
        })
        .collect();
    Ok(Values::String(strings))
}

/// The strings of one chunk; `None` when its file is missing.
fn read_vlen_chunk(meta: &ArrayMeta, index: &[usize]) -> Result<Option<Vec<Vec<u8>>>> {
    if meta.sharding.is_some() || meta.transpose.is_some() {
        return Err(ZarrError::BadType(
            "strings of variable length in shards or in Fortran or transposed order are not \
             supported by nctools"
                .into(),
        ));
    }
    let key = meta.chunk_key(index);
    let Some(raw) = meta.store.get(&key, MAX_CHUNK_BYTES)? else {
        return Ok(None);
    };
    let damaged = |m: String| {
        ZarrError::Corrupt(format!(
            "chunk {} cannot be decoded: {m}; the store is probably damaged",
            meta.describe(&key)
        ))
    };
    let data = if meta.codecs.is_empty() {
        raw
    } else {
        let cap = usize::try_from(MAX_CHUNK_BYTES).unwrap_or(usize::MAX);
        decode_chain(&meta.codecs, &meta.codec_array(1), raw, cap).map_err(|e| match e {
            CodecFail::Unavailable(id) => unavailable(&id),
            CodecFail::Failed(m) => damaged(m),
        })?
    };
    decode_vlen(&data, meta.chunk_elements())
        .map(Some)
        .map_err(damaged)
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
                    read_vlen_chunk(meta, index)?
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

/// The strings of a `vlen-utf8` buffer that must hold `elements` of them.
pub fn decode_vlen(data: &[u8], elements: usize) -> Result<Vec<Vec<u8>>, String> {
    let mut rest = data;
    let n = take_u32(&mut rest).ok_or("the vlen-utf8 data ends inside its count")?;
    if n != elements {
        return Err(format!("it holds {n} strings where a chunk has {elements}"));
    }
    let mut out = Vec::with_capacity(n.min(data.len() / 4));
    for _ in 0..n {
        let len = take_u32(&mut rest).ok_or("the vlen-utf8 data ends inside a length")?;
        if len > rest.len() {
            return Err("the vlen-utf8 data ends inside a string".into());
        }
        let (s, tail) = rest.split_at(len);
        out.push(s.to_vec());
        rest = tail;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlen_utf8_decodes() {
        let data = b"\x02\0\0\0\x01\0\0\0x\x06\0\0\0h\xc3\xa9llo";
        assert_eq!(
            decode_vlen(data, 2),
            Ok(vec![b"x".to_vec(), "h\u{e9}llo".as_bytes().to_vec()])
        );
        assert!(decode_vlen(data, 3).is_err());
        assert!(decode_vlen(&data[..12], 2).is_err());
        let strings: [&[u8]; 2] = [b"x", "h\u{e9}llo".as_bytes()];
        assert_eq!(encode_vlen(&strings).as_deref(), Ok(&data[..]));
    }
}
