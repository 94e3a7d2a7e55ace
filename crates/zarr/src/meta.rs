//! One array's Zarr metadata (`.zarray` or an array's `zarr.json`), as the reader and
//! writer use it.

use kv::StoreKey;
use ncmodel::AtomicType;
use serde_json::Value;

use crate::dtype::{swap_in_place, Dialect, Dtype, Text};
use crate::error::{Result, ZarrError};
use crate::storage::Store;
use crate::values::json_to_element;

/// An array's shape, type, chunking, fill value, codecs and chunk key form.
#[derive(Debug, Clone)]
pub struct ArrayMeta {
    /// The store the array is in.
    pub store: Store,
    /// The array's node (`g/v`): its metadata and chunks are under this prefix.
    pub node: StoreKey,
    /// The shape (empty for a 0-d array).
    pub shape: Vec<usize>,
    /// The chunk shape (same rank as `shape`).
    pub chunks: Vec<usize>,
    /// The element type.
    pub dtype: Dtype,
    /// The fill value as one element in the machine's byte order; `None` for `null`.
    pub fill: Option<Vec<u8>>,
    /// The codecs: filters then compressor, in numcodecs' JSON.
    pub codecs: Vec<Value>,
    /// Chunk key prefix (`c` for v3's default encoding) and separator.
    pub key_prefix: Option<&'static str>,
    /// The separator between chunk indices in keys.
    pub separator: char,
    /// How a decoded chunk's axes are permuted as stored (v3's `transpose` codec's
    /// `order`; v2's Fortran order is the reversed axes); `None` for C order.
    pub transpose: Option<Vec<usize>>,
    /// The `sharding_indexed` codec, when each stored chunk is a shard of inner chunks.
    pub sharding: Option<Box<crate::shard::Sharding>>,
    /// Added to the grid indices of every chunk key: the array is a region of a larger
    /// one, starting at this chunk (`nccopy --region`); empty when it is not.
    pub key_offset: Vec<usize>,
}

fn shape_of(value: Option<&Value>, what: &str) -> Result<Vec<usize>> {
    let bad = || {
        ZarrError::Corrupt(format!(
            "{what} is not a list of lengths; the store is damaged"
        ))
    };
    value
        .and_then(Value::as_array)
        .ok_or_else(bad)?
        .iter()
        .map(|n| {
            n.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(bad)
        })
        .collect()
}

/// The largest decoded chunk nctools reads or writes, in bytes: HDF5's limit (4 GiB less
/// one byte), so that whatever a netCDF-4 file holds fits, and a damaged or hostile
/// store cannot make a tool ask for terabytes.
pub const MAX_CHUNK_BYTES: u64 = u32::MAX as u64;

/// Checks that chunks of shape `chunks` with elements of `elem` bytes are at most
/// [`MAX_CHUNK_BYTES`]; the problem otherwise.
pub fn check_chunk_size(chunks: &[usize], elem: usize) -> std::result::Result<(), String> {
    let bytes = chunks
        .iter()
        .chain([&elem])
        .try_fold(1u64, |a, c| a.checked_mul(*c as u64));
    match bytes {
        Some(n) if n <= MAX_CHUNK_BYTES => Ok(()),
        _ => Err(format!(
            "its chunks of {chunks:?} elements of {elem} bytes are {} bytes, more than \
             nctools handles (at most {MAX_CHUNK_BYTES}, HDF5's limit)",
            bytes.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string())
        )),
    }
}

impl ArrayMeta {
    /// What its codecs may need to know of it (szip's words), for values stored in
    /// `element_size` bytes.
    pub fn codec_array(&self, element_size: usize) -> codecs::zarr_codec::ZarrArray<'_> {
        codecs::zarr_codec::ZarrArray {
            element_size,
            shape: &self.shape,
            chunks: &self.chunks,
            big_endian: self.dtype.big_endian,
        }
    }

    /// The metadata of a v2 `.zarray` object of the array at `node` of `store`, in a store written
    /// as `dialect` says.
    pub fn from_v2(
        zarray: &Value,
        store: &Store,
        node: &StoreKey,
        dialect: Dialect,
    ) -> Result<Self> {
        let what = describe(store, node, ".zarray");
        let shape = shape_of(zarray.get("shape"), &format!("{what}: \"shape\""))?;
        let chunks = shape_of(zarray.get("chunks"), &format!("{what}: \"chunks\""))?;
        let dtype_text = zarray.get("dtype").and_then(Value::as_str).unwrap_or("");
        if let Some(fields) = zarray.get("dtype").filter(|d| d.is_array()) {
            return Err(ZarrError::BadType(format!(
                "{what}: the Zarr data type {fields} is a structured (record) type, which \
                 netCDF cannot hold in a Zarr store"
            )));
        }
        let fortran = zarray.get("order").and_then(Value::as_str) == Some("F");
        let fortran_axes = (fortran && shape.len() > 1).then(|| (0..shape.len()).rev().collect());
        let mut codecs = Vec::new();
        if let Some(Value::Array(filters)) = zarray.get("filters") {
            codecs.extend(filters.iter().cloned());
        }
        if let Some(c) = zarray.get("compressor").filter(|c| !c.is_null()) {
            codecs.push(c.clone());
        }
        let dtype = if dtype_text == "|O" {
            object_dtype(&mut codecs, node, &what)?
        } else {
            Dtype::parse_v2(dtype_text, dialect)
                .map_err(|e| ZarrError::BadType(format!("{what}: {e}")))?
        };
        let separator = match zarray.get("dimension_separator").and_then(Value::as_str) {
            Some("/") => '/',
            _ => '.',
        };
        let fill = fill_of(zarray.get("fill_value"), &dtype, dialect, &what)?;
        Self {
            store: store.clone(),
            node: node.clone(),
            shape,
            chunks,
            dtype,
            fill,
            codecs,
            key_prefix: None,
            separator,
            transpose: fortran_axes,
            sharding: None,
            key_offset: Vec::new(),
        }
        .checked(&what)
    }

    /// The metadata of a v3 array `zarr.json` of the array at `node` of `store`.
    pub fn from_v3(meta: &Value, store: &Store, node: &StoreKey) -> Result<Self> {
        let what = describe(store, node, "zarr.json");
        let shape = shape_of(meta.get("shape"), &format!("{what}: \"shape\""))?;
        let grid = meta.pointer("/chunk_grid/configuration/chunk_shape");
        let chunks = shape_of(grid, &format!("{what}: \"chunk_shape\""))?;
        let chain = crate::shard::parse_chain(meta.get("codecs"), &chunks, &what)?;
        let (big_endian, vlen) = match &chain.sharding {
            Some(sharding) => (sharding.inner.big_endian, sharding.inner.vlen),
            None => (chain.big_endian, chain.vlen),
        };
        let data_type = meta.get("data_type").cloned().unwrap_or(Value::Null);
        let dtype = Dtype::parse_v3(&data_type, big_endian)
            .map_err(|e| ZarrError::BadType(format!("{what}: {e}")))?;
        if vlen != (dtype.text == Text::Vlen) {
            return Err(ZarrError::BadType(format!(
                "{what}: the data type {data_type} {} a vlen codec; nctools reads \
                 variable-length strings as the data type \"string\" with the vlen-utf8 \
                 codec, or \"variable_length_bytes\" with the vlen-bytes codec",
                if vlen { "does not go with" } else { "needs" }
            )));
        }
        let encoding = meta.get("chunk_key_encoding");
        let v2_keys = encoding.and_then(|e| e.get("name")).and_then(Value::as_str) == Some("v2");
        let separator = encoding
            .and_then(|e| e.pointer("/configuration/separator"))
            .and_then(Value::as_str)
            .map_or(if v2_keys { '.' } else { '/' }, |s| {
                if s == "." {
                    '.'
                } else {
                    '/'
                }
            });
        let fill = fill_of(meta.get("fill_value"), &dtype, Dialect::Pure, &what)?;
        Self {
            store: store.clone(),
            node: node.clone(),
            shape,
            chunks,
            dtype,
            fill,
            codecs: chain.codecs,
            key_prefix: if v2_keys { None } else { Some("c") },
            separator,
            transpose: chain
                .transpose
                .filter(|order| order.iter().enumerate().any(|(i, o)| i != *o)),
            sharding: chain.sharding,
            key_offset: Vec::new(),
        }
        .checked(&what)
    }

    fn checked(self, what: &str) -> Result<Self> {
        if self.chunks.len() != self.shape.len() || self.chunks.contains(&0) {
            return Err(ZarrError::Corrupt(format!(
                "{what}: chunks {:?} do not fit shape {:?}; the store is damaged",
                self.chunks, self.shape
            )));
        }
        if let Err(problem) = check_chunk_size(&self.chunks, self.dtype.size) {
            return Err(ZarrError::Invalid(format!("{what}: {problem}")));
        }
        // An array's bytes must be countable (and addressable as netCDF counts them, in
        // 63 bits): a shape of two lengths of 2^64 - 1 overflowed every count made of it.
        let bytes = self
            .shape
            .iter()
            .try_fold(self.dtype.size.max(1) as u64, |a, n| {
                a.checked_mul(*n as u64)
            })
            .filter(|b| *b <= i64::MAX as u64);
        if bytes.is_none() && !self.shape.contains(&0) {
            return Err(ZarrError::Invalid(format!(
                "{what}: the shape {:?} holds more than 2^63 bytes, more than netCDF can \
                 address; the store is damaged",
                self.shape
            )));
        }
        Ok(self)
    }

    /// The number of elements of one chunk.
    pub fn chunk_elements(&self) -> usize {
        self.chunks.iter().product()
    }

    /// The size of one decoded chunk in bytes, as read (half floats widened).
    pub fn chunk_bytes(&self) -> usize {
        self.chunk_elements() * self.dtype.size
    }

    /// Every codec of the array by numcodecs id, those inside shards included.
    pub fn all_codecs(&self) -> Vec<Value> {
        let mut all = self.codecs.clone();
        if let Some(sharding) = &self.sharding {
            all.extend(sharding.codecs());
        }
        all
    }

    /// The size of one decoded chunk in bytes, as stored.
    pub fn stored_chunk_bytes(&self) -> usize {
        self.chunk_elements() * self.dtype.stored_size()
    }

    /// The key of the chunk with grid indices `index` (`g/v/0.1`, `v/c/0/1`).
    pub fn chunk_key(&self, index: &[usize]) -> StoreKey {
        let mut key: Vec<String> = index
            .iter()
            .enumerate()
            .map(|(axis, i)| (i + self.key_offset.get(axis).copied().unwrap_or(0)).to_string())
            .collect();
        if key.is_empty() && self.key_prefix.is_none() {
            key.push("0".into());
        }
        if let Some(prefix) = self.key_prefix {
            key.insert(0, prefix.to_string());
        }
        // Digits and `c` joined by `.` or `/`: always a valid key below the node.
        let sep = self.separator.to_string();
        self.node
            .join(&key.join(&sep))
            .unwrap_or_else(|_| self.node.clone())
    }

    /// How messages name the chunk `key` (its path, for a directory store).
    pub fn describe(&self, key: &StoreKey) -> String {
        self.store.describe(key)
    }

    /// How messages name the array (its directory, for a directory store).
    pub fn name(&self) -> String {
        self.store.describe(&self.node)
    }
}

/// The dtype of an object array (`|O`): strings when its first codec is `vlen-utf8`
/// (which is then taken out of `codecs`), else an error naming the array and codec.
fn object_dtype(codecs: &mut Vec<Value>, node: &StoreKey, what: &str) -> Result<Dtype> {
    let id = codecs
        .first()
        .map_or("none", |c| crate::codec::codec_id(c))
        .to_string();
    let dtype = match id.as_str() {
        crate::vlen::VLEN_UTF8 => Dtype::vlen_string(),
        crate::vlen::VLEN_BYTES => Dtype::vlen_bytes(),
        _ => {
            return Err(ZarrError::BadType(format!(
                "{what}: the array {} is an object array (dtype \"|O\") of the codec {id:?}; \
                 nctools reads object arrays of strings (codecs \"vlen-utf8\" and \
                 \"vlen-bytes\") only",
                node.name()
            )))
        }
    };
    codecs.remove(0);
    Ok(dtype)
}

/// A JSON fill value as one element in the machine's byte order (a string array's: its
/// fill string, as [`crate::strings::fill_string`] reads it); a value that is none of its
/// type's (`"NaN"` for an integer, 10^30 for a byte) is an error naming `what` (before,
/// it read as no fill value, and unwritten chunks as zeros: red team s35 RB4).
fn fill_of(
    value: Option<&Value>,
    dtype: &Dtype,
    dialect: Dialect,
    what: &str,
) -> Result<Option<Vec<u8>>> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    if dtype.atomic == AtomicType::String {
        // The string, not an element of the declared width (see `padded_fill`).
        return Ok(Some(crate::strings::fill_string(value, dtype, dialect)));
    }
    if dtype.atomic == AtomicType::Char && dialect != Dialect::NcZarr && value.is_string() {
        // `|S1` in pure Zarr: base64, as zarr-python writes it.
        return Ok(Some(crate::strings::fill_element(
            value,
            &Dtype::fixed_string(1),
            dialect,
        )));
    }
    let Some(mut element) = json_to_element(value, dtype.atomic) else {
        let shown: String = value.to_string().chars().take(64).collect();
        return Err(ZarrError::Corrupt(format!(
            "{what}: its fill_value {shown} is not a value of its type ({}); the store is \
             damaged",
            dtype.atomic
        )));
    };
    if cfg!(target_endian = "big") {
        swap_in_place(&mut element, 1);
    }
    Ok(Some(element))
}

/// How messages name the metadata document `name` of `node`.
fn describe(store: &Store, node: &StoreKey, name: &str) -> String {
    match node.child(name) {
        Ok(key) => store.describe(&key),
        Err(_) => format!("{}/{name}", store.describe(node)),
    }
}

/// The axis order of a v3 `transpose` codec's configuration for arrays of `rank`: a
/// permutation of `0..rank` (or the older "C" and "F").
pub(crate) fn transpose_order(
    config: Option<&Value>,
    rank: usize,
    what: &str,
) -> Result<Vec<usize>> {
    let order = config.and_then(|c| c.get("order"));
    let axes: Option<Vec<usize>> = match order {
        Some(Value::String(s)) if s == "C" => Some((0..rank).collect()),
        Some(Value::String(s)) if s == "F" => Some((0..rank).rev().collect()),
        Some(Value::Array(list)) => list
            .iter()
            .map(|n| n.as_u64().and_then(|n| usize::try_from(n).ok()))
            .collect(),
        _ => None,
    };
    let valid = axes.filter(|axes| {
        let mut seen = vec![false; rank];
        axes.len() == rank
            && axes
                .iter()
                .all(|&a| a < rank && !std::mem::replace(&mut seen[a], true))
    });
    valid.ok_or_else(|| {
        ZarrError::Corrupt(format!(
            "{what}: the transpose codec's order {} is not a permutation of the {rank} axes; \
             the store is damaged",
            order.map_or("(none)".to_string(), Value::to_string)
        ))
    })
}
