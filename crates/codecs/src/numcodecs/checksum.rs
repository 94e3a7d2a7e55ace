//! numcodecs' 32-bit checksums (`crc32`, `crc32c`, `adler32`; Zarr version 3: `crc32c`
//! and `numcodecs.adler32`, `numcodecs.crc32`): the data with its checksum, 4 bytes
//! little-endian, before it (`"location": "start"`) or after it (`"end"`). numcodecs
//! 0.16 puts crc32 and adler32 at the start and crc32c at the end unless told otherwise
//! (observed: `CRC32C().encode(b"abc")` is `616263 b73f4b36`, `Adler32().encode(b"abc")`
//! is `27014d02 616263`, `CRC32().encode(b"abc")` is `c2412435 616263`).

use serde_json::{Map, Value};

use super::config;
use super::error::CodecError;
use super::registry::Chunks;

/// Which checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// zlib's CRC-32 (polynomial 0x04C11DB7).
    Crc32,
    /// CRC-32C (Castagnoli, polynomial 0x1EDC6F41).
    Crc32c,
    /// zlib's Adler-32.
    Adler32,
}

/// A checksum codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checksum32 {
    /// The checksum.
    pub algorithm: Algorithm,
    /// Whether the checksum comes before the data (else after it).
    pub at_start: bool,
}

/// The table of the reflected CRC-32C (Castagnoli; polynomial 0x1EDC6F41, bit-reversed
/// 0x82F63B78). CRC-32 and Adler-32 are zlib's, computed by libdeflate.
const CRC32C_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

fn crc32c(data: &[u8]) -> u32 {
    !data.iter().fold(!0u32, |crc, byte| {
        CRC32C_TABLE[((crc ^ u32::from(*byte)) & 0xff) as usize] ^ (crc >> 8)
    })
}

impl Algorithm {
    /// The numcodecs id.
    pub fn id(self) -> &'static str {
        match self {
            Algorithm::Crc32 => "crc32",
            Algorithm::Crc32c => "crc32c",
            Algorithm::Adler32 => "adler32",
        }
    }

    /// The checksum of `data`.
    pub fn checksum(self, data: &[u8]) -> u32 {
        match self {
            Algorithm::Crc32 => libdeflater::crc32(data),
            Algorithm::Crc32c => crc32c(data),
            Algorithm::Adler32 => libdeflater::adler32(data),
        }
    }
}

impl Checksum32 {
    /// Reads `{"location": "start" | "end"}` (optional) for `algorithm`.
    pub fn from_config(
        algorithm: Algorithm,
        config: &Map<String, Value>,
    ) -> Result<Self, CodecError> {
        let at_start = match config::string(algorithm.id(), config, "location")? {
            None => algorithm != Algorithm::Crc32c,
            Some("start") => true,
            Some("end") => false,
            Some(other) => {
                return Err(CodecError::config(
                    algorithm.id(),
                    format!("\"location\" is {other:?}, not \"start\" or \"end\""),
                ))
            }
        };
        Ok(Self {
            algorithm,
            at_start,
        })
    }

    /// `input` with its checksum.
    pub fn encode(&self, input: &[u8]) -> Vec<u8> {
        let sum = self.algorithm.checksum(input).to_le_bytes();
        let mut out = Vec::with_capacity(input.len() + 4);
        if self.at_start {
            out.extend_from_slice(&sum);
            out.extend_from_slice(input);
        } else {
            out.extend_from_slice(input);
            out.extend_from_slice(&sum);
        }
        out
    }

    /// The data of `input` once its checksum is checked, if at most `max_output` bytes.
    pub fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        let id = self.algorithm.id();
        let len = input
            .len()
            .checked_sub(4)
            .ok_or_else(|| CodecError::corrupt(id, "a chunk shorter than its 4-byte checksum"))?;
        if len > max_output {
            return Err(CodecError::TooLarge {
                codec: id,
                limit: max_output,
            });
        }
        let (stored, data) = if self.at_start {
            let (s, d) = input.split_at(4);
            (s, d)
        } else {
            let (d, s) = input.split_at(len);
            (s, d)
        };
        let mut word = [0u8; 4];
        word.copy_from_slice(stored);
        let stored = u32::from_le_bytes(word);
        let computed = self.algorithm.checksum(data);
        if stored != computed {
            return Err(CodecError::corrupt(
                id,
                format!(
                    "the stored {id} checksum {stored:#010x} is not the data's, {computed:#010x}"
                ),
            ));
        }
        Ok(data.to_vec())
    }
}

impl Chunks for Checksum32 {
    fn id(&self) -> &'static str {
        self.algorithm.id()
    }

    fn encode(&self, input: &[u8]) -> Result<Vec<u8>, CodecError> {
        Ok(Checksum32::encode(self, input))
    }

    fn decode(&self, input: &[u8], max_output: usize) -> Result<Vec<u8>, CodecError> {
        Checksum32::decode(self, input, max_output)
    }

    fn max_encoded_len(&self, decoded: usize) -> usize {
        decoded.saturating_add(4)
    }
}

/// The chunks of `{"id": "crc32", ...}`.
pub fn crc32_chunks(config: &Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(Checksum32::from_config(Algorithm::Crc32, config)?))
}

/// The chunks of `{"id": "crc32c", ...}`.
pub fn crc32c_chunks(config: &Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(Checksum32::from_config(
        Algorithm::Crc32c,
        config,
    )?))
}

/// The chunks of `{"id": "adler32", ...}`.
pub fn adler32_chunks(config: &Map<String, Value>) -> Result<Box<dyn Chunks>, CodecError> {
    Ok(Box::new(Checksum32::from_config(
        Algorithm::Adler32,
        config,
    )?))
}
