//! nccopy copies the stored chunks of a variable as they are when its filters, chunk
//! shape, type and byte order do not change: along an unlimited dimension too, keeping
//! chunks the input never wrote unwritten (they read as fill values, as in the input),
//! and byte for byte. `--recode` decodes and encodes them instead, to the same data.
//! (Copying without the filter present is in nccopy_filters.rs and filters_interop.rs.)
//! And the output does not depend on the number of threads (`-j`).

use std::fs;
use std::path::Path;

use crate::support::{from_line, ok, reference, run, scratch, Test};

/// A record variable in chunks of 2 records (5 written: values T), and a fixed variable
/// of 4 chunks of which only the first is written (the rest is fill), both filtered.
const CDL: &str = r#"netcdf stored {
dimensions:
	time = UNLIMITED ;
	x = 10000 ;
variables:
	double time(time) ;
	float t(time, x) ;
		t:_ChunkSizes = 2, 10000 ;
		t:_Filter = "307,9" ;
		t:_Shuffle = "true" ;
	int f(x) ;
		f:_ChunkSizes = 2500 ;
		f:_FillValue = -7 ;
		f:_Filter = "32015,3" ;
data:
 time = 0, 1, 2, 3, 4 ;
 f = 1, 2, 3 ;
 t = T ;
}
"#;

/// `h5dump -p -H` of one dataset: its storage layout, stored size and filters.
fn storage(h5dump: &Path, file: &Path, dataset: &str) -> String {
    let done = run(std::process::Command::new(h5dump)
        .args(["-p", "-H", "-d", dataset])
        .arg(file));
    let text = ok("h5dump", done);
    let start = text.find("STORAGE_LAYOUT").unwrap_or(0);
    let end = text.find("FILLVALUE").unwrap_or(text.len());
    text[start..end].to_string()
}

/// [`CDL`] with its records written, as a netCDF-4 file in `dir`.
fn stored_input(dir: &Path) -> std::path::PathBuf {
    let cdl = dir.join("stored.cdl");
    let input = dir.join("stored.nc");
    let values: Vec<String> = (0..50000).map(|i| format!("{}", i as f32 / 8.0)).collect();
    fs::write(
        &cdl,
        CDL.replace(" t = T ;", &format!(" t = {} ;", values.join(", "))),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ok(
        "ncgen",
        Test::ours("ncgen")
            .args(["-k", "nc4", "-o"])
            .arg(&input)
            .arg(&cdl)
            .run(),
    );
    input
}

#[test]
fn record_and_partly_written_variables_are_copied_as_stored() {
    let Some(h5dump) = reference("h5dump") else {
        return;
    };
    let dir = scratch();
    let input = stored_input(dir.path());
    let plan = ok(
        "--dry-run",
        Test::ours("nccopy").arg("--dry-run").arg(&input).run(),
    );
    assert_eq!(
        plan,
        "/time\t-\ttable row 7, stored chunks copied\n\
         /t\t2,4|307,9\ttable row 4, stored chunks copied\n\
         /f\t32015,3\ttable row 4, stored chunks copied\n"
    );
    let copy = dir.path().join("copy.nc");
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&copy).run());
    let recoded = dir.path().join("recoded.nc");
    ok(
        "nccopy --recode",
        Test::ours("nccopy")
            .arg("--recode")
            .arg(&input)
            .arg(&recoded)
            .run(),
    );
    let dump = |file: &Path| ok("ncdump", Test::ours("ncdump").arg(file).run());
    let data = |file: &Path| from_line(&dump(file), "dimensions:").to_string();
    assert_eq!(data(&copy), data(&input));
    assert_eq!(data(&recoded), data(&input));
    assert!(data(&copy).contains("time = UNLIMITED ; // (5 currently)"));
    assert!(data(&copy).contains(" f = 1, 2, 3, _, _,"));
    // The stored bytes are the input's: the same sizes, filters and layout, and f keeps
    // its three unwritten chunks unwritten.
    for dataset in ["/t", "/f", "/time"] {
        assert_eq!(
            storage(&h5dump, &copy, dataset),
            storage(&h5dump, &input, dataset),
            "{dataset}"
        );
    }
    // Written whole, t is not pre-filled, as the reference nccopy writes it; f, whose
    // unwritten chunks must read as fill, keeps its fill value.
    let header = ok(
        "ncdump -hs",
        Test::ours("ncdump").arg("-hs").arg(&copy).run(),
    );
    assert!(header.contains("t:_NoFill = \"true\" ;"), "{header}");
    assert!(!header.contains("f:_NoFill"), "{header}");
}

/// The output is the same bytes whatever the number of threads (`-j`), for chunks encoded
/// here (fixed and record variables), copied as stored, or written through libnetcdf.
#[test]
fn output_bytes_do_not_depend_on_jobs() {
    let dir = scratch();
    let input = stored_input(dir.path());
    for options in [
        &["-d", "1", "-s"][..],
        &["-F", "*,bzip2,9", "-c", "time/1,x/1000"],
        &["-F", "t,zstd,3|shuffle"],
        &[],
        &["--recode"],
    ] {
        let outputs: Vec<Vec<u8>> = ["1", "2", "3"]
            .iter()
            .map(|jobs| {
                let out = dir.path().join(format!("j{jobs}.nc"));
                ok(
                    &format!("nccopy -j {jobs} {options:?}"),
                    Test::ours("nccopy")
                        .args(["-j", jobs])
                        .args(options)
                        .arg(&input)
                        .arg(&out)
                        .run(),
                );
                fs::read(&out).unwrap_or_else(|e| panic!("{e}"))
            })
            .collect();
        assert!(
            outputs[0] == outputs[1] && outputs[1] == outputs[2],
            "{options:?}: the output depends on -j"
        );
    }
}
