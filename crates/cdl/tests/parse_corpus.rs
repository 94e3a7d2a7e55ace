//! Runs the parser over netCDF-C's CDL corpus (`../shared/corpus/netcdf-c`): every file
//! ncgen 4.9 accepts must parse; the ones it rejects for syntax must fail.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

/// Files `ncgen -k nc4` rejects with a syntax error (the others it rejects fail later,
/// in semantics or filters, which is not the parser's business).
const REJECTED: &[&str] = &[
    "nc_test4_ref_any.cdl",
    "ncdump_ref_keyword1.cdl",
    "ncdump_ref_keyword2.cdl",
    "ncdump_ref_keyword4.cdl",
    "nczarr_test_ref_any.cdl",
    "nczarr_test_ref_byte.cdl",
    "nczarr_test_ref_ut_map_create.cdl",
    "nczarr_test_ref_ut_map_writedata.cdl",
    "nczarr_test_ref_ut_map_writemeta.cdl",
    "nczarr_test_ref_ut_map_writemeta2.cdl",
    "nczarr_test_ref_ut_mapapi_create.cdl",
    "nczarr_test_ref_ut_mapapi_data.cdl",
    "nczarr_test_ref_ut_mapapi_meta.cdl",
];

fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/netcdf-c");
    dir.is_dir().then_some(dir)
}

#[test]
fn corpus_parses_like_ncgen() {
    let Some(dir) = corpus_dir() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "corpus folder ../shared/corpus/netcdf-c is missing"
        );
        eprintln!("SKIPPED: corpus folder ../shared/corpus/netcdf-c is missing");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "cdl"));
    files.sort();
    let mut failures = Vec::new();
    let (mut parsed, mut rejected) = (0, 0);
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(file) = File::open(path) else { continue };
        let result = cdl::parse_header(BufReader::new(file), &name);
        let expect_error = REJECTED.contains(&name.as_str());
        match (result, expect_error) {
            (Ok(h), false) => {
                parsed += 1;
                // Every data entry must tokenize too.
                for entry in &h.data {
                    let Ok(mut f) = File::open(path) else {
                        continue;
                    };
                    use std::io::{Seek, SeekFrom};
                    let _ = f.seek(SeekFrom::Start(entry.offset));
                    let mut r = cdl::DataReader::for_entry(BufReader::new(f), &name, entry);
                    loop {
                        match r.next() {
                            Ok(Some(_)) => {}
                            Ok(None) => break,
                            Err(e) => {
                                failures.push(format!("{name}: data: {e}"));
                                break;
                            }
                        }
                    }
                }
            }
            (Err(_), true) => rejected += 1,
            (Ok(_), true) => failures.push(format!("{name}: parsed, but ncgen rejects it")),
            (Err(e), false) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "corpus: {parsed} parsed, {rejected} rejected, {} failures",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
