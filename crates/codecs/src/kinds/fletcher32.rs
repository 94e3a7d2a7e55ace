//! Fletcher-32 (HDF5's built-in filter 3): numcodecs' `fletcher32`, no parameter.

use serde_json::{json, Value};

use super::reader::ConfigReader;
use crate::known::FLETCHER32;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::WireError;

/// Fletcher-32.
#[derive(Debug)]
pub struct Fletcher32;

const ENTRY: CodecEntry = CodecEntry::hdf5(FLETCHER32, "fletcher32");

impl Codec for Fletcher32 {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn codecs_text(&self, _params: &[u32]) -> String {
        "{\"id\": \"fletcher32\"}".to_string()
    }

    fn hdf5_params(&self, _read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(Vec::new())
    }

    fn store_json(&self, _params: &[u32], _element_size: usize) -> Value {
        json!({"id": "fletcher32"})
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        params
            .is_empty()
            .then(|| Decoded::new("checksum, no parameters", json!({})))
    }

    /// The checksum appended, little-endian, as HDF5 writes it too.
    fn zarr_encode(
        &self,
        _params: &[u32],
        _element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        let mut out = input.to_vec();
        append(&mut out);
        Some(Ok(out))
    }

    fn zarr_decode(
        &self,
        _params: &[u32],
        _element_size: usize,
        input: &[u8],
        max_output: usize,
    ) -> Option<Result<Vec<u8>, WireError>> {
        Some(strip(input, max_output, ByteOrders::LittleOnly))
    }
}

/// Appends the checksum of `bytes`, little-endian, as HDF5 1.6.3 and later and
/// numcodecs write it.
pub(crate) fn append(bytes: &mut Vec<u8>) {
    let sum = crate::numcodecs::fletcher32(bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
}

/// The byte orders a stored checksum is accepted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByteOrders {
    /// Little-endian only (numcodecs).
    LittleOnly,
    /// As HDF5 accepts it: little-endian, or as HDF5 before 1.6.3 wrote it (the
    /// little-endian bytes `c0 c1 c2 c3` stored as `c1 c0 c3 c2`); not big-endian, which
    /// HDF5 refuses (checked with h5py).
    Either,
}

/// The data of a chunk with its checksum at the end, checked, if it is at most
/// `max_output` bytes.
pub(crate) fn strip(
    input: &[u8],
    max_output: usize,
    orders: ByteOrders,
) -> Result<Vec<u8>, WireError> {
    let split = input.len().checked_sub(4).ok_or(WireError::Corrupt {
        id: FLETCHER32,
        what: "a chunk shorter than its checksum",
    })?;
    let (data, stored) = input.split_at(split);
    if data.len() > max_output {
        return Err(WireError::TooLarge {
            id: FLETCHER32,
            limit: max_output,
        });
    }
    let mut word = [0u8; 4];
    word.copy_from_slice(stored);
    let sum = crate::numcodecs::fletcher32(data);
    let [c0, c1, c2, c3] = sum.to_le_bytes();
    let reversed = u32::from_le_bytes([c1, c0, c3, c2]);
    let stored = u32::from_le_bytes(word);
    let matches = stored == sum || (orders == ByteOrders::Either && stored == reversed);
    if !matches {
        return Err(WireError::Corrupt {
            id: FLETCHER32,
            what: "the fletcher32 checksum does not match the data",
        });
    }
    Ok(data.to_vec())
}
