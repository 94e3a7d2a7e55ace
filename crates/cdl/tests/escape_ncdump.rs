//! Escaping of names and text, against output observed with ncdump 4.9.0 (netCDF-C
//! 4.9.0, glibc 2.36) on files written by ncgen 4.9.0 or by small C programs calling
//! libnetcdf directly (for bytes and names CDL cannot express).

use cdl::escape::{
    escape_name, escape_special_string, quote_attribute_text, quote_char_data,
    quote_compound_chars, quote_ncml_attribute, quote_string_value, ATTRIBUTE_LINE_BREAK,
    CHAR_DATA_LINE_BREAK, NULL_STRING,
};

/// Bytes 1 to 255 in order, the value the C programs wrote.
fn every_nonzero_byte() -> Vec<u8> {
    (1..=255).collect()
}

/// Bytes 128 to 255 in order.
fn high_bytes() -> Vec<u8> {
    (0x80..=0xff).collect()
}

/// What ncdump printed for bytes 1–127 in every escaper that uses C escapes, up to the
/// vertical tab (exclusive), and from the form feed to 127 inclusive.
const CONTROLS_UP_TO_NEWLINE: &str = r"\001\002\003\004\005\006\007\b\t";
const FORM_FEED_TO_DEL: &str = concat!(
    r"\f\r\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037",
    r##" !\"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"##,
    r"abcdefghijklmnopqrstuvwxyz{|}~\177",
);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn char_attribute_with_every_byte_in_a_netcdf4_file() {
    // ncdump g4.nc: :allbytes = "…" (bytes 128-255 raw, as the file holds them).
    let mut expected = format!("\"{CONTROLS_UP_TO_NEWLINE}\\n\\v{FORM_FEED_TO_DEL}").into_bytes();
    expected.extend(high_bytes());
    expected.push(b'"');
    assert_eq!(quote_attribute_text(&every_nonzero_byte(), false), expected);
}

#[test]
fn char_attribute_with_every_byte_in_a_classic_file() {
    // ncdump g3.nc (classic): the string is broken after the newline.
    let mut expected =
        format!("\"{CONTROLS_UP_TO_NEWLINE}\\n\",\n\t\t\t\"\\v{FORM_FEED_TO_DEL}").into_bytes();
    expected.extend(high_bytes());
    expected.push(b'"');
    assert_eq!(quote_attribute_text(&every_nonzero_byte(), true), expected);
}

#[test]
fn char_attribute_newlines_and_nuls() {
    // ncdump on classic / netCDF-4 classic model files and on netCDF-4 files.
    assert_eq!(
        text(&quote_attribute_text(b"l1\nl2\nl3", true)),
        "\"l1\\n\",\n\t\t\t\"l2\\n\",\n\t\t\t\"l3\""
    );
    assert_eq!(
        text(&quote_attribute_text(b"l1\n", true)),
        "\"l1\\n\",\n\t\t\t\"\""
    );
    assert_eq!(
        text(&quote_attribute_text(b"l1\nl2\nl3", false)),
        r#""l1\nl2\nl3""#
    );
    assert_eq!(text(&quote_attribute_text(b"ab\0\0\0", false)), r#""ab""#);
    assert_eq!(
        text(&quote_attribute_text(b"ab\0cd", false)),
        r#""ab\000cd""#
    );
    assert_eq!(text(&quote_attribute_text(b"", true)), r#""""#);
    assert_eq!(text(&quote_attribute_text(b"\0", true)), r#""""#);
    assert_eq!(ATTRIBUTE_LINE_BREAK, b"\\n\",\n\t\t\t\"");
}

#[test]
fn string_attribute_values() {
    // ncdump g4.nc: string :strs = "<bytes 1-255>", NIL, "", "x\ny", "a\"b" ;
    let mut expected = format!("\"{CONTROLS_UP_TO_NEWLINE}\\n\\v{FORM_FEED_TO_DEL}").into_bytes();
    expected.extend(high_bytes());
    expected.push(b'"');
    assert_eq!(quote_attribute_text(&every_nonzero_byte(), false), expected);
    assert_eq!(text(&quote_attribute_text(b"", false)), r#""""#);
    assert_eq!(text(&quote_attribute_text(b"x\ny", false)), r#""x\ny""#);
    assert_eq!(text(&quote_attribute_text(b"a\"b", false)), r#""a\"b""#);
    assert_eq!(NULL_STRING, "NIL");
}

#[test]
fn string_data_values_print_vertical_tab_as_newline() {
    // ncdump g4.nc: strings = "…\b\t\n\n\f…" — the second \n is the vertical tab.
    let mut expected = format!("\"{CONTROLS_UP_TO_NEWLINE}\\n\\n{FORM_FEED_TO_DEL}").into_bytes();
    expected.extend(high_bytes());
    expected.push(b'"');
    assert_eq!(quote_string_value(&every_nonzero_byte()), expected);
    assert_eq!(text(&quote_string_value(b"x\ny")), r#""x\ny""#);
    assert_eq!(text(&quote_string_value(b"a\"b")), r#""a\"b""#);
    assert_eq!(text(&quote_string_value("é".as_bytes())), "\"é\"");
}

#[test]
fn string_data_values_stop_at_a_nul() {
    // A string is a C string to ncdump.
    assert_eq!(text(&quote_string_value(b"ab\0cd")), r#""ab""#);
}

#[test]
fn char_data_with_every_byte() {
    // ncdump g4.nc: chars = "\001…\t\n",\n    "\v\f…\177\200…\377" ;
    let high_octal: String = (0x80..=0xffu32).map(|b| format!("\\{b:o}")).collect();
    let expected =
        format!("\"{CONTROLS_UP_TO_NEWLINE}\\n\",\n    \"\\v{FORM_FEED_TO_DEL}{high_octal}\"");
    assert_eq!(text(&quote_char_data(&every_nonzero_byte())), expected);
    assert_eq!(CHAR_DATA_LINE_BREAK, b"\\n\",\n    \"");
}

#[test]
fn char_data_rows() {
    // ncdump gc.nc (a group, yet four blanks): c = "ab\n",\n    "cd" ;
    assert_eq!(
        text(&quote_char_data(b"ab\ncd\0")),
        "\"ab\\n\",\n    \"cd\""
    );
    assert_eq!(text(&quote_char_data("é".as_bytes())), r#""\303\251""#);
    assert_eq!(text(&quote_char_data(b"a\0b\0\0")), r#""a\000b""#);
    assert_eq!(text(&quote_char_data(b"\0\0")), r#""""#);
}

#[test]
fn compound_char_members_get_a_backslash_before_the_raw_byte() {
    // ncdump n4.nc: cv = {1, "\<newline>", {"a\<tab>b\"c\\d\'e\<newline>"}},
    //   {2, "\001", {"\303\251\177\033x\<BS>\<FF>\<CR>\<VT>"}}, {3, "\"", {"ab\000cd"}},
    //   {4, "", {""}} ;
    assert_eq!(text(&quote_compound_chars(b"\n")), "\"\\\n\"");
    assert_eq!(
        text(&quote_compound_chars(b"a\tb\"c\\d'e\n\0")),
        "\"a\\\tb\\\"c\\\\d\\'e\\\n\""
    );
    assert_eq!(text(&quote_compound_chars(b"\x01")), r#""\001""#);
    assert_eq!(
        text(&quote_compound_chars(
            b"\xc3\xa9\x7f\x1bx\x08\x0c\r\x0b\0\0"
        )),
        "\"\\303\\251\\177\\033x\\\x08\\\x0c\\\r\\\x0b\""
    );
    assert_eq!(text(&quote_compound_chars(b"\"")), r#""\"""#);
    assert_eq!(
        text(&quote_compound_chars(b"ab\0cd\0\0\0\0\0")),
        r#""ab\000cd""#
    );
    assert_eq!(text(&quote_compound_chars(b"\0")), r#""""#);
}

#[test]
fn names_with_every_printable_ascii_character() {
    // ncdump n4.nc: a dimension, variable and attribute named "a" + '!'..'~' without '/'
    // + " z".
    let name: String = std::iter::once('a')
        .chain((b'!'..=b'~').filter(|b| *b != b'/').map(char::from))
        .collect();
    let name = name + " z";
    let expected = concat!(
        r##"a\!\"\#\$%\&\'\(\)\*+\,-.0123456789\:\;\<\=\>\?@ABCDEFGHIJKLMNOPQRSTUVWXYZ\[\\\]"##,
        r"\^_\`abcdefghijklmnopqrstuvwxyz\{\|\}\~\ z"
    );
    assert_eq!(escape_name(&name), expected);
}

#[test]
fn names_observed_one_by_one() {
    // ncdump n4.nc and ncgen-made files.
    let cases = [
        ("0lead", r"\0lead"),
        ("9", r"\9"),
        ("_under", "_under"),
        ("é", "é"),
        ("日本語", "日本語"),
        ("x y", r"x\ y"),
        ("a.b", "a.b"),
        ("a-b+c.d@e_g", "a-b+c.d@e_g"),
        ("a%b", "a%b"),
        ("ü?", r"ü\?"),
        ("grp (1)", r"grp\ \(1\)"),
        ("v:x", r"v\:x"),
        ("cmp {t}", r"cmp\ \{t\}"),
        ("m i", r"m\ i"),
        ("m=c", r"m\=c"),
        ("m,cs", r"m\,cs"),
        ("enum&", r"enum\&"),
        ("one;1", r"one\;1"),
        ("2two", r"\2two"),
        ("", ""),
    ];
    for (name, expected) in cases {
        assert_eq!(escape_name(name), expected, "name {name:?}");
    }
}

#[test]
fn control_characters_in_names_as_percent_hex() {
    // Not creatable through the netCDF library; ncdump's rule (utils.c) is `\%xx`.
    assert_eq!(escape_name("a\u{1}b\u{7f}"), r"a\%01b\%7f");
}

#[test]
fn codecs_json_escaping() {
    // ncdump -s prints _Codecs with only '"' and control characters escaped.
    assert_eq!(
        escape_special_string(r#"[{"id": "zlib", "level": 5}]"#),
        r#"[{\"id\": \"zlib\", \"level\": 5}]"#
    );
    assert_eq!(escape_special_string("a\\b\nc"), r"a\b\%0ac");
}

#[test]
fn ncml_text_attributes() {
    // ncdump -x g3.nc.
    let mut expected = String::from("\"");
    for b in 1..=31u8 {
        expected += &match b {
            b'\t' => "&#x9;".to_string(),
            b'\n' => "&#xA;".to_string(),
            b'\r' => "&#xD;".to_string(),
            _ => format!("&#{b};"),
        };
    }
    expected +=
        r##" !&quot;#$%&amp;'()*+,-./0123456789:;&lt;=&gt;?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`"##;
    expected += "abcdefghijklmnopqrstuvwxyz{|}~&#127;";
    let mut expected = expected.into_bytes();
    expected.extend(high_bytes());
    expected.push(b'"');
    assert_eq!(quote_ncml_attribute(&every_nonzero_byte()), expected);
    assert_eq!(text(&quote_ncml_attribute(b"ab\0\0\0")), r#""ab""#);
    assert_eq!(text(&quote_ncml_attribute(b"ab\0cd")), r#""ab&#0;cd""#);
    assert_eq!(
        text(&quote_ncml_attribute(b"l1\nl2\nl3")),
        r#""l1&#xA;l2&#xA;l3""#
    );
    assert_eq!(text(&quote_ncml_attribute(b"\0")), r#""""#);
}
