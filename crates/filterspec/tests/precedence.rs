//! The spec's "-F none" precedence table, all eight rows, driven through `-F` arguments as
//! nccopy users write them (DECISIONS D2).

use filterspec::{decide, FilterRequests, FilterSpec, Pipeline, PrecedenceRow, VarPath};

fn var(path: &str) -> VarPath {
    VarPath::from_plain(path).unwrap_or_else(|| panic!("bad path {path}"))
}

/// The pipeline and row for `path`, given the `-F` arguments and the input's filters.
fn plan(args: &[&str], path: &str, input: &[FilterSpec]) -> (String, u8) {
    let requests = FilterRequests::from_args(args.iter().copied())
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let input = Pipeline::from_stored(input.to_vec());
    let outcome = decide(
        requests.global_none(),
        requests.request_for(&var(path)),
        &input,
    );
    (outcome.pipeline.to_string(), outcome.row.number())
}

fn bzip2() -> Vec<FilterSpec> {
    vec![FilterSpec::new(307, [9])]
}

#[test]
fn row_1_none_and_undefined_is_unfiltered() {
    assert_eq!(plan(&["none"], "v", &bzip2()), ("-".into(), 1));
    assert_eq!(plan(&["*,none"], "v", &bzip2()), ("-".into(), 1));
    assert_eq!(plan(&["none"], "v", &[]), ("-".into(), 1));
}

#[test]
fn row_2_none_and_var_none_is_unfiltered() {
    assert_eq!(plan(&["none", "v,none"], "v", &bzip2()), ("-".into(), 2));
}

#[test]
fn row_3_none_and_var_defined_uses_the_output_filters() {
    // The reference nccopy 4.9 never reaches this row; the spec's table does.
    assert_eq!(plan(&["none", "v,1,5"], "v", &bzip2()), ("1,5".into(), 3));
    assert_eq!(plan(&["v,1,5", "none"], "v", &[]), ("1,5".into(), 3));
    assert_eq!(
        plan(&["none", "*,32015,3"], "v", &bzip2()),
        ("32015,3".into(), 3)
    );
}

#[test]
fn row_4_undefined_keeps_the_input_filters() {
    let input = [FilterSpec::new(2, [4]), FilterSpec::new(1, [5])];
    assert_eq!(plan(&[], "v", &input), ("2,4|1,5".into(), 4));
    assert_eq!(plan(&["other,307,1"], "v", &input), ("2,4|1,5".into(), 4));
}

#[test]
fn row_5_var_none_is_unfiltered() {
    assert_eq!(plan(&["v,none"], "v", &bzip2()), ("-".into(), 5));
    assert_eq!(plan(&["*,307,9", "v,none"], "v", &bzip2()), ("-".into(), 5));
}

#[test]
fn row_6_defined_on_unfiltered_input_uses_the_output_filters() {
    assert_eq!(plan(&["v,307,9"], "v", &[]), ("307,9".into(), 6));
    assert_eq!(plan(&["*,307,9"], "/g/v", &[]), ("307,9".into(), 6));
}

#[test]
fn row_7_undefined_on_unfiltered_input_is_unfiltered() {
    assert_eq!(plan(&[], "v", &[]), ("-".into(), 7));
}

#[test]
fn row_8_defined_replaces_the_input_filters_without_merging() {
    let input = [FilterSpec::new(2, [4]), FilterSpec::new(307, [9])];
    assert_eq!(plan(&["v,32015,3"], "v", &input), ("32015,3".into(), 8));
}

#[test]
fn output_pipelines_are_in_stored_order() {
    assert_eq!(plan(&["v,2|307,9|3"], "v", &[]), ("3|2|307,9".into(), 6));
}

#[test]
fn explicit_names_override_star() {
    let args = ["*,307,9", "v,1,1"];
    assert_eq!(plan(&args, "v", &[]), ("1,1".into(), 6));
    assert_eq!(plan(&args, "w", &[]), ("307,9".into(), 6));
}

#[test]
fn every_row_is_reachable_and_described_as_in_the_spec() {
    let rows: Vec<u8> = PrecedenceRow::ALL.iter().map(|r| r.number()).collect();
    assert_eq!(rows, [1, 2, 3, 4, 5, 6, 7, 8]);
    let table: Vec<String> = PrecedenceRow::ALL
        .iter()
        .map(|r| r.cells().join(" | "))
        .collect();
    assert_eq!(
        table,
        [
            "true | undefined | NA | unfiltered",
            "true | none | NA | unfiltered",
            "true | defined | NA | use output filter(s)",
            "false | undefined | defined | use input filter(s)",
            "false | none | NA | unfiltered",
            "false | defined | undefined | use output filter(s)",
            "false | undefined | undefined | unfiltered",
            "false | defined | defined | use output filter(s)",
        ]
    );
    assert_eq!(PrecedenceRow::ALL[2].to_string(), "table row 3");
}
