//! Filtered netCDF-4 variables are read by decoding their stored chunks here (on every
//! core) when nctools implements every filter: the values are the ones written, through
//! `read_slab` and `read_raw` alike, and the chunks were decoded here, not by HDF5.

use filterspec::FilterSpec;
use ncio::{NcFile, NcWriter, RawBuffer};
use ncmodel::{AtomicType, Dataset, Dim, Endianness, Format, Group, Layout, Storage, TypeRef};
use ncmodel::{Values, Var};

/// `int v(x)` of 1000 values in chunks of 100, with the filters `filters`.
fn filtered_file(path: &str, filters: Vec<FilterSpec>) {
    let var = Var {
        id: 0,
        name: "v".into(),
        type_ref: TypeRef::Atomic(AtomicType::Int),
        dim_ids: vec![0],
        atts: Vec::new(),
        storage: Some(Storage {
            layout: Layout::Chunked(vec![100]),
            filters,
            endianness: Endianness::Big,
            no_fill: false,
            quantize: None,
            codecs: None,
        }),
    };
    let dataset = Dataset {
        format: Format::Netcdf4,
        is_nczarr: false,
        specials: Default::default(),
        types: Vec::new(),
        root: Group {
            ncid: 0,
            name: "/".into(),
            dims: vec![Dim {
                id: 0,
                name: "x".into(),
                len: 1000,
                unlimited: false,
            }],
            type_ids: Vec::new(),
            vars: vec![var],
            atts: Vec::new(),
            groups: Vec::new(),
        },
    };
    let mut writer = NcWriter::create(path, Format::Netcdf4).unwrap_or_else(|e| panic!("{e}"));
    writer.define(&dataset).unwrap_or_else(|e| panic!("{e}"));
    let values = Values::Int((0..1000).map(|i| i * 7 - 3000).collect());
    writer
        .write(&[], "v", &[0], &[1000], &values)
        .unwrap_or_else(|e| panic!("{e}"));
    writer.finish().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn filtered_chunks_are_decoded_here() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("f.nc").to_string_lossy().into_owned();
    let shuffle_deflate = vec![FilterSpec::new(2, vec![4]), FilterSpec::new(1, vec![3])];
    filtered_file(&path, shuffle_deflate);
    let file = NcFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let schema = file.schema().unwrap_or_else(|e| panic!("{e}"));
    let var = &schema.root.vars[0];
    assert_eq!(file.chunks_decoded_here(), 0);
    let all = file
        .read_slab(&schema, schema.root.ncid, var, &[0], &[1000])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(all, Values::Int((0..1000).map(|i| i * 7 - 3000).collect()));
    assert_eq!(file.chunks_decoded_here(), 10);
    // Raw bytes (nccopy's way), across two chunks, in the machine's byte order.
    let mut raw = RawBuffer::new();
    file.read_raw(schema.root.ncid, var.id, &[150], &[100], &mut raw)
        .unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<u8> = (150..250)
        .flat_map(|i: i32| (i * 7 - 3000).to_ne_bytes())
        .collect();
    assert_eq!(raw.as_bytes(), expected);
    assert_eq!(file.chunks_decoded_here(), 12);
}

#[test]
fn filters_nctools_lacks_are_left_to_hdf5() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("n.nc").to_string_lossy().into_owned();
    // HDF5's own N-bit filter (5), which nctools does not decode.
    filtered_file(&path, vec![FilterSpec::new(5, Vec::new())]);
    let file = NcFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let schema = file.schema().unwrap_or_else(|e| panic!("{e}"));
    let var = &schema.root.vars[0];
    let ids: Vec<u32> = var
        .storage
        .iter()
        .flat_map(|s| s.filters.iter().map(|f| f.id))
        .collect();
    assert_eq!(ids, [5]);
    let all = file
        .read_slab(&schema, schema.root.ncid, var, &[0], &[1000])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(all, Values::Int((0..1000).map(|i| i * 7 - 3000).collect()));
    assert_eq!(file.chunks_decoded_here(), 0);
}

/// Szip (HDF5's filter 4, libaec): libnetcdf reports two of its words, HDF5 stores four
/// (mask, pixels per block, bits per pixel, pixels per scanline); the chunks are decoded
/// here with HDF5's four, and read as written, big-endian included.
#[test]
fn szip_chunks_are_decoded_here_with_hdf5s_words() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("s.nc").to_string_lossy().into_owned();
    // Nearest-neighbour preprocessing, 32 pixels per block, as `-F '*,4,32,32'`.
    filtered_file(&path, vec![FilterSpec::new(4, vec![32, 32])]);
    let file = NcFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let schema = file.schema().unwrap_or_else(|e| panic!("{e}"));
    let var = &schema.root.vars[0];
    let all = file
        .read_slab(&schema, schema.root.ncid, var, &[0], &[1000])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(all, Values::Int((0..1000).map(|i| i * 7 - 3000).collect()));
    assert_eq!(file.chunks_decoded_here(), 10);
}
