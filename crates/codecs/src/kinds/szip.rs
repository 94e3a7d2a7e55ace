//! Szip (HDF5's filter 4, libaec): its forms, netCDF-C's NCZarr `szip` codec (`mask`,
//! `pixels-per-block`), and HDF5's chunks, which nctools encodes and decodes with libaec
//! (HDF5 has szip built in; nctools decodes its chunks on every core). Zarr chunks of
//! szip are not read or written yet: their bits per pixel and pixels per scanline come
//! from the array's type and chunk shape, which a codec's forms do not see.

use std::ffi::c_int;

use serde_json::json;

use super::deflate::word;
use super::reader::{ConfigReader, U32_RANGE};
use crate::ffi::szip::{self as sz, SzParams};
use crate::known::SZIP;
use crate::nczarr::CodecError;
use crate::params::Decoded;
use crate::registry::{Codec, CodecEntry};
use crate::wire::{Wire, WireError};

/// Szip.
#[derive(Debug)]
pub struct Szip;

const ENTRY: CodecEntry = CodecEntry::hdf5(SZIP, "szip").forms_only();

impl Codec for Szip {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    fn wire(&self) -> Option<&dyn Wire> {
        Some(self)
    }

    fn decodes_with(&self, params: &[u32]) -> bool {
        params.len() == 4
    }

    /// HDF5's set-local callback makes the bits per pixel and pixels per scanline from the
    /// type and the chunk's shape, which are not known here: HDF5 encodes szip itself.
    fn local_params(
        &self,
        _params: &[u32],
        _element: usize,
        _chunk_bytes: usize,
    ) -> Option<Vec<u32>> {
        None
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

/// HDF5's chunk: the decoded size (4 bytes, little-endian), then libaec's szip stream;
/// the parameters are HDF5's four words after its set-local callback: option mask,
/// pixels per block, bits per pixel, pixels per scanline.
impl Wire for Szip {
    fn encode(&self, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
        let params = sz_params(params)?;
        let size = u32::try_from(input.len()).map_err(|_| corrupt("a chunk of 4 GiB or more"))?;
        // Room for data that does not compress (libaec's worst case is a few bytes per
        // block over the input).
        let mut out = vec![0u8; 4 + input.len() + input.len() / 8 + 256];
        out[..4].copy_from_slice(&size.to_le_bytes());
        let written =
            sz::compress(params, input, &mut out[4..]).map_err(|status| WireError::Codec {
                id: SZIP,
                message: format!("libaec's szip encoder failed (status {status})"),
            })?;
        out.truncate(4 + written);
        Ok(out)
    }

    fn decode(
        &self,
        params: &[u32],
        input: &[u8],
        max_output: usize,
    ) -> Result<Vec<u8>, WireError> {
        let params = sz_params(params)?;
        let (mut out, stream) = crate::wire::sized_payload(SZIP, input, max_output)?;
        let written =
            sz::decompress(params, stream, &mut out).map_err(|status| WireError::Codec {
                id: SZIP,
                message: format!("libaec's szip decoder failed (status {status})"),
            })?;
        if written != out.len() {
            return Err(corrupt(
                "the chunk decodes to another size than its header says",
            ));
        }
        Ok(out)
    }
}

fn corrupt(what: &'static str) -> WireError {
    WireError::Corrupt { id: SZIP, what }
}

/// libaec's parameters from HDF5's four words; fewer words (a filter as a user gives it,
/// before HDF5's set-local callback) cannot be run.
fn sz_params(params: &[u32]) -> Result<SzParams, WireError> {
    let &[mask, block, bits, scanline] = params else {
        return Err(corrupt(
            "not the four parameters HDF5 stores (mask, pixels per block, bits per pixel, pixels per scanline)",
        ));
    };
    // libaec divides by the block size and trusts the rest: the words come from the file,
    // so they are held to what szip allows before libaec sees them.
    let block_ok = (2..=32).contains(&block) && block % 2 == 0;
    let bits_ok = (1..=32).contains(&bits) || bits == 64;
    let scanline_ok = (1..=block.saturating_mul(4096)).contains(&scanline);
    if !(block_ok && bits_ok && scanline_ok) {
        return Err(corrupt(
            "parameters szip does not allow (pixels per block an even 2 to 32, bits per pixel 1 to 32 or 64)",
        ));
    }
    let word = |w: u32| c_int::try_from(w).map_err(|_| corrupt("a parameter out of range"));
    Ok(SzParams {
        options_mask: word(mask)?,
        pixels_per_block: word(block)?,
        bits_per_pixel: word(bits)?,
        pixels_per_scanline: word(scanline)?,
    })
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
