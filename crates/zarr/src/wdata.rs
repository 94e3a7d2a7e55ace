//! Writing hyperslabs: the chunks a slab touches are assembled (read-modify-write where
//! the slab covers part of one) and encoded on all cores, a few per thread at a time, so
//! that memory stays near the slab plus the chunks in flight.

use rayon::prelude::*;

use crate::codec::{encode_chain, CodecFail};
use crate::dtype::swap_in_place;
use crate::error::{Result, ZarrError};
use crate::grid::{chunks_touched, copy_box, filled, overlap, Region};
use crate::meta::ArrayMeta;
use crate::read::decode;

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
    let touched = chunks_touched(start, count, &meta.chunks);
    let batch = rayon::current_num_threads().max(1) * 2;
    for indices in touched.chunks(batch) {
        write_chunks(meta, fill, name, start, count, data, indices)?;
    }
    Ok(())
}

/// Writes the chunks `indices` of the slab, in parallel.
fn write_chunks(
    meta: &ArrayMeta,
    fill: &[u8],
    name: &str,
    start: &[usize],
    count: &[usize],
    data: &[u8],
    indices: &[Vec<usize>],
) -> Result<()> {
    let elem = meta.dtype.size;
    indices
        .par_iter()
        .map(|index| {
            let (in_chunk, in_slab, extent) = overlap(index, &meta.chunks, start, count);
            let path = meta.chunk_path(index);
            let mut chunk = if extent == meta.chunks {
                vec![0u8; meta.chunk_bytes()]
            } else {
                match std::fs::read(&path) {
                    Ok(raw) => {
                        decode(meta, raw, &path.display().to_string()).map_err(|e| fail(name, e))?
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        filled(fill, meta.chunk_elements())
                    }
                    Err(e) => return Err(ZarrError::io(&path, e)),
                }
            };
            let from = Region {
                shape: count,
                offset: &in_slab,
            };
            let to = Region {
                shape: &meta.chunks,
                offset: &in_chunk,
            };
            copy_box(data, &from, &mut chunk, &to, &extent, elem);
            if meta.dtype.needs_swap() {
                swap_in_place(&mut chunk, meta.dtype.swap_width());
            }
            let encoded = encode_chain(&meta.codecs, elem, chunk).map_err(|e| fail(name, e))?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| ZarrError::io(parent, e))?;
            }
            std::fs::write(&path, encoded).map_err(|e| ZarrError::io(&path, e))
        })
        .collect()
}

fn fail(name: &str, e: CodecFail) -> ZarrError {
    match e {
        CodecFail::Unavailable(id) => ZarrError::NoCodec(format!(
            "variable {name}: codec {id:?} is not available in nctools"
        )),
        CodecFail::Failed(m) => ZarrError::Corrupt(format!("variable {name}: {m}")),
    }
}
