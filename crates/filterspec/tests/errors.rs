//! Every error kind, rendered as users see it: the headline, the input with a caret under
//! the offending text, and a hint. Snapshots live in `tests/snapshots/`.

use filterspec::{parse_filter_arg, parse_spec_list, FilterRequests, SpecError};

fn spec_error(input: &str) -> String {
    match parse_spec_list(input) {
        Err(e) => e.render(),
        Ok(specs) => panic!("{input} parsed as {specs:?}"),
    }
}

fn arg_error(input: &str) -> String {
    match parse_filter_arg(input) {
        Err(e) => e.render(),
        Ok(arg) => panic!("{input} parsed as {arg:?}"),
    }
}

fn requests_error(args: &[&str]) -> String {
    match FilterRequests::from_args(args.iter().copied()) {
        Err(e) => e.render(),
        Ok(r) => panic!("{args:?} parsed as {r:?}"),
    }
}

macro_rules! snapshot {
    ($name:ident, $value:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), $value);
        }
    };
}

snapshot!(unknown_type_tag, spec_error("307,9,5x"));
snapshot!(empty_input, spec_error("  "));
snapshot!(empty_spec_at_the_start, spec_error("|307,9"));
snapshot!(empty_spec_in_the_middle, spec_error("307,9||1,5"));
snapshot!(missing_id, spec_error(",9"));
snapshot!(format_prefix, spec_error("[0]307,9"));
snapshot!(invalid_id, spec_error("30x7,9"));
snapshot!(id_out_of_range, spec_error("70000,1"));
snapshot!(id_zero, spec_error("0"));
snapshot!(unknown_name_with_suggestion, spec_error("bzpi2,9"));
snapshot!(unknown_name, spec_error("307,9|frobnicate,1"));
snapshot!(empty_parameter, spec_error("307,,9"));
snapshot!(trailing_comma, spec_error("307,9,"));
snapshot!(not_a_number, spec_error("307,level9"));
snapshot!(fraction_without_tag, spec_error("32013,1.5"));
snapshot!(hex_without_digits, spec_error("307,0x"));
snapshot!(fraction_with_integer_tag, spec_error("307,1.5b"));
snapshot!(byte_out_of_range, spec_error("307,300b"));
snapshot!(short_out_of_range, spec_error("307, 70000s"));
snapshot!(negative_unsigned, spec_error("307,-1u"));
snapshot!(untagged_too_large, spec_error("307,18446744073709551616"));
snapshot!(negative_untagged_too_small, spec_error("307,-2147483649"));
snapshot!(long_out_of_range, spec_error("307,9223372036854775808l"));
snapshot!(float_out_of_range, spec_error("307,1e39f"));
snapshot!(blank_inside_a_number, spec_error("307,9 9"));
snapshot!(missing_filter_spec, arg_error("var"));
snapshot!(empty_variable_name, arg_error("v1&&v2,307,9"));
snapshot!(empty_path_component, arg_error("g//v,307,9"));
snapshot!(star_not_alone, arg_error("v&*,307,9"));
snapshot!(trailing_backslash, arg_error("v\\"));
snapshot!(duplicate_in_argument, arg_error("v&/v,307,9"));
snapshot!(
    spec_error_inside_an_argument,
    arg_error("v1&v2,307,9|4,32,x")
);
snapshot!(repeated_variable, requests_error(&["v,307,9", "/v,1,5"]));
snapshot!(repeated_star, requests_error(&["*,307,9", "*,1,5"]));

#[test]
fn errors_carry_their_span_and_input() {
    let Err(e): Result<_, SpecError> = parse_spec_list("307,9,5x") else {
        panic!("should fail")
    };
    assert_eq!(e.span, 6..8);
    assert_eq!(e.snippet(), "5x");
    assert_eq!(
        e.to_string(),
        "unknown type tag in parameter 2 of filter 307"
    );
}

#[test]
fn carets_line_up_under_multibyte_text() {
    let rendered = arg_error("température&&v,307");
    let lines: Vec<&str> = rendered.lines().collect();
    let caret = lines[2].find('^').unwrap_or(0);
    let column = lines[1].chars().take_while(|c| *c != '&').count() + 1;
    assert_eq!(lines[2][..caret].chars().count(), column);
}
