//! The known-filter table (DECISIONS D3): one table that serves parsing of names,
//! messages, `--list-filters` and inspection.

/// One filter that nctools knows by id and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownFilter {
    /// The HDF5 filter id.
    pub id: u32,
    /// Accepted names, lower case; the first is the canonical one.
    pub names: &'static [&'static str],
    /// A one-line description of what the filter does.
    pub summary: &'static str,
    /// A short description of the filter's parameters, in order.
    pub params: &'static str,
}

impl KnownFilter {
    /// The canonical (first) name of the filter.
    pub fn name(&self) -> &'static str {
        self.names[0]
    }
}

/// Ids from here on are unregistered test ids (the spec: "ids above 32767 can be used
/// for testing without registration").
pub const FIRST_TEST_ID: u32 = 32768;

/// The largest filter id HDF5 accepts (`H5Z_FILTER_MAX`).
pub const MAX_FILTER_ID: u32 = 65535;

/// Deflate (zlib), HDF5's built-in id 1.
pub const DEFLATE: u32 = 1;
/// Shuffle, HDF5's built-in id 2.
pub const SHUFFLE: u32 = 2;
/// Fletcher32 checksum, HDF5's built-in id 3.
pub const FLETCHER32: u32 = 3;
/// Szip, HDF5's id 4.
pub const SZIP: u32 = 4;
/// N-bit, HDF5's built-in id 5 (not implemented here).
pub const NBIT: u32 = 5;
/// Scale-offset, HDF5's built-in id 6 (not implemented here).
pub const SCALEOFFSET: u32 = 6;
/// Bzip2, registered id 307.
pub const BZIP2: u32 = 307;
/// LZF (h5py), registered id 32000.
pub const LZF: u32 = 32000;
/// Blosc, registered id 32001.
pub const BLOSC: u32 = 32001;
/// LZ4, registered id 32004.
pub const LZ4: u32 = 32004;
/// Zstandard, registered id 32015.
pub const ZSTD: u32 = 32015;

const fn entry(
    id: u32,
    names: &'static [&'static str],
    summary: &'static str,
    params: &'static str,
) -> KnownFilter {
    KnownFilter {
        id,
        names,
        summary,
        params,
    }
}

/// Every known filter, in id order.
pub const KNOWN_FILTERS: &[KnownFilter] = &[
    entry(
        DEFLATE,
        &["deflate", "zlib", "zip"],
        "zlib deflate compression (HDF5 built-in)",
        "level 0-9",
    ),
    entry(
        SHUFFLE,
        &["shuffle"],
        "byte shuffle (HDF5 built-in)",
        "element size in bytes (set by HDF5 from the type)",
    ),
    entry(
        FLETCHER32,
        &["fletcher32"],
        "Fletcher-32 checksum (HDF5 built-in)",
        "none",
    ),
    entry(
        SZIP,
        &["szip"],
        "szip (libaec) compression",
        "options mask, pixels per block (HDF5 adds bits per pixel and pixels per scanline)",
    ),
    entry(
        5,
        &["nbit"],
        "N-bit packing (HDF5 built-in)",
        "set by HDF5 from the type",
    ),
    entry(
        6,
        &["scaleoffset"],
        "scale-offset packing (HDF5 built-in)",
        "scale type, scale factor (HDF5 adds the rest)",
    ),
    entry(
        BZIP2,
        &["bzip2", "bz2"],
        "bzip2 lossless compression",
        "block size / level 1-9",
    ),
    entry(
        LZF,
        &["lzf"],
        "LZF lossless compression (h5py)",
        "filter version, LZF version, chunk bytes (set locally)",
    ),
    entry(
        BLOSC,
        &["blosc"],
        "Blosc meta-compressor (PyTables)",
        "filter version, blosc version, type size, chunk bytes, level 0-9, shuffle 0-2, \
         compressor (0 blosclz, 1 lz4, 2 lz4hc, 3 snappy, 4 zlib, 5 zstd)",
    ),
    entry(
        32002,
        &["mafisc"],
        "MAFISC: multidimensional adaptive filtering and LZMA",
        "filter specific",
    ),
    entry(32003, &["snappy"], "Snappy lossless compression", "none"),
    entry(
        LZ4,
        &["lz4"],
        "LZ4 fast lossless compression",
        "block size in bytes (default 1 GiB)",
    ),
    entry(
        32005,
        &["apax"],
        "Samplify APAX numerical encoding",
        "filter specific",
    ),
    entry(
        32006,
        &["cbf"],
        "imgCIF/CBF compressions",
        "filter specific",
    ),
    entry(
        32007,
        &["jpeg-xr"],
        "JPEG-XR image compression",
        "filter specific",
    ),
    entry(
        32008,
        &["bitshuffle"],
        "bit-level shuffle, optionally with LZ4 or zstd",
        "filter version, library version, element size, block size, compression, level",
    ),
    entry(
        32009,
        &["spdp"],
        "SPDP lossless floating-point compression",
        "filter specific",
    ),
    entry(
        32010,
        &["lpc-rice"],
        "LPC-Rice lossless compression",
        "filter specific",
    ),
    entry(
        32011,
        &["ccsds-123"],
        "ESA CCSDS-123 compression",
        "filter specific",
    ),
    entry(
        32012,
        &["jpeg-ls"],
        "CharLS JPEG-LS compression",
        "filter specific",
    ),
    entry(
        32013,
        &["zfp"],
        "ZFP lossy/lossless floating-point compression",
        "mode and mode parameters (see the H5Z-ZFP documentation)",
    ),
    entry(
        32014,
        &["fpzip"],
        "fpzip floating-point compression",
        "filter specific",
    ),
    entry(
        ZSTD,
        &["zstd", "zstandard"],
        "Zstandard compression",
        "level (1-22, negative for fast modes)",
    ),
    entry(
        32016,
        &["b3d"],
        "B3D GPU image compression",
        "filter specific",
    ),
    entry(
        32017,
        &["sz"],
        "SZ error-bounded lossy compression",
        "filter specific",
    ),
    entry(
        32018,
        &["fcidecomp"],
        "EUMETSAT FCIDECOMP (CharLS) compression",
        "filter specific",
    ),
    entry(
        32024,
        &["sz3"],
        "SZ3 error-bounded lossy compression",
        "filter specific",
    ),
    entry(
        32026,
        &["blosc2"],
        "Blosc2 meta-compressor",
        "filter specific",
    ),
    entry(
        32028,
        &["sperr"],
        "SPERR lossy compression",
        "filter specific",
    ),
];

/// The known filter with this id.
pub fn by_id(id: u32) -> Option<&'static KnownFilter> {
    KNOWN_FILTERS.iter().find(|f| f.id == id)
}

/// The known filter with this name (case-insensitive).
pub fn by_name(name: &str) -> Option<&'static KnownFilter> {
    KNOWN_FILTERS
        .iter()
        .find(|f| f.names.iter().any(|n| n.eq_ignore_ascii_case(name)))
}

/// The canonical name of a filter id, or `None` for an unknown id.
pub fn name_of(id: u32) -> Option<&'static str> {
    by_id(id).map(KnownFilter::name)
}

/// The known name closest to `name`, if it is close enough to be a likely typo.
pub fn closest_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    crate::suggest::closest(
        &lower,
        KNOWN_FILTERS.iter().flat_map(|f| f.names.iter().copied()),
    )
}
