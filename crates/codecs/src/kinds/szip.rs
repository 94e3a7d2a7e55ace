//! Szip (HDF5's filter 4, libaec): only its forms, netCDF-C's NCZarr `szip` codec
//! (`mask`, `pixels-per-block`); nctools neither encodes nor decodes it yet.

use serde_json::json;

use super::deflate::word;
use super::reader::{ConfigReader, U32_RANGE};
use crate::known::SZIP;
use crate::nczarr::CodecError;
use crate::params::Decoded;
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

    fn describe(&self, params: &[u32]) -> Option<Decoded> {
        matches!(params.len(), 2 | 4).then(|| describe(params))
    }
}

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

/// Szip: the option mask and pixels per block, and where HDF5 has set them, bits per
/// pixel and pixels per scanline (`H5Z_SZIP_PARM_*` order).
fn describe(params: &[u32]) -> Decoded {
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
