//! Where a path leads: a netCDF file (or a URL libnetcdf opens) or a Zarr store. This is
//! the only place that decides it; the tools never ask "is this Zarr" themselves.
//!
//! Accepted Zarr forms:
//! - netCDF-C's URLs: `file://PATH#mode=nczarr,file`, `#mode=zarr,file`,
//!   `#mode=xarray,file`, `#mode=noxarray,file` (the `file` is optional here), and ours,
//!   `#mode=zarr,v3` for Zarr version 3;
//! - for input, a plain directory that holds `.zgroup`, `.zarray`, `.zmetadata` or
//!   `zarr.json`;
//! - for output, a plain path whose name ends in `.zarr` (an NCZarr store, version 2).

use std::path::{Path, PathBuf};

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A file (or URL) for libnetcdf: netCDF-3, netCDF-4/HDF5, DAP.
    File(String),
    /// A Zarr store on the local file system.
    Zarr(ZarrLocation),
}

/// A Zarr store on disk and how to read or write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZarrLocation {
    /// The store's root directory.
    pub root: PathBuf,
    /// The metadata conventions.
    pub flavor: ZarrFlavor,
    /// The Zarr format version.
    pub version: ZarrVersion,
    /// The text the user gave, for messages.
    pub text: String,
}

/// Which metadata conventions a store follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZarrFlavor {
    /// netCDF-C's NCZarr (`mode=nczarr`): `_NCZARR_*` keys carry the netCDF model, with
    /// `_ARRAY_DIMENSIONS` for other Zarr readers. On input, a store without NCZarr keys
    /// is read as [`ZarrFlavor::Xarray`] reads it.
    NcZarr,
    /// Pure Zarr with xarray's `_ARRAY_DIMENSIONS` naming the dimensions (`mode=zarr`,
    /// `mode=xarray`).
    Xarray,
    /// Pure Zarr without dimension names (`mode=noxarray`): each array's dimensions are
    /// anonymous.
    NoXarray,
    /// A plain directory given as input: NCZarr when the store has NCZarr keys, xarray's
    /// names otherwise.
    Detect,
}

/// The Zarr format version of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZarrVersion {
    /// Zarr version 2 (`.zgroup`, `.zarray`, `.zattrs`).
    V2,
    /// Zarr version 3 (`zarr.json`).
    V3,
}

/// A URL's fragment `mode=` words that are not supported here, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text}: {reason}")]
pub struct LocationError {
    /// The path as given.
    pub text: String,
    /// Why it cannot be used.
    pub reason: String,
}

impl Location {
    /// Where the input path `text` leads. A plain directory that is a Zarr store is Zarr.
    pub fn parse_input(text: &str) -> Result<Self, LocationError> {
        if let Some(location) = Self::parse_url(text)? {
            return Ok(location);
        }
        let path = Path::new(text);
        if is_zarr_store(path) {
            let version = if path.join("zarr.json").is_file() {
                ZarrVersion::V3
            } else {
                ZarrVersion::V2
            };
            return Ok(Self::Zarr(ZarrLocation {
                root: path.to_path_buf(),
                flavor: ZarrFlavor::Detect,
                version,
                text: text.to_string(),
            }));
        }
        Ok(Self::File(text.to_string()))
    }

    /// Where the output path `text` leads. A plain path ending in `.zarr` is an NCZarr
    /// store (Zarr version 2).
    pub fn parse_output(text: &str) -> Result<Self, LocationError> {
        if let Some(location) = Self::parse_url(text)? {
            return Ok(location);
        }
        let trimmed = text.trim_end_matches('/');
        if trimmed.ends_with(".zarr") || is_zarr_store(Path::new(text)) {
            return Ok(Self::Zarr(ZarrLocation {
                root: PathBuf::from(trimmed),
                flavor: ZarrFlavor::NcZarr,
                version: ZarrVersion::V2,
                text: text.to_string(),
            }));
        }
        Ok(Self::File(text.to_string()))
    }

    /// Whether this is a Zarr store.
    pub fn is_zarr(&self) -> bool {
        matches!(self, Self::Zarr(_))
    }

    /// A `file://` URL with a Zarr `mode=`; `None` for anything else.
    fn parse_url(text: &str) -> Result<Option<Self>, LocationError> {
        let Some((base, fragment)) = text.split_once('#') else {
            return Ok(None);
        };
        let words = mode_words(fragment);
        let has = |w: &str| words.iter().any(|x| x.eq_ignore_ascii_case(w));
        let flavor = if has("nczarr") {
            ZarrFlavor::NcZarr
        } else if has("noxarray") {
            ZarrFlavor::NoXarray
        } else if has("zarr") || has("xarray") {
            ZarrFlavor::Xarray
        } else {
            return Ok(None);
        };
        let fail = |reason: String| LocationError {
            text: text.to_string(),
            reason,
        };
        for storage in ["s3", "zip", "gs3"] {
            if has(storage) {
                return Err(fail(format!(
                    "Zarr stores in {storage} storage are not supported; nctools reads and \
                     writes Zarr stores in directories (mode=...,file)"
                )));
            }
        }
        let root = if let Some(path) = base.strip_prefix("file://") {
            path
        } else if let Some(path) = base.strip_prefix("file:") {
            path
        } else if base.contains("://") {
            return Err(fail(
                "only file:// URLs can name a Zarr store here; copy the store to a local \
                 directory first"
                    .to_string(),
            ));
        } else {
            base
        };
        if root.is_empty() {
            return Err(fail("the URL names no directory".to_string()));
        }
        let version = if has("v3") {
            ZarrVersion::V3
        } else if has("v2") {
            ZarrVersion::V2
        } else if Path::new(root).join("zarr.json").is_file() {
            ZarrVersion::V3
        } else {
            ZarrVersion::V2
        };
        Ok(Some(Self::Zarr(ZarrLocation {
            root: PathBuf::from(root),
            flavor,
            version,
            text: text.to_string(),
        })))
    }
}

impl ZarrLocation {
    /// Whether the store's metadata is consolidated: written with consolidated metadata
    /// (`.zmetadata`, or the root `zarr.json`'s `consolidated_metadata` in version 3),
    /// and read through it when it has some. On by default; the URL word
    /// `mode=...,noconsolidated` turns it off (netCDF-C's `consolidated`, which asks for
    /// it, is accepted). Between `consolidated` and `noconsolidated` the negative word
    /// wins, whatever their order, as with netCDF-C's `noxarray`.
    pub fn consolidated(&self) -> bool {
        let Some((_, fragment)) = self.text.split_once('#') else {
            return true;
        };
        !mode_words(fragment)
            .iter()
            .any(|w| w.eq_ignore_ascii_case("noconsolidated"))
    }
}

/// The words of a URL fragment's `mode=` parts (`log&mode=zarr,file` gives `zarr`,
/// `file`).
fn mode_words(fragment: &str) -> Vec<&str> {
    fragment
        .split('&')
        .filter_map(|pair| pair.strip_prefix("mode="))
        .flat_map(|modes| modes.split(','))
        .map(str::trim)
        .collect()
}

/// Whether `path` is a directory holding Zarr metadata at its root.
fn is_zarr_store(path: &Path) -> bool {
    path.is_dir()
        && [".zgroup", ".zarray", ".zmetadata", "zarr.json"]
            .iter()
            .any(|name| path.join(name).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zarr(text: &str) -> ZarrLocation {
        match Location::parse_input(text) {
            Ok(Location::Zarr(z)) => z,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn netcdf_c_url_modes() {
        let z = zarr("file:///data/out.zarr#mode=nczarr,file");
        assert_eq!(z.root, PathBuf::from("/data/out.zarr"));
        assert_eq!(z.flavor, ZarrFlavor::NcZarr);
        assert_eq!(z.version, ZarrVersion::V2);
        assert_eq!(zarr("file:///d#mode=zarr,file").flavor, ZarrFlavor::Xarray);
        assert_eq!(zarr("file:///d#mode=xarray").flavor, ZarrFlavor::Xarray);
        assert_eq!(
            zarr("file:///d#mode=noxarray,zarr").flavor,
            ZarrFlavor::NoXarray
        );
        assert_eq!(zarr("file:///d#mode=zarr,v3").version, ZarrVersion::V3);
        assert_eq!(zarr("file:///d#log&mode=nczarr").flavor, ZarrFlavor::NcZarr);
    }

    #[test]
    fn consolidated_unless_the_url_says_noconsolidated() {
        assert!(zarr("file:///d#mode=zarr,file").consolidated());
        assert!(zarr("file:///d#mode=zarr,consolidated").consolidated());
        assert!(!zarr("file:///d#mode=nczarr,noconsolidated").consolidated());
        assert!(!zarr("file:///d#mode=noconsolidated,zarr,consolidated").consolidated());
        assert!(!zarr("file:///d#log&mode=zarr,NoConsolidated").consolidated());
        let Ok(Location::Zarr(z)) = Location::parse_output("out.zarr") else {
            panic!("not zarr");
        };
        assert!(z.consolidated());
    }

    #[test]
    fn other_paths_and_urls_are_files() {
        for text in [
            "x.nc",
            "http://server/dods/x",
            "file:///x.nc",
            "/tmp/x.zarr",
        ] {
            assert_eq!(Location::parse_input(text), Ok(Location::File(text.into())));
        }
    }

    #[test]
    fn unsupported_storage_is_an_error() {
        let Err(error) = Location::parse_input("file:///x.zip#mode=nczarr,zip") else {
            panic!("zip storage accepted");
        };
        assert!(error.reason.contains("zip storage"), "{error}");
        let Err(error) = Location::parse_input("https://h/b#mode=nczarr,s3") else {
            panic!("s3 storage accepted");
        };
        assert!(error.reason.contains("s3"), "{error}");
    }

    #[test]
    fn plain_output_paths_ending_in_zarr_are_nczarr() {
        let Ok(Location::Zarr(z)) = Location::parse_output("out.zarr/") else {
            panic!("not zarr");
        };
        assert_eq!(z.root, PathBuf::from("out.zarr"));
        assert_eq!(z.flavor, ZarrFlavor::NcZarr);
        assert_eq!(
            Location::parse_output("out.nc"),
            Ok(Location::File("out.nc".into()))
        );
    }

    #[test]
    fn plain_directories_with_zarr_metadata_are_zarr_input() -> std::io::Result<()> {
        let dir = std::env::temp_dir().join(format!("store-loc-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("zarr.json"), "{}")?;
        let z = zarr(&dir.to_string_lossy());
        assert_eq!(z.flavor, ZarrFlavor::Detect);
        assert_eq!(z.version, ZarrVersion::V3);
        std::fs::remove_dir_all(&dir)
    }
}
