//! Writing Zarr version 3 shards (`sharding_indexed`): the shard shape a variable gets
//! from `--shards`, and a shard built whole from its values, its inner chunks encoded
//! in parallel, with the index (`bytes` then `crc32c`) at its end, as zarr-python
//! writes by default. Inner chunks whose every value is the fill value are not stored:
//! the index marks them missing (offset and length both `u64::MAX`), as zarr-python does
//! with `write_empty_chunks=False`, its default.

use chunkspec::ShardShape;
use rayon::prelude::*;
use serde_json::{json, Value};
use store::grid::{copy_box, Region};

use crate::codec::{encode_chain, CodecFail};
use crate::dtype::swap_in_place;
use crate::meta::ArrayMeta;
use crate::shard::{Chain, Sharding, MISSING};

/// The most bytes of values one shard may hold (before compression): 256 MiB. A shard
/// is one object, built whole in memory before it is written (an object store takes
/// whole objects), so each shard being written costs its values, its encoded inner
/// chunks and the shard itself; and a reader of a shard through a store that cannot
/// read ranges holds it all.
pub const MAX_SHARD_BYTES: u64 = 256 << 20;

/// The most inner chunks one shard may hold: 2^20, an index of 16 MiB. Each inner chunk
/// costs its index entry and its own encoding; a shard of millions of tiny chunks would
/// cost more in bookkeeping than in values.
pub const MAX_INNER_PER_SHARD: u64 = 1 << 20;

/// Why a store other than Zarr version 3 cannot be sharded, for messages.
pub const NOT_V3: &str = "shards (--shards) are a Zarr version 3 feature; netCDF files, \
     NCZarr and Zarr version 2 stores have none: name a version 3 store \
     (file://PATH#mode=zarr,v3)";

/// A dimension of a variable being sharded, as the shard shape needs it.
#[derive(Debug, Clone, Copy)]
pub struct ShardedDim {
    /// Its inner chunk length.
    pub chunk: usize,
    /// Its length now.
    pub len: usize,
    /// Whether it is unlimited.
    pub unlimited: bool,
}

impl ShardedDim {
    /// How many inner chunks it holds, where that bounds a shard: a fixed dimension's,
    /// or an unlimited one's that has a length already.
    fn chunks_along(&self) -> Option<usize> {
        (!self.unlimited || self.len > 0).then(|| self.len.div_ceil(self.chunk.max(1)).max(1))
    }
}

/// The inner chunks per shard along each dimension that `shape` asks for a variable of
/// `dims` with elements of `elem` bytes; the problem, for a message, otherwise. Counts
/// are cut to the chunks a dimension holds (a shard need not be larger than its
/// array). A target size fills the shard from the last dimension outwards: whole rows
/// first, then whole planes, so that a shard is a run of the array in C order.
pub fn inner_per_shard(
    shape: &ShardShape,
    dims: &[ShardedDim],
    elem: usize,
) -> Result<Vec<usize>, String> {
    let chunk_bytes = dims
        .iter()
        .fold(elem as u64, |a, d| a.saturating_mul(d.chunk as u64));
    let per = match shape {
        ShardShape::Unsharded => vec![1; dims.len()],
        ShardShape::Chunks(counts) => {
            if counts.len() != dims.len() {
                return Err(format!(
                    "--shards gives {} chunk counts for its {} dimensions",
                    counts.len(),
                    dims.len()
                ));
            }
            counts
                .iter()
                .zip(dims)
                .map(|(n, d)| d.chunks_along().map_or(*n, |along| (*n).min(along)))
                .collect()
        }
        ShardShape::TargetBytes(target) => {
            let mut per = vec![1; dims.len()];
            let mut bytes = chunk_bytes.max(1);
            let mut count = 1u64;
            for (d, dim) in dims.iter().enumerate().rev() {
                let room = (target / bytes).min(MAX_INNER_PER_SHARD / count).max(1);
                let room = usize::try_from(room).unwrap_or(usize::MAX);
                let along = dim.chunks_along();
                per[d] = along.map_or(room, |a| a.min(room));
                bytes = bytes.saturating_mul(per[d] as u64);
                count = count.saturating_mul(per[d] as u64);
                if along != Some(per[d]) {
                    break;
                }
            }
            per
        }
    };
    let shard_bytes = per
        .iter()
        .fold(chunk_bytes, |a, n| a.saturating_mul(*n as u64));
    let count = per.iter().fold(1u64, |a, n| a.saturating_mul(*n as u64));
    if count > MAX_INNER_PER_SHARD {
        return Err(format!(
            "a shard of {per:?} inner chunks holds {count} of them, more than the \
             {MAX_INNER_PER_SHARD} nctools writes in one shard; give fewer chunks per shard \
             or larger chunks (-c)"
        ));
    }
    if shard_bytes > MAX_SHARD_BYTES {
        return Err(format!(
            "a shard of {per:?} inner chunks holds {shard_bytes} bytes of values, more than \
             the {MAX_SHARD_BYTES} bytes (256 MiB) nctools builds in memory at once; give \
             fewer chunks per shard, or a size (e.g. --shards VAR:64M)"
        ));
    }
    Ok(per)
}

/// The sharding codec nctools writes for inner chunks of `inner_chunks` encoded with
/// `codecs` (numcodecs' JSON) in the byte order `big_endian`: the index little-endian,
/// checksummed, at the end of the shard.
pub fn sharding_of(inner_chunks: &[usize], codecs: &[Value], big_endian: bool) -> Sharding {
    let checksum = codecs::registry::shard_index_checksum();
    Sharding {
        inner_chunks: inner_chunks.to_vec(),
        inner: Chain {
            big_endian,
            codecs: codecs.to_vec(),
            ..Chain::default()
        },
        index_codecs: vec![json!({ "id": checksum.numcodecs_id })],
        index_big_endian: false,
        index_at_end: true,
        index_cache: Default::default(),
    }
}

/// Where a shard's values are: the box of the shard's shape at `origin` of the array of
/// `shape` whose values (C order, the machine's byte order) are `values`; the shard
/// itself, or a slab that holds it (then the shard is not copied out of it). The part of
/// the box beyond `shape` (a shard at the array's end) holds the fill value.
pub struct ShardValues<'a> {
    /// The values of the array that holds the shard.
    pub values: &'a [u8],
    /// That array's shape.
    pub shape: &'a [usize],
    /// Where the shard starts in it.
    pub origin: Vec<usize>,
}

/// The stored bytes of a shard of the array `meta` holding `values`, in parts to be
/// stored one after another (its encoded inner chunks, then its index), and whether every
/// inner chunk held only `fill` (then the shard is its index alone, every entry
/// missing).
pub fn encode_shard(
    meta: &ArrayMeta,
    sharding: &Sharding,
    fill: &[u8],
    values: &ShardValues<'_>,
) -> Result<(Vec<Vec<u8>>, bool), CodecFail> {
    let elem = meta.dtype.size;
    let inner = &sharding.inner_chunks;
    let per: Vec<usize> = meta.chunks.iter().zip(inner).map(|(c, i)| c / i).collect();
    let count: usize = per.iter().product();
    let inner_elements: usize = inner.iter().product();
    let encoded: Vec<Option<Vec<u8>>> = (0..count)
        .into_par_iter()
        .map(|number| {
            let position = position_of(number, &per);
            let at: Vec<usize> = position
                .iter()
                .zip(inner)
                .zip(&values.origin)
                .map(|((p, i), o)| o + p * i)
                .collect();
            // The part of the inner chunk inside the values; the rest is fill.
            let extent: Vec<usize> = at
                .iter()
                .zip(inner)
                .zip(values.shape)
                .map(|((a, i), s)| s.saturating_sub(*a).min(*i))
                .collect();
            if extent.contains(&0) {
                return Ok(None);
            }
            let mut chunk = if extent == *inner {
                vec![0u8; inner_elements * elem]
            } else {
                fill.repeat(inner_elements)
            };
            let from = Region {
                shape: values.shape,
                offset: &at,
            };
            let origin = vec![0; inner.len()];
            let to = Region {
                shape: inner,
                offset: &origin,
            };
            copy_box(values.values, &from, &mut chunk, &to, &extent, elem);
            if chunk.chunks_exact(elem.max(1)).all(|e| e == fill) {
                return Ok(None);
            }
            if meta.dtype.needs_swap() {
                swap_in_place(&mut chunk, meta.dtype.swap_width());
            }
            let array = codecs::zarr_codec::ZarrArray {
                element_size: elem,
                shape: &meta.shape,
                chunks: inner,
                big_endian: meta.dtype.big_endian,
            };
            encode_chain(&sharding.inner.codecs, &array, chunk).map(Some)
        })
        .collect::<Result<_, _>>()?;
    let mut parts = Vec::with_capacity(encoded.len() + 1);
    let mut index = Vec::with_capacity(16 * encoded.len());
    let mut stored = 0u64;
    for chunk in encoded {
        let (offset, length) = match chunk {
            Some(bytes) => {
                let entry = (stored, bytes.len() as u64);
                stored += bytes.len() as u64;
                parts.push(bytes);
                entry
            }
            None => (MISSING, MISSING),
        };
        index.extend_from_slice(&offset.to_le_bytes());
        index.extend_from_slice(&length.to_le_bytes());
    }
    let empty = parts.is_empty();
    let index_array = codecs::zarr_codec::ZarrArray::of_element(8);
    parts.push(encode_chain(&sharding.index_codecs, &index_array, index)?);
    Ok((parts, empty))
}

/// The position of the `number`th cell (in C order) of a grid of `per`.
fn position_of(mut number: usize, per: &[usize]) -> Vec<usize> {
    let mut position = vec![0; per.len()];
    for (p, n) in position.iter_mut().zip(per).rev() {
        *p = number % n.max(&1);
        number /= n.max(&1);
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;
    use kv::ReadableStore;

    fn dim(chunk: usize, len: usize, unlimited: bool) -> ShardedDim {
        ShardedDim {
            chunk,
            len,
            unlimited,
        }
    }

    #[test]
    fn a_target_size_fills_rows_then_planes() {
        // time (unlimited, 100 records) x lat 180 x lon 360, floats, chunks 1 x 90 x 180.
        let dims = [dim(1, 100, true), dim(90, 180, false), dim(180, 360, false)];
        let chunk = 90 * 180 * 4;
        let per = |t| inner_per_shard(&ShardShape::TargetBytes(t), &dims, 4);
        assert_eq!(per(chunk as u64), Ok(vec![1, 1, 1]));
        assert_eq!(per(3 * chunk as u64), Ok(vec![1, 1, 2]));
        assert_eq!(per(4 * chunk as u64), Ok(vec![1, 2, 2]));
        assert_eq!(per(40 * chunk as u64), Ok(vec![10, 2, 2]));
        assert_eq!(per(1 << 30), Ok(vec![100, 2, 2]));
        assert_eq!(per(1), Ok(vec![1, 1, 1]));
        // An unlimited dimension with no length yet bounds nothing.
        let growing = [dim(1, 0, true), dim(10, 10, false)];
        assert_eq!(
            inner_per_shard(&ShardShape::TargetBytes(400), &growing, 4),
            Ok(vec![10, 1])
        );
    }

    #[test]
    fn counts_are_cut_to_the_array_and_bounded() {
        let dims = [dim(1, 3, true), dim(4, 10, false)];
        let counts = |c: Vec<usize>| inner_per_shard(&ShardShape::Chunks(c), &dims, 8);
        assert_eq!(counts(vec![2, 9]), Ok(vec![2, 3]));
        assert!(counts(vec![2]).is_err());
        let big = [dim(1 << 20, 1 << 30, false)];
        let refused = inner_per_shard(&ShardShape::Chunks(vec![64]), &big, 8);
        assert!(refused.is_err_and(|m| m.contains("256 MiB")));
    }

    /// A memory store that counts the requests that read values or sizes.
    #[derive(Debug, Default)]
    struct Counting {
        inner: kv::MemoryStore,
        reads: std::sync::atomic::AtomicUsize,
    }

    impl ReadableStore for Counting {
        fn describe(&self, key: &kv::StoreKey) -> String {
            self.inner.describe(key)
        }

        fn get(&self, key: &kv::StoreKey, cap: u64) -> Result<Option<Vec<u8>>, kv::StorageError> {
            self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.get(key, cap)
        }

        fn get_range(
            &self,
            key: &kv::StoreKey,
            offset: u64,
            length: u64,
        ) -> Result<Option<Vec<u8>>, kv::StorageError> {
            self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.get_range(key, offset, length)
        }

        fn get_ranges(
            &self,
            key: &kv::StoreKey,
            ranges: &[(u64, u64)],
        ) -> Result<Option<Vec<Vec<u8>>>, kv::StorageError> {
            // One request, however many ranges.
            self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut parts = Vec::new();
            for (offset, length) in ranges {
                match self.inner.get_range(key, *offset, *length)? {
                    Some(bytes) => parts.push(bytes),
                    None => return Ok(None),
                }
            }
            Ok(Some(parts))
        }

        fn size(&self, key: &kv::StoreKey) -> Result<Option<u64>, kv::StorageError> {
            self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.size(key)
        }
    }

    impl kv::ListableStore for Counting {
        fn list_dir(&self, prefix: &kv::StoreKey) -> Result<kv::Listing, kv::StorageError> {
            self.inner.list_dir(prefix)
        }
    }

    impl kv::WritableStore for Counting {
        fn set(&self, key: &kv::StoreKey, value: &[u8]) -> Result<(), kv::StorageError> {
            self.inner.set(key, value)
        }
    }

    /// An int32 array of shape 4 x 6 in one shard of inner chunks 2 x 3, zstd inside.
    fn sharded_meta(store: std::sync::Arc<Counting>) -> (ArrayMeta, Sharding) {
        let codecs = vec![json!({"id": "zstd", "level": 3})];
        let sharding = sharding_of(&[2, 3], &codecs, false);
        let meta = ArrayMeta {
            store,
            node: kv::StoreKey::root(),
            shape: vec![4, 6],
            chunks: vec![4, 6],
            dtype: crate::dtype::Dtype::of(ncmodel::AtomicType::Int, false),
            fill: Some((-1i32).to_ne_bytes().to_vec()),
            codecs: Vec::new(),
            key_prefix: Some("c"),
            separator: '/',
            transpose: None,
            sharding: Some(Box::new(sharding.clone())),
            key_offset: Vec::new(),
        };
        (meta, sharding)
    }

    #[test]
    fn a_shard_reads_back_with_its_index_and_one_request_for_its_inner_chunks(
    ) -> crate::error::Result<()> {
        let store = std::sync::Arc::new(Counting::default());
        let (meta, sharding) = sharded_meta(store.clone());
        let fill = (-1i32).to_ne_bytes();
        // The second inner chunk (rows 0-1, columns 3-5) holds fill values only.
        let values: Vec<u8> = (0..24i32)
            .map(|i| if i % 6 >= 3 && i < 12 { -1 } else { i })
            .flat_map(i32::to_ne_bytes)
            .collect();
        crate::wdata::store_chunk(&meta, &fill, "v", &[0, 0], values.clone())?;
        let key = meta.chunk_key(&[0, 0]);
        let stored = store.inner.get(&key, 1 << 20)?.unwrap_or_default();
        let index = &stored[stored.len() - 4 * 16 - 4..stored.len() - 4];
        assert_eq!(
            &index[16..32],
            &[0xff; 16],
            "the fill-only inner chunk is missing"
        );
        store.reads.store(0, std::sync::atomic::Ordering::SeqCst);
        let read = crate::shard::read_region(&meta, &sharding, &key, (&[0, 0], &[4, 6]))?;
        assert_eq!(read.as_deref(), Some(&values[..]));
        // The shard's size, its index, then the three stored inner chunks (touching:
        // one range).
        assert_eq!(store.reads.load(std::sync::atomic::Ordering::SeqCst), 3);
        // Read again in parts, the shard's size and index are not asked again: one
        // request each for the inner chunks of rows 0-1 and of rows 2-3.
        let top = crate::shard::read_region(&meta, &sharding, &key, (&[0, 0], &[2, 6]))?;
        let bottom = crate::shard::read_region(&meta, &sharding, &key, (&[2, 0], &[2, 6]))?;
        assert_eq!(top.as_deref(), Some(&values[..48]));
        assert_eq!(bottom.as_deref(), Some(&values[48..]));
        assert_eq!(store.reads.load(std::sync::atomic::Ordering::SeqCst), 5);
        // A shard of fill values only is not written.
        let all_fill: Vec<u8> = fill.repeat(24);
        crate::wdata::store_chunk(&meta, &fill, "v", &[1, 0], all_fill)?;
        assert_eq!(store.inner.size(&meta.chunk_key(&[1, 0]))?, None);
        Ok(())
    }

    #[test]
    fn positions_in_c_order() {
        let all: Vec<Vec<usize>> = (0..6).map(|n| position_of(n, &[2, 3])).collect();
        assert_eq!(
            all,
            [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]].map(|p| p.to_vec())
        );
        assert_eq!(position_of(0, &[]), Vec::<usize>::new());
    }

    #[test]
    fn shards_of_too_many_inner_chunks_are_refused_or_kept_within() {
        let tiny = [dim(1, 1 << 30, false)];
        let counts = inner_per_shard(&ShardShape::Chunks(vec![(1 << 20) + 1]), &tiny, 1);
        assert!(counts.is_err_and(|m| m.contains("1048576")));
        let sized = inner_per_shard(&ShardShape::TargetBytes(100 << 20), &tiny, 1);
        assert_eq!(sized, Ok(vec![1 << 20]));
    }
}
