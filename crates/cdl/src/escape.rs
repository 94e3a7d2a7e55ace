//! Names and text escaped exactly as netCDF-C 4.9's `ncdump` escapes them.
//!
//! ncdump has several escapers that disagree in small ways; each has its own function:
//!
//! - [`escape_name`]: names of dimensions, variables, attributes, groups, types, compound
//!   members, and enum constants in type definitions;
//! - [`quote_attribute_text`]: `char` attribute values;
//! - [`quote_string_attribute`]: `string` attribute values;
//! - [`quote_string_value`]: `string` data values, `string` members of compounds/vlens;
//! - [`quote_char_data`]: one row of `char` variable data;
//! - [`quote_compound_chars`]: `char` members of compound values;
//! - [`escape_special_string`]: the `_Codecs` special attribute;
//! - [`quote_ncml_attribute`]: NcML (`-x`) text attribute values.
//!
//! ncdump never sets a locale, so "control" means bytes 0–31 and 127, "printable" means
//! 32–126; bytes 128–255 are neither, which is why UTF-8 passes through some escapers and
//! comes out as octal escapes (`\303\251`) from others. Text values are bytes, not
//! necessarily UTF-8, so the quoting functions take and return bytes.

/// The CDL spelling of a NULL `string` value.
pub const NULL_STRING: &str = "NIL";

/// How ncdump breaks a `char` attribute's text after each `\n` in files of the classic
/// data model (classic, 64-bit offset, CDF5, netCDF-4 classic): the string ends and a
/// new one starts on the next line, three tabs in.
pub const ATTRIBUTE_LINE_BREAK: &[u8] = b"\\n\",\n\t\t\t\"";

/// How ncdump breaks a row of `char` data after each `\n`: the string ends and a new one
/// starts on the next line, four blanks in (whatever the group nesting).
pub const CHAR_DATA_LINE_BREAK: &[u8] = b"\\n\",\n    \"";

/// Escapes a name for CDL: a backslash before each of `` !"#$&'()*,:;<=>?[\]^`{|}~`` and
/// the blank, before a leading digit (`\2x`), and control characters as `\%xx` (two
/// lower-case hex digits). Everything else passes through, including `%+-./@_` and
/// UTF-8. (ncdump refuses names that begin with a blank or control character; the
/// netCDF library never creates them.)
pub fn escape_name(name: &str) -> String {
    let mut escaped = String::with_capacity(name.len() + 8);
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        escaped.push('\\');
    }
    for c in name.chars() {
        if c.is_ascii_control() {
            escaped.push_str(&format!("\\%{:02x}", u32::from(c)));
        } else if is_special_in_names(c) {
            escaped.push('\\');
            escaped.push(c);
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// Whether ncdump puts a backslash before `c` in a name.
fn is_special_in_names(c: char) -> bool {
    matches!(
        c,
        ' ' | '!'
            | '"'
            | '#'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | ','
            | ':'
            | ';'
            | '<'
            | '='
            | '>'
            | '?'
            | '['
            | ']'
            | '\\'
            | '^'
            | '`'
            | '{'
            | '|'
            | '}'
            | '~'
    )
}

/// Quotes a `char` attribute's text as ncdump does: trailing NULs dropped;
/// `\b \f \n \r \t \v \\ \' \"` as those escapes; other control bytes (including an
/// embedded NUL and 127) as three-digit octal `\ooo`; every other byte, UTF-8 included,
/// as is. With `break_lines` (char attributes in files of the classic data model) each
/// `\n` also ends the string and starts another on the next line
/// ([`ATTRIBUTE_LINE_BREAK`]), even at the very end.
///
/// The result includes the surrounding double quotes.
pub fn quote_attribute_text(text: &[u8], break_lines: bool) -> Vec<u8> {
    let newline: &[u8] = if break_lines {
        ATTRIBUTE_LINE_BREAK
    } else {
        b"\\n"
    };
    quote_with(without_trailing_nuls(text), |byte, out| match byte {
        b'\n' => out.extend_from_slice(newline),
        0x0b => out.extend_from_slice(b"\\v"),
        _ => push_escaped(byte, out, is_c_control),
    })
}

/// Quotes one value of a `string` attribute as ncdump does: [`quote_attribute_text`]
/// without line breaks (not even in classic-model files, which cannot hold strings), up
/// to the value's first NUL. A NULL string is [`NULL_STRING`], not quoted.
pub fn quote_string_attribute(value: &[u8]) -> Vec<u8> {
    quote_attribute_text(until_nul(value), false)
}

/// Quotes a `string` data value (also a `string` member of a compound or vlen, in data
/// or in attributes) as ncdump does: like [`quote_attribute_text`] without line breaks,
/// except that a vertical tab comes out as `\n` (a slip in ncdump), and the value stops
/// at its first NUL. A NULL string is [`NULL_STRING`], not quoted.
pub fn quote_string_value(value: &[u8]) -> Vec<u8> {
    quote_with(until_nul(value), |byte, out| match byte {
        0x0b => out.extend_from_slice(b"\\n"),
        _ => push_escaped(byte, out, is_c_control),
    })
}

/// Quotes one row of `char` variable data as ncdump does: trailing NULs dropped; `\b \f
/// \r \t \v \\ \' \"` as those escapes; each `\n` as `\n` that also ends the string and
/// starts another on the next line ([`CHAR_DATA_LINE_BREAK`]); bytes outside 32–126
/// (control bytes, NUL, 127, and every byte of UTF-8 beyond ASCII) as octal `\ooo`.
pub fn quote_char_data(row: &[u8]) -> Vec<u8> {
    quote_with(without_trailing_nuls(row), |byte, out| match byte {
        b'\n' => out.extend_from_slice(CHAR_DATA_LINE_BREAK),
        0x0b => out.extend_from_slice(b"\\v"),
        _ => push_escaped(byte, out, is_not_printable),
    })
}

/// Quotes the `char` members of a compound value (a scalar member or one row of an array
/// member) as ncdump does, with its odd rule for special characters: trailing NULs
/// dropped; before each of backspace, form feed, newline, carriage return, tab, vertical
/// tab, `\`, `'` and `"` a backslash, followed by the byte itself (a raw newline, tab…);
/// other bytes outside 32–126 (including UTF-8) as octal `\ooo`.
pub fn quote_compound_chars(chars: &[u8]) -> Vec<u8> {
    quote_with(without_trailing_nuls(chars), |byte, out| match byte {
        0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b | b'\\' | b'\'' | b'"' => {
            out.extend_from_slice(&[b'\\', byte]);
        }
        _ => push_octal_unless(byte, out, is_not_printable),
    })
}

/// Escapes the text of the `_Codecs` special attribute (JSON) as ncdump does, without the
/// quotes around it: `"` as `\"`, control characters as `\%xx` (two lower-case hex
/// digits), everything else as is, backslashes included. Stops at a NUL.
pub fn escape_special_string(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars().take_while(|c| *c != '\0') {
        if c.is_ascii_control() {
            escaped.push_str(&format!("\\%{:02x}", u32::from(c)));
        } else if c == '"' {
            escaped.push_str("\\\"");
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// Quotes a text attribute's value for NcML (`ncdump -x`): trailing NULs dropped; `"`
/// `<` `>` `&` as `&quot;` `&lt;` `&gt;` `&amp;`; newline, carriage return and tab as
/// `&#xA;` `&#xD;` `&#x9;`; NUL as `&#0;` (ncdump also warns on standard error); other
/// control bytes as decimal `&#N;`; everything else, `'` and UTF-8 included, as is. The
/// result includes the surrounding double quotes.
pub fn quote_ncml_attribute(text: &[u8]) -> Vec<u8> {
    quote_with(without_trailing_nuls(text), |byte, out| match byte {
        b'"' => out.extend_from_slice(b"&quot;"),
        b'<' => out.extend_from_slice(b"&lt;"),
        b'>' => out.extend_from_slice(b"&gt;"),
        b'&' => out.extend_from_slice(b"&amp;"),
        b'\n' => out.extend_from_slice(b"&#xA;"),
        b'\r' => out.extend_from_slice(b"&#xD;"),
        b'\t' => out.extend_from_slice(b"&#x9;"),
        _ if is_c_control(byte) => out.extend_from_slice(format!("&#{byte};").as_bytes()),
        _ => out.push(byte),
    })
}

/// `text` between double quotes, each byte written by `escape_byte`.
fn quote_with(text: &[u8], mut escape_byte: impl FnMut(u8, &mut Vec<u8>)) -> Vec<u8> {
    let mut quoted = Vec::with_capacity(text.len() + 2);
    quoted.push(b'"');
    for &byte in text {
        escape_byte(byte, &mut quoted);
    }
    quoted.push(b'"');
    quoted
}

/// `text` up to its first NUL: what C sees of a string.
fn until_nul(text: &[u8]) -> &[u8] {
    text.split(|b| *b == 0).next().unwrap_or(&[])
}

/// `text` without its trailing NUL bytes.
fn without_trailing_nuls(text: &[u8]) -> &[u8] {
    let len = text
        .iter()
        .rposition(|b| *b != 0)
        .map_or(0, |last| last + 1);
    &text[..len]
}

/// Writes `byte` with the C escapes `\b \f \n \r \t \\ \' \"`, as octal `\ooo` when
/// `needs_octal` says so, else as is. (Vertical tab is left to the callers, which
/// disagree about it.)
fn push_escaped(byte: u8, out: &mut Vec<u8>, needs_octal: fn(u8) -> bool) {
    let escape = match byte {
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        b'\\' | b'\'' | b'"' => byte,
        _ => return push_octal_unless(byte, out, needs_octal),
    };
    out.extend_from_slice(&[b'\\', escape]);
}

/// Writes `byte` as octal `\ooo` when `needs_octal` says so, else as is.
fn push_octal_unless(byte: u8, out: &mut Vec<u8>, needs_octal: fn(u8) -> bool) {
    if needs_octal(byte) {
        out.extend_from_slice(format!("\\{byte:03o}").as_bytes());
    } else {
        out.push(byte);
    }
}

/// C's `iscntrl` in the C locale: 0–31 and 127.
fn is_c_control(byte: u8) -> bool {
    byte < 0x20 || byte == 0x7f
}

/// Not C's `isprint` in the C locale: anything outside 32–126.
fn is_not_printable(byte: u8) -> bool {
    !(0x20..0x7f).contains(&byte)
}
