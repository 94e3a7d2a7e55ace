//! The registry: every codec nctools has, once. Each is a [`Codec`], in a file of its
//! own (`crate::kinds`), with its facts ([`CodecEntry`]: which HDF5 filter it is, whose
//! names, summary and parameters are in [`crate::known`]; its numcodecs id; its Zarr
//! version 3 name; whether it is carried into HDF5 in-process, whether its chunk bytes
//! are the same in HDF5 and in Zarr, whether it encodes) and its forms (NCZarr's
//! `_Codecs` text, HDF5 parameters ↔ numcodecs JSON ↔ Zarr version 3).
//!
//! The lists other crates used to keep by hand (the `_Codecs` ids, the codecs a Zarr
//! store can take, the filters HDF5 gets in-process, the filters whose stored chunks a
//! Zarr store can take as they are, the codec names in messages) are functions of
//! [`CODECS`] here. Adding a codec is its file in `kinds/` and one line in [`CODECS`].

use std::fmt;

use serde_json::{json, Map, Value};

use crate::kinds::{self, ConfigReader, NumcodecsOnly};
use crate::known;
use crate::nczarr::CodecError;
use crate::numcodecs;
use crate::params::Decoded;
use crate::wire::{Wire, WireError};
use crate::zarr_codec::ZarrArray;

/// One codec: its facts and its forms. The forms of a codec that is an HDF5 filter
/// start from the filter's parameter words; a numcodecs codec that is none has only its
/// JSON (the defaults).
pub trait Codec: Sync + fmt::Debug {
    /// Its facts.
    fn entry(&self) -> &CodecEntry;

    /// Its member of NCZarr's `_Codecs` text for the HDF5 filter with `params`, exactly as
    /// netCDF-C writes it.
    fn codecs_text(&self, _params: &[u32]) -> String {
        format!("{{\"id\": \"{}\"}}", self.entry().numcodecs_id)
    }

    /// The HDF5 filter's parameters of its numcodecs JSON, as `_Codecs` gives it; an
    /// error for a codec that is no HDF5 filter.
    fn hdf5_params(&self, _read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        Err(CodecError::Untranslatable {
            id: self.entry().numcodecs_id.into(),
        })
    }

    /// The parameters of its numcodecs JSON as a Zarr store declares it, for decoding
    /// the store's chunks with the HDF5 filter's code (the same as [`Codec::hdf5_params`]
    /// but for shuffle, whose element size a store sets).
    fn store_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        self.hdf5_params(read)
    }

    /// Its numcodecs JSON in a Zarr store, for the HDF5 filter with `params` and values of
    /// `element_size` bytes.
    fn store_json(&self, _params: &[u32], _element_size: usize) -> Value {
        json!({"id": self.entry().numcodecs_id})
    }

    /// Turns its numcodecs configuration (the members but `id`) into its Zarr version 3
    /// configuration, for values of `element_size` bytes; returns the version 3 name.
    fn numcodecs_to_v3(
        &self,
        _configuration: &mut Map<String, Value>,
        _element_size: usize,
    ) -> String {
        self.entry().v3_name()
    }

    /// The chunks of a numcodecs codec that is no HDF5 filter, made from its JSON (its
    /// configuration checked); `None` for the others.
    fn numcodecs_chunks(
        &self,
        _config: &Map<String, Value>,
    ) -> Option<Result<Box<dyn numcodecs::Chunks>, numcodecs::CodecError>> {
        None
    }

    /// The parameters its plugin's chunks are encoded with, for the filter's `params`, values
    /// of `element` bytes and chunks of `chunk_bytes`: what HDF5's set-local callback and
    /// the plugin's defaults make of them; `None` when they are not the usual ones (HDF5
    /// then does the work).
    fn local_params(
        &self,
        params: &[u32],
        _element: usize,
        _chunk_bytes: usize,
    ) -> Option<Vec<u32>> {
        Some(params.to_vec())
    }

    /// What HDF5's `set_local` callback of its filter makes of the parameters `given`
    /// for a dataset whose values are `type_size` bytes (`base_size` for the elements of
    /// an array type, else the same) in chunks of `chunk_dims`; `None` for a filter that
    /// has no `set_local` (the parameters stay as given).
    fn hdf5_set_local(
        &self,
        _given: &[u32],
        _type_size: usize,
        _base_size: usize,
        _chunk_dims: &[u64],
    ) -> Option<Vec<u32>> {
        None
    }

    /// The parameters its chunks run with in the Zarr array `array`, from `params` as
    /// [`Codec::store_params`] reads them (szip's words come from the array's type and
    /// shape, as netCDF-C makes them); by default `params` themselves.
    fn zarr_local_params(
        &self,
        params: &[u32],
        _array: &ZarrArray<'_>,
    ) -> Result<Vec<u32>, WireError> {
        Ok(params.to_vec())
    }

    /// The pipelines `nccopy --try-filters` tries with it by default, in filter syntax
    /// (stored order: shuffle before the compressor); none by default.
    fn try_candidates(&self) -> &'static [&'static str] {
        &[]
    }

    /// The size in bytes of a decoded chunk that the filter's `params` record, as its
    /// `set_local` wrote them (blosc's fourth word, LZF's third); `None` for a filter
    /// whose parameters record none. A filter called by HDF5 decodes no chunk beyond it.
    fn recorded_chunk_bytes(&self, _params: &[u32]) -> Option<usize> {
        None
    }

    /// Whether its HDF5 chunks can be decoded with the filter's `params` as a file gives
    /// them (szip needs the four words HDF5 stores; netCDF reports two).
    fn decodes_with(&self, _params: &[u32]) -> bool {
        true
    }

    /// Its chunk format as the standard HDF5 plugin writes it, for a codec nctools
    /// carries into HDF5 (`None` for the others).
    fn wire(&self) -> Option<&dyn Wire> {
        None
    }

    /// Encodes one Zarr chunk (numcodecs' bytes) with the HDF5 filter's `params` (as
    /// [`Codec::store_params`] reads them from a store) for values of `element_size`
    /// bytes; `None` when nctools has no Zarr chunks of it. By default, a codec whose
    /// chunks are the same in HDF5 and Zarr uses its plugin's format.
    fn zarr_encode(
        &self,
        params: &[u32],
        _element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        let wire = self.wire().filter(|_| self.entry().passthrough)?;
        Some(wire.encode(params, input))
    }

    /// Decodes one Zarr chunk, if it decodes to at most `max_output` bytes; `None` when
    /// nctools has no Zarr chunks of it.
    fn zarr_decode(
        &self,
        params: &[u32],
        _element_size: usize,
        input: &[u8],
        max_output: usize,
    ) -> Option<Result<Vec<u8>, WireError>> {
        let wire = self.wire().filter(|_| self.entry().passthrough)?;
        Some(wire.decode(params, input, max_output))
    }

    /// The HDF5 filter's parameters `params` decoded by meaning (`ncdump --filters`), or
    /// `None` when they are not in a form it knows (shown as raw words).
    fn describe(&self, _params: &[u32]) -> Option<Decoded> {
        None
    }

    /// Turns its Zarr version 3 configuration back into its numcodecs members.
    fn v3_to_numcodecs(&self, _configuration: &mut Map<String, Value>) -> Result<(), CodecError> {
        Ok(())
    }
}

/// One codec nctools knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodecEntry {
    /// The HDF5 filter id, for a codec that is an HDF5 filter.
    pub hdf5_id: Option<u32>,
    /// The numcodecs id (Zarr version 2, NCZarr's `_Codecs`).
    pub numcodecs_id: &'static str,
    /// The name of the Zarr version 3 core codec, where the specification has one; the
    /// others are named `numcodecs.ID` in version 3.
    pub v3_core_name: Option<&'static str>,
    /// Whether nctools encodes and decodes its chunks.
    pub implemented: bool,
    /// Whether it encodes (the lossy numcodecs codecs only decode: nctools does not
    /// write their approximations).
    pub encodes: bool,
    /// Whether nctools registers it with HDF5 in-process, so that HDF5 needs no plugin
    /// for it (HDF5's own deflate, shuffle and fletcher32 need none anyway).
    pub carried_into_hdf5: bool,
    /// Whether its chunk bytes are the same in an HDF5 file and in a Zarr store, so that
    /// a stored chunk moves from one to the other as it is (lz4 is framed differently).
    pub passthrough: bool,
    /// The `compression=` name netCDF4-python's `createVariable` gives it, for a
    /// compressor whose one parameter is its `complevel` (`ncgen -l python`).
    pub netcdf4_python: Option<&'static str>,
    /// Whether only netCDF-C's NCZarr has its Zarr codec (numcodecs has none: szip), so
    /// that nctools writes it into NCZarr stores only.
    pub nczarr_only: bool,
}

impl CodecEntry {
    /// The facts of the HDF5 filter `id`, numcodecs' `numcodecs_id`: implemented, lossless,
    /// the same chunk bytes in both.
    pub(crate) const fn hdf5(id: u32, numcodecs_id: &'static str) -> Self {
        Self {
            hdf5_id: Some(id),
            numcodecs_id,
            v3_core_name: None,
            implemented: true,
            encodes: true,
            carried_into_hdf5: false,
            passthrough: true,
            netcdf4_python: None,
            nczarr_only: false,
        }
    }

    /// The facts of a numcodecs codec that is no HDF5 filter (`encodes`: lossless).
    pub(crate) const fn numcodecs(numcodecs_id: &'static str, encodes: bool) -> Self {
        Self {
            hdf5_id: None,
            numcodecs_id,
            v3_core_name: None,
            implemented: true,
            encodes,
            carried_into_hdf5: false,
            passthrough: false,
            netcdf4_python: None,
            nczarr_only: false,
        }
    }

    /// Carried into HDF5 in-process.
    pub(crate) const fn carried(mut self) -> Self {
        self.carried_into_hdf5 = true;
        self
    }

    /// netCDF4-python's `compression=NAME, complevel=LEVEL` for it.
    pub(crate) const fn netcdf4_python(mut self, name: &'static str) -> Self {
        self.netcdf4_python = Some(name);
        self
    }

    /// A Zarr version 3 core codec of this name.
    pub(crate) const fn core(mut self, name: &'static str) -> Self {
        self.v3_core_name = Some(name);
        self
    }

    /// Chunk bytes that differ between HDF5 and Zarr.
    pub(crate) const fn not_passthrough(mut self) -> Self {
        self.passthrough = false;
        self
    }

    /// A Zarr codec only NCZarr has.
    pub(crate) const fn nczarr_only(mut self) -> Self {
        self.nczarr_only = true;
        self
    }

    /// Its Zarr version 3 name: the core codec's, else `numcodecs.ID`.
    pub fn v3_name(&self) -> String {
        self.v3_core_name.map_or_else(
            || format!("numcodecs.{}", self.numcodecs_id),
            str::to_string,
        )
    }

    /// The codec's canonical name: its HDF5 filter's, else its numcodecs id.
    pub fn name(&self) -> &'static str {
        self.hdf5_id
            .and_then(known::name_of)
            .unwrap_or(self.numcodecs_id)
    }
}

/// Every codec nctools knows: the HDF5 filters first, in id order, then the numcodecs
/// codecs that are no HDF5 filter.
pub const CODECS: &[&dyn Codec] = &[
    &kinds::Deflate,
    &kinds::Shuffle,
    &kinds::Fletcher32,
    &kinds::Szip,
    &kinds::Bzip2,
    &kinds::Blosc,
    &kinds::Lz4,
    &kinds::Zstd,
    &kinds::Lzf,
    &NumcodecsOnly::new(
        CodecEntry::numcodecs("gzip", true).core("gzip"),
        numcodecs::gzip_chunks,
    ),
    &NumcodecsOnly::new(
        CodecEntry::numcodecs("crc32", true),
        numcodecs::crc32_chunks,
    ),
    &kinds::Crc32c,
    &NumcodecsOnly::new(
        CodecEntry::numcodecs("adler32", true),
        numcodecs::adler32_chunks,
    ),
    &NumcodecsOnly::new(
        CodecEntry::numcodecs("delta", true),
        numcodecs::delta_chunks,
    ),
    &NumcodecsOnly::new(
        CodecEntry::numcodecs("fixedscaleoffset", false),
        numcodecs::fixed_scale_offset_chunks,
    ),
    &NumcodecsOnly::new(
        CodecEntry::numcodecs("bitround", false),
        numcodecs::bit_round_chunks,
    ),
    &NumcodecsOnly::new(
        CodecEntry::numcodecs("quantize", false),
        numcodecs::quantize_chunks,
    ),
];

/// The codec that guards the index of a Zarr version 3 shard nctools writes (`crc32c`,
/// after `bytes`): zarr-python's default `index_codecs`. It is also the only one an
/// index may have when nctools reads it, being the only one of a fixed size.
pub fn shard_index_checksum() -> &'static CodecEntry {
    &kinds::CRC32C
}

/// The facts of every codec, in [`CODECS`]' order.
pub fn entries() -> impl Iterator<Item = &'static CodecEntry> {
    CODECS.iter().map(|c| c.entry())
}

/// The codec that is the HDF5 filter `id`: a built-in one, else a plugin pair's
/// ([`crate::plugin`]).
pub fn codec_of_hdf5_id(id: u32) -> Option<&'static dyn Codec> {
    CODECS
        .iter()
        .copied()
        .find(|c| c.entry().hdf5_id == Some(id))
        .or_else(|| crate::plugin::by_hdf5_id(id).map(|p| p as &'static dyn Codec))
}

/// The codec with the numcodecs id `id` (exact: codec ids are case-sensitive JSON): a
/// built-in one, else a plugin pair's ([`crate::plugin`]).
pub fn codec_of_numcodecs_id(id: &str) -> Option<&'static dyn Codec> {
    CODECS
        .iter()
        .copied()
        .find(|c| c.entry().numcodecs_id == id)
        .or_else(|| crate::plugin::by_codec_id(id).map(|p| p as &'static dyn Codec))
}

/// The codec that is the HDF5 filter `id`.
pub fn by_hdf5_id(id: u32) -> Option<&'static CodecEntry> {
    codec_of_hdf5_id(id).map(|c| c.entry())
}

/// The codec with the numcodecs id `id` (exact: codec ids are case-sensitive JSON).
pub fn by_numcodecs_id(id: &str) -> Option<&'static CodecEntry> {
    codec_of_numcodecs_id(id).map(|c| c.entry())
}

/// The codecs that are HDF5 filters (every one has a `_Codecs` form).
pub fn hdf5_codecs() -> impl Iterator<Item = &'static CodecEntry> {
    entries().filter(|c| c.hdf5_id.is_some())
}

/// The numcodecs ids of the codecs that are HDF5 filters, in id order.
pub fn hdf5_numcodecs_ids() -> impl Iterator<Item = &'static str> {
    hdf5_codecs().map(|c| c.numcodecs_id)
}

/// The numcodecs codecs that are no HDF5 filter.
pub fn numcodecs_only() -> impl Iterator<Item = &'static CodecEntry> {
    entries().filter(|c| c.hdf5_id.is_none())
}

/// The codecs whose chunks nctools encodes or decodes.
pub fn implemented() -> impl Iterator<Item = &'static CodecEntry> {
    entries().filter(|c| c.implemented)
}

/// The HDF5 filter ids nctools registers with HDF5 in-process.
pub fn carried_into_hdf5() -> impl Iterator<Item = u32> {
    entries()
        .filter(|c| c.carried_into_hdf5)
        .filter_map(|c| c.hdf5_id)
}

/// The pipelines `nccopy --try-filters` tries by default: each codec's
/// ([`Codec::try_candidates`]), in [`CODECS`]' order.
pub fn try_candidates() -> impl Iterator<Item = &'static str> {
    CODECS
        .iter()
        .flat_map(|c| c.try_candidates().iter().copied())
}

/// The codecs nctools registers with HDF5 in-process (and builds plugins of), in
/// [`CODECS`]' order: each has an HDF5 id and a [`Codec::wire`].
pub fn carried_codecs() -> impl Iterator<Item = &'static dyn Codec> {
    CODECS
        .iter()
        .copied()
        .filter(|c| c.entry().carried_into_hdf5 && c.entry().hdf5_id.is_some())
}

/// How many codecs a C interface can tell apart by callback: HDF5 and netCDF-C tell a
/// callback nothing of the filter it runs for, so each filter a library exports needs
/// functions of its own, one set per slot (`by_slot!`), slot `n` for the `n`th filter
/// of the list the library exports.
pub const SLOTS: usize = 16;

/// `Some(f::<T.., N>)` for a slot `N` known at run time, below [`SLOTS`]; `None` for a
/// slot beyond. `by_slot!(slot, filter, A)` is `filter::<A, slot>`.
#[macro_export]
macro_rules! by_slot {
    ($slot:expr, $f:ident $(, $ty:ty)*) => {
        match $slot {
            0 => Some($f::<$($ty,)* 0> as _),
            1 => Some($f::<$($ty,)* 1> as _),
            2 => Some($f::<$($ty,)* 2> as _),
            3 => Some($f::<$($ty,)* 3> as _),
            4 => Some($f::<$($ty,)* 4> as _),
            5 => Some($f::<$($ty,)* 5> as _),
            6 => Some($f::<$($ty,)* 6> as _),
            7 => Some($f::<$($ty,)* 7> as _),
            8 => Some($f::<$($ty,)* 8> as _),
            9 => Some($f::<$($ty,)* 9> as _),
            10 => Some($f::<$($ty,)* 10> as _),
            11 => Some($f::<$($ty,)* 11> as _),
            12 => Some($f::<$($ty,)* 12> as _),
            13 => Some($f::<$($ty,)* 13> as _),
            14 => Some($f::<$($ty,)* 14> as _),
            15 => Some($f::<$($ty,)* 15> as _),
            _ => None,
        }
    };
}

/// The name of a carried codec's HDF5 plugin library, `libnctools_h5NAME.so`: its
/// HDF5 filter's first name (`zstd`, `bzip2`).
pub fn plugin_name(codec: &dyn Codec) -> Option<&'static str> {
    let id = codec.entry().hdf5_id?;
    known::by_id(id).map(known::KnownFilter::name)
}

/// Whether nctools registers the HDF5 filter `id` with HDF5 in-process.
pub fn is_carried_into_hdf5(id: u32) -> bool {
    by_hdf5_id(id).is_some_and(|c| c.carried_into_hdf5)
}

/// Whether the chunks of the HDF5 filter `id` are the same bytes in a Zarr store.
pub fn is_passthrough(id: u32) -> bool {
    by_hdf5_id(id).is_some_and(|c| c.passthrough)
}

/// The HDF5 filters a Zarr store can take (nctools has their codec), by their names for
/// people: `bzip2, zstd, ..., deflate (zlib), shuffle and fletcher32`.
pub fn zarr_filter_names() -> String {
    let names: Vec<String> = hdf5_codecs()
        .filter(|c| c.implemented)
        .map(|c| match c.name() {
            name if name == c.numcodecs_id => name.to_string(),
            name => format!("{name} ({})", c.numcodecs_id),
        })
        .collect();
    and_list(&names)
}

/// The codecs carried into HDF5, by name: `bzip2, blosc, lz4 and zstd`.
pub fn carried_names() -> String {
    let names: Vec<String> = carried_into_hdf5()
        .filter_map(known::name_of)
        .map(str::to_string)
        .collect();
    and_list(&names)
}

/// `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hdf5_codec_is_a_known_filter() {
        for codec in hdf5_codecs() {
            let id = codec.hdf5_id.unwrap_or_default();
            let filter = known::by_id(id);
            assert_eq!(known::codec_of(id), Some(codec.numcodecs_id));
            assert_eq!(known::by_codec(codec.numcodecs_id), filter);
        }
    }

    #[test]
    fn ids_and_names_are_unique() {
        let all: Vec<&CodecEntry> = entries().collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.numcodecs_id, b.numcodecs_id);
                assert!(a.hdf5_id.is_none() || a.hdf5_id != b.hdf5_id);
            }
        }
    }

    #[test]
    fn names_for_people() {
        assert_eq!(carried_names(), "bzip2, blosc, lz4, zstd and lzf");
        assert_eq!(
            zarr_filter_names(),
            "deflate (zlib), shuffle, fletcher32, szip, bzip2 (bz2), blosc, lz4, zstd and lzf (imagecodecs_lzf)"
        );
    }
}
