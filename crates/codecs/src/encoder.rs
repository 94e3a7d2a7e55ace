//! A filter pipeline, in HDF5's stored order, applied to whole chunks: what HDF5 would
//! write for them. Only pipelines made entirely of filters implemented here (shuffle,
//! deflate, fletcher32, szip with the four words HDF5 stores, and the built-ins: bzip2,
//! blosc, lz4, zstd) are encoded; for any other, [`ChunkEncoder::new`] answers `None` and
//! HDF5 must do the work.

use std::borrow::Cow;

use crate::known::{DEFLATE, FLETCHER32, SHUFFLE, SZIP};
use crate::FilterSpec;

use crate::codec;
use crate::kinds::fletcher32;
use crate::wire;

/// A chunk could not be encoded.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// Deflate failed.
    #[error("encoding a chunk with deflate: {0}")]
    Deflate(#[source] std::io::Error),
    /// A built-in filter failed.
    #[error("encoding a chunk: {0}")]
    Builtin(#[from] wire::WireError),
    /// An optional filter was skipped on the chunk, which [`ChunkEncoder::encode`]
    /// cannot say ([`ChunkEncoder::encode_masked`] can).
    #[error("encoding a chunk: szip could not shrink it, so HDF5 would store it without szip")]
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Shuffle(usize),
    Deflate(u32),
    /// HDF5's Fletcher-32: the checksum appended, little-endian, as HDF5 1.6.3 and later
    /// write it.
    Fletcher32,
    /// A built-in filter of [`wire`] with its parameters (after `set_local`).
    Builtin(u32, Vec<u32>),
    /// Szip with HDF5's four words: optional in netCDF-4 files, so a chunk it cannot
    /// shrink is stored without it (its bit set in the chunk's filter mask), as HDF5 does.
    Szip(Vec<u32>),
}

/// Encodes chunks through a pipeline of filters implemented here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkEncoder {
    steps: Vec<Step>,
}

impl ChunkEncoder {
    /// The encoder of `filters` (in stored order) for elements of `element` bytes and
    /// chunks of `chunk_bytes`, or `None` when a filter is not implemented here or its
    /// parameters are not the usual ones.
    /// The built-in filters are used only while they are turned on
    /// ([`crate::builtins_enabled`]): otherwise the plugins HDF5 finds do the work.
    pub fn new(filters: &[FilterSpec], element: usize, chunk_bytes: usize) -> Option<Self> {
        let builtins = crate::builtins_enabled();
        let steps = filters
            .iter()
            .map(|f| match (f.id, f.params.as_slice()) {
                (SHUFFLE, []) => Some(Step::Shuffle(element)),
                (SHUFFLE, [size]) => Some(Step::Shuffle(*size as usize)),
                (DEFLATE, [level]) if *level <= 9 => Some(Step::Deflate(*level)),
                (FLETCHER32, []) => Some(Step::Fletcher32),
                // Szip, which HDF5 has, is encoded here whether the built-ins are on or not.
                (SZIP, params) => {
                    let codec = crate::registry::codec_of_hdf5_id(SZIP)?;
                    Some(Step::Szip(codec.local_params(
                        params,
                        element,
                        chunk_bytes,
                    )?))
                }
                (id, params) if builtins => {
                    let codec = crate::registry::codec_of_hdf5_id(id)?;
                    codec.wire()?;
                    let local = codec.local_params(params, element, chunk_bytes)?;
                    Some(Step::Builtin(id, local))
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self { steps })
    }

    /// The bytes HDF5 would store for the chunk `data` (a whole chunk, edges padded);
    /// [`EncodeError::Skipped`] where HDF5 would skip an optional filter on it (see
    /// [`ChunkEncoder::encode_masked`]).
    pub fn encode(&self, data: &[u8]) -> Result<Vec<u8>, EncodeError> {
        match self.encode_masked(data)? {
            (0, bytes) => Ok(bytes),
            _ => Err(EncodeError::Skipped),
        }
    }

    /// What HDF5 would store for the chunk `data` (a whole chunk, edges padded): its
    /// filter mask (bit `i` set where the optional filter `i` was skipped, as HDF5 skips
    /// szip on a chunk it cannot shrink) and its bytes.
    pub fn encode_masked(&self, data: &[u8]) -> Result<(u32, Vec<u8>), EncodeError> {
        let (mask, bytes) = self.encode_cow(Cow::Borrowed(data))?;
        Ok((mask, bytes.into_owned()))
    }

    /// [`ChunkEncoder::encode_masked`] of a chunk the caller gives up: a pipeline that
    /// keeps it as it is (none, or szip skipped) hands it back without a copy, and the
    /// first filter reads it in place, so one chunk is never held twice before encoding.
    pub fn encode_owned(&self, data: Vec<u8>) -> Result<(u32, Vec<u8>), EncodeError> {
        let (mask, bytes) = self.encode_cow(Cow::Owned(data))?;
        Ok((mask, bytes.into_owned()))
    }

    fn encode_cow<'a>(&self, data: Cow<'a, [u8]>) -> Result<(u32, Cow<'a, [u8]>), EncodeError> {
        let mut bytes = data;
        let mut mask = 0u32;
        for (i, step) in self.steps.iter().enumerate() {
            bytes = Cow::Owned(match step {
                Step::Shuffle(size) => codec::shuffle(&bytes, *size),
                Step::Deflate(level) => {
                    codec::deflate(&bytes, *level).map_err(EncodeError::Deflate)?
                }
                Step::Fletcher32 => {
                    let mut owned = bytes.into_owned();
                    fletcher32::append(&mut owned);
                    owned
                }
                Step::Builtin(id, params) => wire::encode(*id, params, &bytes)?,
                Step::Szip(params) => match crate::kinds::encode_szip_hdf5_chunk(params, &bytes)? {
                    Some(encoded) => encoded,
                    None => {
                        mask |= 1u32.checked_shl(i as u32).unwrap_or(0);
                        continue;
                    }
                },
            });
        }
        Ok((mask, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pipelines_made_of_implemented_filters() {
        let spec = |id, params: &[u32]| FilterSpec::new(id, params.to_vec());
        assert!(ChunkEncoder::new(&[spec(2, &[4]), spec(1, &[1])], 4, 64).is_some());
        assert!(ChunkEncoder::new(&[spec(307, &[9])], 4, 64).is_some());
        assert!(ChunkEncoder::new(&[spec(3, &[])], 4, 64).is_some());
        assert!(ChunkEncoder::new(&[spec(32015, &[3])], 4, 64).is_some());
        assert!(ChunkEncoder::new(&[spec(32001, &[])], 4, 64).is_some());
        assert!(ChunkEncoder::new(&[spec(40000, &[])], 4, 64).is_none());
        assert!(ChunkEncoder::new(&[spec(307, &[0])], 4, 64).is_none());
    }

    #[test]
    fn encodes_in_stored_order() -> Result<(), EncodeError> {
        let spec = |id, params: &[u32]| FilterSpec::new(id, params.to_vec());
        let data: Vec<u8> = (0..4096u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        let encoder = ChunkEncoder::new(&[spec(2, &[4]), spec(1, &[1])], 4, 16384);
        let encoded = encoder
            .map(|e| e.encode(&data))
            .transpose()?
            .unwrap_or_default();
        let inflated = codec::inflate(&encoded, data.len()).unwrap_or_default();
        assert_eq!(codec::unshuffle(&inflated, 4), data);
        Ok(())
    }
}
