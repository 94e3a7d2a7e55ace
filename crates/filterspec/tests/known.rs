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
    assert_eq!(known::by_codec("bz2").map(|f| f.id), Some(307));
    assert_eq!(known::by_codec("zlib").map(|f| f.id), Some(1));
    assert_eq!(known::name_of(32768), None);
    assert_eq!(known::closest_name("zstdd"), Some("zstd"));
    assert_eq!(known::closest_name("BLOSK"), Some("blosc"));
    assert_eq!(FilterSpec::new(32015, []).name(), Some("zstd"));
}

#[test]
fn output_always_shows_numeric_ids() {
    let specs = parse_spec_list("zstd,3|bzip2,9").unwrap_or_default();
    assert_eq!(filterspec::format_spec_list(&specs), "32015,3|307,9");
}
