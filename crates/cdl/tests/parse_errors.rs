//! Every kind of parse error, rendered, pinned by snapshots.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cdl::parse::{parse_header, DataReader, ErrorKind, ParseError};

/// The first error of the header pass, or else of reading each data entry (the values
/// are checked by the data pass, as ncgen reads them).
fn first_error(text: &str) -> Option<ParseError> {
    let header = match parse_header(text.as_bytes(), "x.cdl") {
        Ok(h) => h,
        Err(e) => return Some(e),
    };
    for entry in &header.data {
        let rest = &text.as_bytes()[entry.offset as usize..];
        let mut reader = DataReader::for_entry(rest, "x.cdl", entry);
        loop {
            match reader.next() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => return Some(e),
            }
        }
    }
    None
}

fn render(text: &str) -> String {
    match first_error(text) {
        None => "parsed without error".to_string(),
        Some(e) => format!("{:?}\n{}", e.kind, e.render()),
    }
}

macro_rules! pin {
    ($name:ident, $text:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), render($text));
        }
    };
}

pin!(
    parse_err_missing_dims_or_eq,
    "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int a ;\n  int b(d) ;\n    float v ;;\n}\n"
);
pin!(
    parse_err_unterminated_string,
    "netcdf x {\nvariables:\n  int v ;\n  v:units = \"meters ;\n}\n"
);
pin!(
    parse_err_unknown_type,
    "netcdf x {\nvariables:\n  flaot v ;\n}\n"
);
pin!(
    parse_err_unknown_user_type,
    "netcdf x {\ntypes:\n  opaque(2) blob_t ;\nvariables:\n  blobt v ;\n}\n"
);
pin!(
    parse_err_unknown_dimension,
    "netcdf x {\ndimensions:\n  time = 3 ;\nvariables:\n  int v(tmie) ;\n}\n"
);
pin!(
    parse_err_undefined_variable_attribute,
    "netcdf x {\nvariables:\n  int temp ;\n  tmp:units = \"K\" ;\n}\n"
);
pin!(
    parse_err_undefined_variable_data,
    "netcdf x {\nvariables:\n  int temp ;\ndata:\n  temp = 1 ;\n  pres = 2 ;\n}\n"
);
pin!(
    parse_err_duplicate_dimension,
    "netcdf x {\ndimensions:\n  d = 2 ;\n  d = 3 ;\n}\n"
);
pin!(
    parse_err_duplicate_variable,
    "netcdf x {\nvariables:\n  int v ;\n  float v ;\n}\n"
);
pin!(
    parse_err_bad_number,
    "netcdf x {\nvariables:\n  int v ;\n  v:a = 1.5e+ ;\n}\n"
);
pin!(
    parse_err_bad_octal,
    "netcdf x {\nvariables:\n  int v ;\n  v:a = 09 ;\n}\n"
);
pin!(
    parse_err_missing_semicolon,
    "netcdf x {\ndimensions:\n  d = 2\nvariables:\n  int v(d) ;\n}\n"
);
pin!(
    parse_err_unbalanced_close,
    "netcdf x {\nvariables:\n  int v ;\ndata:\n  v = 1 } ;\n}\n"
);
pin!(
    parse_err_unbalanced_open,
    "netcdf x {\nvariables:\n  int v ;\ndata:\n  v = {1, 2 ;\n}\n"
);
pin!(
    parse_err_unexpected_eof,
    "netcdf x {\nvariables:\n  int v ;\n"
);
pin!(
    parse_err_unlimited_as_dimension,
    "netcdf x {\ndimensions:\n  t = UNLIMITED ;\nvariables:\n  int v(UNLIMITED) ;\n}\n"
);
pin!(
    parse_err_bad_dimension_length,
    "netcdf x {\ndimensions:\n  d = 2.5 ;\n}\n"
);
pin!(
    parse_err_negative_dimension,
    "netcdf x {\ndimensions:\n  d = -2 ;\n}\n"
);
pin!(
    parse_err_double_comma,
    "netcdf x {\nvariables:\n  int v ;\n  v:a = 1,, 2 ;\n}\n"
);
pin!(
    parse_err_missing_comma_in_data,
    "netcdf x {\ndimensions:\n  d = 2 ;\nvariables:\n  int v(d) ;\ndata:\n  v = 1 2 ;\n}\n"
);
pin!(
    parse_err_mixed_untyped,
    "netcdf x {\nvariables:\n  int v ;\n  v:a = \"x\", 1 ;\n}\n"
);
pin!(
    parse_err_char_from_number,
    "netcdf x {\nvariables:\n  int v ;\n  char v:a = 65 ;\n}\n"
);
pin!(
    parse_err_keyword_as_name,
    "netcdf x {\ndimensions:\n  string = 3 ;\n}\n"
);
pin!(
    parse_err_section_order,
    "netcdf x {\nvariables:\n  int v ;\ndimensions:\n  d = 1 ;\n}\n"
);
pin!(parse_err_not_cdl, "[0] /.zgroup : (0) ||\n");
pin!(
    parse_err_unterminated_comment,
    "netcdf x {\n/* never closed\n}\n"
);
pin!(parse_err_bad_enum_member, "netcdf x {\ntypes:\n  byte enum e_t { A = 1 } ;\nvariables:\n  e_t v ;\n  v:_FillValue = C ;\n}\n");
pin!(
    parse_err_stray_character,
    "netcdf x {\nvariables:\n  int v ;\n  v:a = @chunked@ ;\n}\n"
);

#[test]
fn kinds_are_exposed() {
    let e = parse_header(
        "netcdf x {\ndimensions:\n d = 2 ;\n d = 3 ;\n}".as_bytes(),
        "x.cdl",
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Duplicate);
    assert_eq!((e.line, e.col), (4, 2));
    assert_eq!(
        e.to_string(),
        "x.cdl:4:2: dimension `d` is defined twice in the same group"
    );
}
