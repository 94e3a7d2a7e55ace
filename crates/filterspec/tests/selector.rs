//! `nccopy -F` argument forms (DECISIONS D2): none, `*,none`, `VARS,none`,
//! `VARS,SPECLIST`, `&` lists, `*`, paths with and without `/`, backslash escapes,
//! repeats and unknown names.

use filterspec::{
    escape_path, parse_filter_arg, FilterAction, FilterArg, FilterRequests, FilterSpec,
    SpecErrorKind, VarPath, VarRequest, VarSelection,
};

fn path(text: &str) -> VarPath {
    VarPath::from_plain(text).unwrap_or_else(|| panic!("bad path {text}"))
}

fn parsed(arg: &str) -> FilterArg {
    parse_filter_arg(arg).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn named(arg: &str) -> (Vec<String>, FilterAction) {
    match parsed(arg) {
        FilterArg::Select {
            vars: VarSelection::Named(vars),
            action,
        } => (vars.iter().map(|v| v.path.to_string()).collect(), action),
        other => panic!("{arg}: {other:?}"),
    }
}

fn error_kind(arg: &str) -> SpecErrorKind {
    match parse_filter_arg(arg) {
        Err(e) => e.kind,
        Ok(ok) => panic!("{arg} parsed as {ok:?}"),
    }
}

#[test]
fn none_forms_are_the_global_flag() {
    for arg in ["none", " none ", "*,none", "* , none", "NONE"] {
        assert_eq!(parsed(arg), FilterArg::GlobalNone, "{arg}");
    }
}

#[test]
fn var_none() {
    assert_eq!(named("v,none"), (vec!["/v".into()], FilterAction::None));
    assert_eq!(named("v1&v2,none").0, ["/v1", "/v2"]);
}

#[test]
fn var_speclist() {
    let specs = vec![FilterSpec::new(307, [9]), FilterSpec::new(4, [32, 32])];
    assert_eq!(
        named("var&var2,307,9|4,32,32"),
        (
            vec!["/var".into(), "/var2".into()],
            FilterAction::Specs(specs.clone())
        )
    );
    assert_eq!(
        named("v , bzip2,9|szip,32,32").1,
        FilterAction::Specs(specs)
    );
}

#[test]
fn star_selects_everything() {
    match parsed("*,307,9") {
        FilterArg::Select {
            vars: VarSelection::All,
            action: FilterAction::Specs(specs),
        } => assert_eq!(specs, [FilterSpec::new(307, [9])]),
        other => panic!("{other:?}"),
    }
    assert_eq!(error_kind("*&v,307"), SpecErrorKind::StarNotAlone);
}

#[test]
fn paths_with_and_without_the_leading_slash_are_the_same() {
    assert_eq!(named("g/v,307").0, ["/g/v"]);
    assert_eq!(named("/g/v,307").0, ["/g/v"]);
    assert_eq!(named("v,307").0, ["/v"]);
    assert_eq!(named("/v&/g/h/w,307").0, ["/v", "/g/h/w"]);
    assert!(matches!(
        error_kind("g//v,307"),
        SpecErrorKind::EmptyPathComponent { .. }
    ));
    assert!(matches!(
        error_kind("g/,307"),
        SpecErrorKind::EmptyPathComponent { .. }
    ));
}

#[test]
fn backslash_escapes_the_next_character() {
    let (names, _) = named(r"a\,b&c\&d&e\|f&g\\h,307");
    assert_eq!(names, ["/a,b", "/c&d", "/e|f", r"/g\h"]);
    let odd = VarPath::new(["g,1"], "x&y");
    assert_eq!(escape_path(&odd), r"/g\,1/x\&y");
    assert_eq!(
        named(&format!("{},none", escape_path(&odd))).0,
        ["/g,1/x&y"]
    );
    assert_eq!(error_kind("v\\"), SpecErrorKind::TrailingBackslash);
}

#[test]
fn malformed_arguments() {
    assert_eq!(error_kind("v"), SpecErrorKind::MissingFilterSpec);
    assert_eq!(error_kind(""), SpecErrorKind::EmptyInput);
    assert_eq!(error_kind("v,"), SpecErrorKind::EmptyInput);
    assert_eq!(error_kind("&v,307"), SpecErrorKind::EmptyVariableName);
    assert_eq!(error_kind("v&&w,307"), SpecErrorKind::EmptyVariableName);
    assert_eq!(error_kind(",307"), SpecErrorKind::EmptyVariableName);
    assert!(matches!(
        error_kind("v&v,307"),
        SpecErrorKind::DuplicateInArgument { .. }
    ));
    assert!(matches!(
        error_kind("v&/v,307"),
        SpecErrorKind::DuplicateInArgument { .. }
    ));
}

#[test]
fn a_variable_named_in_two_options_is_an_error() {
    let mut requests = FilterRequests::new();
    assert!(requests.add("v,307,9").is_ok());
    let err = requests.add("/v,1,5").err().map(|e| e.kind);
    assert_eq!(
        err,
        Some(SpecErrorKind::RepeatedVariable { path: "/v".into() })
    );
    let twice_star = FilterRequests::from_args(["*,307", "*,1,1"])
        .err()
        .map(|e| e.kind);
    assert_eq!(twice_star, Some(SpecErrorKind::RepeatedStar));
}

#[test]
fn requests_per_variable() {
    let requests = FilterRequests::from_args(["*,307,9", "a,none", "g/b,1,5"])
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(!requests.global_none());
    assert_eq!(requests.request_for(&path("a")), VarRequest::None);
    assert_eq!(
        requests.request_for(&path("/g/b")),
        VarRequest::Specs(&[FilterSpec::new(1, [5])])
    );
    assert_eq!(
        requests.request_for(&path("c")),
        VarRequest::Specs(&[FilterSpec::new(307, [9])])
    );
    assert!(requests.is_explicit(&path("a")) && !requests.is_explicit(&path("c")));
    let none = FilterRequests::from_args(["none"]).map(|r| r.global_none());
    assert_eq!(none, Ok(true));
    assert_eq!(
        FilterRequests::new().request_for(&path("a")),
        VarRequest::Undefined
    );
}

#[test]
fn unknown_names_are_reported_with_close_matches() {
    let requests = FilterRequests::from_args(["tmep&pressure&zzz,307,9"])
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let available = [path("temp"), path("pressure"), path("g/temp")];
    let unmatched: Vec<(String, Vec<String>)> = requests
        .unmatched(&available)
        .into_iter()
        .map(|u| {
            (
                u.path.to_string(),
                u.suggestions.iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(
        unmatched,
        [
            ("/tmep".into(), vec!["/temp".into()]),
            ("/zzz".into(), vec![])
        ]
    );
}
