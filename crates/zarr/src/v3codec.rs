//! Zarr v3 codec entries (`{"name": "zstd", "configuration": {...}}`) to and from
//! numcodecs' v2 JSON (`{"id": "zstd", "level": 3}`), so both versions share one codec
//! path.

use serde_json::{Map, Value};

/// Blosc's shuffle names in v3, by their numcodecs number.
const BLOSC_SHUFFLE: [&str; 3] = ["noshuffle", "shuffle", "bitshuffle"];

/// The numcodecs JSON of a v3 codec `name` with its `configuration`.
pub fn to_numcodecs(name: &str, config: Option<&Value>) -> Value {
    let id = name.strip_prefix("numcodecs.").unwrap_or(name);
    let mut object = Map::new();
    object.insert("id".into(), Value::String(id.to_string()));
    if let Some(Value::Object(config)) = config {
        for (k, v) in config {
            let v = match (id, k.as_str(), v) {
                ("blosc", "shuffle", Value::String(s)) => BLOSC_SHUFFLE
                    .iter()
                    .position(|x| x == s)
                    .map_or(v.clone(), |i| Value::from(i as u64)),
                _ => v.clone(),
            };
            if !(id == "blosc" && k == "typesize") {
                object.insert(k.clone(), v);
            }
        }
    }
    Value::Object(object)
}

/// The v3 codec entry of a numcodecs codec for elements of `element_size` bytes.
pub fn from_numcodecs(codec: &Value, element_size: usize) -> Value {
    let id = crate::codec::codec_id(codec);
    let mut config = Map::new();
    if let Value::Object(members) = codec {
        for (k, v) in members.iter().filter(|(k, _)| *k != "id") {
            let v = match (id, k.as_str(), v.as_u64()) {
                ("blosc", "shuffle", Some(i)) => {
                    Value::from(BLOSC_SHUFFLE.get(i as usize).copied().unwrap_or("shuffle"))
                }
                _ => v.clone(),
            };
            config.insert(k.clone(), v);
        }
    }
    let name = match id {
        "zstd" | "blosc" => id.to_string(),
        other => format!("numcodecs.{other}"),
    };
    if id == "blosc" {
        config.insert("typesize".into(), Value::from(element_size));
    }
    if id == "zstd" {
        config.entry("checksum").or_insert(Value::Bool(false));
    }
    let mut entry = Map::new();
    entry.insert("name".into(), Value::String(name));
    entry.insert("configuration".into(), Value::Object(config));
    Value::Object(entry)
}
