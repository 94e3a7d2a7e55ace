//! Measuring a filter pipeline that only HDF5 runs (a plugin nctools does not carry) on
//! sampled chunks, for `nccopy --try-filters`: the chunks are written through HDF5's
//! own pipeline into a netCDF-4 file in a private temporary directory, their stored size
//! asked of HDF5, and read back to time the decoding and check the values.

use std::time::Instant;

use filterspec::FilterSpec;
use ncmodel::{
    AtomicType, Dataset, Dim, Format, GlobalSpecials, Group, Layout, Storage, TypeRef, Values, Var,
};

/// What HDF5 did with the sampled chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct Hdf5Measure {
    /// Bytes HDF5 stored for them.
    pub stored_bytes: u64,
    /// Seconds spent writing them (encoding, and the file's own work).
    pub encode_seconds: f64,
    /// Seconds spent reading them back.
    pub decode_seconds: f64,
}

/// Writes `chunks` (whole chunks of values of type `t`, machine byte order, all of one
/// length) through `filters` with HDF5, one chunk per row of a variable chunked by rows;
/// an error says why HDF5 could not (a filter it cannot load, parameters it refuses,
/// values that do not come back).
pub fn measure_with_hdf5(
    t: AtomicType,
    chunks: &[Vec<u8>],
    filters: &[FilterSpec],
) -> Result<Hdf5Measure, String> {
    let element = t.size().max(1);
    let values_per_chunk = chunks.first().map_or(0, |c| c.len() / element);
    if values_per_chunk == 0 || chunks.iter().any(|c| c.len() != values_per_chunk * element) {
        return Err("no whole chunks to measure".into());
    }
    let dir = tempfile::Builder::new()
        .prefix(".nctools-try-")
        .tempdir()
        .map_err(|e| format!("no temporary directory: {e}"))?;
    let path = dir.path().join("try.nc");
    let target = path.to_string_lossy().into_owned();
    let dataset = one_variable(t, chunks.len(), values_per_chunk, filters);
    let started = Instant::now();
    let mut writer = ncio::NcWriter::create(&target, Format::Netcdf4).map_err(|e| e.to_string())?;
    writer.define(&dataset).map_err(|e| e.to_string())?;
    for (row, chunk) in chunks.iter().enumerate() {
        let values = Values::from_native_bytes(t, chunk).ok_or("values of another type")?;
        writer
            .write(&[], "x", &[row, 0], &[1, values_per_chunk], &values)
            .map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())?;
    let encode_seconds = started.elapsed().as_secs_f64();
    let stored_bytes = ncio::stored_sizes(&target, &["/x".to_string()])
        .first()
        .copied()
        .flatten()
        .ok_or("HDF5 did not say what it stored")?;
    let started = Instant::now();
    let input =
        super::open_with(&target, super::InputOptions::default()).map_err(|e| format!("{e:#}"))?;
    let path = filterspec::VarPath::new(Vec::<String>::new(), "x".to_string());
    let mut back = store::RawBuffer::new();
    input
        .read_raw(&path, &[0, 0], &[chunks.len(), values_per_chunk], &mut back)
        .map_err(|e| e.to_string())?;
    let decode_seconds = started.elapsed().as_secs_f64();
    let came_back = back
        .as_bytes()
        .chunks(values_per_chunk * element)
        .eq(chunks.iter().map(Vec::as_slice));
    if !came_back {
        return Err("decoding did not give the data back".into());
    }
    Ok(Hdf5Measure {
        stored_bytes,
        encode_seconds,
        decode_seconds,
    })
}

/// A netCDF-4 dataset of one variable `x(rows, values)` of type `t`, chunked by rows,
/// through `filters`.
fn one_variable(t: AtomicType, rows: usize, values: usize, filters: &[FilterSpec]) -> Dataset {
    let dim = |id: i32, name: &str, len: usize| Dim {
        id,
        name: name.into(),
        len,
        unlimited: false,
    };
    let var = Var {
        id: 0,
        name: "x".into(),
        type_ref: TypeRef::Atomic(t),
        dim_ids: vec![0, 1],
        atts: Vec::new(),
        storage: Some(Storage {
            layout: Layout::Chunked(vec![1, values]),
            filters: filters.to_vec(),
            endianness: ncmodel::Endianness::Native,
            no_fill: true,
            quantize: None,
            codecs: None,
        }),
    };
    Dataset {
        format: Format::Netcdf4,
        is_nczarr: false,
        specials: GlobalSpecials::default(),
        types: Vec::new(),
        root: Group {
            name: "/".into(),
            dims: vec![dim(0, "rows", rows), dim(1, "values", values)],
            vars: vec![var],
            ..Group::default()
        },
    }
}
