//! netCDF strings in Zarr, as netCDF-C 4.9.1 and later store them (4.9.0 has no form):
//! fixed-length byte strings (`|S<n>`, v3 `null_terminated_bytes`) NUL padded to the
//! variable's maximum length, which the attribute `_nczarr_maxstrlen` of the variable
//! gives, else `_nczarr_default_maxstrlen` of the root group, else 128. Where the user
//! set a width, longer strings are cut to it when written, as netCDF-C does, but never
//! inside a UTF-8 character; where nobody did, the writer widens the variable instead
//! (`ZarrWriter::fit_strings`) while the wider variable stays proportionate to its
//! values ([`widening_allowed`]). Pure Zarr stores strings of variable length
//! (`vlen-utf8`, see vlen.rs) unless a width is set. A string ends at its first NUL; an element of NULs only is the empty
//! string (netCDF-C reads it as a null string, NIL).

use std::collections::BTreeMap;
use std::sync::Mutex;

use ncmodel::Attribute;
use serde_json::Value;

use crate::dtype::{Dialect, Dtype, Text};
use crate::json::J;

/// The variable attribute giving the maximum length of its strings in bytes.
pub const MAXSTRLEN_ATTR: &str = "_nczarr_maxstrlen";

/// The root-group attribute giving the default maximum length of strings in bytes.
pub const DEFAULT_MAXSTRLEN_ATTR: &str = "_nczarr_default_maxstrlen";

/// The maximum length of strings when no attribute gives one (netCDF-C's).
pub const DEFAULT_MAXSTRLEN: usize = 128;

/// The value of the length attribute `name` among `atts`: one integer of at least 1
/// (netCDF-C takes the attribute only when it has exactly one value).
fn length_attribute(atts: &[Attribute], name: &str) -> Option<usize> {
    let att = atts.iter().find(|a| a.name == name)?;
    if att.values.len() != 1 {
        return None;
    }
    let n = att.values.integer_at(0)?;
    usize::try_from(n).ok().filter(|n| *n >= 1)
}

/// The default maximum string length of a dataset whose root group has `root_atts`.
pub fn default_maxstrlen(root_atts: &[Attribute]) -> usize {
    length_attribute(root_atts, DEFAULT_MAXSTRLEN_ATTR).unwrap_or(DEFAULT_MAXSTRLEN)
}

/// Whether a width was asked for the strings of a variable with attributes `var_atts`,
/// in a dataset whose root group has `root_atts`: its `_nczarr_maxstrlen` or the root
/// group's `_nczarr_default_maxstrlen` is set.
pub fn width_set(root_atts: &[Attribute], var_atts: &[Attribute]) -> bool {
    length_attribute(var_atts, MAXSTRLEN_ATTR).is_some()
        || length_attribute(root_atts, DEFAULT_MAXSTRLEN_ATTR).is_some()
}

/// The maximum string length of a variable with attributes `var_atts`, in a dataset
/// whose root group has `root_atts`.
pub fn var_maxstrlen(root_atts: &[Attribute], var_atts: &[Attribute]) -> usize {
    length_attribute(var_atts, MAXSTRLEN_ATTR).unwrap_or_else(|| default_maxstrlen(root_atts))
}

/// The size up to which a variable's fixed-length strings are widened to its longest
/// value whatever the values hold (1 MiB).
pub const WIDEN_ALWAYS_BYTES: u64 = 1 << 20;

/// How many times the bytes its values hold a widened variable may take (4).
pub const WIDEN_FACTOR: u64 = 4;

/// Whether a variable of `elements` fixed-length strings, whose width nobody set, is
/// widened to `width` bytes for values that hold `held` bytes: when the wider variable
/// takes at most [`WIDEN_ALWAYS_BYTES`], or at most [`WIDEN_FACTOR`] times `held`.
/// Otherwise one long value among many short ones would make every element as wide
/// (one 100 kB value in 20,000 strings: 2 GB); the width stays and the longer values
/// are cut to it, with a warning.
pub fn widening_allowed(elements: u64, width: usize, held: u64) -> bool {
    let widened = elements.saturating_mul(width as u64);
    widened <= WIDEN_ALWAYS_BYTES || widened <= held.saturating_mul(WIDEN_FACTOR)
}

/// The bytes of a string up to its first NUL, cut to at most `width` bytes (at the end
/// of the last whole character when it is UTF-8); whether it was cut.
fn cut(s: &[u8], width: usize) -> (&[u8], bool) {
    let s = &s[..s.iter().position(|b| *b == 0).unwrap_or(s.len())];
    if s.len() <= width {
        return (s, false);
    }
    let end = match std::str::from_utf8(s) {
        Ok(text) => (0..=width)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0),
        Err(_) => width,
    };
    (&s[..end], true)
}

/// `strings` as elements of `width` bytes, NUL padded (a null string is empty), and
/// the number of strings cut to fit.
pub fn to_fixed(strings: &[Option<Vec<u8>>], width: usize) -> (Vec<u8>, usize) {
    let slices: Vec<&[u8]> = strings
        .iter()
        .map(|s| s.as_deref().unwrap_or_default())
        .collect();
    slices_to_fixed(&slices, width)
}

/// `strings` as elements of `width` bytes, NUL padded, and the number of strings cut
/// to fit.
pub fn slices_to_fixed(strings: &[&[u8]], width: usize) -> (Vec<u8>, usize) {
    let mut out = vec![0u8; strings.len() * width];
    let mut truncated = 0;
    for (slot, s) in out.chunks_exact_mut(width.max(1)).zip(strings) {
        let (kept, was_cut) = cut(s, width);
        slot[..kept.len()].copy_from_slice(kept);
        truncated += usize::from(was_cut);
    }
    (out, truncated)
}

/// The string one fixed-size element holds: its bytes up to the first NUL.
pub fn from_fixed(element: &[u8]) -> Vec<u8> {
    cut(element, element.len()).0.to_vec()
}

/// The JSON `fill_value` of a string array whose fill element is `fill`: the string as
/// is in NCZarr (netCDF-C's form), base64 in pure Zarr (zarr-python's form for byte
/// strings; `""` is both).
pub fn fill_json(fill: &[u8], nczarr: bool) -> J {
    let s = from_fixed(fill);
    if nczarr {
        J::Str(String::from_utf8_lossy(&s).into_owned())
    } else {
        J::Str(base64_encode(&s))
    }
}

/// The fill string of a string array of `dtype` from its JSON `fill_value` (UTF-8, up to
/// its first NUL, at most the width of a fixed-length dtype): what the value holds,
/// never a padded element of the declared width (`|S500000000` must not cost 500 MB per
/// fill); [`padded_fill`] makes the element where one is needed.
pub fn fill_string(value: &Value, dtype: &Dtype, dialect: Dialect) -> Vec<u8> {
    let text = value.as_str().unwrap_or_default();
    let raw = match dtype.text {
        Text::Bytes if dialect != Dialect::NcZarr => {
            base64_decode(text).unwrap_or_else(|| text.as_bytes().to_vec())
        }
        _ => text.as_bytes().to_vec(),
    };
    let width = match dtype.text {
        Text::Bytes => dtype.size,
        Text::Utf32 => {
            let chars = dtype.size / 4;
            let s = String::from_utf8_lossy(&raw);
            let kept: String = s.chars().take_while(|c| *c != '\0').take(chars).collect();
            return kept.into_bytes();
        }
        _ => usize::MAX,
    };
    cut(&raw, width).0.to_vec()
}

/// The fill element of an array of `dtype` whose fill (as the reader keeps it) is
/// `fill`: for a fixed-length string dtype the fill string padded to the width (made
/// only where a whole element is needed), else `fill` itself.
pub fn padded_fill<'a>(fill: &'a [u8], dtype: &Dtype) -> std::borrow::Cow<'a, [u8]> {
    use std::borrow::Cow;
    if dtype.atomic != ncmodel::AtomicType::String || fill.len() == dtype.size {
        return Cow::Borrowed(fill);
    }
    match dtype.text {
        Text::Bytes => Cow::Owned(to_fixed(&[Some(fill.to_vec())], dtype.size).0),
        Text::Utf32 => {
            let mut out = vec![0u8; dtype.size];
            let units: Vec<u8> = String::from_utf8_lossy(fill)
                .chars()
                .flat_map(|c| u32::from(c).to_ne_bytes())
                .collect();
            let n = units.len().min(dtype.size / 4 * 4);
            out[..n].copy_from_slice(&units[..n]);
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(fill),
    }
}

/// The fill element of a string array of `dtype` from its JSON `fill_value`: a string
/// as is in NCZarr, base64 (or, when it is not base64, as is) for byte strings in pure
/// Zarr, as is for UTF-32 and vlen strings.
pub fn fill_element(value: &Value, dtype: &Dtype, dialect: Dialect) -> Vec<u8> {
    let text = value.as_str().unwrap_or_default();
    let raw = match dtype.text {
        Text::Bytes if dialect != Dialect::NcZarr => {
            base64_decode(text).unwrap_or_else(|| text.as_bytes().to_vec())
        }
        _ => text.as_bytes().to_vec(),
    };
    match dtype.text {
        Text::Vlen => from_fixed(&raw),
        Text::Utf32 => {
            let mut out = vec![0u8; dtype.size];
            let units = String::from_utf8_lossy(&raw)
                .chars()
                .flat_map(|c| u32::from(c).to_ne_bytes())
                .collect::<Vec<u8>>();
            let n = units.len().min(dtype.size / 4 * 4);
            out[..n].copy_from_slice(&units[..n]);
            out
        }
        _ => to_fixed(&[Some(raw)], dtype.size).0,
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for group in data.chunks(3) {
        let b = [
            group[0],
            group.get(1).copied().unwrap_or(0),
            group.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from_be_bytes([0, b[0], b[1], b[2]]);
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(BASE64[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 with padding; `None` when `text` is not that.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let groups = bytes.len() / 4;
    for (g, quad) in bytes.chunks_exact(4).enumerate() {
        let pad = quad.iter().rev().take_while(|c| **c == b'=').count();
        if pad > 2 || (pad > 0 && g + 1 != groups) {
            return None;
        }
        let mut n = 0u32;
        for c in &quad[..4 - pad] {
            let v = BASE64.iter().position(|b| b == c)?;
            n = n << 6 | v as u32;
        }
        n <<= 6 * pad as u32;
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Some(out)
}

/// The strings of one variable cut to its maximum length while a store was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringTruncation {
    /// The variable's path, `/g/v`.
    pub path: String,
    /// Its maximum string length in bytes.
    pub maxstrlen: usize,
    /// How many of its values were cut.
    pub count: u64,
}

impl StringTruncation {
    /// What a user is told about it.
    pub fn message(&self) -> String {
        format!(
            "variable {}: {} string value(s) longer than its maximum of {} bytes were cut \
             to it (the maximum is the variable's attribute {MAXSTRLEN_ATTR}, else the \
             root group's {DEFAULT_MAXSTRLEN_ATTR}, else {DEFAULT_MAXSTRLEN}, which grows to \
             the longest value only while the variable stays within {WIDEN_FACTOR} times \
             what its values hold; set one to keep them whole, or write pure Zarr \
             (#mode=zarr), whose strings are of variable length)",
            self.path, self.count, self.maxstrlen
        )
    }
}

/// The strings cut to their variable's maximum length while a store was written, per
/// variable path: the maximum length and how many were cut.
#[derive(Debug, Default)]
pub struct Truncations(Mutex<BTreeMap<String, (usize, u64)>>);

impl Truncations {
    /// Records that `n` strings of the variable `path`, whose maximum length is
    /// `maxstrlen`, were cut.
    pub fn record(&self, path: &str, maxstrlen: usize, n: usize) {
        if n == 0 {
            return;
        }
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.entry(path.to_string()).or_insert((maxstrlen, 0)).1 += n as u64;
    }

    /// Every variable with strings cut, by path.
    pub fn list(&self) -> Vec<StringTruncation> {
        let map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.iter()
            .map(|(path, (maxstrlen, count))| StringTruncation {
                path: path.clone(),
                maxstrlen: *maxstrlen,
                count: *count,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ncmodel::{AtomicType, TypeRef, Values};

    fn int_att(name: &str, n: i32) -> Attribute {
        Attribute {
            name: name.into(),
            type_ref: TypeRef::Atomic(AtomicType::Int),
            values: Values::Int(vec![n]),
        }
    }

    #[test]
    fn maxstrlen_precedence() {
        let root = [int_att(DEFAULT_MAXSTRLEN_ATTR, 6)];
        assert_eq!(var_maxstrlen(&[], &[]), 128);
        assert_eq!(var_maxstrlen(&root, &[]), 6);
        assert_eq!(var_maxstrlen(&root, &[int_att(MAXSTRLEN_ATTR, 4)]), 4);
        assert_eq!(var_maxstrlen(&root, &[int_att(MAXSTRLEN_ATTR, 0)]), 6);
    }

    #[test]
    fn fixed_strings_cut_and_pad() {
        let s = |t: &str| Some(t.as_bytes().to_vec());
        let (bytes, cut) = to_fixed(
            &[s("ab"), None, s("0123456789"), s("\u{e9}\u{e9}\u{e9}")],
            4,
        );
        assert_eq!(&bytes, b"ab\0\0\0\0\0\x000123\xc3\xa9\xc3\xa9");
        assert_eq!(cut, 2);
        let (bytes, cut) = to_fixed(&[s("a\u{e9}\u{e9}")], 4);
        assert_eq!((&bytes[..], cut), (&b"a\xc3\xa9\0"[..], 1));
        assert_eq!(from_fixed(b"ab\0c"), b"ab");
        assert_eq!(from_fixed(b"\0\0"), b"");
    }

    #[test]
    fn base64_round_trips() {
        for text in ["", "a", "ab", "abc", "abcd", "h\u{e9}llo w"] {
            let enc = base64_encode(text.as_bytes());
            assert_eq!(
                base64_decode(&enc).as_deref(),
                Some(text.as_bytes()),
                "{enc}"
            );
        }
        assert_eq!(base64_encode(b"abc"), "YWJj");
        assert_eq!(base64_encode(b"ab"), "YWI=");
        assert_eq!(base64_decode("abc"), None);
        assert_eq!(base64_decode("a=bc"), None);
    }
}
