//! A filter pipeline, in HDF5's stored order, undone on whole stored chunks: what HDF5's
//! pipeline would give back for them, computed here so that readers can decode chunks on
//! every core. Only pipelines made entirely of filters implemented here (shuffle,
//! fletcher32, deflate and the built-ins: bzip2, blosc, lz4, zstd) are decoded; for any
//! other, [`ChunkDecoder::new`] answers `None` and HDF5 must do the work.

use crate::known::{DEFLATE, FLETCHER32, NBIT, SCALEOFFSET, SHUFFLE};
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

    /// The checker of `filters` (in stored order) for elements of `element` bytes: the
    /// filters implemented here undone as [`Self::decode`] does, those that are not
    /// left to HDF5.
    pub fn checker(filters: &[FilterSpec], element: usize) -> ChunkChecker {
        let steps = filters
            .iter()
            .map(|f| {
                let step = Self::new(std::slice::from_ref(f), element)
                    .and_then(|d| d.steps.into_iter().next());
                (f.id, f.params.clone(), step)
            })
            .collect();
        ChunkChecker { steps }
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

/// Checks stored chunks before HDF5 decodes them, for pipelines with filters not
/// implemented here (HDF5's nbit, scaleoffset, a plugin's): HDF5's deflate decodes a
/// stream to whatever it holds, and its chunk cache keeps each chunk at its nominal size
/// (a file of 8 KB took 2.1 GB through `deflate,deflate` beside a filter the chunks
/// skip). The filters implemented here are undone in HDF5's order, each bounded by the
/// chunk's size, until the first one that is not; HDF5's own filters after it decode to
/// the chunk's size, but its deflate does not, so a deflate after it cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkChecker {
    /// Each filter in stored order: its id, its parameters, and its step when
    /// implemented here.
    steps: Vec<(u32, Vec<u32>, Option<Step>)>,
}

/// Why a filter not implemented here, run by the caller (a plugin's filter function),
/// gave no output for a chunk; either way the chunk is not HDF5's to decode.
#[derive(Debug)]
pub enum ForeignFailure {
    /// It decoded (or its header says it decodes) the chunk beyond the bound: what it said.
    TooLarge(String),
    /// It failed, crashed, or ran out of the memory it was allowed: what happened.
    Failed(String),
}

impl std::fmt::Display for ForeignFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge(what) | Self::Failed(what) => f.write_str(what),
        }
    }
}

/// Runs a filter not implemented here on a chunk (`id`, its parameters, the data, the
/// most bytes it may decode to): its output or its failure; `None` when the caller
/// cannot run it.
pub type ForeignFilter<'a> =
    &'a dyn Fn(u32, &[u32], &[u8], usize) -> Option<Result<Vec<u8>, ForeignFailure>>;

/// Why a stored chunk may not be given to HDF5.
#[derive(Debug)]
pub enum CheckFailure {
    /// The chunk decodes beyond its size, or is corrupt, in a filter implemented here.
    Decode(WireError),
    /// A filter not implemented here, run by the caller, decoded it beyond its size or
    /// failed on it.
    Foreign(ForeignFailure),
    /// One of HDF5's own filters not implemented here (nbit, scaleoffset) would decode
    /// it to another size than the chunk's, or read past it: what is wrong.
    Hdf5(String),
    /// HDF5's deflate would run after the filter `after`, which is not implemented here,
    /// so what it decodes to cannot be bounded.
    Unbounded {
        /// The filter before the deflate, in HDF5's reading order.
        after: u32,
    },
}

impl std::fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Decode(e) => write!(f, "{e}"),
            Self::Foreign(what) => write!(f, "{what}"),
            Self::Hdf5(what) => write!(f, "{what}"),
            Self::Unbounded { after } => write!(
                f,
                "HDF5's deflate would run after filter {after}, which nctools does not \
                 implement, and nothing would bound what it decodes to"
            ),
        }
    }
}

impl ChunkChecker {
    /// Whether every filter is implemented here (a [`ChunkDecoder`] does the whole work).
    pub fn is_complete(&self) -> bool {
        self.steps.iter().all(|(_, _, step)| step.is_some())
    }

    /// Checks the stored chunk `stored` (with HDF5's `filter_mask`) of `chunk_bytes`
    /// bytes: `Ok` when what HDF5 will decode it to is bounded by the chunk's size.
    pub fn check(
        &self,
        stored: &[u8],
        filter_mask: u32,
        chunk_bytes: usize,
    ) -> Result<(), CheckFailure> {
        self.check_with(stored, filter_mask, chunk_bytes, &|_, _, _, _| None)
    }

    /// Like [`Self::check`], with `foreign` running the filters not implemented here
    /// that it can (a plugin's), each bounded by the chunk's size, so that the check goes
    /// on past them.
    pub fn check_with(
        &self,
        stored: &[u8],
        filter_mask: u32,
        chunk_bytes: usize,
        foreign: ForeignFilter<'_>,
    ) -> Result<(), CheckFailure> {
        let applied = |i: usize| i >= 32 || filter_mask & (1 << i) == 0;
        let mut data = stored.to_vec();
        let bound = chunk_bytes.saturating_add(INNER_SLACK);
        for (i, (id, params, step)) in self.steps.iter().enumerate().rev() {
            if !applied(i) {
                continue;
            }
            let Some(step) = step else {
                match foreign(*id, params, &data, bound) {
                    Some(Ok(decoded)) => {
                        data = decoded;
                        continue;
                    }
                    Some(Err(what)) => return Err(CheckFailure::Foreign(what)),
                    None => {}
                }
                // HDF5 does the rest: each of its own filters that sizes its output from
                // its stored parameters must say the chunk's size (the first with its
                // input at hand), and no deflate may follow.
                hdf5_sized(*id, params, Some(&data), chunk_bytes).map_err(CheckFailure::Hdf5)?;
                for j in (0..i).rev().filter(|j| applied(*j)) {
                    let (later, later_params, _) = &self.steps[j];
                    if *later == DEFLATE {
                        return Err(CheckFailure::Unbounded { after: *id });
                    }
                    hdf5_sized(*later, later_params, None, chunk_bytes)
                        .map_err(CheckFailure::Hdf5)?;
                }
                return Ok(());
            };
            data = match step {
                Step::Shuffle(size) => codec::unshuffle(&data, *size),
                Step::Fletcher32 => {
                    fletcher32::strip(&data, usize::MAX, fletcher32::ByteOrders::Either)
                        .map_err(CheckFailure::Decode)?
                }
                Step::Deflate => codec::inflate(&data, bound)
                    .map_err(wire::decode_error(DEFLATE))
                    .map_err(CheckFailure::Decode)?,
                Step::Builtin(id, params) => {
                    wire::decode_with(*id, params, &data, bound).map_err(CheckFailure::Decode)?
                }
            };
        }
        Ok(())
    }
}

/// Whether HDF5's own filter `id`, with its stored `params`, decodes `input` (when known)
/// to exactly `chunk_bytes` without reading past it. HDF5 1.10's nbit and scaleoffset
/// allocate what their parameters say (the chunk's element count, `params[2]`, times the
/// element size, `params[4]`) and read their input with no bound (before, parameters
/// patched to 2^28 elements crashed the tools and the reference with SIGSEGV at 1 GB
/// from 3.5 KB). Other filters are not sized by their parameters.
fn hdf5_sized(
    id: u32,
    params: &[u32],
    input: Option<&[u8]>,
    chunk_bytes: usize,
) -> Result<(), String> {
    let name = match id {
        NBIT => "nbit",
        SCALEOFFSET => "scaleoffset",
        _ => return Ok(()),
    };
    // nbit's "need not compress" flag: the chunk is stored as it is.
    if id == NBIT && params.get(1) == Some(&1) {
        return Ok(());
    }
    let word = |i: usize| params.get(i).map(|w| *w as usize);
    let (Some(elements), Some(size)) = (word(2), word(4)) else {
        return Err(format!("its {name} filter has {} parameters", params.len()));
    };
    if elements.checked_mul(size) != Some(chunk_bytes) {
        return Err(format!(
            "its {name} filter's parameters say {elements} values of {size} bytes, not the \
             chunk's {chunk_bytes} bytes"
        ));
    }
    let Some(input) = input else {
        return Ok(());
    };
    let bits = |count: usize, width: usize| count.saturating_mul(width).div_ceil(8);
    let needed = match id {
        // An atomic type's values packed at their precision (params[6]).
        NBIT if word(3) == Some(1) => {
            let precision = word(6).unwrap_or(usize::MAX);
            if precision > size * 8 {
                return Err(format!(
                    "its nbit filter says a precision of {precision} bits"
                ));
            }
            bits(elements, precision)
        }
        // A type nbit leaves whole (its "no-op" class).
        NBIT if word(3) == Some(4) => chunk_bytes,
        // Compounds and arrays: libhdf5 1.10 walks their members' parameters with no
        // bound on the input (before, an 8-byte chunk of a compound declared as 16 MB
        // crashed the tools with SIGSEGV, and nccopy copied heap bytes into its output).
        NBIT => {
            return Err(
                "its nbit filter packs a compound or array type, whose chunks nctools does \
                 not check"
                    .into(),
            )
        }
        _ => {
            // A 21-byte header, its first 4 bytes the bits of each packed value.
            let minbits = input
                .get(..4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .ok_or("its scaleoffset chunk has no header")?;
            if minbits > size * 8 {
                return Err(format!("its scaleoffset chunk says {minbits} bits a value"));
            }
            21 + if minbits == size * 8 {
                chunk_bytes
            } else {
                bits(elements, minbits)
            }
        }
    };
    if input.len() < needed {
        return Err(format!(
            "its {name} chunk holds {} bytes, fewer than the {needed} it decodes from",
            input.len()
        ));
    }
    Ok(())
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
    fn a_checker_bounds_what_it_implements_and_refuses_a_deflate_after_what_it_does_not(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let zeros = vec![0u8; 1 << 20];
        let once = crate::deflate(&zeros, 9)?;
        let twice = crate::deflate(&once, 9)?;
        // nbit (5), then deflate twice, in stored order; HDF5 reads deflate first. Its
        // parameters as HDF5's set-local writes them for 4-byte ints, chunks of 2^18.
        let nbit = [8, 0, 1 << 18, 1, 4, 0, 32, 0];
        let checker = ChunkDecoder::checker(&[spec(5, &nbit), spec(1, &[9]), spec(1, &[9])], 4);
        assert!(!checker.is_complete());
        // A chunk of 1 MiB whose two inflates give it: fine, nbit is HDF5's.
        assert!(checker.check(&twice, 0, 1 << 20).is_ok());
        // The same declared as 4 bytes: refused in the first inflate.
        assert!(matches!(
            checker.check(&twice, 0, 4),
            Err(CheckFailure::Decode(_))
        ));
        // nbit parameters saying other than the chunk's size (red team s32 HD5), or an
        // input shorter than what they decode from, are refused.
        let lying = [8, 0, 1 << 28, 1, 4, 0, 32, 0];
        let lies = ChunkDecoder::checker(&[spec(5, &lying), spec(1, &[9]), spec(1, &[9])], 4);
        assert!(matches!(
            lies.check(&twice, 0, 1 << 20),
            Err(CheckFailure::Hdf5(_))
        ));
        // nbit of a compound (class 3), unless it stores the chunk as it is (s32b HE5).
        let compound =
            ChunkDecoder::checker(&[spec(5, &[18, 0, 4, 3, 8, 2, 0, 1, 4, 0, 32, 0])], 4);
        assert!(matches!(
            compound.check(&[0u8; 32], 0, 32),
            Err(CheckFailure::Hdf5(_))
        ));
        let whole = ChunkDecoder::checker(&[spec(5, &[18, 1, 4, 3, 8, 2, 0, 1, 4, 0, 32, 0])], 4);
        assert!(whole.check(&[0u8; 32], 0, 32).is_ok());
        let short = ChunkDecoder::checker(&[spec(5, &nbit)], 4);
        assert!(matches!(
            short.check(&[0u8; 16], 0, 1 << 20),
            Err(CheckFailure::Hdf5(_))
        ));
        // A deflate HDF5 would run after nbit cannot be bounded (nbit here stores the
        // chunk as it is: its "need not compress" flag).
        let stored_as_is = [8, 1, 1 << 18, 1, 4, 0, 32, 0];
        let after = ChunkDecoder::checker(&[spec(1, &[9]), spec(5, &stored_as_is)], 4);
        assert!(matches!(
            after.check(&once, 0, 1 << 20),
            Err(CheckFailure::Unbounded { after: 5 })
        ));
        // Unless nbit was not applied to this chunk.
        assert!(after.check(&once, 0b10, 1 << 20).is_ok());
        Ok(())
    }

    #[test]
    fn fletcher32_is_checked_in_either_byte_order() {
        let data: Vec<u8> = (0..40u8).collect();
        let sum = crate::numcodecs::fletcher32(&data);
        let strip = |chunk: &[u8], orders| fletcher32::strip(chunk, usize::MAX, orders);
        // The forms HDF5 accepts (checked with h5py): little-endian, and the one HDF5
        // before 1.6.3 wrote, half-words' bytes swapped (red team s31b: refused here,
        // that chunk went to HDF5's unbounded deflate unchecked).
        let [c0, c1, c2, c3] = sum.to_le_bytes();
        for word in [sum.to_le_bytes(), [c1, c0, c3, c2]] {
            let mut chunk = data.clone();
            chunk.extend_from_slice(&word);
            let stripped = strip(&chunk, fletcher32::ByteOrders::Either);
            assert_eq!(stripped.ok(), Some(data.clone()));
        }
        // Big-endian, which HDF5 refuses.
        let mut swapped = data.clone();
        swapped.extend_from_slice(&sum.to_be_bytes());
        assert!(strip(&swapped, fletcher32::ByteOrders::Either).is_err());
        // numcodecs' form: little-endian only.
        let mut big = data.clone();
        big.extend_from_slice(&sum.to_be_bytes());
        assert!(strip(&big, fletcher32::ByteOrders::LittleOnly).is_err());
        let mut bad = data.clone();
        bad.extend_from_slice(&(sum ^ 1).to_le_bytes());
        assert!(strip(&bad, fletcher32::ByteOrders::Either).is_err());
    }
}
