//! Fuzzes the filter text parsers: spec lists and `nccopy -F` arguments.
//!
//! Run with `cargo fuzz run filter_text` from the repository root (see docs/development.md).
//! Checks that nothing panics, that every error renders, and that whatever parses formats
//! back to text that parses to the same value.
#![no_main]

use filterspec::{format_spec_list, parse_filter_arg, parse_spec_list, FilterRequests};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_spec_list(text) {
        Ok(specs) => {
            let again = parse_spec_list(&format_spec_list(&specs));
            assert_eq!(again.ok().as_ref(), Some(&specs), "round trip of {text:?}");
        }
        Err(e) => {
            let _ = e.render();
            assert!(e.span.end <= text.len() && text.is_char_boundary(e.span.start));
        }
    }
    match parse_filter_arg(text) {
        Ok(_) => {}
        Err(e) => {
            let _ = e.render();
            assert!(e.span.end <= text.len() && text.is_char_boundary(e.span.start));
        }
    }
    let args: Vec<&str> = text.split('\n').collect();
    if let Err(e) = FilterRequests::from_args(args) {
        let _ = e.render();
    }
});
