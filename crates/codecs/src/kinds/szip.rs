//! Szip (HDF5's filter 4, libaec): only its forms, netCDF-C's NCZarr `szip` codec
//! (`mask`, `pixels-per-block`); nctools neither encodes nor decodes it yet.

use super::deflate::word;
use super::reader::{ConfigReader, U32_RANGE};
use crate::known::SZIP;
use crate::nczarr::CodecError;
use crate::registry::{Codec, CodecEntry};

/// Szip.
#[derive(Debug)]
pub struct Szip;

const ENTRY: CodecEntry = CodecEntry::hdf5(SZIP, "szip").forms_only();

impl Codec for Szip {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        format!(
            "{{\"id\": \"szip\",\"mask\": {},\"pixels-per-block\": {}}}",
            word(params, 0),
            word(params, 1)
        )
    }

    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Ok(vec![
            read.required("mask", U32_RANGE, "an unsigned integer")?,
            read.required("pixels-per-block", 2..=32, "an even integer 2 to 32")?,
        ])
    }
}
