//! nctools' NCZarr codec library, `libnctools_nczcodecs.so`: the *Codec API* of
//! netCDF-C's filter guide (Appendix E) for the filters nctools carries whose
//! chunks are the same bytes in HDF5 and in Zarr (bzip2, blosc, zstd and lzf; not lz4, see
//! [`exported_filters`]). netCDF-C uses an HDF5 filter plugin in an NCZarr store only when a
//! codec library beside it translates the filter's parameters (HDF5's `cd_values`) to the
//! codec JSON NCZarr writes into `.zarray` (`{"id": "zstd","level": 3}`) and back.
//!
//! The library exports `NCZ_codec_info_defaults`: the null-terminated list of its codec
//! descriptions, which netCDF-C attaches to every HDF5 plugin of those filters that has no
//! codec of its own. The translations are the registry's (`codecs::registry`); this
//! crate only carries them across the C boundary. All its `unsafe` code is in the private
//! module `ffi`; it calls no netCDF-C or HDF5 function through the linker (blosc's
//! working parameters need the variable's type and chunks: those functions are found in
//! the running process with `dlsym`).

#[allow(unsafe_code)]
mod ffi;

use codecs::registry::{self, Codec};
use codecs::FilterSpec;

/// Why a translation failed (netCDF-C is told `NC_EFILTER`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TranslateError {
    /// The HDF5 filter id is none of the library's codecs.
    #[error("filter {0} has no codec in this library")]
    UnknownFilter(u32),
    /// The codec JSON is not a JSON object with the `id` of the codec asked for.
    #[error("codec JSON for \"{expected}\" expected, got {found}")]
    WrongCodec {
        /// The numcodecs id the callback translates.
        expected: &'static str,
        /// What was given instead.
        found: String,
    },
    /// The registry refused the codec's members.
    #[error(transparent)]
    Codec(#[from] codecs::nczarr::CodecError),
}

/// The HDF5 filter ids whose codecs the library exports: those nctools carries into HDF5
/// (the filters of its plugin libraries) whose chunk bytes are the same in an HDF5 file
/// and in a Zarr store. netCDF-C's NCZarr stores the HDF5 filter's output under the codec
/// id, so lz4, framed differently by HDF5's plugin and by numcodecs, is left out: a store
/// written that way would be unreadable to every numcodecs reader.
pub fn exported_filters() -> impl Iterator<Item = u32> {
    registry::carried_into_hdf5().filter(|id| registry::is_passthrough(*id))
}

/// The registry's codec of the HDF5 filter `id`.
fn codec(id: u32) -> Result<&'static dyn Codec, TranslateError> {
    registry::codec_of_hdf5_id(id).ok_or(TranslateError::UnknownFilter(id))
}

/// The numcodecs id of the HDF5 filter `id` (`zstd`, `bz2`, ...).
pub fn codec_id(id: u32) -> Result<&'static str, TranslateError> {
    Ok(codec(id)?.entry().numcodecs_id)
}

/// The HDF5 filter's visible parameters of one codec JSON object (as NCZarr reads it
/// from `.zarray`), which must be the codec of the filter `id`.
pub fn codec_to_params(id: u32, json: &str) -> Result<Vec<u32>, TranslateError> {
    let expected = codec_id(id)?;
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| TranslateError::WrongCodec {
            expected,
            found: format!("invalid JSON ({e})"),
        })?;
    let found = value.get("id").and_then(serde_json::Value::as_str);
    if found != Some(expected) {
        return Err(TranslateError::WrongCodec {
            expected,
            found: found.map_or_else(|| "no \"id\"".to_string(), |f| format!("\"{f}\"")),
        });
    }
    let filters = codecs::nczarr::codecs_to_filters(&format!("[{json}]"))?;
    match filters.as_slice() {
        [filter] if filter.id == id => Ok(filter.params.clone()),
        _ => Err(TranslateError::UnknownFilter(id)),
    }
}

/// The codec JSON (NCZarr's `_Codecs` member) of the HDF5 filter `id` with `params`.
pub fn params_to_codec(id: u32, params: &[u32]) -> Result<String, TranslateError> {
    let text = codecs::nczarr::filters_to_codecs(&[FilterSpec::new(id, params)])?;
    // One filter's list: `[{...}]`; its member is the codec.
    Ok(text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(&text)
        .to_string())
}

/// The parameters the filter `id` works with for a variable of `element_size`-byte values
/// in chunks of `chunk_bytes`: what HDF5's set-local callback would make of the visible
/// `params` (blosc records the type size and the chunk size; the others keep theirs).
pub fn working_params(
    id: u32,
    params: &[u32],
    element_size: usize,
    chunk_bytes: usize,
) -> Result<Vec<u32>, TranslateError> {
    Ok(codec(id)?
        .local_params(params, element_size, chunk_bytes)
        .unwrap_or_else(|| params.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use codecs::known;

    #[test]
    fn the_library_exports_bzip2_blosc_zstd_and_lzf_not_lz4() {
        let mut ids: Vec<u32> = exported_filters().collect();
        ids.sort_unstable();
        let mut expected = vec![known::BZIP2, known::BLOSC, known::ZSTD, known::LZF];
        expected.sort_unstable();
        assert_eq!(ids, expected);
    }

    #[test]
    fn zstd_json_and_params_round_trip() -> Result<(), TranslateError> {
        assert_eq!(codec_id(known::ZSTD)?, "zstd");
        assert_eq!(
            codec_to_params(known::ZSTD, r#"{"id": "zstd", "level": 3}"#)?,
            [3]
        );
        let json = params_to_codec(known::ZSTD, &[7])?;
        assert_eq!(codec_to_params(known::ZSTD, &json)?, [7]);
        Ok(())
    }

    #[test]
    fn a_codec_of_another_filter_is_refused() {
        assert!(matches!(
            codec_to_params(known::ZSTD, r#"{"id": "bz2", "level": 3}"#),
            Err(TranslateError::WrongCodec { .. })
        ));
        assert!(codec_to_params(known::ZSTD, "not json").is_err());
        assert_eq!(codec_id(99).err(), Some(TranslateError::UnknownFilter(99)));
    }

    #[test]
    fn blosc_working_params_carry_type_and_chunk_sizes() -> Result<(), TranslateError> {
        let visible = codec_to_params(
            known::BLOSC,
            r#"{"id": "blosc", "clevel": 5, "cname": "lz4", "shuffle": 1, "blocksize": 0}"#,
        )?;
        let working = working_params(known::BLOSC, &visible, 4, 4000)?;
        assert_eq!(working[2..], [4, 4000, 5, 1, 1]);
        assert_eq!(working_params(known::ZSTD, &[3], 4, 4000)?, [3]);
        Ok(())
    }
}
