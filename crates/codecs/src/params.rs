//! A filter's parameters decoded by meaning (`ncdump --filters`), by each codec of the
//! registry that knows what its parameters mean ([`crate::registry::Codec::describe`]);
//! raw words for the others.

use serde_json::{json, Map, Value};

/// Parameters decoded: a line for people and named fields for scripts.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// For example `level 9` or `element size 4`.
    pub text: String,
    /// The same by name, for example `{"level": 9}`; empty for raw parameters.
    pub fields: Map<String, Value>,
}

impl Decoded {
    /// A description: the text, and the fields of the JSON object `fields`.
    pub fn new(text: impl Into<String>, fields: Value) -> Self {
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
    crate::registry::codec_of_hdf5_id(id)
        .and_then(|codec| codec.describe(params))
        .unwrap_or_else(|| raw(params))
}

/// Parameters without a known meaning, as words.
pub(crate) fn raw(params: &[u32]) -> Decoded {
    if params.is_empty() {
        return Decoded::new("no parameters", json!({}));
    }
    let words: Vec<String> = params.iter().map(u32::to_string).collect();
    Decoded::new(format!("parameters {}", words.join(", ")), json!({}))
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
