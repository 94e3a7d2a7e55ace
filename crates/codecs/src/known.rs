//! The known-filter table ([`known_filters::known`]), with what the registry adds to it:
//! the numcodecs codec id of each filter nctools has a codec for.

pub use known_filters::known::*;

/// The NCZarr / numcodecs codec id of the filter `id`, where nctools knows one (from the
/// [`crate::registry`]).
pub fn codec_of(id: u32) -> Option<&'static str> {
    crate::registry::by_hdf5_id(id).map(|c| c.numcodecs_id)
}

/// The known filter with this codec id (exact, as codec ids are case-sensitive JSON).
pub fn by_codec(codec: &str) -> Option<&'static KnownFilter> {
    crate::registry::by_numcodecs_id(codec)
        .and_then(|c| c.hdf5_id)
        .and_then(by_id)
}
