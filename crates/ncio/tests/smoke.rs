//! Reading the shipped demo sample (netCDF-4, made by the reference ncgen).

use ncio::NcFile;
use ncmodel::{AtomicType, Format, Layout, TypeRef, Values};

fn sample() -> String {
    format!("{}/../../demo/sample.nc", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn schema_of_the_demo_sample() {
    let file = NcFile::open(&sample()).unwrap_or_else(|e| panic!("{e}"));
    let ds = file.schema().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ds.format, Format::Netcdf4);
    let dims: Vec<(String, usize, bool)> = ds
        .root
        .dims
        .iter()
        .map(|d| (d.name.clone(), d.len, d.unlimited))
        .collect();
    assert_eq!(
        dims,
        [
            ("time".into(), 4, true),
            ("lat".into(), 6, false),
            ("lon".into(), 8, false)
        ]
    );
    let temp = ds
        .root
        .var("temperature")
        .unwrap_or_else(|| panic!("no temperature"));
    assert_eq!(temp.type_ref, TypeRef::Atomic(AtomicType::Float));
    assert_eq!(temp.atts.len(), 2);
    assert_eq!(temp.atts[1].values, Values::Float(vec![-999.0]));
    let storage = temp
        .storage
        .as_ref()
        .unwrap_or_else(|| panic!("no storage"));
    assert!(matches!(storage.layout, Layout::Chunked(_)));
    assert_eq!(ds.specials.superblock_version, Some(2));
    assert!(ds
        .specials
        .nc_properties
        .as_deref()
        .unwrap_or("")
        .starts_with("version=2"));
    let lat = ds.root.var("lat").unwrap_or_else(|| panic!("no lat"));
    let data = file
        .read_slab(&ds, ds.root.ncid, lat, &[1], &[3])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(data, Values::Float(vec![-30.0, -10.0, 10.0]));
}

#[test]
fn missing_file_is_an_error_naming_it() {
    let err = NcFile::open("/nonexistent/x.nc")
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some("/nonexistent/x.nc: No such file or directory")
    );
}
