//! A filter's parameters decoded by meaning, for the known filters whose parameters have
//! one (deflate, shuffle, fletcher32, szip, bzip2, zstd, blosc, lz4); raw words for the
//! others.

use codecs::blosc::COMPRESSORS as BLOSC_COMPRESSORS;
use filterspec::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, SZIP, ZSTD};
use serde_json::{json, Map, Value};

/// Szip option mask bits (HDF5's `H5_SZIP_*_OPTION_MASK`, libaec's `SZ_*_OPTION_MASK`).
const SZIP_FLAGS: [(u32, &str); 7] = [
    (1, "ALLOW_K13"),
    (2, "CHIP"),
    (4, "EC"),
    (8, "LSB"),
    (16, "MSB"),
    (32, "NN"),
    (128, "RAW"),
];

/// Blosc's shuffle modes: the name for scripts and for people.
const BLOSC_SHUFFLES: [(&str, &str); 3] = [
    ("none", "no shuffle"),
    ("byte", "byte shuffle"),
    ("bit", "bit shuffle"),
];

/// Parameters decoded: a line for people and named fields for scripts.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// For example `level 9` or `element size 4`.
    pub text: String,
    /// The same by name, for example `{"level": 9}`; empty for raw parameters.
    pub fields: Map<String, Value>,
}

impl Decoded {
    fn new(text: impl Into<String>, fields: Value) -> Self {
        let fields = match fields {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Self {
            text: text.into(),
            fields,
        }
    }
}

/// The parameters `params` of filter `id`, decoded by meaning where the filter is known.
pub fn describe_params(id: u32, params: &[u32]) -> Decoded {
    let first = params.first().copied();
    match (id, first) {
        (DEFLATE, Some(level)) if params.len() == 1 => {
            Decoded::new(format!("level {level}"), json!({ "level": level }))
        }
        (SHUFFLE, Some(size)) if params.len() == 1 => Decoded::new(
            format!("element size {size}"),
            json!({ "element_size": size }),
        ),
        (SHUFFLE, None) => Decoded::new("element size of the type", json!({})),
        (FLETCHER32, None) => Decoded::new("checksum, no parameters", json!({})),
        (SZIP, Some(_)) if matches!(params.len(), 2 | 4) => szip(params),
        (BZIP2, Some(level)) if params.len() == 1 => Decoded::new(
            format!("block size {level} (x100 kB)"),
            json!({ "block_size": level }),
        ),
        (ZSTD, Some(level)) if params.len() == 1 => Decoded::new(
            // Negative (fast) levels are stored as their two's-complement bits.
            format!("level {}", level as i32),
            json!({ "level": level as i32 }),
        ),
        (LZ4, None | Some(0)) if params.len() <= 1 => Decoded::new(
            "block size default (1 GiB)",
            json!({ "block_size": Value::Null }),
        ),
        (LZ4, Some(size)) if params.len() == 1 => Decoded::new(
            format!("block size {size} bytes"),
            json!({ "block_size": size }),
        ),
        (BLOSC, _) if params.len() <= 7 => blosc(params),
        _ => raw(params),
    }
}

/// Parameters without a known meaning, as words.
fn raw(params: &[u32]) -> Decoded {
    if params.is_empty() {
        return Decoded::new("no parameters", json!({}));
    }
    let words: Vec<String> = params.iter().map(u32::to_string).collect();
    Decoded::new(format!("parameters {}", words.join(", ")), json!({}))
}

/// Szip: the option mask and pixels per block, and where HDF5 has set them, bits per
/// pixel and pixels per scanline (`H5Z_SZIP_PARM_*` order).
fn szip(params: &[u32]) -> Decoded {
    let mask = params[0];
    let ppb = params[1];
    let flags: Vec<&str> = SZIP_FLAGS
        .iter()
        .filter(|(bit, _)| mask & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    let unknown = mask & !SZIP_FLAGS.iter().fold(0, |all, (bit, _)| all | bit);
    let mut shown = flags.join("|");
    if unknown != 0 {
        if !shown.is_empty() {
            shown.push('|');
        }
        shown.push_str(&format!("{unknown:#x}"));
    }
    if shown.is_empty() {
        shown.push_str("no flags");
    }
    let mut text = format!("mask {mask} ({shown}), {ppb} pixels per block");
    let mut fields = json!({ "mask": mask, "flags": flags, "pixels_per_block": ppb });
    if let [_, _, bpp, pps] = params {
        text.push_str(&format!(
            ", {bpp} bits per pixel, {pps} pixels per scanline"
        ));
        fields["bits_per_pixel"] = json!(bpp);
        fields["pixels_per_scanline"] = json!(pps);
    }
    Decoded::new(text, fields)
}

/// Blosc: filter version, blosc format version, type size, chunk bytes, level, shuffle
/// mode, compressor; as many as are stored.
fn blosc(params: &[u32]) -> Decoded {
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
                let mode = BLOSC_SHUFFLES.get(value as usize).copied();
                let text = mode.map_or_else(|| format!("shuffle {value}"), |m| m.1.to_string());
                ("shuffle", text, mode.map_or(json!(value), |m| json!(m.0)))
            }
            _ => {
                let name = BLOSC_COMPRESSORS.get(value as usize).copied();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_filters_read_by_meaning() {
        assert_eq!(describe_params(1, &[5]).text, "level 5");
        assert_eq!(describe_params(2, &[4]).text, "element size 4");
        assert_eq!(describe_params(3, &[]).text, "checksum, no parameters");
        assert_eq!(describe_params(307, &[9]).text, "block size 9 (x100 kB)");
        assert_eq!(describe_params(32015, &[3]).text, "level 3");
        assert_eq!(describe_params(32015, &[u32::MAX]).text, "level -1");
        assert_eq!(
            describe_params(32004, &[]).text,
            "block size default (1 GiB)"
        );
        assert_eq!(
            describe_params(32004, &[0]).text,
            "block size default (1 GiB)"
        );
        assert_eq!(
            describe_params(32004, &[65536]).text,
            "block size 65536 bytes"
        );
    }

    #[test]
    fn szip_mask_bits_are_named() {
        let two = describe_params(4, &[36, 32]);
        assert_eq!(two.text, "mask 36 (EC|NN), 32 pixels per block");
        let four = describe_params(4, &[141, 32, 32, 48]);
        assert_eq!(
            four.text,
            "mask 141 (ALLOW_K13|EC|LSB|RAW), 32 pixels per block, 32 bits per pixel, \
             48 pixels per scanline"
        );
        assert_eq!(
            four.fields["flags"],
            json!(["ALLOW_K13", "EC", "LSB", "RAW"])
        );
        assert_eq!(
            describe_params(4, &[64, 8]).text,
            "mask 64 (0x40), 8 pixels per block"
        );
    }

    #[test]
    fn blosc_names_shuffle_and_compressor() {
        let d = describe_params(32001, &[2, 2, 4, 800, 5, 1, 1]);
        assert_eq!(
            d.text,
            "filter v2, format v2, type size 4, chunk 800 B, level 5, byte shuffle, lz4"
        );
        assert_eq!(d.fields["compressor"], json!("lz4"));
        assert_eq!(d.fields["shuffle"], json!("byte"));
        assert_eq!(
            describe_params(32001, &[2, 2, 8, 64, 9, 2, 5]).fields["shuffle"],
            json!("bit")
        );
        assert!(describe_params(32001, &[2, 2, 8, 64, 9, 7, 9])
            .text
            .ends_with("shuffle 7, compressor 9"));
    }

    #[test]
    fn unknown_filters_show_raw_words() {
        assert_eq!(describe_params(40000, &[1, 2]).text, "parameters 1, 2");
        assert_eq!(describe_params(40000, &[]).text, "no parameters");
        assert_eq!(describe_params(1, &[1, 2]).text, "parameters 1, 2");
    }
}
