//! A chunk's codec chain, built once from its JSON for an array and kept: every chunk of
//! the array then runs the same stages, rather than each chunk parsing the codecs'
//! configurations and finding their filters again.

use std::sync::{Arc, Mutex, PoisonError};

use codecs::numcodecs::Codec;
use filterspec::FilterSpec;
use serde_json::Value;

use crate::codec::{CodecFail, ZarrArray};

/// The stages of a chain, in stored order (filters, then the compressor).
#[derive(Debug)]
enum Stage {
    /// HDF5 filters run as one pipeline.
    Filters(Vec<FilterSpec>),
    /// A numcodecs codec with no HDF5 filter.
    Other(Codec),
}

/// A chain ready to run on chunks of values of `element_size` bytes.
#[derive(Debug)]
pub struct Chain {
    stages: Vec<Stage>,
    element_size: usize,
}

impl Chain {
    /// Builds the chain of `codecs` for chunks of `array`: every codec's configuration
    /// checked, an unavailable codec refused.
    fn build(codecs: &[Value], array: &ZarrArray<'_>) -> Result<Self, CodecFail> {
        let others = codecs
            .iter()
            .map(|c| Codec::from_config(c).transpose())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| CodecFail::Failed(e.to_string()))?;
        let stages = if others.iter().all(Option::is_none) {
            // One pipeline: HDF5 filters run in turn, bounded inside.
            vec![Stage::Filters(crate::codec::filters_of(codecs, array)?)]
        } else {
            codecs
                .iter()
                .zip(others)
                .map(|(codec, other)| match other {
                    Some(other) => Ok(Stage::Other(other)),
                    None => crate::codec::filters_of(std::slice::from_ref(codec), array)
                        .map(Stage::Filters),
                })
                .collect::<Result<_, _>>()?
        };
        Ok(Self {
            stages,
            element_size: array.element_size,
        })
    }

    /// Encodes one chunk.
    pub fn encode(&self, mut data: Vec<u8>) -> Result<Vec<u8>, CodecFail> {
        for stage in &self.stages {
            data = match stage {
                Stage::Other(other) => other
                    .encode(&data)
                    .map_err(|e| CodecFail::Failed(e.to_string()))?,
                Stage::Filters(filters) => {
                    codecs::numcodecs::encode_pipeline(filters, self.element_size, data)
                        .map_err(|e| CodecFail::Failed(e.to_string()))?
                }
            };
        }
        Ok(data)
    }

    /// Decodes one chunk, each stage bounded by what the stage after it may take (the
    /// last by `max_output`).
    pub fn decode(&self, mut data: Vec<u8>, max_output: usize) -> Result<Vec<u8>, CodecFail> {
        let mut bounds = Vec::with_capacity(self.stages.len());
        let mut bound = max_output;
        for stage in &self.stages {
            bounds.push(bound);
            bound = match stage {
                Stage::Other(c) => c.max_encoded_len(bound),
                // A filter's chunk may hold a checksum or framing on top of its data.
                Stage::Filters(_) => bound.saturating_add(1 << 16),
            };
        }
        for (stage, bound) in self.stages.iter().zip(bounds).rev() {
            data = match stage {
                Stage::Other(other) => other
                    .decode(&data, bound)
                    .map_err(|e| CodecFail::Failed(e.to_string()))?,
                Stage::Filters(filters) => {
                    codecs::numcodecs::decode_pipeline(filters, self.element_size, &data, bound)
                        .map_err(|e| CodecFail::Failed(e.to_string()))?
                }
            };
        }
        Ok(data)
    }
}

/// What a chain is built from: the codecs and what of the array their filters use.
#[derive(Debug)]
struct ChainKey {
    codecs: Vec<Value>,
    element_size: usize,
    shape: Vec<usize>,
    chunks: Vec<usize>,
    big_endian: bool,
}

/// How many chains are kept (the arrays being read or written at once; more are built
/// again when they come back).
const KEPT: usize = 64;

/// The chains built so far, the most recent last.
static CHAINS: Mutex<Vec<(ChainKey, Arc<Chain>)>> = Mutex::new(Vec::new());

/// The chain of `codecs` for chunks of `array`, built on first use and kept.
pub fn chain(codecs: &[Value], array: &ZarrArray<'_>) -> Result<Arc<Chain>, CodecFail> {
    // Compared in place: a chunk that finds its chain allocates nothing.
    let same = |k: &ChainKey| {
        k.element_size == array.element_size
            && k.big_endian == array.big_endian
            && k.shape == array.shape
            && k.chunks == array.chunks
            && k.codecs == codecs
    };
    {
        let kept = CHAINS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, chain)) = kept.iter().rev().find(|(k, _)| same(k)) {
            return Ok(Arc::clone(chain));
        }
    }
    let key = ChainKey {
        codecs: codecs.to_vec(),
        element_size: array.element_size,
        shape: array.shape.to_vec(),
        chunks: array.chunks.to_vec(),
        big_endian: array.big_endian,
    };
    let built = Arc::new(Chain::build(codecs, array)?);
    let mut kept = CHAINS.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.len() >= KEPT {
        kept.remove(0);
    }
    kept.push((key, Arc::clone(&built)));
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_chain_is_built_once_per_array_and_runs_mixed_stages() -> Result<(), String> {
        let codecs = vec![
            json!({"id": "delta", "dtype": "<i4"}),
            json!({"id": "shuffle", "elementsize": 4}),
            json!({"id": "zstd", "level": 3}),
        ];
        let shape = [1000usize];
        let array = ZarrArray {
            element_size: 4,
            shape: &shape,
            chunks: &shape,
            big_endian: false,
        };
        let first = chain(&codecs, &array).map_err(|e| format!("{e:?}"))?;
        let again = chain(&codecs, &array).map_err(|e| format!("{e:?}"))?;
        assert!(Arc::ptr_eq(&first, &again));
        // Another element size is another chain.
        let other = chain(
            &codecs,
            &ZarrArray {
                element_size: 8,
                ..array
            },
        )
        .map_err(|e| format!("{e:?}"))?;
        assert!(!Arc::ptr_eq(&first, &other));
        let data: Vec<u8> = (0..1000i32).flat_map(|i| (i * 3).to_le_bytes()).collect();
        let encoded = first.encode(data.clone()).map_err(|e| format!("{e:?}"))?;
        assert!(encoded.len() < data.len());
        assert_eq!(
            first
                .decode(encoded, data.len())
                .map_err(|e| format!("{e:?}"))?,
            data
        );
        Ok(())
    }
}
