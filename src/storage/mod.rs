//! Where the tools reach storage: the one place that turns a path into a backend of the
//! storage boundary (`store`): our own classic reader (`classic`) for netCDF-3 files,
//! libnetcdf (`ncio`) for netCDF-4 files, our own Zarr backend (`zarr`) for NCZarr and Zarr
//! stores. An input is opened into a [`StoreReader`], an output resolved into an
//! [`Output`]; both carry their backend's [`store::Capabilities`], which the front ends
//! ask instead of the path. The front ends reach the backends only through this module
//! ([`backends`] holds the process-wide facilities they offer). Errors say what is wrong
//! and what to do.

use std::path::Path;

use anyhow::anyhow;
use store::{is_url, ErrorKind, Location, StoreReader};

use input_kind::InputKind;

pub mod backends;
mod hdf5_heaps;
mod hdf5_measure;
pub mod input_kind;
mod kerchunk;
mod output;
pub mod output_check;

pub use hdf5_measure::{measure_with_hdf5, Hdf5Measure};
pub use kerchunk::{kerchunk_references, KerchunkReferences};
pub use output::{resolve_output, Output};

/// How an input is opened.
#[derive(Debug, Clone, Copy, Default)]
pub struct InputOptions {
    /// Read a netCDF file into memory first (nccopy's `-r`).
    pub in_memory: bool,
    /// Read a classic file shorter than its header requires: the missing values read as
    /// fill values, with a warning (`--allow-truncated`).
    pub allow_truncated: bool,
}

/// Opens `path` for reading; the error names the file and the problem.
pub fn open(path: &str) -> anyhow::Result<Box<dyn StoreReader>> {
    open_with(path, InputOptions::default())
}

/// Like [`open`], with `options`.
pub fn open_with(path: &str, options: InputOptions) -> anyhow::Result<Box<dyn StoreReader>> {
    match Location::parse_input(path)? {
        Location::Zarr(location) => open_zarr(&location),
        Location::File(path) => open_netcdf(&path, options),
    }
}

/// The object stores this build reaches, which the Zarr backend is handed: `objstore`'s,
/// or none in a build without the `objstore` feature (a URL is then refused, saying so).
pub(crate) fn remote_stores() -> &'static dyn store::RemoteStores {
    #[cfg(feature = "objstore")]
    {
        &objstore::ObjectStores
    }
    #[cfg(not(feature = "objstore"))]
    {
        &store::NoRemoteStores
    }
}

fn open_zarr(location: &store::ZarrLocation) -> anyhow::Result<Box<dyn StoreReader>> {
    if let Some(root) = location.root.directory().filter(|root| !root.is_dir()) {
        return Err(anyhow!(
            "{}: no such Zarr store (no directory {})",
            location.text,
            root.display()
        ));
    }
    let reader = zarr::ZarrReader::open(location, remote_stores())?;
    for warning in reader.warnings() {
        crate::exit::warn(crate::exit::tool_name(), warning);
    }
    Ok(Box::new(reader))
}

fn open_netcdf(path: &str, options: InputOptions) -> anyhow::Result<Box<dyn StoreReader>> {
    if !is_url(path) {
        let kind = input_kind::identify(Path::new(path));
        if let Some(problem) = input_kind::not_netcdf(path, &kind) {
            if input_kind::for_libnetcdf_to_judge(&kind) {
                // A format nctools does not know (HDF4, a user-defined format): libnetcdf
                // reads it if it can; if not, our words say what the file is.
                return ncio::NcFile::open_with(path, options.in_memory)
                    .map(|file| Box::new(file) as Box<dyn StoreReader>)
                    .map_err(|e| {
                        anyhow!("{problem}; libnetcdf cannot read it either: {}", e.message)
                    });
            }
            return Err(anyhow!(problem));
        }
        if kind == InputKind::Classic && !classic_by_libnetcdf() {
            return open_classic(path, options);
        }
        let hdf5 = kind == InputKind::Hdf5;
        return Ok(Box::new(open_with_libnetcdf(
            path,
            hdf5,
            options.in_memory,
        )?));
    }
    Ok(Box::new(open_with_libnetcdf(
        path,
        false,
        options.in_memory,
    )?))
}

/// The file at `path` (a local HDF5 file when `hdf5_file`, as [`input_kind::identify`]
/// found it) opened with libnetcdf, after the checks every such open has: an HDF5 file's
/// global heaps first (damaged ones make libhdf5 loop forever or fault); its errors in
/// our words. Every reader of netCDF-4 files (ncdump, nccopy, `--kerchunk`) opens them
/// here.
pub(crate) fn open_with_libnetcdf(
    path: &str,
    hdf5_file: bool,
    in_memory: bool,
) -> anyhow::Result<ncio::NcFile> {
    if hdf5_file && heap_check_enabled() {
        hdf5_heaps::check(Path::new(path)).map_err(|defect| {
            anyhow!(
                "{path}: corrupt netCDF-4/HDF5 file ({defect}); libhdf5 cannot read it \
                 safely, so it was not opened"
            )
        })?;
    }
    ncio::NcFile::open_with(path, in_memory).map_err(|e| match e.kind {
        ErrorKind::NotNetcdf => anyhow!("{path}: not a netCDF file (unknown format)"),
        // HDF5 failed, or its metadata is unreadable, on an HDF5 signature: damaged file.
        ErrorKind::LibraryFailed | ErrorKind::Corrupt => anyhow!(
            "{path}: truncated or corrupt netCDF-4/HDF5 file ({})",
            e.message
        ),
        _ => anyhow!("{path}: {}", e.message),
    })
}

/// Whether HDF5 global heaps are checked before libhdf5 opens a file (always, unless
/// `NCTOOLS_HDF5_HEAP_CHECK=0`: the tests use it to let libhdf5 meet a corrupt heap).
fn heap_check_enabled() -> bool {
    settings::hdf5_heap_check()
}

/// Whether classic files go to libnetcdf instead of nctools' reader
/// (`NCTOOLS_CLASSIC_READER=libnetcdf`, for comparing the two: `scripts/bench`).
fn classic_by_libnetcdf() -> bool {
    settings::classic_by_libnetcdf()
}

/// Opens a classic file with nctools' own reader: libnetcdf never parses its header.
fn open_classic(path: &str, options: InputOptions) -> anyhow::Result<Box<dyn StoreReader>> {
    let open = classic::OpenOptions {
        in_memory: options.in_memory,
        fill_missing: options.allow_truncated,
    };
    let file = classic::ClassicFile::open(Path::new(path), open).map_err(|e| match e {
        classic::ClassicError::Truncated { .. } => anyhow!(
            "{path}: {e}; it was probably cut short while being copied or written. \
             Nothing was read. To read what is there anyway, with fill values for the \
             rest, use --allow-truncated"
        ),
        classic::ClassicError::Header { .. } => {
            anyhow!("{path}: damaged netCDF classic file: {e}")
        }
        _ => anyhow!("{path}: {e}"),
    })?;
    if let Some(missing) = file.missing() {
        crate::exit::warn(
            crate::exit::tool_name(),
            format_args!(
                "{path} is truncated: its header needs {} bytes, the file has {} ({} \
                 missing); the values past its end read as fill values",
                missing.expected,
                missing.actual,
                missing.expected - missing.actual
            ),
        );
    }
    Ok(Box::new(file))
}

/// Whether `target` (an input or output as given) is a store behind a network: an object
/// store or an HTTP server, whose reads and writes mostly wait.
pub fn over_network(target: &str) -> bool {
    matches!(
        Location::parse_input(target),
        Ok(Location::Zarr(store::ZarrLocation {
            root: store::StoreRoot::Remote(_),
            ..
        }))
    )
}

/// The capabilities of a netCDF file read or written by libnetcdf.
pub fn netcdf_file_capabilities() -> store::Capabilities {
    ncio::capabilities()
}

/// Sets the default chunk cache of netCDF-4 files opened or created afterwards: `bytes`
/// and `slots` per variable (nccopy's `-h` and `-e`); Zarr stores have no such cache.
pub fn set_default_chunk_cache(bytes: usize, slots: usize) -> Result<(), store::StoreError> {
    ncio::set_default_chunk_cache(bytes, slots)
}

/// Lets netCDF-4 outputs declare the filters `ids` of variables whose stored chunks are
/// copied as they are: for each that HDF5 cannot run (nctools lacks it, no plugin
/// provides it), a placeholder that never runs is registered. Call it after every check
/// of which filters are available, since those then count as available.
pub fn declare_filters_copied_as_stored(ids: &[u32]) {
    for id in ids {
        if !ncio::filter_available(*id) {
            h5filters::register_placeholder_filter(*id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every `.rs` file under `dir`, recursively.
    fn rust_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                rust_files(&path, found)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
        Ok(())
    }

    #[test]
    fn front_ends_reach_the_backends_only_through_storage() -> std::io::Result<()> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let storage = src.join("storage");
        let mut files = Vec::new();
        rust_files(&src, &mut files)?;
        assert!(
            files.len() > 50,
            "{} files under {}",
            files.len(),
            src.display()
        );
        let backends = ["ncio::", "zarr::", "h5filters::", "classic::", "objstore::"];
        let mut leaks = Vec::new();
        for file in files.iter().filter(|f| !f.starts_with(&storage)) {
            let text = std::fs::read_to_string(file)?;
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                // A backend's name as a path's first segment (`zarr::`, not
                // `codecs::nczarr::` or `zarr_codec::`).
                let names = |b: &str| {
                    code.match_indices(b).any(|(at, _)| {
                        !code[..at]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                    })
                };
                let leak = backends.iter().any(|b| names(b)) || line.contains("\"://\"");
                if leak {
                    leaks.push(format!("{}:{}: {line}", file.display(), n + 1));
                }
            }
        }
        assert!(
            leaks.is_empty(),
            "front ends reaching a backend:\n{}",
            leaks.join("\n")
        );
        Ok(())
    }
}
