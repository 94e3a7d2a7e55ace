//! The `_Codecs` special attribute: NCZarr codec JSON to HDF5 filters and back, for the
//! codecs of REFERENCE.md's table (shuffle, fletcher32, zlib, szip, bz2, zstd, blosc).

use serde_json::{Map, Value};

use crate::filter::FilterSpec;
use crate::known::{self, BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, SZIP, ZSTD};

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
            codec_to_filter(object, i + 1)
        })
        .collect()
}

/// Reads one key as an integer in `range`, with a default when absent.
struct CodecReader<'a> {
    codec: &'static str,
    object: &'a Map<String, Value>,
}

impl CodecReader<'_> {
    fn integer(
        &self,
        key: &'static str,
        range: std::ops::RangeInclusive<i64>,
        expected: &'static str,
    ) -> Result<Option<i64>, CodecError> {
        let bad = || CodecError::BadValue {
            codec: self.codec,
            key,
            expected,
        };
        let Some(value) = self.object.get(key) else {
            return Ok(None);
        };
        // Numbers may also come quoted, as some writers store them.
        let number = match value {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        number
            .filter(|n| range.contains(n))
            .map(Some)
            .ok_or_else(bad)
    }

    fn required(
        &self,
        key: &'static str,
        range: std::ops::RangeInclusive<i64>,
        expected: &'static str,
    ) -> Result<u32, CodecError> {
        let value = self.integer(key, range, expected)?;
        // Parameter words hold the two's-complement bits of negative values.
        value.map(|v| v as u32).ok_or(CodecError::MissingKey {
            codec: self.codec,
            key,
        })
    }
}

const U32_RANGE: std::ops::RangeInclusive<i64> = 0..=u32::MAX as i64;

/// The largest `elementsize` of a shuffle codec that nctools takes: numcodecs sets no
/// bound of its own (beyond a chunk's size being a multiple of it), and 2^16 bytes is far
/// past any element of a netCDF type that a Zarr store holds.
pub const MAX_SHUFFLE_ELEMENT_SIZE: i64 = 1 << 16;

/// Translates one codec object (`{"id": ..., ...}`) to its HDF5 filter; `index` is its
/// 1-based place in a list, for messages.
pub(crate) fn codec_to_filter(
    object: &Map<String, Value>,
    index: usize,
) -> Result<FilterSpec, CodecError> {
    let id = object
        .get("id")
        .and_then(Value::as_str)
        .ok_or(CodecError::MissingId { index })?;
    let codec = crate::registry::hdf5_numcodecs_ids()
        .find(|c| *c == id)
        .ok_or_else(|| match known::by_codec(id) {
            Some(_) => CodecError::Untranslatable { id: id.into() },
            None => CodecError::UnknownCodec { id: id.into() },
        })?;
    let read = CodecReader { codec, object };
    let spec = match codec {
        // HDF5 sets shuffle's element size from the type: it is not kept here (see
        // `filter_of_codec` for Zarr chunks, which keep it), but 0 and sizes past any
        // type's are refused (numcodecs would take 0 as "no shuffle"; no writer writes it).
        "shuffle" => {
            shuffle_element_size(&read)?;
            FilterSpec::new(SHUFFLE, [])
        }
        "fletcher32" => FilterSpec::new(FLETCHER32, []),
        "zlib" => FilterSpec::new(
            DEFLATE,
            [read.required("level", 0..=9, "an integer 0 to 9")?],
        ),
        "bz2" => FilterSpec::new(BZIP2, [read.required("level", 1..=9, "an integer 1 to 9")?]),
        // numcodecs' acceleration has no HDF5 counterpart: the plugin's default block.
        "lz4" => {
            read.integer("acceleration", -(1 << 16)..=1 << 16, "an integer")?;
            FilterSpec::new(LZ4, [])
        }
        "zstd" => FilterSpec::new(
            ZSTD,
            [read.required("level", -131072..=22, "an integer up to 22")?],
        ),
        "szip" => FilterSpec::new(
            SZIP,
            [
                read.required("mask", U32_RANGE, "an unsigned integer")?,
                read.required("pixels-per-block", 2..=32, "an even integer 2 to 32")?,
            ],
        ),
        _ => blosc_filter(&read)?,
    };
    Ok(spec)
}

/// A shuffle codec's `elementsize`, if it has one, within 1 to
/// [`MAX_SHUFFLE_ELEMENT_SIZE`].
fn shuffle_element_size(read: &CodecReader<'_>) -> Result<Option<u32>, CodecError> {
    let size = read.integer(
        "elementsize",
        1..=MAX_SHUFFLE_ELEMENT_SIZE,
        "an integer 1 to 65536",
    )?;
    Ok(size.map(|n| n as u32))
}

/// The HDF5 shuffle filter of a numcodecs shuffle codec with its element size as the
/// parameter (numcodecs' `elementsize`, which need not be the type's), or `None` for
/// another codec.
pub(crate) fn shuffle_with_element_size(
    object: &Map<String, Value>,
) -> Result<Option<FilterSpec>, CodecError> {
    if object.get("id").and_then(Value::as_str) != Some("shuffle") {
        return Ok(None);
    }
    let read = CodecReader {
        codec: "shuffle",
        object,
    };
    Ok(Some(match shuffle_element_size(&read)? {
        Some(size) => FilterSpec::new(SHUFFLE, [size]),
        None => FilterSpec::new(SHUFFLE, []),
    }))
}

fn blosc_filter(read: &CodecReader<'_>) -> Result<FilterSpec, CodecError> {
    let clevel = read
        .integer("clevel", 0..=9, "an integer 0 to 9")?
        .unwrap_or(9);
    let blocksize = read
        .integer("blocksize", U32_RANGE, "an unsigned integer")?
        .unwrap_or(1);
    let shuffle = read
        .integer("shuffle", -1..=2, "-1, 0, 1 or 2")?
        .unwrap_or(0);
    let cname = match read.object.get("cname") {
        None => "lz4",
        Some(Value::String(s)) => s.as_str(),
        Some(_) => "",
    };
    let compressor =
        BLOSC_COMPRESSORS
            .iter()
            .position(|c| *c == cname)
            .ok_or(CodecError::BadValue {
                codec: "blosc",
                key: "cname",
                expected: "one of blosclz, lz4, lz4hc, snappy, zlib, zstd",
            })?;
    // Filter version, blosc version, type size and chunk bytes are filled in by the
    // filter's set-local callback; -1 (auto bit/byte shuffle) is stored as its bits.
    let params = [
        0,
        0,
        0,
        blocksize as u32,
        clevel as u32,
        shuffle as u32,
        compressor as u32,
    ];
    Ok(FilterSpec::new(BLOSC, params))
}

/// Translates HDF5 filters (in stored order) to a `_Codecs` JSON value.
pub fn filters_to_codecs(filters: &[FilterSpec]) -> Result<String, CodecError> {
    let parts: Result<Vec<String>, CodecError> = filters.iter().map(filter_to_codec).collect();
    Ok(format!("[{}]", parts?.join(",")))
}

fn param(filter: &FilterSpec, i: usize) -> u32 {
    filter.params.get(i).copied().unwrap_or(0)
}

fn filter_to_codec(filter: &FilterSpec) -> Result<String, CodecError> {
    let p = |i| param(filter, i);
    Ok(match filter.id {
        SHUFFLE => format!("{{\"id\": \"shuffle\",\"elementsize\": {}}}", p(0)),
        FLETCHER32 => "{\"id\": \"fletcher32\"}".to_string(),
        DEFLATE => format!("{{\"id\": \"zlib\",\"level\": {}}}", p(0)),
        BZIP2 => format!("{{\"id\": \"bz2\",\"level\": {}}}", p(0)),
        LZ4 => "{\"id\": \"lz4\",\"acceleration\": 1}".to_string(),
        ZSTD => format!("{{\"id\": \"zstd\",\"level\": {}}}", p(0) as i32),
        SZIP => format!(
            "{{\"id\": \"szip\",\"mask\": {},\"pixels-per-block\": {}}}",
            p(0),
            p(1)
        ),
        BLOSC => {
            let cname = BLOSC_COMPRESSORS
                .get(p(6) as usize)
                .copied()
                .unwrap_or("lz4");
            format!(
                "{{\"id\": \"blosc\",\"clevel\": {},\"blocksize\": {},\"cname\": \"{}\",\"shuffle\": {}}}",
                p(4),
                p(3),
                cname,
                p(5) as i32
            )
        }
        id => return Err(CodecError::NoCodec { id }),
    })
}
