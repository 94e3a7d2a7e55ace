//! The one table between HDF5 filters and Zarr codecs: each filter nctools has, as the
//! numcodecs codec zarr-python writes (Zarr version 2) and as its version 3 codec, and
//! back. Numbers are written as JSON numbers; on input, numbers written as strings (as
//! netCDF-C's codec plugins write them) are read too.
//!
//! | filter (id) | version 2 | version 3 |
//! | --- | --- | --- |
//! | deflate (1) | `{"id": "zlib", "level": L}` | `numcodecs.zlib` |
//! | shuffle (2) | `{"id": "shuffle", "elementsize": N}` | `numcodecs.shuffle` |
//! | fletcher32 (3) | `{"id": "fletcher32"}` | `numcodecs.fletcher32` |
//! | bzip2 (307) | `{"id": "bz2", "level": L}` | `numcodecs.bz2` |
//! | blosc (32001) | `{"id": "blosc", "cname", "clevel", "shuffle", "blocksize"}` | `blosc` |
//! | lz4 (32004) | `{"id": "lz4", "acceleration": 1}` | `numcodecs.lz4` |
//! | zstd (32015) | `{"id": "zstd", "level": L}` | `zstd` |
//!
//! szip (4) has no numcodecs codec: [`zarr_codec`] refuses it.

use serde_json::{json, Map, Value};

use crate::codecs::{codec_to_filter, CodecError, BLOSC_COMPRESSORS};
use crate::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, ZSTD};
use crate::spec::FilterSpec;

/// Blosc's shuffle modes as Zarr version 3 names them, by their numcodecs value.
const BLOSC_SHUFFLES: [&str; 3] = ["noshuffle", "shuffle", "bitshuffle"];

fn param(filter: &FilterSpec, i: usize) -> Option<u32> {
    filter.params.get(i).copied()
}

/// Blosc's (clevel, shuffle, compressor name) from the filter's parameters (HDF5's
/// defaults: level 5, byte shuffle, blosclz).
fn blosc_settings(filter: &FilterSpec) -> (u32, u32, &'static str) {
    let clevel = param(filter, 4).unwrap_or(5).min(9);
    let shuffle = param(filter, 5).unwrap_or(1).min(2);
    let cname = param(filter, 6)
        .and_then(|c| BLOSC_COMPRESSORS.get(c as usize).copied())
        .unwrap_or("blosclz");
    (clevel, shuffle, cname)
}

/// The Zarr version 2 (numcodecs) codec of `filter`, for values of `element_size` bytes.
pub fn zarr_codec(filter: &FilterSpec, element_size: usize) -> Result<Value, CodecError> {
    Ok(match filter.id {
        SHUFFLE => json!({"id": "shuffle", "elementsize": element_size}),
        FLETCHER32 => json!({"id": "fletcher32"}),
        DEFLATE => json!({"id": "zlib", "level": param(filter, 0).unwrap_or(1).min(9)}),
        BZIP2 => json!({"id": "bz2", "level": param(filter, 0).unwrap_or(9).clamp(1, 9)}),
        ZSTD => json!({"id": "zstd", "level": param(filter, 0).map_or(3, |l| l as i32)}),
        LZ4 => json!({"id": "lz4", "acceleration": 1}),
        BLOSC => {
            let (clevel, shuffle, cname) = blosc_settings(filter);
            json!({"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle, "blocksize": 0})
        }
        id => return Err(CodecError::NoCodec { id }),
    })
}

/// The HDF5 filter of a Zarr version 2 codec object.
pub fn filter_of_codec(codec: &Value) -> Result<FilterSpec, CodecError> {
    let object = codec
        .as_object()
        .ok_or(CodecError::NotAnObject { index: 1 })?;
    codec_to_filter(object, 1)
}

/// The Zarr version 3 codec of `filter`, for values of `element_size` bytes.
pub fn zarr_v3_codec(filter: &FilterSpec, element_size: usize) -> Result<Value, CodecError> {
    let v2 = zarr_codec(filter, element_size)?;
    let mut configuration = v2.as_object().cloned().unwrap_or_default();
    let id = configuration
        .remove("id")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let name = match id.as_str() {
        "zstd" => {
            configuration.insert("checksum".into(), Value::Bool(false));
            "zstd".to_string()
        }
        "blosc" => {
            let (_, shuffle, _) = blosc_settings(filter);
            configuration.insert("shuffle".into(), json!(BLOSC_SHUFFLES[shuffle as usize]));
            configuration.insert("typesize".into(), json!(element_size));
            "blosc".to_string()
        }
        other => format!("numcodecs.{other}"),
    };
    Ok(json!({"name": name, "configuration": configuration}))
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
    let mut v2: Map<String, Value> = object
        .get("configuration")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let id = name.strip_prefix("numcodecs.").unwrap_or(name);
    if id == "blosc" {
        if let Some(Value::String(mode)) = v2.get("shuffle") {
            let number =
                BLOSC_SHUFFLES
                    .iter()
                    .position(|m| m == mode)
                    .ok_or(CodecError::BadValue {
                        codec: "blosc",
                        key: "shuffle",
                        expected: "noshuffle, shuffle or bitshuffle",
                    })?;
            v2.insert("shuffle".into(), json!(number));
        }
    }
    v2.insert("id".into(), json!(id));
    codec_to_filter(&v2, 1)
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
