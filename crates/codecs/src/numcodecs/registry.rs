//! The numcodecs codecs with no HDF5 filter: [`crate::registry`] lists them ([`ids`]),
//! [`Codec::from_config`] reads their JSON, and [`Codec`] encodes and decodes.

use std::fmt;

use serde_json::{Map, Value};

use super::error::CodecError;

/// The numcodecs ids of the codecs here: the registry's codecs that are no HDF5 filter.
pub fn ids() -> impl Iterator<Item = &'static str> {
    crate::registry::numcodecs_only().map(|c| c.numcodecs_id)
}

/// The slack a compressed chunk may have over its data (as in `decode_pipeline`).
pub(crate) const COMPRESSOR_SLACK: usize = 1 << 16;

/// One numcodecs codec with no HDF5 filter, its configuration read: its chunks. Each
/// codec's file implements it; the registry makes it from the codec's JSON
/// ([`crate::registry::Codec::numcodecs_chunks`]).
pub trait Chunks: Send + Sync + fmt::Debug {
    /// The numcodecs id.
    fn id(&self) -> &'static str;

    /// Encodes one chunk; a lossy codec refuses (nctools does not write approximations).
    fn encode(&self, _input: &[u8]) -> Result<Vec<u8>, CodecError> {
        Err(CodecError::DecodeOnly(self.id()))
    }

    /// Decodes one chunk, if it decodes to at most `max_output` bytes (found before more
    /// is allocated).
    fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError>;

    /// The most bytes the encoded form of `decoded` bytes may take: the bound for the
    /// codec decoded before this one.
    fn max_encoded_len(&self, decoded: usize) -> usize;

    /// Whether it may store values wider than they decode to (an array codec with a wider
    /// `astype`), rather than only adding a compressor's or a checksum's slack.
    fn widens(&self) -> bool {
        false
    }
}

/// A numcodecs codec that has no HDF5 filter, with its configuration checked.
#[derive(Debug)]
pub struct Codec(Box<dyn Chunks>);

impl Codec {
    /// The codec of the numcodecs JSON `codec` (`{"id": "gzip", "level": 5}`), `None`
    /// when its id is not one of [`ids`], an error when its configuration is wrong.
    pub fn from_config(codec: &Value) -> Option<Result<Self, CodecError>> {
        let config = codec.as_object()?;
        let id = config.get("id").and_then(Value::as_str)?;
        let chunks = crate::registry::codec_of_numcodecs_id(id)?.numcodecs_chunks(config)?;
        Some(chunks.map(Self))
    }

    /// The numcodecs id.
    pub fn id(&self) -> &'static str {
        self.0.id()
    }

    /// Whether decoding gives back exactly what was encoded (and the codec encodes).
    pub fn is_lossless(&self) -> bool {
        crate::registry::by_numcodecs_id(self.id()).is_some_and(|c| c.encodes)
    }

    /// Encodes one chunk; the lossy codecs refuse.
    pub fn encode(&self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        self.0.encode(input)
    }

    /// Decodes one chunk, if it decodes to at most `max_output` bytes (found before
    /// more is allocated).
    pub fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        self.0.decode(input, max_output)
    }

    /// The most bytes the encoded form of `decoded` bytes may take: the bound for the
    /// codec decoded before this one.
    pub fn max_encoded_len(&self, decoded: usize) -> usize {
        self.0.max_encoded_len(decoded)
    }

    /// Whether it may store values wider than they decode to.
    pub fn widens(&self) -> bool {
        self.0.widens()
    }
}

/// The chunks of a codec made from its JSON, boxed: what
/// [`crate::registry::Codec::numcodecs_chunks`] gives.
pub type MakeChunks = fn(&Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(config: Value) -> Codec {
        match Codec::from_config(&config) {
            Some(Ok(c)) => c,
            other => panic!("{config}: {other:?}"),
        }
    }

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    fn ints(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn f64s(values: &[f64]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn lossless() -> Vec<Value> {
        vec![
            json!({"id": "gzip", "level": 5}),
            json!({"id": "gzip", "level": "1"}),
            json!({"id": "crc32"}),
            json!({"id": "crc32c"}),
            json!({"id": "adler32"}),
            json!({"id": "adler32", "location": "end"}),
            json!({"id": "delta", "dtype": "<i4"}),
            json!({"id": "delta", "dtype": "<i4", "astype": "<i8"}),
            json!({"id": "delta", "dtype": ">i4", "astype": ">i4"}),
        ]
    }

    #[test]
    fn ids_are_the_codecs_read() {
        for id in ids() {
            // Each id is read; the array codecs need their data type.
            let config = json!({"id": id, "dtype": "<f8", "offset": 0, "scale": 1,
                                "keepbits": 3, "digits": 2});
            assert_eq!(codec(config).id(), id);
        }
        assert!(Codec::from_config(&json!({"id": "zlib"})).is_none());
    }

    #[test]
    fn lossless_codecs_round_trip_and_respect_the_bound() -> Result<(), CodecError> {
        let data = ints(&(0..1000).map(|i| (i * 37) % 1001 - 500).collect::<Vec<_>>());
        for config in lossless() {
            let c = codec(config.clone());
            assert!(c.is_lossless());
            let encoded = c.encode(&data)?;
            assert!(encoded.len() <= c.max_encoded_len(data.len()), "{config}");
            assert_eq!(c.decode(&encoded, data.len())?, data, "{config}");
            assert!(
                matches!(
                    c.decode(&encoded, data.len() - 1),
                    Err(CodecError::TooLarge { .. })
                ),
                "{config}"
            );
        }
        Ok(())
    }

    #[test]
    fn damaged_chunks_are_refused() -> Result<(), CodecError> {
        let data = ints(&[1, 2, 3, 4, 5, 6, 7]);
        for config in lossless() {
            let c = codec(config.clone());
            let encoded = c.encode(&data)?;
            if c.id() != "delta" {
                let mut flipped = encoded.clone();
                let last = flipped.len() - 6;
                flipped[last] ^= 0x10;
                assert!(c.decode(&flipped, 1000).is_err(), "{config} flipped");
            }
            let truncated = &encoded[..encoded.len() - 3];
            assert!(c.decode(truncated, 1000).is_err(), "{config} truncated");
        }
        let e = codec(json!({"id": "crc32c"})).decode(b"abc", 10);
        assert!(matches!(e, Err(CodecError::Corrupt { .. })), "{e:?}");
        Ok(())
    }

    #[test]
    fn bytes_match_numcodecs() -> Result<(), CodecError> {
        // numcodecs 0.16.6: CRC32C / Adler32 / CRC32 ().encode(b"abc").
        assert_eq!(
            codec(json!({"id": "crc32c"})).encode(b"abc")?,
            hex("616263b73f4b36")
        );
        assert_eq!(
            codec(json!({"id": "adler32"})).encode(b"abc")?,
            hex("27014d02616263")
        );
        assert_eq!(
            codec(json!({"id": "crc32"})).encode(b"abc")?,
            hex("c2412435616263")
        );
        // GZip(5).encode(numpy.arange(6, dtype="<i4")).
        let gz = hex("1f8b08001363076b00ff6360606060046226206606621620660562003df80c8518000000");
        let gzip = codec(json!({"id": "gzip", "level": 5}));
        assert_eq!(gzip.decode(&gz, 24)?, ints(&[0, 1, 2, 3, 4, 5]));
        // Delta("<i4", "<i2") of [5, -3, 32767, -32768, 0, 100000]: wrapping as numpy.
        let delta = codec(json!({"id": "delta", "dtype": "<i4", "astype": "<i2"}));
        let values = ints(&[5, -3, 32767, -32768, 0, 100000]);
        assert_eq!(delta.encode(&values)?, hex("0500f8ff028001000080a086"));
        let decoded = ints(&[5, -3, -32769, -32768, -65536, -96608]);
        assert_eq!(delta.decode(&hex("0500f8ff028001000080a086"), 24)?, decoded);
        // Delta(">f8", "<f4") of [0.5, 0.25, 1e10], summed in float64.
        let delta = codec(json!({"id": "delta", "dtype": ">f8", "astype": "<f4"}));
        let decoded = delta.decode(&hex("0000003f000080bef9021550"), 24)?;
        assert_eq!(
            decoded,
            hex("3fe00000000000003fd00000000000004202a05f20020000")
        );
        // FixedScaleOffset(offset=0.5, scale=1000, dtype="<f8", astype="<i2").
        let fso = json!({"id": "fixedscaleoffset", "offset": 0.5, "scale": 1000,
                         "dtype": "<f8", "astype": "<i2"});
        let want = hex("5839b4c876bef33f000000000000e0bf0000000000000840");
        assert_eq!(codec(fso).decode(&hex("de0218fcc409"), 24)?, want);
        // The same in float32 arithmetic when astype is float32 (numpy's promotion).
        let fso = json!({"id": "fixedscaleoffset", "offset": 0.5, "scale": 3,
                         "dtype": "<f8", "astype": "<f4"});
        let stored = [1f32, 2.0, 7.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>();
        let want = hex("000000c0aaaaea3f000000c0aaaaf23f000000a0aaaa0640");
        assert_eq!(codec(fso).decode(&stored, 24)?, want);
        let fso = json!({"id": "fixedscaleoffset", "offset": 0.5, "scale": 3,
                         "dtype": "<f4", "astype": "|u1"});
        assert_eq!(
            codec(fso).decode(&[1, 2, 255], 12)?,
            hex("5555553f5555953f0000ab42")
        );
        // Quantize(2, "<f8", "<f4") of [3.14159, 2.71828].
        let q = codec(json!({"id": "quantize", "digits": 2, "dtype": "<f8", "astype": "<f4"}));
        let want = hex("00000000002009400000000000c00540");
        assert_eq!(q.decode(&hex("0000494000002e40"), 16)?, want);
        Ok(())
    }

    #[test]
    fn lossy_codecs_decode_within_the_bound_and_refuse_to_encode() -> Result<(), CodecError> {
        let stored = f64s(&[1.5, -2.25, 3.0]);
        for config in [
            json!({"id": "bitround", "keepbits": 7}),
            json!({"id": "quantize", "digits": 3, "dtype": "<f8"}),
            json!({"id": "fixedscaleoffset", "offset": 0, "scale": 1, "dtype": "<f8"}),
        ] {
            let c = codec(config.clone());
            assert!(!c.is_lossless());
            assert!(matches!(c.encode(&stored), Err(CodecError::DecodeOnly(_))));
            assert_eq!(c.decode(&stored, 24)?, stored, "{config}");
            assert!(c.decode(&stored, 23).is_err(), "{config}");
        }
        // A 1 KB input that would decode to 8 KB is refused before allocating.
        let fso = json!({"id": "fixedscaleoffset", "offset": 0, "scale": 1,
                         "dtype": "<f8", "astype": "|u1"});
        let e = codec(fso).decode(&[7u8; 1024], 1024);
        assert!(
            matches!(e, Err(CodecError::TooLarge { limit: 1024, .. })),
            "{e:?}"
        );
        // A gzip bomb stops at the bound.
        let gzip = codec(json!({"id": "gzip", "level": 9}));
        let bomb = gzip.encode(&vec![0u8; 1 << 20])?;
        assert!(bomb.len() < 2048);
        assert!(matches!(
            gzip.decode(&bomb, 4096),
            Err(CodecError::TooLarge { .. })
        ));
        // Elements cut in the middle.
        let delta = codec(json!({"id": "delta", "dtype": "<i4"}));
        assert!(matches!(
            delta.decode(&[1, 2, 3], 100),
            Err(CodecError::Corrupt { .. })
        ));
        Ok(())
    }

    #[test]
    fn absurd_configurations_are_refused() {
        for config in [
            json!({"id": "gzip", "level": 12}),
            json!({"id": "gzip", "level": "fast"}),
            json!({"id": "crc32c", "location": "middle"}),
            json!({"id": "adler32", "location": 4}),
            json!({"id": "delta"}),
            json!({"id": "delta", "dtype": "|O"}),
            json!({"id": "delta", "dtype": "<i4", "astype": "<f2"}),
            json!({"id": "delta", "dtype": "<U10"}),
            json!({"id": "fixedscaleoffset", "offset": 0, "scale": 0, "dtype": "<f8"}),
            json!({"id": "fixedscaleoffset", "scale": 10, "dtype": "<f8"}),
            json!({"id": "fixedscaleoffset", "offset": 0, "scale": "x", "dtype": "<f8"}),
            json!({"id": "bitround", "keepbits": -1}),
            json!({"id": "bitround", "keepbits": 1e9}),
            json!({"id": "bitround"}),
            json!({"id": "quantize", "digits": 2, "dtype": "<i4"}),
            json!({"id": "quantize", "digits": -2, "dtype": "<f8"}),
        ] {
            assert!(
                matches!(
                    Codec::from_config(&config),
                    Some(Err(CodecError::BadConfig { .. }))
                ),
                "{config}"
            );
        }
    }
}
