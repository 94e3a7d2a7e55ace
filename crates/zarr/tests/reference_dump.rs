//! Our NCZarr output, read by the reference ncdump, prints what the reference's own store
//! of the same data prints.

mod common;

use std::path::Path;

use store::{StoreReader, StoreWriter, VarPath, ZarrFlavor, ZarrVersion};
use zarr::{ZarrReader, ZarrWriter};

const CDL: &str = r#"netcdf d {
dimensions:
	x = 3 ;
	y = 5 ;
variables:
	byte vb(x) ;
		vb:a = 1b, 2b ;
	short vs(x, y) ;
		vs:_FillValue = -5s ;
		vs:units = "m" ;
	int vi(x) ;
	uint vui(x) ;
	int64 vi64(x, y) ;
	uint64 vu64(x) ;
	float vf(y) ;
		vf:fa = NaNf, 1.5f, -Infinityf ;
	double vd(x, y) ;
		vd:d = 1e300, -2.5 ;
	char vc(x, y) ;
	ubyte vub(x) ;
	ushort vus(x) ;
// global attributes:
		:title = "dump test" ;
		:gi64 = -5000000000LL ;
		:gf = 0.1f ;
data:
 vb = 1, -2, 3 ;
 vs = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, _, 13, 14, 15 ;
 vi = -1, 0, 1 ;
 vi64 = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, -9000000000000 ;
 vf = 1.5, NaN, 3.5, 4, 5 ;
 vd = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15.25 ;
 vc = "abc", "de", "fghij" ;
 vub = 1, 2, 255 ;
 vus = 1, 2, 65535 ;
group: g {
  dimensions:
	z = 2 ;
  variables:
	int a(x, z) ;
		a:_FillValue = -1 ;
  // group attributes:
		:ga = "in g" ;
  data:
   a = 1, 2, 3, 4, 5, _ ;
  group: h {
    variables:
	float b(z, y) ;
    data:
     b = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ;
    }
  }
}
"#;

/// Copies a store with ZarrReader and ZarrWriter.
fn copy(from: &Path, to: &Path) {
    let reader = ZarrReader::open(
        &common::location(from, ZarrFlavor::NcZarr, ZarrVersion::V2),
        &store::NoRemoteStores,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let ds = reader.schema().unwrap_or_else(|e| panic!("{e}"));
    let location = common::location(to, ZarrFlavor::NcZarr, ZarrVersion::V2);
    let mut writer = Box::new(
        ZarrWriter::create(&location, ncmodel::Format::Netcdf4, &store::NoRemoteStores)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    writer.set_no_fill().unwrap_or_else(|e| panic!("{e}"));
    writer.define(&ds).unwrap_or_else(|e| panic!("{e}"));
    copy_group(&reader, &writer, &ds, &ds.root, &mut Vec::new());
    writer.finish().unwrap_or_else(|e| panic!("{e}"));
}

fn copy_group(
    reader: &ZarrReader,
    writer: &ZarrWriter,
    ds: &ncmodel::Dataset,
    group: &ncmodel::Group,
    path: &mut Vec<String>,
) {
    for var in &group.vars {
        let count: Vec<usize> = var
            .dim_ids
            .iter()
            .map(|d| ds.dim(*d).map_or(0, |d| d.len))
            .collect();
        let start = vec![0; count.len()];
        let values = reader
            .read_slab(
                ds,
                &ds.var_path(group.ncid, var)
                    .unwrap_or_else(|| panic!("not a variable of the schema")),
                &start,
                &count,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        writer
            .write(
                &VarPath::new(path.iter().cloned(), var.name.clone()),
                &start,
                &count,
                &values,
            )
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for child in &group.groups {
        path.push(child.name.clone());
        copy_group(reader, writer, ds, child, path);
        path.pop();
    }
}

fn dump(store: &Path, args: &[&str]) -> String {
    let url = common::url(store);
    let mut all: Vec<&str> = args.to_vec();
    all.push(&url);
    let text = common::run("/usr/bin/ncdump", &all);
    // The first line names the store.
    text.split_once('\n')
        .map_or(String::new(), |(_, rest)| rest.to_string())
}

#[test]
fn reference_ncdump_reads_our_store_as_its_own() {
    if !common::reference_tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let theirs = common::reference_store(dir.path(), "d", CDL);
    let ours = dir.path().join("ours.zarr");
    copy(&theirs, &ours);
    assert_eq!(dump(&ours, &["-s"]), dump(&theirs, &["-s"]));
    // The metadata files are byte for byte those of netCDF-C 4.9.0, but for a float
    // attribute's number: the float's own value as a double, as xarray writes it (JSON
    // numbers are read as doubles), which netCDF-C reads back, through its `<f4` type, as
    // the same float (the dumps above are equal).
    let float_as_written = ("\"gf\": 0.10000000149011612", "\"gf\": 0.1");
    for file in [
        ".zgroup",
        ".zattrs",
        "vs/.zarray",
        "vs/.zattrs",
        "g/.zgroup",
        "g/a/.zarray",
        "g/h/b/.zarray",
    ] {
        let read = |root: &Path| {
            std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
        };
        let mut written = read(&ours);
        if file == ".zattrs" {
            assert!(written.contains(float_as_written.0), "{written}");
            written = written.replace(float_as_written.0, float_as_written.1);
        }
        assert_eq!(written, read(&theirs), "{file}");
    }
}
