//! A filter pipeline, in HDF5's stored order, undone on whole stored chunks: what HDF5's
//! pipeline would give back for them, computed here so that readers can decode chunks on
//! every core. Only pipelines made entirely of filters implemented here (shuffle,
//! fletcher32, deflate and the built-ins: bzip2, blosc, lz4, zstd) are decoded; for any
//! other, [`ChunkDecoder::new`] answers `None` and HDF5 must do the work.

use crate::known::{DEFLATE, FLETCHER32, SHUFFLE};
use crate::FilterSpec;

use crate::codec;
use crate::kinds::fletcher32;
use crate::wire::{self, WireError};

/// Room for what inner stages add to a chunk's decoded size (a checksum, framing).
const INNER_SLACK: usize = 1 << 16;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Shuffle(usize),
    Fletcher32,
    Deflate,
    /// A filter whose chunk format is in [`wire`], with its parameters.
    Builtin(u32, Vec<u32>),
}

/// Decodes stored chunks through a pipeline of filters implemented here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkDecoder {
    steps: Vec<Step>,
}

impl ChunkDecoder {
    /// The decoder of `filters` (in stored order) for elements of `element` bytes, or
    /// `None` when a filter is not implemented here. The built-in filters are used only
    /// while they are turned on ([`crate::builtins_enabled`]): otherwise the plugins HDF5
    /// finds do the work.
    pub fn new(filters: &[FilterSpec], element: usize) -> Option<Self> {
        let builtins = crate::builtins_enabled();
        let steps = filters
            .iter()
            .map(|f| match (f.id, f.params.as_slice()) {
                (SHUFFLE, []) => Some(Step::Shuffle(element)),
                (SHUFFLE, [size]) => Some(Step::Shuffle(*size as usize)),
                (FLETCHER32, _) => Some(Step::Fletcher32),
                (DEFLATE, _) => Some(Step::Deflate),
                // A filter nctools carries into HDF5 only while it is turned on (else the
                // plugins HDF5 finds do the work); szip, which HDF5 has, always.
                (id, params) => {
                    let codec = crate::registry::codec_of_hdf5_id(id)?;
                    codec.wire()?;
                    let ours = builtins || !codec.entry().carried_into_hdf5;
                    (ours && codec.decodes_with(params)).then(|| Step::Builtin(id, params.to_vec()))
                }
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self { steps })
    }

    /// The data of the stored chunk `stored`, `chunk_bytes` long: the filters undone in
    /// reverse order, skipping those whose bit is set in `filter_mask` (HDF5's mask of
    /// filters that were not applied). Every stage is bounded, and the result must be
    /// exactly one chunk.
    pub fn decode(
        &self,
        stored: &[u8],
        filter_mask: u32,
        chunk_bytes: usize,
    ) -> Result<Vec<u8>, WireError> {
        let mut data = stored.to_vec();
        for (i, step) in self.steps.iter().enumerate().rev() {
            if i < 32 && filter_mask & (1 << i) != 0 {
                continue;
            }
            let bound = if i == 0 {
                chunk_bytes
            } else {
                chunk_bytes.saturating_add(INNER_SLACK)
            };
            data = match step {
                Step::Shuffle(size) => codec::unshuffle(&data, *size),
                Step::Fletcher32 => {
                    fletcher32::strip(&data, usize::MAX, fletcher32::ByteOrders::Either)?
                }
                Step::Deflate => {
                    codec::inflate(&data, bound).map_err(wire::decode_error(DEFLATE))?
                }
                Step::Builtin(id, params) => wire::decode_with(*id, params, &data, bound)?,
            };
        }
        if data.len() != chunk_bytes {
            return Err(WireError::Corrupt {
                id: self.first_id(),
                what: "a chunk that does not decode to the chunk's size",
            });
        }
        Ok(data)
    }

    fn first_id(&self) -> u32 {
        match self.steps.first() {
            Some(Step::Shuffle(_)) => SHUFFLE,
            Some(Step::Fletcher32) => FLETCHER32,
            Some(Step::Deflate) | None => DEFLATE,
            Some(Step::Builtin(id, _)) => *id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChunkEncoder;

    fn spec(id: u32, params: &[u32]) -> FilterSpec {
        FilterSpec::new(id, params.to_vec())
    }

    #[test]
    fn only_pipelines_made_of_implemented_filters() {
        assert!(ChunkDecoder::new(&[spec(2, &[4]), spec(1, &[1]), spec(3, &[])], 4).is_some());
        assert!(ChunkDecoder::new(&[spec(307, &[9])], 4).is_some());
        assert!(ChunkDecoder::new(&[spec(32013, &[])], 4).is_none());
    }

    #[test]
    fn undoes_what_the_encoder_did() -> Result<(), Box<dyn std::error::Error>> {
        let data: Vec<u8> = (0..4096u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        for filters in [
            vec![spec(2, &[4]), spec(1, &[1])],
            vec![spec(307, &[9])],
            vec![spec(2, &[]), spec(32015, &[3])],
            vec![spec(32004, &[])],
            vec![spec(32001, &[0, 0, 0, 0, 5, 1, 1])],
        ] {
            let encoder = ChunkEncoder::new(&filters, 4, data.len()).ok_or("no encoder")?;
            let decoder = ChunkDecoder::new(&filters, 4).ok_or("no decoder")?;
            let stored = encoder.encode(&data)?;
            assert_eq!(decoder.decode(&stored, 0, data.len())?, data, "{filters:?}");
        }
        Ok(())
    }

    #[test]
    fn skips_the_filters_of_the_mask_and_checks_sizes() -> Result<(), Box<dyn std::error::Error>> {
        let data: Vec<u8> = (0..64u8).collect();
        let decoder = ChunkDecoder::new(&[spec(2, &[4]), spec(1, &[1])], 4).ok_or("none")?;
        // Deflate (filter 1) not applied: the chunk is only shuffled.
        let shuffled = codec::shuffle(&data, 4);
        assert_eq!(decoder.decode(&shuffled, 0b10, 64)?, data);
        assert!(decoder.decode(&shuffled, 0b10, 65).is_err());
        Ok(())
    }

    #[test]
    fn fletcher32_is_checked_in_either_byte_order() {
        let data: Vec<u8> = (0..40u8).collect();
        let sum = crate::numcodecs::fletcher32(&data);
        let strip = |chunk: &[u8], orders| fletcher32::strip(chunk, usize::MAX, orders);
        for word in [sum.to_le_bytes(), sum.to_be_bytes()] {
            let mut chunk = data.clone();
            chunk.extend_from_slice(&word);
            let stripped = strip(&chunk, fletcher32::ByteOrders::Either);
            assert_eq!(stripped.ok(), Some(data.clone()));
        }
        // numcodecs' form: little-endian only.
        let mut big = data.clone();
        big.extend_from_slice(&sum.to_be_bytes());
        assert!(strip(&big, fletcher32::ByteOrders::LittleOnly).is_err());
        let mut bad = data.clone();
        bad.extend_from_slice(&(sum ^ 1).to_le_bytes());
        assert!(strip(&bad, fletcher32::ByteOrders::Either).is_err());
    }
}
