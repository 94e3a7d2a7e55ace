//! The registry: every codec nctools has, once, with the facts the rest derives from —
//! which HDF5 filter it is (whose names, summary and parameters are in [`crate::known`]),
//! its numcodecs id, its Zarr version 3 name, whether it is carried into HDF5 in-process,
//! whether its chunk bytes are the same in HDF5 and in Zarr, and whether it encodes.
//!
//! The lists other crates used to keep by hand (the `_Codecs` ids, the codecs a Zarr
//! store can take, the filters HDF5 gets in-process, the filters whose stored chunks a
//! Zarr store can take as they are, the codec names in messages) are functions of
//! [`CODECS`] here.

use crate::known::{self, BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, SZIP, ZSTD};

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
    /// Whether nctools encodes and decodes its chunks (szip: not yet, only its forms).
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
}

const fn hdf5(id: u32, numcodecs_id: &'static str) -> CodecEntry {
    CodecEntry {
        hdf5_id: Some(id),
        numcodecs_id,
        v3_core_name: None,
        implemented: true,
        encodes: true,
        carried_into_hdf5: false,
        passthrough: true,
    }
}

const fn numcodecs(numcodecs_id: &'static str, encodes: bool) -> CodecEntry {
    CodecEntry {
        hdf5_id: None,
        numcodecs_id,
        v3_core_name: None,
        implemented: true,
        encodes,
        carried_into_hdf5: false,
        passthrough: false,
    }
}

impl CodecEntry {
    const fn carried(mut self) -> Self {
        self.carried_into_hdf5 = true;
        self
    }

    const fn core(mut self, name: &'static str) -> Self {
        self.v3_core_name = Some(name);
        self
    }

    const fn not_passthrough(mut self) -> Self {
        self.passthrough = false;
        self
    }

    const fn forms_only(mut self) -> Self {
        self.implemented = false;
        self.encodes = false;
        self.passthrough = false;
        self
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
pub const CODECS: &[CodecEntry] = &[
    hdf5(DEFLATE, "zlib"),
    hdf5(SHUFFLE, "shuffle"),
    hdf5(FLETCHER32, "fletcher32"),
    hdf5(SZIP, "szip").forms_only(),
    hdf5(BZIP2, "bz2").carried(),
    hdf5(BLOSC, "blosc").carried().core("blosc"),
    hdf5(LZ4, "lz4").carried().not_passthrough(),
    hdf5(ZSTD, "zstd").carried().core("zstd"),
    numcodecs("gzip", true).core("gzip"),
    numcodecs("crc32", true),
    numcodecs("crc32c", true).core("crc32c"),
    numcodecs("adler32", true),
    numcodecs("delta", true),
    numcodecs("fixedscaleoffset", false),
    numcodecs("bitround", false),
    numcodecs("quantize", false),
];

/// The codec that is the HDF5 filter `id`.
pub fn by_hdf5_id(id: u32) -> Option<&'static CodecEntry> {
    CODECS.iter().find(|c| c.hdf5_id == Some(id))
}

/// The codec with the numcodecs id `id` (exact: codec ids are case-sensitive JSON).
pub fn by_numcodecs_id(id: &str) -> Option<&'static CodecEntry> {
    CODECS.iter().find(|c| c.numcodecs_id == id)
}

/// The codecs that are HDF5 filters (every one has a `_Codecs` form).
pub fn hdf5_codecs() -> impl Iterator<Item = &'static CodecEntry> {
    CODECS.iter().filter(|c| c.hdf5_id.is_some())
}

/// The numcodecs ids of the codecs that are HDF5 filters, in id order.
pub fn hdf5_numcodecs_ids() -> impl Iterator<Item = &'static str> {
    hdf5_codecs().map(|c| c.numcodecs_id)
}

/// The numcodecs codecs that are no HDF5 filter.
pub fn numcodecs_only() -> impl Iterator<Item = &'static CodecEntry> {
    CODECS.iter().filter(|c| c.hdf5_id.is_none())
}

/// The codecs whose chunks nctools encodes or decodes.
pub fn implemented() -> impl Iterator<Item = &'static CodecEntry> {
    CODECS.iter().filter(|c| c.implemented)
}

/// The HDF5 filter ids nctools registers with HDF5 in-process.
pub fn carried_into_hdf5() -> impl Iterator<Item = u32> {
    CODECS
        .iter()
        .filter(|c| c.carried_into_hdf5)
        .filter_map(|c| c.hdf5_id)
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
            assert_eq!(filter.and_then(|f| f.codec()), Some(codec.numcodecs_id));
            assert_eq!(known::by_codec(codec.numcodecs_id), filter);
        }
    }

    #[test]
    fn ids_and_names_are_unique() {
        for (i, a) in CODECS.iter().enumerate() {
            for b in &CODECS[i + 1..] {
                assert_ne!(a.numcodecs_id, b.numcodecs_id);
                assert!(a.hdf5_id.is_none() || a.hdf5_id != b.hdf5_id);
            }
        }
    }

    #[test]
    fn names_for_people() {
        assert_eq!(carried_names(), "bzip2, blosc, lz4 and zstd");
        assert_eq!(
            zarr_filter_names(),
            "deflate (zlib), shuffle, fletcher32, bzip2 (bz2), blosc, lz4 and zstd"
        );
    }
}
