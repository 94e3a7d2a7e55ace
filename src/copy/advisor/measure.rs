//! Encoding each sampled chunk with each candidate on every core: sizes, times and, for
//! quantized candidates, the largest errors.

use std::time::Instant;

use codecs::{ChunkDecoder, ChunkEncoder};
use ncmodel::{AtomicType, TypeRef, Values};
use rayon::prelude::*;

use super::candidates::Candidate;

/// What one candidate did to one variable's sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measure {
    /// Bytes of the sampled chunks.
    pub raw_bytes: u64,
    /// Bytes once encoded.
    pub stored_bytes: u64,
    /// Seconds spent encoding (summed over threads).
    pub encode_seconds: f64,
    /// Seconds spent decoding.
    pub decode_seconds: f64,
    /// For a quantized candidate: the largest absolute and relative errors.
    pub errors: Option<(f64, f64)>,
    /// Why the candidate could not run here, if it could not.
    pub unavailable: Option<String>,
}

impl Measure {
    /// Uncompressed over stored bytes (`3.2` for 3.2:1).
    pub fn ratio(&self) -> f64 {
        if self.stored_bytes == 0 {
            return 0.0;
        }
        self.raw_bytes as f64 / self.stored_bytes as f64
    }

    /// Mebibytes (2^20 bytes) of raw data encoded per second.
    pub fn encode_mb_s(&self) -> f64 {
        speed(self.raw_bytes, self.encode_seconds)
    }

    /// Mebibytes of raw data decoded per second.
    pub fn decode_mb_s(&self) -> f64 {
        speed(self.raw_bytes, self.decode_seconds)
    }

    fn add(&mut self, other: &Measure) {
        self.raw_bytes += other.raw_bytes;
        self.stored_bytes += other.stored_bytes;
        self.encode_seconds += other.encode_seconds;
        self.decode_seconds += other.decode_seconds;
        self.errors = match (self.errors, other.errors) {
            (Some((a, r)), Some((a2, r2))) => Some((a.max(a2), r.max(r2))),
            (e, None) | (None, e) => e,
        };
        if self.unavailable.is_none() {
            self.unavailable.clone_from(&other.unavailable);
        }
    }
}

fn speed(bytes: u64, seconds: f64) -> f64 {
    if seconds <= 0.0 {
        return 0.0;
    }
    bytes as f64 / f64::from(1u32 << 20) / seconds
}

/// The chunks of one variable, as read, with what encoding them needs.
pub struct Sample<'a> {
    /// The chunks' raw values, machine byte order.
    pub chunks: &'a [Vec<u8>],
    /// The variable's type.
    pub type_ref: TypeRef,
    /// Bytes of one value.
    pub element: usize,
    /// Bytes of a whole chunk (for blosc's parameters).
    pub chunk_bytes: usize,
    /// The variable's fill value, left alone by quantization.
    pub fill: Option<f64>,
}

/// Measures every candidate on `sample`, chunk by chunk on every core; the results are in
/// the candidates' order.
pub fn measure_all(sample: &Sample, candidates: &[Candidate]) -> Vec<Measure> {
    let by_hdf5: Vec<bool> = candidates
        .iter()
        .map(|c| runs_in_hdf5_only(sample, c))
        .collect();
    let tasks: Vec<(usize, usize)> = (0..candidates.len())
        .filter(|c| !by_hdf5[*c])
        .flat_map(|c| (0..sample.chunks.len()).map(move |k| (c, k)))
        .collect();
    let results: Vec<(usize, Measure)> = tasks
        .par_iter()
        .map(|&(c, k)| (c, measure_one(sample, &candidates[c], &sample.chunks[k])))
        .collect();
    let mut totals = vec![Measure::default(); candidates.len()];
    for (c, m) in &results {
        totals[*c].add(m);
    }
    for (c, candidate) in candidates.iter().enumerate() {
        if by_hdf5[c] {
            totals[c] = measure_in_hdf5(sample, candidate);
        }
    }
    totals
}

/// Whether `candidate` has a filter nctools does not run itself but HDF5 can (a plugin
/// HDF5 finds): such a pipeline is measured through HDF5's own pipeline.
fn runs_in_hdf5_only(sample: &Sample, candidate: &Candidate) -> bool {
    szip_cannot_run(sample.type_ref, &candidate.filters).is_none()
        && ChunkEncoder::new(&candidate.filters, sample.element, sample.chunk_bytes).is_none()
        && matches!(sample.type_ref, TypeRef::Atomic(t) if t != AtomicType::String)
        && candidate
            .filters
            .iter()
            .all(|f| crate::storage::backends::filter_available(f.id))
}

/// Measures `candidate` on the whole sample through HDF5 (a file in a private temporary
/// directory): its stored size, and the time to write and read it back.
fn measure_in_hdf5(sample: &Sample, candidate: &Candidate) -> Measure {
    let unavailable = |why: String| Measure {
        unavailable: Some(why),
        ..Measure::default()
    };
    let TypeRef::Atomic(t) = sample.type_ref else {
        return unavailable("HDF5 measures atomic types only".to_string());
    };
    let mut errors: Option<Errors> = None;
    let mut data = Vec::with_capacity(sample.chunks.len());
    for chunk in sample.chunks {
        match candidate.quantize {
            Some(q) => match quantized(sample, chunk, q) {
                Some((bytes, e)) => {
                    errors = match (errors, e) {
                        (Some((a, r)), Some((a2, r2))) => Some((a.max(a2), r.max(r2))),
                        (x, None) | (None, x) => x,
                    };
                    data.push(bytes);
                }
                None => return unavailable("quantize applies to float and double only".into()),
            },
            None => data.push(chunk.clone()),
        }
    }
    match crate::storage::measure_with_hdf5(t, &data, &candidate.filters) {
        Ok(m) => Measure {
            raw_bytes: sample.chunks.iter().map(|c| c.len() as u64).sum(),
            stored_bytes: m.stored_bytes,
            encode_seconds: m.encode_seconds,
            decode_seconds: m.decode_seconds,
            errors,
            unavailable: None,
        },
        Err(why) => unavailable(format!("HDF5: {why}")),
    }
}

/// Why szip, if the pipeline has it, cannot run on a variable of `type_ref`: it takes
/// integer and floating-point values only, and chunks of at least one block (its words
/// are then the four HDF5 stores, see [`Candidate::for_chunks`]).
fn szip_cannot_run(type_ref: TypeRef, filters: &[filterspec::FilterSpec]) -> Option<&'static str> {
    let szip = filters.iter().find(|f| f.id == filterspec::known::SZIP)?;
    let numeric = matches!(
        type_ref,
        TypeRef::Atomic(t) if !matches!(t, AtomicType::Char | AtomicType::String)
    );
    if !numeric {
        Some("szip applies to integer and floating-point values only")
    } else if szip.params.len() != 4 {
        Some("szip cannot run on these chunks (fewer values than pixels per block)")
    } else {
        None
    }
}

fn measure_one(sample: &Sample, candidate: &Candidate, chunk: &[u8]) -> Measure {
    let unavailable = |why: String| Measure {
        unavailable: Some(why),
        ..Measure::default()
    };
    if let Some(why) = szip_cannot_run(sample.type_ref, &candidate.filters) {
        return unavailable(why.to_string());
    }
    let Some(encoder) = ChunkEncoder::new(&candidate.filters, sample.element, sample.chunk_bytes)
    else {
        return unavailable(
            "a filter neither nctools nor a plugin of HDF5's plugin path has".to_string(),
        );
    };
    let Some(decoder) = ChunkDecoder::new(&candidate.filters, sample.element) else {
        return unavailable("a filter nctools cannot decode".to_string());
    };
    let (data, errors) = match candidate.quantize {
        Some(q) => match quantized(sample, chunk, q) {
            Some(done) => done,
            None => return unavailable("quantize applies to float and double only".to_string()),
        },
        None => (chunk.to_vec(), None),
    };
    let started = Instant::now();
    // A chunk szip cannot shrink is stored without it, as HDF5 stores it.
    let (mask, encoded) = match encoder.encode_masked(&data) {
        Ok(e) => e,
        Err(e) => return unavailable(e.to_string()),
    };
    let encode_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let decoded = decoder.decode(&encoded, mask, data.len());
    let decode_seconds = started.elapsed().as_secs_f64();
    match decoded {
        Ok(back) if back == data => Measure {
            raw_bytes: chunk.len() as u64,
            stored_bytes: encoded.len() as u64,
            encode_seconds,
            decode_seconds,
            errors,
            unavailable: None,
        },
        Ok(_) => unavailable("decoding did not give the data back".to_string()),
        Err(e) => unavailable(e.to_string()),
    }
}

/// The largest absolute and relative errors of quantized values.
type Errors = (f64, f64);

/// The chunk quantized with `q`, and the largest absolute and relative errors it made;
/// `None` for types other than float and double.
fn quantized(
    sample: &Sample,
    chunk: &[u8],
    q: ncmodel::Quantize,
) -> Option<(Vec<u8>, Option<Errors>)> {
    let TypeRef::Atomic(t) = sample.type_ref else {
        return None;
    };
    let values = Values::from_native_bytes(t, chunk)?;
    let (bytes, pairs): (Vec<u8>, Vec<(f64, f64)>) = match (t, values) {
        (AtomicType::Float, Values::Float(original)) => {
            let mut v = original.clone();
            quantize::quantize_f32(&mut v, q, sample.fill.map(|f| f as f32));
            let pairs = original
                .iter()
                .zip(&v)
                .map(|(a, b)| (f64::from(*a), f64::from(*b)));
            (
                v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
                pairs.collect(),
            )
        }
        (AtomicType::Double, Values::Double(original)) => {
            let mut v = original.clone();
            quantize::quantize_f64(&mut v, q, sample.fill);
            let pairs = original.iter().zip(&v).map(|(a, b)| (*a, *b));
            (
                v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
                pairs.collect(),
            )
        }
        _ => return None,
    };
    let mut worst = (0.0f64, 0.0f64);
    for (a, b) in pairs {
        if !a.is_finite() || Some(a) == sample.fill {
            continue;
        }
        let abs = (a - b).abs();
        worst.0 = worst.0.max(abs);
        if a != 0.0 {
            worst.1 = worst.1.max(abs / a.abs());
        }
    }
    Some((bytes, Some(worst)))
}
