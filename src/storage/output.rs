//! An output resolved once: where it goes, which backend writes it, and what that
//! backend can hold ([`store::Capabilities`]). The front ends plan against the
//! capabilities and create the writer from the same value.

use ncmodel::Format;
use store::{Capabilities, ErrorKind, Location, LocationError, StoreError, StoreWriter};

/// An output target, resolved into its backend.
#[derive(Debug, Clone)]
pub struct Output {
    target: String,
    /// Where it leads; the error of a target whose URL fragment is not supported is
    /// reported when the output is created, in the writer's words.
    location: Result<Location, LocationError>,
    capabilities: Capabilities,
}

/// Resolves the output `target` (a path or URL as given on the command line).
pub fn resolve_output(target: &str) -> Output {
    let location = Location::parse_output(target);
    let capabilities = match &location {
        Ok(Location::Zarr(zarr)) => zarr::capabilities(zarr.flavor, zarr.version),
        _ => ncio::capabilities(),
    };
    Output {
        target: target.to_string(),
        location,
        capabilities,
    }
}

impl Default for Output {
    /// No output named yet (a dry run): a netCDF file's capabilities.
    fn default() -> Self {
        resolve_output("")
    }
}

impl Output {
    /// The target as given.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// What the output's backend can hold and do.
    pub fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// Creates the output with `format`, written under a temporary name (or, in an
    /// object store, with its metadata last) until [`StoreWriter::finish`]. A Zarr target
    /// holds the netCDF-4 model whatever `format` is.
    pub fn create(
        &self,
        format: Format,
        in_memory: bool,
    ) -> Result<Box<dyn StoreWriter>, StoreError> {
        self.create_sharded(format, in_memory, &chunkspec::ShardSpecs::default())
    }

    /// [`Output::create`] for nccopy: the variables `shards` names are stored in shards,
    /// which only a backend with [`Capabilities::shards`] holds
    /// ([`Output::check_shardable`]).
    pub fn create_sharded(
        &self,
        format: Format,
        in_memory: bool,
        shards: &chunkspec::ShardSpecs,
    ) -> Result<Box<dyn StoreWriter>, StoreError> {
        let location = self
            .location
            .clone()
            .map_err(|e| StoreError::new(ErrorKind::Unsupported, e.reason, e.text))?;
        if shards.is_set() && !self.capabilities.shards {
            return Err(StoreError::new(
                ErrorKind::Unsupported,
                zarr::NOT_SHARDABLE.to_string(),
                self.target.clone(),
            ));
        }
        match location {
            Location::Zarr(location) => {
                let mut writer =
                    zarr::ZarrWriter::create(&location, format, super::remote_stores())?;
                if shards.is_set() {
                    writer.set_shards(shards.clone())?;
                }
                Ok(Box::new(writer))
            }
            Location::File(path) => Ok(Box::new(ncio::NcWriter::create_with(
                &path, format, in_memory,
            )?)),
        }
    }

    /// Whether the output is a Zarr store, which templates and region writes make.
    pub fn holds_regions(&self) -> bool {
        matches!(self.location, Ok(Location::Zarr(_)))
    }

    /// Opens the existing Zarr store of the output to write `region` of it: chunks only,
    /// after checking that the dataset defined matches the store's metadata (see
    /// `nccopy --region`). Any other output is refused.
    pub fn open_region(
        &self,
        format: Format,
        region: store::Region,
    ) -> Result<Box<dyn StoreWriter>, StoreError> {
        match &self.location {
            Ok(Location::Zarr(location)) => Ok(Box::new(zarr::ZarrWriter::open_region(
                location,
                format,
                region,
                super::remote_stores(),
            )?)),
            _ => Err(StoreError::new(
                ErrorKind::Unsupported,
                "region writes go into a Zarr store (a directory or an object store)".to_string(),
                self.target.clone(),
            )),
        }
    }

    /// Takes the append lock of the output's Zarr store (`--append`), held until the
    /// value is dropped: one append at a time; region writes take none.
    pub fn lock_for_append(&self) -> Result<Option<zarr::AppendLock>, StoreError> {
        match &self.location {
            Ok(Location::Zarr(location)) => {
                zarr::AppendLock::take(location, super::remote_stores()).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Fails unless the output can hold shards (a Zarr version 3 store).
    pub fn check_shardable(&self) -> anyhow::Result<()> {
        if self.capabilities.shards {
            Ok(())
        } else {
            anyhow::bail!("--shards: {}: {}", self.target, zarr::NOT_SHARDABLE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_resolves_to_the_capabilities_of_its_backend() {
        let file = resolve_output("out.nc");
        assert_eq!(file.capabilities().implied_format, None);
        assert!(!file.capabilities().fixed_width_strings());
        let zarr = resolve_output("out.zarr");
        assert_eq!(zarr.capabilities().implied_format, Some(Format::Netcdf4));
        assert!(zarr.capabilities().chunked_only);
        assert!(!zarr.capabilities().shards);
        assert!(zarr.check_shardable().is_err());
        let v3 = resolve_output("file:///tmp/out.zarr#mode=zarr,v3");
        assert!(v3.capabilities().shards);
        assert!(v3.check_shardable().is_ok());
    }
}
