//! Where the tools reach storage: the one place that turns a path into a backend of the
//! storage boundary (`store`): our own classic reader (`classic`) for netCDF-3 files,
//! libnetcdf (`ncio`) for netCDF-4 files, our own Zarr backend (`zarr`) for NCZarr and Zarr
//! stores. Errors say what is wrong and what to do.

use std::path::Path;

use anyhow::anyhow;
use ncmodel::{AtomicType, Dataset, Format, TypeRef};
use store::{is_url, Location, StoreReader, StoreWriter, NC_ENOTNC};

use crate::input_kind::{self, InputKind};

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

fn open_zarr(location: &store::ZarrLocation) -> anyhow::Result<Box<dyn StoreReader>> {
    if let Some(root) = location.root.directory().filter(|root| !root.is_dir()) {
        return Err(anyhow!(
            "{}: no such Zarr store (no directory {})",
            location.text,
            root.display()
        ));
    }
    let reader = zarr::ZarrReader::open(location)?;
    for warning in reader.warnings() {
        eprintln!("{}: warning: {warning}", crate::exit::tool_name());
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
        if kind == InputKind::Hdf5 && heap_check_enabled() {
            // Damaged global heaps make libhdf5 loop forever or fault: refuse them first.
            crate::hdf5_heaps::check(Path::new(path)).map_err(|defect| {
                anyhow!(
                    "{path}: corrupt netCDF-4/HDF5 file ({defect}); libhdf5 cannot read it \
                     safely, so it was not opened"
                )
            })?;
        }
    }
    let file = ncio::NcFile::open_with(path, options.in_memory).map_err(|e| match e.code {
        NC_ENOTNC => anyhow!("{path}: not a netCDF file (unknown format)"),
        // NC_EHDFERR or NC_ENOTNC4-class failures on an HDF5 signature: damaged file.
        -101 | -107 => anyhow!(
            "{path}: truncated or corrupt netCDF-4/HDF5 file ({})",
            e.message
        ),
        _ => anyhow!("{path}: {}", e.message),
    })?;
    Ok(Box::new(file))
}

/// Whether HDF5 global heaps are checked before libhdf5 opens a file (always, unless
/// `NCTOOLS_HDF5_HEAP_CHECK=0`: the tests use it to let libhdf5 meet a corrupt heap).
fn heap_check_enabled() -> bool {
    std::env::var("NCTOOLS_HDF5_HEAP_CHECK").map_or(true, |v| v != "0")
}

/// Whether classic files go to libnetcdf instead of nctools' reader
/// (`NCTOOLS_CLASSIC_READER=libnetcdf`, for comparing the two: `scripts/bench`).
fn classic_by_libnetcdf() -> bool {
    std::env::var("NCTOOLS_CLASSIC_READER").is_ok_and(|v| v == "libnetcdf")
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
        eprintln!(
            "{}: warning: {path} is truncated: its header needs {} bytes, the file has {} \
             ({} missing); the values past its end read as fill values",
            crate::exit::tool_name(),
            missing.expected,
            missing.actual,
            missing.expected - missing.actual
        );
    }
    Ok(Box::new(file))
}

/// Sets the default chunk cache of netCDF-4 files opened or created afterwards: `bytes`
/// and `slots` per variable (nccopy's `-h` and `-e`); Zarr stores have no such cache.
pub fn set_default_chunk_cache(bytes: usize, slots: usize) -> Result<(), store::StoreError> {
    ncio::set_default_chunk_cache(bytes, slots)
}

/// Creates the output `target` of `format`, written under a temporary name until
/// [`StoreWriter::finish`]. A Zarr target holds the netCDF-4 model whatever `format` is.
pub fn create(
    target: &str,
    format: Format,
    in_memory: bool,
) -> Result<Box<dyn StoreWriter>, store::StoreError> {
    let location = Location::parse_output(target)
        .map_err(|e| store::StoreError::new(-128, e.reason, e.text))?;
    match location {
        Location::Zarr(location) => Ok(Box::new(zarr::ZarrWriter::create(&location, format)?)),
        Location::File(path) => Ok(Box::new(ncio::NcWriter::create_with(
            &path, format, in_memory,
        )?)),
    }
}

/// [`create`] for nccopy: the variables `shards` names are stored in shards, which only
/// a Zarr version 3 target can hold ([`check_shardable`]).
pub fn create_sharded(
    target: &str,
    format: Format,
    in_memory: bool,
    shards: &chunkspec::ShardSpecs,
) -> Result<Box<dyn StoreWriter>, store::StoreError> {
    if !shards.is_set() {
        return create(target, format, in_memory);
    }
    match Location::parse_output(target) {
        Ok(Location::Zarr(location)) => {
            let mut writer = zarr::ZarrWriter::create(&location, format)?;
            writer.set_shards(shards.clone())?;
            Ok(Box::new(writer))
        }
        _ => Err(store::StoreError::new(
            -128,
            zarr::NOT_SHARDABLE.to_string(),
            target.to_string(),
        )),
    }
}

/// Fails unless the output `target` is a Zarr version 3 store, the only kind with shards.
pub fn check_shardable(target: &str) -> anyhow::Result<()> {
    match Location::parse_output(target) {
        Ok(Location::Zarr(z)) if z.version == store::ZarrVersion::V3 => Ok(()),
        _ => anyhow::bail!("--shards: {target}: {}", zarr::NOT_SHARDABLE),
    }
}

/// Whether the input `path` is a Zarr store, read by nctools' own backend.
pub fn is_zarr_input(path: &str) -> bool {
    matches!(Location::parse_input(path), Ok(Location::Zarr(_)))
}

/// Whether the output `target` is a Zarr store (the one place a front end asks).
pub fn is_zarr_output(target: &str) -> bool {
    matches!(Location::parse_output(target), Ok(Location::Zarr(_)))
}

/// The size in bytes of each stored value of `var` (of `dataset`) in a Zarr output, for
/// the filters that depend on it (shuffle): a string variable is stored fixed-length
/// there, its maximum length wide; other types take their own size.
pub fn zarr_element_size(dataset: &Dataset, var: &ncmodel::Var) -> usize {
    if var.type_ref == TypeRef::Atomic(AtomicType::String) {
        zarr::string_width(&dataset.root.atts, &var.atts)
    } else {
        dataset.type_size(var.type_ref)
    }
}

/// Whether the output `target` can be written with the filter `id`: an HDF5 filter for a
/// netCDF file, a Zarr codec of ours for a Zarr store.
pub fn output_filter_available(target: &str, id: u32) -> bool {
    match Location::parse_output(target) {
        Ok(Location::Zarr(location)) => zarr::codec_writable(id, &location),
        _ => ncio::filter_available(id),
    }
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

/// What to do about the filter `id` that cannot be written to `target`, for messages.
pub fn output_filter_remedy(target: &str, id: u32) -> String {
    match Location::parse_output(target) {
        Ok(Location::Zarr(_)) if zarr::codec_available(id) => {
            "its Zarr codec is netCDF-C's NCZarr codec, which numcodecs and zarr-python do \
             not have, so nctools writes it only into NCZarr stores (Zarr version 2, \
             #mode=nczarr); write NCZarr, or choose another filter with -F"
                .to_string()
        }
        Ok(Location::Zarr(_)) => format!(
            "it has no Zarr codec in nctools (Zarr stores take {})",
            codecs::registry::zarr_filter_names()
        ),
        _ => format!("it is not available; {}", ncio::plugin_remedy()),
    }
}

/// The format an output at `target` must have whatever was asked: a Zarr store holds
/// the netCDF-4 model. `None` when the target takes any format.
pub fn implied_format(target: &str) -> Option<Format> {
    match Location::parse_output(target) {
        Ok(Location::Zarr(_)) => Some(Format::Netcdf4),
        _ => None,
    }
}
