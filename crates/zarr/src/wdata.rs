//! Writing hyperslabs: the chunks a slab touches are assembled (read-modify-write where
//! the slab covers part of one) and encoded on all cores, a few per thread at a time, so
//! that memory stays near the slab plus the chunks in flight.

use rayon::prelude::*;

use crate::codec::{encode_chain, CodecFail};
use crate::dtype::swap_in_place;
use crate::error::{Result, ZarrError};
use crate::meta::ArrayMeta;
use crate::read::read_meta_chunk;
use store::grid::{filled, SlabGrid};

/// Writes the slab `start`/`count` (elements in the machine's byte order) of the array
/// `meta`; `fill` pads chunks; `name` is for messages.
pub fn write_slab(
    meta: &ArrayMeta,
    fill: &[u8],
    name: &str,
    start: &[usize],
    count: &[usize],
    data: &[u8],
) -> Result<()> {
    let grid = SlabGrid {
        start,
        count,
        chunks: &meta.chunks,
        elem: meta.dtype.size,
    };
    for indices in grid.batches(meta.chunk_bytes()) {
        write_chunks(meta, fill, name, &grid, data, &indices)?;
    }
    Ok(())
}

/// Writes the chunks `indices` of the slab, in parallel.
fn write_chunks(
    meta: &ArrayMeta,
    fill: &[u8],
    name: &str,
    grid: &SlabGrid<'_>,
    data: &[u8],
    indices: &[Vec<usize>],
) -> Result<()> {
    indices
        .par_iter()
        .map(|index| {
            let key = meta.chunk_key(index);
            let mut chunk = if grid.covers(index) {
                vec![0u8; meta.chunk_bytes()]
            } else {
                match read_meta_chunk(meta, index)? {
                    Some(chunk) => chunk,
                    None => filled(fill, meta.chunk_elements()),
                }
            };
            grid.slab_to_chunk(index, data, &mut chunk);
            if meta.dtype.needs_swap() {
                swap_in_place(&mut chunk, meta.dtype.swap_width());
            }
            let encoded = encode_chain(&meta.codecs, &meta.codec_array(grid.elem), chunk)
                .map_err(|e| fail(name, e))?;
            Ok(meta.store.set(&key, &encoded)?)
        })
        .collect()
}

/// The error of a codec that failed on a chunk of the variable `name`.
pub(crate) fn fail(name: &str, e: CodecFail) -> ZarrError {
    match e {
        CodecFail::Unavailable(id) => ZarrError::NoCodec(format!(
            "variable {name}: codec {id:?} is not available in nctools"
        )),
        CodecFail::Failed(m) => ZarrError::Corrupt(format!("variable {name}: {m}")),
    }
}
