//! Zarr's codec forms of the registry's codecs: each HDF5 filter nctools has as the
//! numcodecs codec zarr-python writes (Zarr version 2) and as its version 3 codec, and
//! back; each codec's own file (`crate::kinds`) says how. Numbers are written as JSON
//! numbers; on input, numbers written as strings (as netCDF-C's codec plugins write
//! them) are read too. szip's codec is netCDF-C's NCZarr one; its chunks need the words
//! [`local_filter`] makes from the array.
//!
//! Codecs with no HDF5 filter are translated between versions all the same; `gzip` and
//! `crc32c` are core Zarr version 3 codecs and keep their names there, the others (and
//! codecs nctools lacks) become `numcodecs.ID`.

use serde_json::{json, Map, Value};

use crate::nczarr::{codec_of_object, CodecError};
use crate::registry;
use crate::wire::WireError;
use crate::FilterSpec;

/// What a codec may need to know of the Zarr array whose chunks it encodes besides its
/// JSON (szip's bits per pixel and pixels per scanline come from it).
#[derive(Debug, Clone, Copy)]
pub struct ZarrArray<'a> {
    /// Bytes of one value as stored.
    pub element_size: usize,
    /// The array's shape.
    pub shape: &'a [usize],
    /// Its chunk shape.
    pub chunks: &'a [usize],
    /// Whether its values are stored big-endian.
    pub big_endian: bool,
}

impl ZarrArray<'_> {
    /// An array known only by its values of `element_size` bytes, little-endian (one
    /// value per chunk: a codec that needs more refuses it).
    pub fn of_element(element_size: usize) -> ZarrArray<'static> {
        ZarrArray {
            element_size,
            shape: &[],
            chunks: &[],
            big_endian: false,
        }
    }
}

/// `filter` (as [`filter_of_codec`] reads it from a store) with the parameters its
/// chunks run with in `array` ([`crate::registry::Codec::zarr_local_params`]).
pub fn local_filter(filter: &FilterSpec, array: &ZarrArray<'_>) -> Result<FilterSpec, WireError> {
    let codec = registry::codec_of_hdf5_id(filter.id).ok_or(WireError::Unknown(filter.id))?;
    Ok(FilterSpec::new(
        filter.id,
        codec.zarr_local_params(&filter.params, array)?,
    ))
}

/// The Zarr version 3 array-to-bytes codec that lays elements out in a byte order.
pub const V3_BYTES: &str = "bytes";

/// The Zarr version 3 array-to-bytes codec that stores a chunk as a shard of inner
/// chunks, each encoded on its own, with an index of where each one is.
pub const V3_SHARDING_INDEXED: &str = "sharding_indexed";

/// The Zarr version 2 (numcodecs) codec of `filter`, for values of `element_size` bytes.
pub fn zarr_codec(filter: &FilterSpec, element_size: usize) -> Result<Value, CodecError> {
    registry::codec_of_hdf5_id(filter.id)
        .filter(|c| c.entry().implemented)
        .map(|c| c.store_json(&filter.params, element_size))
        .ok_or(CodecError::NoCodec { id: filter.id })
}

/// numcodecs' codec of variable-length UTF-8 strings (an object array's, Zarr v3's
/// `string`).
pub const VLEN_UTF8: &str = "vlen-utf8";

/// numcodecs' codec of variable-length byte strings, framed as [`VLEN_UTF8`]'s (Zarr v3's
/// `variable_length_bytes`).
pub const VLEN_BYTES: &str = "vlen-bytes";

/// Whether `id` is one of the codecs that frame a chunk of variable-length values
/// ([`VLEN_UTF8`], [`VLEN_BYTES`]): they are no HDF5 filter, and netCDF holds their
/// values as `string`.
pub fn is_vlen_codec(id: &str) -> bool {
    id == VLEN_UTF8 || id == VLEN_BYTES
}

/// The HDF5 filter of a Zarr version 2 codec object (a shuffle keeps its `elementsize` as
/// its parameter).
pub fn filter_of_codec(codec: &Value) -> Result<FilterSpec, CodecError> {
    let object = codec
        .as_object()
        .ok_or(CodecError::NotAnObject { index: 1 })?;
    let (codec, id, read) = codec_of_object(object, 1)?;
    Ok(FilterSpec::new(id, codec.store_params(&read)?))
}

/// The Zarr version 3 codec of `filter`, for values of `element_size` bytes.
pub fn zarr_v3_codec(filter: &FilterSpec, element_size: usize) -> Result<Value, CodecError> {
    Ok(v3_codec_of_numcodecs(
        &zarr_codec(filter, element_size)?,
        element_size,
    ))
}

/// The HDF5 filter of a Zarr version 3 codec (`{"name": ..., "configuration": ...}`).
pub fn filter_of_v3_codec(codec: &Value) -> Result<FilterSpec, CodecError> {
    let object = codec
        .as_object()
        .ok_or(CodecError::NotAnObject { index: 1 })?;
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .ok_or(CodecError::MissingId { index: 1 })?;
    filter_of_codec(&checked_numcodecs_of_v3_codec(
        name,
        object.get("configuration"),
    )?)
}

/// The numcodecs (version 2) JSON of the version 3 codec `name` with `configuration`,
/// whatever the codec (one nctools lacks is translated all the same): `numcodecs.` is
/// taken off the name, and a codec nctools knows turns its configuration back (blosc's
/// shuffle name becomes its number and its `typesize` goes). A configuration the codec
/// refuses is left as it is, for the codec to refuse when it is used.
pub fn numcodecs_of_v3_codec(name: &str, configuration: Option<&Value>) -> Value {
    numcodecs_of_v3(name, configuration).0
}

/// [`numcodecs_of_v3_codec`], with the codec's refusal of its configuration.
fn checked_numcodecs_of_v3_codec(
    name: &str,
    configuration: Option<&Value>,
) -> Result<Value, CodecError> {
    let (value, refusal) = numcodecs_of_v3(name, configuration);
    refusal.map_or(Ok(value), Err)
}

fn numcodecs_of_v3(name: &str, configuration: Option<&Value>) -> (Value, Option<CodecError>) {
    let id = name.strip_prefix("numcodecs.").unwrap_or(name);
    let mut members: Map<String, Value> = configuration
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let refusal = registry::codec_of_numcodecs_id(id).and_then(|c| {
        let mut converted = members.clone();
        match c.v3_to_numcodecs(&mut converted) {
            Ok(()) => {
                members = converted;
                None
            }
            Err(e) => Some(e),
        }
    });
    let mut object = Map::new();
    object.insert("id".into(), json!(id));
    object.extend(members);
    (Value::Object(object), refusal)
}

/// The version 3 codec of a numcodecs codec for elements of `element_size` bytes,
/// whatever the codec: the registry's codecs name and configure themselves (zstd, blosc,
/// gzip and crc32c keep their names, with their version 3 members), others are named
/// `numcodecs.ID`.
pub fn v3_codec_of_numcodecs(codec: &Value, element_size: usize) -> Value {
    let id = codec.get("id").and_then(Value::as_str).unwrap_or("?");
    let mut configuration: Map<String, Value> = codec
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| *k != "id")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let name = match registry::codec_of_numcodecs_id(id) {
        Some(c) => c.numcodecs_to_v3(&mut configuration, element_size),
        None => format!("numcodecs.{id}"),
    };
    json!({"name": name, "configuration": configuration})
}

/// The `_Codecs` text of a list of codecs, as netCDF-C prints it: members of an object
/// separated by `", "`, items of an array by `","`, e.g. `[{"id": "bz2", "level": 9}]`.
pub fn codecs_attribute(codecs: &[Value]) -> String {
    let mut out = String::new();
    write_array(&mut out, codecs);
    out
}

fn write_array(out: &mut String, items: &[Value]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_value(out, item);
    }
    out.push(']');
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Array(items) => write_array(out, items),
        Value::Object(members) => {
            out.push('{');
            for (i, (key, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_value(out, member);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
