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
//!
//! Codecs with no HDF5 filter (`crate::numcodecs::ids`) are translated between
//! versions all the same; `gzip` and `crc32c` are core Zarr version 3 codecs and keep
//! their names there, the others become `numcodecs.ID`.

use serde_json::{json, Map, Value};

use crate::filter::FilterSpec;
use crate::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, ZSTD};
use crate::nczarr::{codec_to_filter, CodecError, BLOSC_COMPRESSORS};

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
        SHUFFLE => match filter.params.first() {
            Some(size) => json!({"id": "shuffle", "elementsize": size}),
            None => json!({"id": "shuffle", "elementsize": element_size}),
        },
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

/// The HDF5 filter of a Zarr version 2 codec object (a shuffle keeps its `elementsize` as
/// its parameter).
pub fn filter_of_codec(codec: &Value) -> Result<FilterSpec, CodecError> {
    let object = codec
        .as_object()
        .ok_or(CodecError::NotAnObject { index: 1 })?;
    // Zarr chunks are shuffled over numcodecs' `elementsize`, kept as the parameter.
    if let Some(shuffle) = crate::nczarr::shuffle_with_element_size(object)? {
        return Ok(shuffle);
    }
    codec_to_filter(object, 1)
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
    let v2 = numcodecs_of_v3_codec(name, object.get("configuration"));
    if let Some(Value::String(_)) = v2.get("shuffle").filter(|_| v2["id"] == "blosc") {
        return Err(CodecError::BadValue {
            codec: "blosc",
            key: "shuffle",
            expected: "noshuffle, shuffle or bitshuffle",
        });
    }
    filter_of_codec(&v2)
}

/// The numcodecs (version 2) JSON of the version 3 codec `name` with `configuration`,
/// whatever the codec (one nctools lacks is translated all the same): `numcodecs.` is
/// taken off the name, blosc's shuffle name becomes its number and its `typesize` goes.
pub fn numcodecs_of_v3_codec(name: &str, configuration: Option<&Value>) -> Value {
    let id = name.strip_prefix("numcodecs.").unwrap_or(name);
    let mut object = Map::new();
    object.insert("id".into(), json!(id));
    for (k, v) in configuration
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let v = match (id, k.as_str(), v) {
            ("blosc", "shuffle", Value::String(s)) => BLOSC_SHUFFLES
                .iter()
                .position(|x| x == s)
                .map_or(v.clone(), |i| json!(i)),
            _ => v.clone(),
        };
        if !(id == "blosc" && k == "typesize") {
            object.insert(k.clone(), v);
        }
    }
    Value::Object(object)
}

/// The version 3 codec of a numcodecs codec for elements of `element_size` bytes,
/// whatever the codec: zstd, blosc, gzip and crc32c keep their names (zstd gets
/// `"checksum": false`, blosc its shuffle name and `typesize`; crc32c keeps its name only
/// with its checksum at the end, as version 3 has it), others are named `numcodecs.ID`.
pub fn v3_codec_of_numcodecs(codec: &Value, element_size: usize) -> Value {
    let id = codec.get("id").and_then(Value::as_str).unwrap_or("?");
    let mut configuration = Map::new();
    for (k, v) in codec
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| *k != "id")
    {
        let v = match (id, k.as_str(), v.as_u64()) {
            ("blosc", "shuffle", Some(i)) => {
                json!(BLOSC_SHUFFLES.get(i as usize).copied().unwrap_or("shuffle"))
            }
            _ => v.clone(),
        };
        configuration.insert(k.clone(), v);
    }
    let name = match id {
        "zstd" => {
            configuration.entry("checksum").or_insert(json!(false));
            id.to_string()
        }
        "blosc" => {
            configuration.insert("typesize".into(), json!(element_size));
            id.to_string()
        }
        "gzip" => id.to_string(),
        "crc32c" if configuration.get("location").is_none_or(|l| l == "end") => {
            configuration.remove("location");
            id.to_string()
        }
        other => format!("numcodecs.{other}"),
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
