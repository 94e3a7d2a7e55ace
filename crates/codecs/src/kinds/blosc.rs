//! Blosc (registered filter 32001): numcodecs' `blosc`, Zarr version 3's core `blosc`.
//! Its parameters: filter version, blosc version, type size and chunk bytes (set by the
//! filter's set-local callback), then level, shuffle and compressor.

use serde_json::{json, Map, Value};

use super::deflate::word;
use super::reader::{ConfigReader, U32_RANGE};
use crate::blosc::COMPRESSORS;
use crate::known::BLOSC;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::{Wire, WireError};

/// Blosc.
#[derive(Debug)]
pub struct Blosc;

const ENTRY: CodecEntry = CodecEntry::hdf5(BLOSC, "blosc").carried().core("blosc");

/// Blosc's shuffle modes as Zarr version 3 names them, by their numcodecs value.
const SHUFFLES: [&str; 3] = ["noshuffle", "shuffle", "bitshuffle"];

/// Blosc's (clevel, shuffle, compressor name) from the filter's parameters (HDF5's
/// defaults: level 5, byte shuffle, blosclz).
fn settings(params: &[u32]) -> (u32, u32, &'static str) {
    let clevel = params.get(4).copied().unwrap_or(5).min(9);
    let shuffle = params.get(5).copied().unwrap_or(1).min(2);
    let cname = params
        .get(6)
        .and_then(|c| COMPRESSORS.get(*c as usize).copied())
        .unwrap_or("blosclz");
    (clevel, shuffle, cname)
}

impl Codec for Blosc {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    /// lz4 and zstd inside, byte shuffle, level 5.
    fn try_candidates(&self) -> &'static [&'static str] {
        &["blosc,0,0,0,0,5,1,1", "blosc,0,0,0,0,5,1,5"]
    }

    fn wire(&self) -> Option<&dyn Wire> {
        Some(self)
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        let cname = COMPRESSORS
            .get(word(params, 6) as usize)
            .copied()
            .unwrap_or("lz4");
        format!(
            "{{\"id\": \"blosc\",\"clevel\": {},\"blocksize\": {},\"cname\": \"{}\",\"shuffle\": {}}}",
            word(params, 4),
            word(params, 3),
            cname,
            word(params, 5) as i32
        )
    }

    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
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
            COMPRESSORS
                .iter()
                .position(|c| *c == cname)
                .ok_or(CodecError::BadValue {
                    codec: "blosc",
                    key: "cname",
                    expected: "one of blosclz, lz4, lz4hc, snappy, zlib, zstd",
                })?;
        // Filter version, blosc version, type size and chunk bytes are filled in by the
        // filter's set-local callback; -1 (auto bit/byte shuffle) is stored as its bits.
        Ok(vec![
            0,
            0,
            0,
            blocksize as u32,
            clevel as u32,
            shuffle as u32,
            compressor as u32,
        ])
    }

    /// The block size is the fourth parameter of a filter as given (`0,0,0,blocksize,...`,
    /// as in `_Codecs` and netCDF-C's NCZarr codec; 0: blosc chooses). In the parameters
    /// HDF5 stored (the first, the filter's revision, is set) the fourth is the chunk's
    /// size in bytes, not a block size: 0 then.
    fn store_json(&self, params: &[u32], _element_size: usize) -> Value {
        let (clevel, shuffle, cname) = settings(params);
        let blocksize = if word(params, 0) == 0 {
            word(params, 3)
        } else {
            0
        };
        // netCDF-C's order of the members, which its ncdump shows as stored.
        json!({"id": "blosc", "clevel": clevel, "blocksize": blocksize, "cname": cname, "shuffle": shuffle})
    }

    /// Version 3 names the shuffle and wants the type size.
    fn numcodecs_to_v3(
        &self,
        configuration: &mut Map<String, Value>,
        element_size: usize,
    ) -> String {
        if let Some(i) = configuration.get("shuffle").and_then(Value::as_u64) {
            let name = SHUFFLES.get(i as usize).copied().unwrap_or("shuffle");
            configuration.insert("shuffle".into(), json!(name));
        }
        configuration.insert("typesize".into(), json!(element_size));
        "blosc".into()
    }

    /// The shuffle's name becomes its number again (an unknown name is refused), and the
    /// type size goes.
    fn v3_to_numcodecs(&self, configuration: &mut Map<String, Value>) -> Result<(), CodecError> {
        if let Some(Value::String(s)) = configuration.get("shuffle") {
            let number = SHUFFLES
                .iter()
                .position(|x| x == s)
                .ok_or(CodecError::BadValue {
                    codec: "blosc",
                    key: "shuffle",
                    expected: "noshuffle, shuffle or bitshuffle",
                })?;
            configuration.insert("shuffle".into(), json!(number));
        }
        configuration.remove("typesize");
        Ok(())
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        (params.len() <= 7).then(|| describe(params))
    }

    /// The plugin's frame, with the parameters its set-local callback would set.
    fn zarr_encode(
        &self,
        params: &[u32],
        element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        let local = crate::blosc::local_params(
            params,
            crate::blosc::typesize(element_size),
            u32::try_from(input.len()).unwrap_or(u32::MAX),
        );
        Some(crate::blosc::encode(&local, input))
    }

    fn hdf5_set_local(
        &self,
        given: &[u32],
        type_size: usize,
        base_size: usize,
        chunk_dims: &[u64],
    ) -> Option<Vec<u32>> {
        Some(crate::blosc::set_local_params(
            given, type_size, base_size, chunk_dims,
        ))
    }

    /// The fourth word: the chunk's bytes, as blosc's `set_local` records them.
    fn recorded_chunk_bytes(&self, params: &[u32]) -> Option<usize> {
        // Missing or 0 records no chunk at all: HDF5's `set_local` always writes it, so
        // only a hand-made file lacks it, and a chunk may then decode to nothing more
        // than the slack (before: each chunk took the 256 MiB limit, 2.1 GB from 120 KB
        // in the reference ncdump's chunk cache).
        Some(params.get(3).map_or(0, |b| *b as usize))
    }

    /// The first four parameters as blosc's set-local callback sets them.
    fn local_params(&self, params: &[u32], element: usize, chunk_bytes: usize) -> Option<Vec<u32>> {
        Some(crate::blosc::local_params(
            params,
            crate::blosc::typesize(element),
            u32::try_from(chunk_bytes).ok()?,
        ))
    }
}

/// Blosc's shuffle modes: the name for scripts and for people.
const SHUFFLE_NAMES: [(&str, &str); 3] = [
    ("none", "no shuffle"),
    ("byte", "byte shuffle"),
    ("bit", "bit shuffle"),
];

/// Blosc: filter version, blosc format version, type size, chunk bytes, level, shuffle
/// mode, compressor; as many as are stored.
fn describe(params: &[u32]) -> Decoded {
    let mut parts = Vec::new();
    let mut fields = Map::new();
    for (index, value) in params.iter().copied().enumerate() {
        let (key, text, json_value) = match index {
            0 => ("filter_version", format!("filter v{value}"), json!(value)),
            1 => ("blosc_version", format!("format v{value}"), json!(value)),
            2 => ("type_size", format!("type size {value}"), json!(value)),
            3 => ("chunk_bytes", format!("chunk {value} B"), json!(value)),
            4 => ("level", format!("level {value}"), json!(value)),
            5 => {
                let mode = SHUFFLE_NAMES.get(value as usize).copied();
                let text = mode.map_or_else(|| format!("shuffle {value}"), |m| m.1.to_string());
                ("shuffle", text, mode.map_or(json!(value), |m| json!(m.0)))
            }
            _ => {
                let name = COMPRESSORS.get(value as usize).copied();
                let text = name.map_or_else(|| format!("compressor {value}"), str::to_string);
                ("compressor", text, name.map_or(json!(value), |n| json!(n)))
            }
        };
        parts.push(text);
        fields.insert(key.to_string(), json_value);
    }
    if parts.is_empty() {
        return Decoded::new("defaults (no parameters)", json!({}));
    }
    Decoded {
        text: parts.join(", "),
        fields,
    }
}

/// The plugin's chunk: one blosc1 frame (see [`crate::blosc`]).
impl Wire for Blosc {
    fn encode(&self, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
        crate::blosc::encode(params, input)
    }

    fn decode(
        &self,
        _params: &[u32],
        input: &[u8],
        max_output: usize,
    ) -> Result<Vec<u8>, WireError> {
        crate::blosc::decode(input, max_output)
    }

    fn encoded_bound(&self, _params: &[u32], len: usize) -> Option<usize> {
        Some(len + crate::blosc::MAX_OVERHEAD)
    }

    fn encode_into(
        &self,
        params: &[u32],
        input: &[u8],
        out: &mut [u8],
    ) -> Option<Result<usize, WireError>> {
        Some(crate::blosc::encode_into(params, input, out))
    }

    fn decoded_size(&self, input: &[u8]) -> Option<usize> {
        crate::blosc::decoded_size(input)
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Option<Result<usize, WireError>> {
        Some(crate::blosc::decode_into(input, out))
    }
}
