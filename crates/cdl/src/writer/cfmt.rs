//! Temporary C-compatible formatting used by the writer until `crate::number` and
//! `crate::escape` land.

/// C's `%.{precision}g` (or `%#.{precision}g` with `alternate`) for a finite value.
pub(crate) fn format_g(v: f64, precision: usize, alternate: bool) -> String {
    let p = precision.max(1);
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let body = if x < -4 || x >= p as i32 {
        let mut m = mantissa.to_string();
        if !alternate {
            m = strip_zeros(&m);
        } else if !m.contains('.') {
            m.push('.');
        }
        let sign = if x < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", x.abs())
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        let mut f = format!("{v:.decimals$}");
        if !alternate {
            f = strip_zeros(&f);
        } else if !f.contains('.') {
            f.push('.');
        }
        f
    };
    body
}

fn strip_zeros(text: &str) -> String {
    if !text.contains('.') {
        return text.to_string();
    }
    let t = text.trim_end_matches('0');
    t.trim_end_matches('.').to_string()
}

/// A name with CDL's special characters escaped, as ncdump prints names.
pub(crate) fn escape_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        out.push('\\');
    }
    for c in name.chars() {
        match c {
            c if c.is_ascii_control() => out.push_str(&format!("\\%{:02x}", c as u32)),
            ' ' | '!' | '"' | '#' | '$' | '&' | '\'' | '(' | ')' | '*' | ',' | ':' | ';' | '<'
            | '=' | '>' | '?' | '[' | ']' | '\\' | '^' | '`' | '{' | '|' | '}' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}
