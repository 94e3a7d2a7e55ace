//! Stores written by the reference netCDF-C tools, read by ZarrReader.

mod common;

use ncmodel::{AtomicType, TypeRef, Values};
use store::{StoreReader, ZarrFlavor, ZarrVersion};
use zarr::ZarrReader;

const CDL: &str = r#"netcdf t1 {
dimensions:
	x = 3 ;
	y = 4 ;
variables:
	byte vb(x) ;
	short vs(x, y) ;
		vs:_FillValue = -5s ;
		vs:units = "m" ;
	uint vui(x) ;
	int64 vi64(x) ;
	float vf(x) ;
		vf:fa = NaNf, 1.5f ;
	double vd(x, y) ;
	char vc(y) ;
	ubyte vub(x) ;
	ushort vus(x) ;
	uint64 vu64(x) ;
	int vi(x) ;
// global attributes:
		:title = "test" ;
		:gi = -4, 5 ;
		:gd = 2.5 ;
data:
 vb = 1, -2, 3 ;
 vs = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, _ ;
 vf = 1.5, 2.5, 3.5 ;
 vd = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
 vc = "abc" ;
 vub = 1, 2, 255 ;
 vus = 1, 2, 65535 ;
 vu64 = 1, 2, 18000000000000000000 ;
 vi = -1, 0, 1 ;
group: g {
  dimensions:
	z = 2 ;
  variables:
	int a(x, z) ;
  data:
   a = 1, 2, 3, 4, 5, 6 ;
  }
}
"#;

#[test]
fn reads_what_nccopy_writes() {
    if !common::reference_tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let store = common::reference_store(dir.path(), "t1", CDL);
    let reader = ZarrReader::open(
        &common::location(&store, ZarrFlavor::NcZarr, ZarrVersion::V2),
        &store::NoRemoteStores,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let ds = reader.schema().unwrap_or_else(|e| panic!("{e}"));
    assert!(ds.is_nczarr);
    assert_eq!(
        ds.specials.nc_properties.as_deref(),
        Some("version=2,netcdf=4.9.0,nczarr=2.0.0")
    );
    let names: Vec<&str> = ds.root.dims.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["x", "y"]);
    assert_eq!(ds.root.atts[0].values, Values::Char(b"test".to_vec()));
    assert_eq!(ds.root.atts[1].values, Values::Int(vec![-4, 5]));
    let read = |g: &ncmodel::Group, name: &str, start: &[usize], count: &[usize]| {
        let var = g.var(name).unwrap_or_else(|| panic!("no {name}"));
        reader
            .read_slab(
                &ds,
                &ds.var_path(g.ncid, var)
                    .unwrap_or_else(|| panic!("not a variable of the schema")),
                start,
                count,
            )
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert_eq!(
        read(&ds.root, "vb", &[0], &[3]),
        Values::Byte(vec![1, -2, 3])
    );
    assert_eq!(
        read(&ds.root, "vs", &[1, 2], &[2, 2]),
        Values::Short(vec![7, 8, 11, -5])
    );
    assert_eq!(
        read(&ds.root, "vc", &[0], &[4]),
        Values::Char(b"abc\0".to_vec())
    );
    assert_eq!(
        read(&ds.root, "vu64", &[2], &[1]),
        Values::UInt64(vec![18000000000000000000])
    );
    assert_eq!(
        read(&ds.root, "vui", &[0], &[1]),
        Values::UInt(vec![4294967295])
    );
    let vs = ds.root.var("vs").unwrap_or_else(|| panic!("vs"));
    assert_eq!(vs.type_ref, TypeRef::Atomic(AtomicType::Short));
    let storage = vs.storage.as_ref().unwrap_or_else(|| panic!("storage"));
    assert!(storage.no_fill, "nccopy writes fill_value null");
    let g = &ds.root.groups[0];
    assert_eq!(g.dims[0].name, "z");
    assert_eq!(g.vars[0].dim_ids, vec![ds.root.dims[0].id, g.dims[0].id]);
    assert_eq!(
        read(g, "a", &[1, 0], &[2, 2]),
        Values::Int(vec![3, 4, 5, 6])
    );
}
