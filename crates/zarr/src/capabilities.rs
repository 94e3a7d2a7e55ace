//! What a Zarr store can hold and do: the storage boundary's [`Capabilities`] of this
//! backend, stated here once.

use std::sync::Arc;

use store::{
    Availability, Capabilities, ChunkForm, CodecSupport, MissingChunks, StringForm, ZarrFlavor,
    ZarrVersion,
};

/// The capabilities of a Zarr store of `flavor` and `version`: the netCDF-4 model, every
/// variable chunked, strings fixed-width, Zarr chunk objects whose missing ones read as
/// the store's fill value, shards in version 3, and the codecs of [`ZarrCodecs`].
pub fn capabilities(flavor: ZarrFlavor, version: ZarrVersion) -> Capabilities {
    let mut caps = Capabilities::new(
        "a Zarr store",
        Arc::new(ZarrCodecs {
            nczarr: crate::wmeta::writes_nczarr(flavor, version),
        }),
    );
    caps.implied_format = Some(ncmodel::Format::Netcdf4);
    caps.chunked_only = true;
    caps.strings = StringForm::FixedWidth {
        width: crate::string_width,
    };
    caps.chunks = ChunkForm::Zarr;
    caps.missing_chunks = MissingChunks::StoreFill;
    caps.shards = version == ZarrVersion::V3;
    caps
}

/// The codecs nctools writes into a Zarr store: those of the codec registry with a Zarr
/// form; a codec only NCZarr has (szip) only into NCZarr stores.
#[derive(Debug, Clone, Copy)]
pub struct ZarrCodecs {
    /// Whether the store is NCZarr (Zarr version 2 with netCDF-C's metadata).
    pub nczarr: bool,
}

impl CodecSupport for ZarrCodecs {
    fn codec(&self, id: u32) -> Availability {
        let nczarr_only = codecs::registry::by_hdf5_id(id).is_some_and(|c| c.nczarr_only);
        if crate::codec_available(id) && (self.nczarr || !nczarr_only) {
            return Availability::Available;
        }
        let remedy = if crate::codec_available(id) {
            "its Zarr codec is netCDF-C's NCZarr codec, which numcodecs and zarr-python do \
             not have, so nctools writes it only into NCZarr stores (Zarr version 2, \
             #mode=nczarr); write NCZarr, or choose another filter with -F"
                .to_string()
        } else {
            format!(
                "it has no Zarr codec in nctools (Zarr stores take {})",
                codecs::registry::zarr_filter_names()
            )
        };
        Availability::Missing { remedy }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn szip_goes_into_nczarr_stores_only_and_a_missing_codec_names_the_others() {
        let szip = codecs::known::SZIP;
        let nczarr = capabilities(ZarrFlavor::NcZarr, ZarrVersion::V2);
        let zarr = capabilities(ZarrFlavor::Xarray, ZarrVersion::V2);
        assert!(nczarr.codec(szip).is_available());
        assert!(
            matches!(zarr.codec(szip), Availability::Missing { remedy } if remedy.contains("NCZarr"))
        );
        assert!(zarr.codec(codecs::known::ZSTD).is_available());
        assert!(
            matches!(zarr.codec(60000), Availability::Missing { remedy } if remedy.contains("Zarr stores take"))
        );
        assert!(zarr.shards.eq(&false));
        assert!(capabilities(ZarrFlavor::Xarray, ZarrVersion::V3).shards);
    }
}
