//! Shuffle (HDF5's built-in filter 2): numcodecs' `shuffle`, whose `elementsize` HDF5
//! takes from the type.

use serde_json::{json, Value};

use super::deflate::word;
use super::reader::ConfigReader;
use crate::known::SHUFFLE;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::WireError;

/// Shuffle.
#[derive(Debug)]
pub struct Shuffle;

const ENTRY: CodecEntry = CodecEntry::hdf5(SHUFFLE, "shuffle");

/// The largest `elementsize` of a shuffle codec that nctools takes: numcodecs sets no
/// bound of its own (beyond a chunk's size being a multiple of it), and 2^16 bytes is far
/// past any element of a netCDF type that a Zarr store holds.
pub const MAX_SHUFFLE_ELEMENT_SIZE: i64 = 1 << 16;

/// A shuffle codec's `elementsize`, if it has one, within 1 to
/// [`MAX_SHUFFLE_ELEMENT_SIZE`] (numcodecs would take 0 as "no shuffle"; no writer
/// writes it).
fn element_size(read: &ConfigReader<'_>) -> Result<Option<u32>, CodecError> {
    let size = read.integer(
        "elementsize",
        1..=MAX_SHUFFLE_ELEMENT_SIZE,
        "an integer 1 to 65536",
    )?;
    Ok(size.map(|n| n as u32))
}

impl Codec for Shuffle {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        format!(
            "{{\"id\": \"shuffle\",\"elementsize\": {}}}",
            word(params, 0)
        )
    }

    /// HDF5 sets shuffle's element size from the type: it is checked, not kept.
    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        element_size(read)?;
        Ok(Vec::new())
    }

    /// Zarr chunks are shuffled over numcodecs' `elementsize`, which need not be the
    /// type's: it is kept as the parameter.
    fn store_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(element_size(read)?.into_iter().collect())
    }

    fn store_json(&self, params: &[u32], element_size: usize) -> Value {
        match params.first() {
            Some(size) => json!({"id": "shuffle", "elementsize": size}),
            None => json!({"id": "shuffle", "elementsize": element_size}),
        }
    }

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        match params {
            [] => Some(Decoded::new("element size of the type", json!({}))),
            [size] => Some(Decoded::new(
                format!("element size {size}"),
                json!({ "element_size": size }),
            )),
            _ => None,
        }
    }

    /// Over its parameter (numcodecs' `elementsize`) when it has one, else the type's.
    fn zarr_encode(
        &self,
        params: &[u32],
        element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        Some(Ok(crate::codec::shuffle(input, size(params, element_size))))
    }

    fn zarr_decode(
        &self,
        params: &[u32],
        element_size: usize,
        input: &[u8],
        max_output: usize,
    ) -> Option<Result<Vec<u8>, WireError>> {
        if input.len() > max_output {
            return Some(Err(WireError::TooLarge {
                id: SHUFFLE,
                limit: max_output,
            }));
        }
        Some(Ok(crate::codec::unshuffle(
            input,
            size(params, element_size),
        )))
    }
}

/// The element size a shuffle works on: its parameter when it has one, else the type's.
fn size(params: &[u32], element_size: usize) -> usize {
    params.first().map_or(element_size, |size| *size as usize)
}
