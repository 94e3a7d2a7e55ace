//! The `_Codecs` special attribute: NCZarr codec JSON to HDF5 filters and back, for the
//! codecs of REFERENCE.md's table (shuffle, fletcher32, zlib, szip, bz2, zstd, blosc).

use serde_json::{Map, Value};

use crate::kinds::ConfigReader;
use crate::registry::{self, Codec};
use crate::FilterSpec;

/// What is wrong with a `_Codecs` value, or why a filter has no codec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// Not valid JSON.
    #[error("_Codecs is not valid JSON: {0}")]
    Json(String),
    /// Valid JSON, but not an array of codecs.
    #[error(
        "_Codecs must be a JSON array of codec objects, like [{{\"id\": \"zlib\", \"level\": 5}}]"
    )]
    NotAnArray,
    /// An element that is not a JSON object.
    #[error("codec {index} of _Codecs is not a JSON object")]
    NotAnObject {
        /// 1-based position in the array.
        index: usize,
    },
    /// An object without a string `"id"`.
    #[error("codec {index} of _Codecs has no \"id\" string")]
    MissingId {
        /// 1-based position in the array.
        index: usize,
    },
    /// A codec id nctools does not know.
    #[error(
        "unknown codec id \"{id}\" in _Codecs; known: {}",
        crate::registry::hdf5_numcodecs_ids().collect::<Vec<_>>().join(", ")
    )]
    UnknownCodec {
        /// The id as written.
        id: String,
    },
    /// A known codec whose parameters have no HDF5 translation.
    #[error("codec \"{id}\" has no translation to HDF5 filter parameters; use _Filter instead")]
    Untranslatable {
        /// The codec id.
        id: String,
    },
    /// A required key is missing.
    #[error("codec \"{codec}\" in _Codecs is missing the key \"{key}\"")]
    MissingKey {
        /// The codec id.
        codec: &'static str,
        /// The missing key.
        key: &'static str,
    },
    /// A key whose value is of the wrong kind or out of range.
    #[error("codec \"{codec}\" in _Codecs: \"{key}\" must be {expected}")]
    BadValue {
        /// The codec id.
        codec: &'static str,
        /// The key.
        key: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A plugin pair's codec library failed to translate.
    #[error("codec \"{id}\" of the plugin {provider}: {message}")]
    PluginFailed {
        /// The codec id.
        id: String,
        /// The files that provide it.
        provider: String,
        /// What failed.
        message: String,
    },
    /// A filter that has no codec equivalent.
    #[error("filter {id} has no NCZarr codec equivalent")]
    NoCodec {
        /// The filter id.
        id: u32,
    },
}

pub use crate::blosc::COMPRESSORS as BLOSC_COMPRESSORS;

/// Translates a `_Codecs` value to HDF5 filters, in order.
pub fn codecs_to_filters(json: &str) -> Result<Vec<FilterSpec>, CodecError> {
    map_codec_objects(json, codec_to_filter)
}

/// The HDF5 filter ids of a JSON array of NCZarr codecs, without reading their other
/// members: what a `_Codecs` attribute beside a `_Filter` says, which only has to name
/// the same filters (netCDF-C's ncgen ignores `_Codecs` when writing; its tests give
/// members such as `"elementsize": "0"` that are no parameters at all).
pub fn codecs_filter_ids(json: &str) -> Result<Vec<u32>, CodecError> {
    map_codec_objects(json, |object, index| {
        codec_of_object(object, index).map(|(_, id, _)| id)
    })
}

/// `each` of every codec object of the JSON array `json`, with its 1-based place.
fn map_codec_objects<T>(
    json: &str,
    each: impl Fn(&Map<String, Value>, usize) -> Result<T, CodecError>,
) -> Result<Vec<T>, CodecError> {
    let value: Value = serde_json::from_str(json).map_err(|e| CodecError::Json(e.to_string()))?;
    let Value::Array(items) = value else {
        return Err(CodecError::NotAnArray);
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let object = item
                .as_object()
                .ok_or(CodecError::NotAnObject { index: i + 1 })?;
            each(object, i + 1)
        })
        .collect()
}

pub use crate::kinds::MAX_SHUFFLE_ELEMENT_SIZE;

/// Translates one codec object (`{"id": ..., ...}`) to its HDF5 filter; `index` is its
/// 1-based place in a list, for messages.
pub(crate) fn codec_to_filter(
    object: &Map<String, Value>,
    index: usize,
) -> Result<FilterSpec, CodecError> {
    let (codec, id, read) = codec_of_object(object, index)?;
    Ok(FilterSpec::new(id, codec.hdf5_params(&read)?))
}

/// The registry's codec of one codec object, its HDF5 filter id, and a reader of its
/// members; `index` is its 1-based place in a list, for messages. A codec that is no
/// HDF5 filter is refused.
pub(crate) fn codec_of_object(
    object: &Map<String, Value>,
    index: usize,
) -> Result<(&'static dyn Codec, u32, ConfigReader<'_>), CodecError> {
    let id = object
        .get("id")
        .and_then(Value::as_str)
        .ok_or(CodecError::MissingId { index })?;
    let codec = registry::codec_of_numcodecs_id(id)
        .ok_or_else(|| CodecError::UnknownCodec { id: id.into() })?;
    let hdf5_id = codec
        .entry()
        .hdf5_id
        .ok_or_else(|| CodecError::Untranslatable { id: id.into() })?;
    let read = ConfigReader {
        codec: codec.entry().numcodecs_id,
        object,
    };
    Ok((codec, hdf5_id, read))
}

/// Translates HDF5 filters (in stored order) to a `_Codecs` JSON value.
pub fn filters_to_codecs(filters: &[FilterSpec]) -> Result<String, CodecError> {
    let parts: Result<Vec<String>, CodecError> = filters.iter().map(filter_to_codec).collect();
    Ok(format!("[{}]", parts?.join(",")))
}

fn filter_to_codec(filter: &FilterSpec) -> Result<String, CodecError> {
    registry::codec_of_hdf5_id(filter.id)
        .map(|codec| codec.codecs_text(&filter.params))
        .ok_or(CodecError::NoCodec { id: filter.id })
}
