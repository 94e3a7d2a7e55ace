//! Szip (HDF5's filter 4, libaec): its forms, netCDF-C's NCZarr `szip` codec (`mask`,
//! `pixels-per-block`), and its chunks, which nctools encodes and decodes with libaec on
//! every core. Szip runs with four words: the option mask and pixels per block a user
//! gives, and the bits per pixel and pixels per scanline that come from the type and the
//! chunk's shape. HDF5's set-local step makes them from the chunk's fastest dimension
//! ([`hdf5_words`]); netCDF-C's NCZarr makes them from the variable's last dimension
//! ([`Codec::zarr_local_params`]).
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
use crate::zarr_codec::ZarrArray;

/// Szip.
#[derive(Debug)]
pub struct Szip;

/// Its HDF5 chunks and its NCZarr chunks have the same framing, but their words differ
/// where the chunk's fastest dimension is not the variable's last one: not passed
/// through. Its Zarr codec is netCDF-C's; numcodecs has none.
const ENTRY: CodecEntry = CodecEntry::hdf5(SZIP, "szip")
    .not_passthrough()
    .nczarr_only();

/// Option mask bits (HDF5's `H5_SZIP_*_OPTION_MASK`, libaec's `SZ_*_OPTION_MASK`).
const ALLOW_K13: u32 = 1;
const CHIP: u32 = 2;
const EC: u32 = 4;
const LSB: u32 = 8;
const MSB: u32 = 16;
const NN: u32 = 32;
const RAW: u32 = 128;

/// At most this many blocks per scanline (`SZ_MAX_BLOCKS_PER_SCANLINE`).
const MAX_BLOCKS_PER_SCANLINE: u64 = 128;
/// At most this many pixels per scanline (`SZ_MAX_PIXELS_PER_SCANLINE`).
const MAX_PIXELS_PER_SCANLINE: u64 = 4096;

/// The four words szip runs with, as HDF5 stores them (`H5Pset_szip`, then its set-local
/// step), from the two a user gives (`user`: option mask, pixels per block; the four
/// stored words are taken as the two they start with), values of `element` bytes in the
/// byte order `big_endian`, a scanline of `scanline` values (HDF5: the chunk's fastest
/// dimension; NCZarr: the variable's last dimension) and chunks of `chunk_values`
/// values. `None` where HDF5 refuses szip: pixels per block not an even 2 to 32, values
/// wider than 4 bytes but for 8, or a chunk of fewer values than a block.
pub fn hdf5_words(
    user: &[u32],
    element: usize,
    big_endian: bool,
    scanline: usize,
    chunk_values: usize,
) -> Option<Vec<u32>> {
    let (&mask, &block) = (user.first()?, user.get(1)?);
    if !(2..=32).contains(&block) || block % 2 != 0 {
        return None;
    }
    let bits = match element {
        1..=3 => element * 8,
        4 => 32,
        8 => 64,
        _ => return None,
    };
    let block_len = u64::from(block);
    let (scanline, points) = (scanline as u64, chunk_values as u64);
    let longest = block_len * MAX_BLOCKS_PER_SCANLINE;
    let scanline = if scanline < block_len {
        if points < block_len {
            return None;
        }
        longest.min(points)
    } else if scanline <= MAX_PIXELS_PER_SCANLINE {
        longest.min(scanline)
    } else {
        longest
    };
    let order = if big_endian { MSB } else { LSB };
    let mask = ((mask & !CHIP) | ALLOW_K13 | RAW) & !(LSB | MSB) | order;
    Some(vec![
        mask,
        block,
        u32::try_from(bits).ok()?,
        u32::try_from(scanline).ok()?,
    ])
}

impl Codec for Szip {
    fn entry(&self) -> &CodecEntry {
        &ENTRY
    }

    /// Entropy coding (EC, mask 4) and nearest-neighbour preprocessing (NN, mask 32),
    /// 32 pixels per block (integer and floating-point variables only).
    fn try_candidates(&self) -> &'static [&'static str] {
        &["szip,4,32", "szip,32,32"]
    }

    fn wire(&self) -> Option<&dyn Wire> {
        Some(self)
    }

    fn decodes_with(&self, params: &[u32]) -> bool {
        params.len() == 4
    }

    /// The four words a variable stores are used as they are (nctools reads them back
    /// from the variable it writes); from the two a user gives, HDF5's words for a
    /// one-dimensional chunk of values in the machine's byte order (what `--try-filters`
    /// measures with).
    fn local_params(&self, params: &[u32], element: usize, chunk_bytes: usize) -> Option<Vec<u32>> {
        match params.len() {
            4 => sz_params(params).is_ok().then(|| params.to_vec()),
            2 => {
                let values = chunk_bytes / element.max(1);
                let big_endian = cfg!(target_endian = "big");
                hdf5_words(params, element, big_endian, values, values)
            }
            _ => None,
        }
    }

    /// netCDF-C's words for an NCZarr array: the mask and pixels per block of the codec,
    /// bits per pixel from the type, and the scanline from the array's last dimension
    /// (not the chunk's, as HDF5 does), bounded by the values of a chunk.
    fn zarr_local_params(
        &self,
        params: &[u32],
        array: &ZarrArray<'_>,
    ) -> Result<Vec<u32>, WireError> {
        let scanline = array.shape.last().copied().unwrap_or(1);
        let chunk_values = array.chunks.iter().product::<usize>();
        hdf5_words(
            params,
            array.element_size,
            array.big_endian,
            scanline,
            chunk_values,
        )
        .ok_or_else(|| WireError::Codec {
            id: SZIP,
            message: format!(
                "szip cannot run with pixels per block {} on values of {} bytes in chunks of \
                 {chunk_values} values (pixels per block an even 2 to 32, at most the values \
                 of a chunk; values of 1 to 4 or 8 bytes)",
                word(params, 1),
                array.element_size
            ),
        })
    }

    /// An NCZarr chunk: HDF5's framing, with the words [`Codec::zarr_local_params`] made;
    /// a chunk that does not compress is stored longer (HDF5 would skip the filter).
    fn zarr_encode(
        &self,
        params: &[u32],
        _element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        Some(
            encode_chunk(params, input, input.len() + input.len() / 8 + 256)
                .and_then(|chunk| chunk.ok_or_else(|| corrupt("a chunk szip could not encode"))),
        )
    }

    fn zarr_decode(
        &self,
        params: &[u32],
        _element_size: usize,
        input: &[u8],
        max_output: usize,
    ) -> Option<Result<Vec<u8>, WireError>> {
        Some(self.decode(params, input, max_output))
    }

    fn store_json(&self, params: &[u32], _element_size: usize) -> serde_json::Value {
        json!({"id": "szip", "mask": word(params, 0), "pixels-per-block": word(params, 1)})
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

/// HDF5's chunk of `input`: the decoded size (4 bytes, little-endian), then libaec's
/// szip stream of at most `room` bytes, with HDF5's four words (option mask, pixels per
/// block, bits per pixel, pixels per scanline); `None` when the stream does not fit.
fn encode_chunk(params: &[u32], input: &[u8], room: usize) -> Result<Option<Vec<u8>>, WireError> {
    let params = sz_params(params)?;
    let size = u32::try_from(input.len()).map_err(|_| corrupt("a chunk of 4 GiB or more"))?;
    let mut out = vec![0u8; 4 + room];
    out[..4].copy_from_slice(&size.to_le_bytes());
    match sz::compress(params, input, &mut out[4..]) {
        Ok(written) => {
            out.truncate(4 + written);
            Ok(Some(out))
        }
        Err(sz::OUTPUT_FULL) => Ok(None),
        Err(status) => Err(WireError::Codec {
            id: SZIP,
            message: format!("libaec's szip encoder failed (status {status})"),
        }),
    }
}

/// HDF5's szip chunk of `input`, or `None` where HDF5's filter fails and, being optional
/// as netCDF-C defines it, is skipped for the chunk: its stream would be longer than the
/// data (HDF5 gives libaec no more room than that).
pub(crate) fn encode_hdf5_chunk(
    params: &[u32],
    input: &[u8],
) -> Result<Option<Vec<u8>>, WireError> {
    encode_chunk(params, input, input.len())
}

/// HDF5's chunk: the decoded size (4 bytes, little-endian), then libaec's szip stream;
/// the parameters are HDF5's four words after its set-local callback: option mask,
/// pixels per block, bits per pixel, pixels per scanline.
impl Wire for Szip {
    /// HDF5's chunk; one that does not compress fails, as HDF5's filter does.
    fn encode(&self, params: &[u32], input: &[u8]) -> Result<Vec<u8>, WireError> {
        encode_hdf5_chunk(params, input)?.ok_or_else(|| WireError::Codec {
            id: SZIP,
            message: "the chunk does not compress: szip's stream would be longer than the data"
                .into(),
        })
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

/// The option mask bits by name.
const SZIP_FLAGS: [(u32, &str); 7] = [
    (ALLOW_K13, "ALLOW_K13"),
    (CHIP, "CHIP"),
    (EC, "EC"),
    (LSB, "LSB"),
    (MSB, "MSB"),
    (NN, "NN"),
    (RAW, "RAW"),
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
