//! Number and text literals shared by the languages.

/// A netCDF name as it may stand inside a comment or docstring of any of the languages:
/// printable ASCII but for the characters that end or escape one there (`*` and `/` of
/// C's `*/`, `\` of Java's `\u` escapes and Python's, `"` of Python's `"""`), each
/// other character shown as `?`. A name is code only in literals and identifiers, which
/// have their own escaping; this is for the text people read.
pub fn comment_text(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '*' | '/' | '\\' | '"' => '?',
            c if c == ' ' || c.is_ascii_graphic() => c,
            _ => '?',
        })
        .collect()
}

/// How a comment names the group at `path` (names from the root): `the root group` or
/// `group /a/b`, each name made [`comment_text`].
pub fn group_label(path: &[String]) -> String {
    if path.is_empty() {
        "the root group".to_string()
    } else {
        let names: Vec<String> = path.iter().map(|n| comment_text(n)).collect();
        format!("group /{}", names.join("/"))
    }
}

/// A finite floating-point value as the shortest decimal that reads back to the same
/// value: plain (`0.25`, `3.0`) when short, else with an exponent (`9.96921e36`).
/// `None` for NaN and the infinities, which each language spells its own way.
pub fn float_text(value: f64, shortest_plain: String, shortest_exp: String) -> Option<String> {
    if !value.is_finite() {
        return None;
    }
    if shortest_plain.len() <= 16 {
        if shortest_plain.contains('.') {
            Some(shortest_plain)
        } else {
            Some(format!("{shortest_plain}.0"))
        }
    } else {
        Some(shortest_exp)
    }
}

/// A `float` (32-bit) value's literal digits (see [`float_text`]).
pub fn f32_text(value: f32) -> Option<String> {
    float_text(f64::from(value), format!("{value}"), format!("{value:e}"))
}

/// A `double` value's literal digits (see [`float_text`]).
pub fn f64_text(value: f64) -> Option<String> {
    float_text(value, format!("{value}"), format!("{value:e}"))
}

/// Joins `items` with `, `, starting a new line (indented by `indent`) before a line
/// grows past 80 columns.
pub fn wrap(items: impl IntoIterator<Item = String>, indent: &str) -> String {
    let mut out = String::new();
    let mut line_len = indent.len();
    let mut first = true;
    for item in items {
        if !first {
            out.push(',');
            line_len += 1;
            if line_len + item.len() + 1 > 80 {
                out.push('\n');
                out.push_str(indent);
                line_len = indent.len();
            } else {
                out.push(' ');
                line_len += 1;
            }
        }
        first = false;
        line_len += item.len();
        out.push_str(&item);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_back_to_themselves() {
        assert_eq!(f32_text(0.1).as_deref(), Some("0.1"));
        assert_eq!(f32_text(3.0).as_deref(), Some("3.0"));
        assert_eq!(f32_text(9.969_21e36).as_deref(), Some("9.96921e36"));
        assert_eq!(f64_text(-1.5e-300).as_deref(), Some("-1.5e-300"));
        assert_eq!(f64_text(f64::NAN), None);
        assert_eq!(f32_text(f32::NEG_INFINITY), None);
    }

    #[test]
    fn long_lists_wrap() {
        let items = (0..40).map(|i| format!("{i}"));
        let text = wrap(items, "    ");
        assert!(text.lines().count() > 1);
        assert!(text.lines().all(|l| l.len() <= 80));
    }
}
