//! The known-filter table (DECISIONS D3) and names in specs.

use filterspec::known::{self, KNOWN_FILTERS};
use filterspec::{parse_spec_list, FilterSpec};

/// D3, as written in DECISIONS.md.
const D3: &[(&str, u32)] = &[
    ("deflate", 1),
    ("zlib", 1),
    ("zip", 1),
    ("shuffle", 2),
    ("fletcher32", 3),
    ("szip", 4),
    ("nbit", 5),
    ("scaleoffset", 6),
    ("bzip2", 307),
    ("bz2", 307),
    ("lzf", 32000),
    ("blosc", 32001),
    ("mafisc", 32002),
    ("snappy", 32003),
    ("lz4", 32004),
    ("apax", 32005),
    ("cbf", 32006),
    ("jpeg-xr", 32007),
    ("bitshuffle", 32008),
    ("spdp", 32009),
    ("lpc-rice", 32010),
    ("ccsds-123", 32011),
    ("jpeg-ls", 32012),
    ("zfp", 32013),
    ("fpzip", 32014),
    ("zstandard", 32015),
    ("zstd", 32015),
    ("b3d", 32016),
    ("sz", 32017),
    ("fcidecomp", 32018),
    ("sz3", 32024),
    ("blosc2", 32026),
    ("sperr", 32028),
];

#[test]
fn every_name_of_d3_parses_to_its_id_in_any_case() {
    for (name, id) in D3 {
        for written in [name.to_string(), name.to_uppercase()] {
            let parsed = parse_spec_list(&format!("{written},1"));
            assert_eq!(
                parsed.ok(),
                Some(vec![FilterSpec::new(*id, [1])]),
                "{written}"
            );
        }
    }
}

#[test]
fn the_table_has_exactly_the_names_of_d3() {
    let mut table: Vec<(&str, u32)> = KNOWN_FILTERS
        .iter()
        .flat_map(|f| f.names.iter().map(move |n| (*n, f.id)))
        .collect();
    let mut d3 = D3.to_vec();
    table.sort();
    d3.sort();
    assert_eq!(table, d3);
}

#[test]
fn ids_are_unique_and_sorted_and_described() {
    let ids: Vec<u32> = KNOWN_FILTERS.iter().map(|f| f.id).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(ids, sorted);
    assert!(KNOWN_FILTERS
        .iter()
        .all(|f| !f.summary.is_empty() && !f.params.is_empty()));
}

#[test]
fn lookups() {
    assert_eq!(known::by_id(307).map(|f| f.name()), Some("bzip2"));
    assert_eq!(known::name_of(32768), None);
    assert_eq!(known::closest_name("zstdd"), Some("zstd"));
    assert_eq!(known::closest_name("BLOSK"), Some("blosc"));
    assert_eq!(known::name_of(FilterSpec::new(32015, []).id), Some("zstd"));
}

#[test]
fn output_always_shows_numeric_ids() {
    let specs = parse_spec_list("zstd,3|bzip2,9").unwrap_or_default();
    assert_eq!(filterspec::format_spec_list(&specs), "32015,3|307,9");
}

/// The built-in filters' parameters are checked by the tools' parsing (`-F`, `_Filter`),
/// naming what the filter takes; the syntax alone accepts any words (the spec's
/// constants, written on any filter id). Before, `-F '*,zstd,25'` and `-F '*,bzip2,12'`
/// were stored as given and `-F '*,deflate,12'` failed later with "NetCDF: Invalid
/// argument".
#[test]
fn built_in_filter_parameters_are_checked_with_their_range_named() {
    use filterspec::{parse_checked_spec_list, parse_filter_arg};
    for (spec, takes) in [
        ("deflate,12", "deflate takes a level from 0 to 9"),
        ("1,10", "deflate takes a level from 0 to 9"),
        ("bzip2,0", "bzip2 takes a block size from 1 to 9"),
        ("307,12", "bzip2 takes a block size from 1 to 9"),
        ("zstd,25", "zstd takes a level from -131072 to 22"),
        (
            "shuffle|zstd,-131073",
            "zstd takes a level from -131072 to 22",
        ),
        (
            "szip,32,33",
            "szip takes an even number of pixels per block from 2 to 32",
        ),
        (
            "4,4,64",
            "szip takes an even number of pixels per block from 2 to 32",
        ),
        ("blosc,0,0,0,0,12,1,1", "blosc takes a level from 0 to 9"),
        (
            "32001,0,0,0,0,5,3,1",
            "blosc takes a shuffle of 0 (none), 1 (byte) or 2 (bit)",
        ),
        (
            "blosc,0,0,0,0,5,1,6",
            "blosc takes a compressor from 0 to 5",
        ),
    ] {
        let error = match parse_checked_spec_list(spec) {
            Ok(specs) => panic!("{spec}: accepted as {specs:?}"),
            Err(e) => e.render(),
        };
        assert!(error.contains(takes), "{spec}: {error}");
        assert!(parse_filter_arg(&format!("*,{spec}")).is_err(), "{spec}");
        assert!(parse_spec_list(spec).is_ok(), "{spec}");
    }
    for spec in [
        "deflate,0",
        "deflate,9",
        "bzip2,1",
        "bzip2,9",
        "zstd,-131072",
        "zstd,22",
        "zstd,-5",
        "32768,99",
        "szip,32,32",
        "szip,4,8",
        "blosc",
        "blosc,0,0,0,0,9,2,5",
        "lz4,4294967295",
    ] {
        assert!(parse_checked_spec_list(spec).is_ok(), "{spec}");
    }
}
