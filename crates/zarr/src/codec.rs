//! numcodecs codecs through the codecs crate: its registry (which codecs there are),
//! its forms (`codecs::zarr_codec`, `codecs::nczarr`) and its chunk bytes
//! (`codecs::numcodecs`); the crate's only door to them.

use codecs::numcodecs::Codec;
pub use codecs::zarr_codec::ZarrArray;
use filterspec::known::SHUFFLE;
use filterspec::FilterSpec;
use serde_json::Value;

/// The numcodecs ids whose chunks nctools reads (and writes, but for the lossy
/// fixedscaleoffset, bitround and quantize): those of the registry's implemented codecs,
/// HDF5 filters first.
pub fn available() -> impl Iterator<Item = &'static str> {
    codecs::registry::implemented().map(|c| c.numcodecs_id)
}

/// Whether nctools has the codec `id`, built in or from a plugin pair.
pub fn is_available(id: &str) -> bool {
    codecs::registry::by_numcodecs_id(id).is_some_and(|c| c.implemented)
}

/// The available codecs' ids, for messages (`bz2, zstd, ...`).
pub fn available_list() -> String {
    available().collect::<Vec<_>>().join(", ")
}

/// Whether the HDF5 filter `id` has a codec here.
pub fn filter_available(id: u32) -> bool {
    codecs::registry::by_hdf5_id(id).is_some_and(|c| c.implemented)
}

/// Whether `codec` is served by a plugin pair (an HDF5 filter plugin with its NCZarr codec
/// library), not by a codec built into nctools.
pub fn is_plugin_codec(codec: &Value) -> bool {
    codecs::plugin::by_codec_id(codec_id(codec)).is_some()
}

/// Why a chunk could not be encoded or decoded.
#[derive(Debug)]
pub enum CodecFail {
    /// The codec is not one nctools has.
    Unavailable(String),
    /// The codec failed on these bytes.
    Failed(String),
}

/// A codec's id (`"zlib"`), or `"?"`.
pub fn codec_id(codec: &Value) -> &str {
    codec.get("id").and_then(Value::as_str).unwrap_or("?")
}

/// The HDF5 filter equivalent of a codec, when it has one (a shuffle without its element
/// size, which HDF5 takes from the type; the chunks are decoded with it, see
/// `filters_of`).
pub fn filter_of_codec(codec: &Value) -> Option<FilterSpec> {
    codecs::zarr_codec::filter_of_codec(codec)
        .ok()
        .map(|f| match f.id {
            SHUFFLE => FilterSpec::new(SHUFFLE, []),
            _ => f,
        })
}

/// The numcodecs JSON of an HDF5 filter for elements of `element_size` bytes.
pub fn codec_of_filter(filter: &FilterSpec, element_size: usize) -> Result<Value, String> {
    codecs::zarr_codec::zarr_codec(filter, element_size).map_err(|e| {
        let name = filterspec::known::name_of(filter.id).unwrap_or("unknown");
        format!(
            "filter {} ({name}) has no Zarr codec in nctools ({e}); Zarr stores can use \
             {} (choose one of them with -F, or -F none)",
            filter.id,
            codecs::registry::zarr_filter_names()
        )
    })
}

/// The full path of the variable `name` of the group at `group_path` (`/g/v`).
pub fn var_path(group_path: &[String], name: &str) -> String {
    group_path
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(name))
        .map(|p| format!("/{p}"))
        .collect()
}

/// Checks that the codecs `codecs` can run on the chunks of `array` (szip's pixels per
/// block fit its chunks, its type is one szip takes), before anything is written.
pub fn check_runs(codecs: &[Value], array: &ZarrArray<'_>) -> Result<(), String> {
    for codec in codecs {
        if let Ok(filter) = codecs::zarr_codec::filter_of_codec(codec) {
            if codecs::numcodecs::has_codec(filter.id) {
                codecs::zarr_codec::local_filter(&filter, array).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

/// The HDF5 filters of `codecs`, with the parameters their chunks run with in `array`
/// (szip's words, from the array's type and shape).
/// Refuses `codecs` of the variable `name` of the group at `group_path` when one is a
/// codec only NCZarr has (szip: numcodecs has none), for a pure Zarr or version 3 store.
pub fn refuse_nczarr_only(
    codecs: &[Value],
    group_path: &[String],
    name: &str,
) -> crate::error::Result<()> {
    let only = codecs
        .iter()
        .map(codec_id)
        .find(|id| codecs::registry::by_numcodecs_id(id).is_some_and(|c| c.nczarr_only));
    let Some(id) = only else {
        return Ok(());
    };
    let full = var_path(group_path, name);
    Err(crate::error::ZarrError::NoCodec(format!(
        "variable {full}: the {id} codec is netCDF-C's NCZarr codec, which numcodecs and \
         zarr-python do not have, so nctools writes it only into NCZarr stores (Zarr \
         version 2, #mode=nczarr); write NCZarr, or choose another filter with \
         -F '{full},...' (-F '{full},none' for none)"
    )))
}

/// The HDF5 filters of `codecs` with their parameters for `array` (szip's from its type
/// and shape); a codec nctools lacks is [`CodecFail::Unavailable`].
pub(crate) fn filters_of(
    codecs: &[Value],
    array: &ZarrArray<'_>,
) -> Result<Vec<FilterSpec>, CodecFail> {
    codecs
        .iter()
        .map(|c| match codecs::zarr_codec::filter_of_codec(c) {
            Ok(f) if codecs::numcodecs::has_codec(f.id) => {
                codecs::zarr_codec::local_filter(&f, array)
                    .map_err(|e| CodecFail::Failed(e.to_string()))
            }
            // A codec we have, with a parameter out of its range (shuffle's elementsize 0).
            Err(e @ codecs::nczarr::CodecError::BadValue { .. }) => {
                Err(CodecFail::Failed(format!("{c}: {e}")))
            }
            _ => Err(CodecFail::Unavailable(codec_id(c).to_string())),
        })
        .collect()
}

/// Encodes one chunk of `array` through `codecs` (filters, then the compressor), with the
/// chain built once for the array ([`crate::chain`]).
pub fn encode_chain(
    codecs: &[Value],
    array: &ZarrArray<'_>,
    input: Vec<u8>,
) -> Result<Vec<u8>, CodecFail> {
    if codecs.is_empty() {
        return Ok(input);
    }
    crate::chain::chain(codecs, array)?.encode(input)
}

/// Decodes one chunk of `array` through `codecs` (the compressor first), bounded by
/// `max_output`, with the chain built once for the array ([`crate::chain`]).
pub fn decode_chain(
    codecs: &[Value],
    array: &ZarrArray<'_>,
    input: Vec<u8>,
    max_output: usize,
) -> Result<Vec<u8>, CodecFail> {
    crate::chain::chain(codecs, array)?.decode(input, max_output)
}

/// The codecs of a Zarr version 3 array for the chain `codecs` (numcodecs JSON, filters
/// then compressor), in core codecs wherever the chain has a form in them, so that
/// zarr-python reads the array without an "UnstableSpecificationWarning" and tensorstore
/// reads it at all: shuffle before zlib or zstd becomes `blosc` with that compressor and
/// byte shuffle (its level bounded to blosc's 1 to 9), zlib alone becomes `gzip` at its
/// level, fletcher32 becomes `crc32c` (a checksum for a checksum), and a shuffle that no
/// compressor follows, which saves nothing, is left out. Other codecs (bz2, lz4, szip,
/// delta, ...) have no core form and stay `numcodecs.*`. The chunks are then encoded
/// anew: HDF5's stored bytes are not those of the core codecs.
pub fn v3_core_codecs(codecs: &[Value]) -> Vec<Value> {
    let id = |c: &Value| {
        c.get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let level = |c: &Value, default: i64| c.get("level").and_then(Value::as_i64).unwrap_or(default);
    let mut out = Vec::with_capacity(codecs.len());
    let mut i = 0;
    while let Some(here) = codecs.get(i) {
        i += 1;
        match id(here).as_str() {
            "shuffle" => {
                let next = codecs.get(i);
                let cname = next.map(&id).filter(|n| n == "zlib" || n == "zstd");
                match (next, cname) {
                    (Some(next), Some(cname)) => {
                        out.push(serde_json::json!({
                            "id": "blosc",
                            "cname": cname,
                            "clevel": level(next, 5).clamp(1, 9),
                            "shuffle": 1,
                            "blocksize": 0
                        }));
                        i += 1;
                    }
                    (None, _) => {}
                    _ => out.push(here.clone()),
                }
            }
            "zlib" => out.push(serde_json::json!({"id": "gzip", "level": level(here, 1)})),
            "fletcher32" => out.push(serde_json::json!({"id": "crc32c"})),
            _ => out.push(here.clone()),
        }
    }
    out
}

/// Whether every codec of `codecs` is an HDF5 filter's, so that a chunk's bytes are
/// what those filters would store (a chunk through delta or gzip is not).
pub fn all_filters(codecs: &[Value]) -> bool {
    codecs.iter().all(|c| filter_of_codec(c).is_some())
}

/// The most bytes a chunk of `decoded` bytes takes once through the array codecs of
/// `codecs` that may store values wider than they decode to (delta, fixedscaleoffset and
/// quantize with a wider `astype`); compressors' and checksums' slack is not counted.
pub fn widened(codecs: &[Value], decoded: usize) -> usize {
    codecs
        .iter()
        .filter_map(|c| Codec::from_config(c)?.ok())
        .fold(decoded, |n, codec| {
            if codec.widens() {
                codec.max_encoded_len(n).max(n)
            } else {
                n
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_codec_round_trips() -> Result<(), String> {
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i % 97).to_le_bytes()).collect();
        for codec in [
            json!({"id": "zlib", "level": 4}),
            json!({"id": "bz2", "level": "9"}),
            json!({"id": "zstd", "level": 3}),
            json!({"id": "lz4", "acceleration": 1}),
            json!({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}),
            json!({"id": "shuffle", "elementsize": 4}),
            json!({"id": "fletcher32"}),
        ] {
            let chain = [codec.clone()];
            let enc = encode_chain(&chain, &ZarrArray::of_element(4), data.clone())
                .map_err(|e| format!("{e:?}"))?;
            let dec = decode_chain(&chain, &ZarrArray::of_element(4), enc, data.len())
                .map_err(|e| format!("{e:?}"))?;
            assert!(dec == data, "{codec}");
        }
        Ok(())
    }

    #[test]
    fn codecs_without_filters_mix_with_filters_and_are_listed() -> Result<(), String> {
        for id in codecs::numcodecs::ids() {
            assert!(is_available(id), "{id} missing from available()");
        }
        for codec in codecs::registry::hdf5_codecs().filter(|c| c.implemented) {
            let filter = codec.hdf5_id.unwrap_or_default();
            let json = codec_of_filter(&FilterSpec::new(filter, Vec::new()), 4);
            assert_eq!(
                json.as_ref().map(codec_id),
                Ok(codec.numcodecs_id),
                "filter {filter}"
            );
        }
        let data: Vec<u8> = (0..4000i32)
            .flat_map(|i| (i * 3 - 7).to_le_bytes())
            .collect();
        let chain = [
            json!({"id": "delta", "dtype": "<i4", "astype": "<i4"}),
            json!({"id": "shuffle", "elementsize": 4}),
            json!({"id": "zlib", "level": 4}),
            json!({"id": "crc32c"}),
        ];
        let enc = encode_chain(&chain, &ZarrArray::of_element(4), data.clone())
            .map_err(|e| format!("{e:?}"))?;
        let dec = decode_chain(&chain, &ZarrArray::of_element(4), enc.clone(), data.len())
            .map_err(|e| format!("{e:?}"))?;
        assert!(dec == data);
        assert!(decode_chain(&chain, &ZarrArray::of_element(4), enc, data.len() - 4).is_err());
        let lossy = [json!({"id": "bitround", "keepbits": 4})];
        assert!(matches!(
            encode_chain(&lossy, &ZarrArray::of_element(8), data.clone()),
            Err(CodecFail::Failed(m)) if m.contains("lossy")
        ));
        let wide = [json!({"id": "delta", "dtype": "|i1", "astype": "<i8"})];
        assert_eq!(widened(&wide, 1000), 8000);
        assert_eq!(widened(&chain, 1000), 1000);
        let absurd = [json!({"id": "delta", "dtype": "<c16"})];
        assert!(
            decode_chain(&absurd, &ZarrArray::of_element(4), data.clone(), data.len()).is_err()
        );
        Ok(())
    }
}
