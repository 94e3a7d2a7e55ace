//! Attributes: `.zattrs` members (typed by NCZarr's `_NCZARR_ATTR`, or inferred from the
//! JSON) to [`Attribute`]s, and back.

use ncmodel::{AtomicType, Attribute, TypeRef, Values};
use serde_json::{Map, Value};

use crate::dtype::{Dialect, Dtype};
use crate::error::{Result, ZarrError};
use crate::json::{self, J};
use crate::values::{bytes_to_values, json_to_element};

/// `.zattrs` keys that carry NCZarr's or xarray's metadata, not attributes.
pub const RESERVED: [&str; 8] = [
    "_ARRAY_DIMENSIONS",
    "_NCZARR_ATTR",
    "_nczarr_attr",
    "_NCZARR_GROUP",
    "_nczarr_group",
    "_nczarr_array",
    "_nczarr_superblock",
    "_NCProperties",
];

/// The attributes of a `.zattrs` object (or v3 `attributes`), in order; `owner` names the
/// group or variable for messages.
/// An untyped `_FillValue` takes the variable's type `var_type`.
pub fn read_attributes(
    attrs: &Map<String, Value>,
    owner: &str,
    var_type: Option<AtomicType>,
) -> Result<Vec<Attribute>> {
    let hints = ["_NCZARR_ATTR", "_nczarr_attr"]
        .iter()
        .find_map(|k| attrs.get(*k));
    let types = hints
        .and_then(|t| t.get("types"))
        .and_then(Value::as_object);
    let latin1: Vec<&str> = hints
        .and_then(|t| t.get(LATIN1_KEY))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (name, value) in attrs {
        if RESERVED.contains(&name.as_str()) {
            continue;
        }
        let typed = types.and_then(|t| t.get(name)).and_then(Value::as_str);
        if typed == Some("|J0") {
            continue;
        }
        let atomic = match typed {
            Some(t) => Some(
                Dtype::parse_v2(t, Dialect::NcZarr)
                    .map(|d| d.atomic)
                    .unwrap_or(AtomicType::Char),
            ),
            None if name == "_FillValue" => var_type,
            None => None,
        };
        let decoded = (name == "_FillValue" && typed.is_none())
            .then(|| xarray_fill(value, atomic))
            .flatten();
        let mut att = read_one(name, decoded.as_ref().unwrap_or(value), atomic, owner)?;
        if name == "_FillValue" && var_type == Some(AtomicType::Char) {
            // netCDF-C writes a NUL fill as `""` (trailing NULs are not carried): the
            // variable's fill is one char.
            if let Values::Char(bytes) = &mut att.values {
                if bytes.is_empty() {
                    bytes.push(0);
                }
            }
        }
        if latin1.contains(&name.as_str()) {
            if let (Values::Char(bytes), Some(text)) = (&mut att.values, value.as_str()) {
                if let Some(original) = latin1_bytes(text) {
                    *bytes = original;
                }
            }
        }
        out.push(att);
    }
    Ok(out)
}

/// The number of a floating-point `_FillValue` as xarray writes it in Zarr v3
/// attributes: base64 of the value as a little-endian 8-byte float
/// (`"AAAAAAAA+H8="` is NaN). `None` for any other value.
fn xarray_fill(value: &Value, atomic: Option<AtomicType>) -> Option<Value> {
    let text = value.as_str()?;
    if !matches!(atomic, Some(AtomicType::Float | AtomicType::Double)) {
        return None;
    }
    let bytes: [u8; 8] = crate::strings::base64_decode(text)?.try_into().ok()?;
    let number = f64::from_le_bytes(bytes);
    Some(if number.is_nan() {
        Value::from("NaN")
    } else if number.is_infinite() {
        Value::from(if number > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        })
    } else {
        Value::from(number)
    })
}

/// A floating-point `_FillValue` as xarray writes it in Zarr v3 attributes, and reads
/// it back: base64 of the value as a little-endian 8-byte float.
pub fn xarray_fill_text(number: f64) -> String {
    crate::strings::base64_encode(&number.to_le_bytes())
}

fn read_one(
    name: &str,
    value: &Value,
    atomic: Option<AtomicType>,
    owner: &str,
) -> Result<Attribute> {
    let atomic = atomic.unwrap_or_else(|| infer(value));
    let values = match atomic {
        AtomicType::Char => Values::Char(char_text(value).into_bytes()),
        AtomicType::String => Values::String(
            items(value)
                .iter()
                .map(|v| Some(char_text(v).into_bytes()))
                .collect(),
        ),
        t => {
            let mut bytes = Vec::new();
            for item in items(value) {
                let element = json_to_element(item, t).ok_or_else(|| {
                    ZarrError::Corrupt(format!(
                        "attribute {owner}:{name}: the value {item} is not a {t}; the store's \
                         metadata is damaged"
                    ))
                })?;
                bytes.extend(element);
            }
            bytes_to_values(&bytes, &Dtype::of(t, cfg!(target_endian = "big")))
        }
    };
    Ok(Attribute {
        name: name.to_string(),
        type_ref: TypeRef::Atomic(atomic),
        values,
    })
}

fn items(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    }
}

/// The text of a char attribute: a string as is, anything else as its JSON text.
fn char_text(value: &Value) -> String {
    match value {
        Value::String(s) if !json::is_bare_token(s) => s.clone(),
        other => J::from_value(other).nczarr_text(),
    }
}

/// The type of an untyped attribute (pure Zarr), from its JSON as netCDF-C 4.10 infers
/// it: text is char, and so is a list of strings (its JSON text, `["abc","def"]`; 4.9
/// read several strings as strings), integers int (int64 or uint64 when larger), reals
/// double.
fn infer(value: &Value) -> AtomicType {
    let all = items(value);
    if all.is_empty() {
        return AtomicType::Int;
    }
    if all
        .iter()
        .any(|v| v.is_object() || v.is_array() || v.is_null())
    {
        return AtomicType::Char;
    }
    let strings = all
        .iter()
        .filter(|v| v.as_str().is_some_and(|s| !json::is_bare_token(s)))
        .count();
    if strings > 0 {
        return AtomicType::Char;
    }
    let fits = |lo: i64, hi: i64| {
        all.iter()
            .all(|v| v.as_i64().is_some_and(|n| (lo..=hi).contains(&n)))
    };
    if fits(i64::from(i32::MIN), i64::from(i32::MAX)) {
        AtomicType::Int
    } else if fits(i64::MIN, i64::MAX) {
        AtomicType::Int64
    } else if all.iter().all(|v| v.as_u64().is_some()) {
        AtomicType::UInt64
    } else {
        AtomicType::Double
    }
}

/// The key in NCZarr's `_nczarr_attr` that lists the char attributes whose bytes are not
/// UTF-8 and were written as Latin-1 text (one character per byte), so that reading the
/// store gives back every byte. netCDF-C ignores keys of `_nczarr_attr` it does not know.
pub const LATIN1_KEY: &str = "nctools_latin1";

/// Whether a char attribute's bytes are not UTF-8, and so are written as Latin-1 text.
pub fn needs_latin1(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_err()
}

/// The JSON text of a char attribute's bytes: the text itself when it is UTF-8; otherwise
/// each byte as the character of the same number (Latin-1, the usual encoding of such
/// files, so `0xB0` reads as `°`), which [`latin1_bytes`] turns back into the bytes.
pub fn char_attribute_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|b| char::from(*b)).collect(),
    }
}

/// The bytes of a char attribute written as Latin-1 text: each character's number, or
/// `None` when a character is beyond U+00FF (the text was not written that way).
fn latin1_bytes(text: &str) -> Option<Vec<u8>> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect()
}

/// A metadata document whose bytes are not UTF-8, as netCDF-C writes `.zattrs` when a
/// char attribute's bytes are not: read with each byte as the character of the same
/// number (JSON's own syntax is ASCII), then every name and string that was UTF-8 made
/// UTF-8 again. A string that was not keeps its Latin-1 text; with `attributes` (a
/// `.zattrs`), the attributes holding one are named in `_nczarr_attr`'s
/// [`LATIN1_KEY`], as nctools writes them, so that they read back as their bytes.
pub fn parse_raw_document(bytes: &[u8], attributes: bool, what: &str) -> Result<Value> {
    let text: String = bytes.iter().map(|b| char::from(*b)).collect();
    let Value::Object(members) = json::parse(&text, what)? else {
        return Err(ZarrError::Corrupt(format!(
            "{what} is neither UTF-8 text nor a JSON object; the store is damaged"
        )));
    };
    let mut restored = Map::new();
    let mut raw: Vec<Value> = Vec::new();
    for (name, mut value) in members {
        let name = utf8_again(&name).unwrap_or(name);
        if restore_strings(&mut value) {
            raw.push(Value::String(name.clone()));
        }
        restored.insert(name, value);
    }
    if attributes && !raw.is_empty() {
        let hints = ["_NCZARR_ATTR", "_nczarr_attr"]
            .into_iter()
            .find(|k| restored.get(*k).is_some_and(Value::is_object))
            .unwrap_or("_nczarr_attr");
        let entry = restored
            .entry(hints)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(hints) = entry {
            hints.insert(LATIN1_KEY.into(), Value::Array(raw));
        }
    }
    Ok(Value::Object(restored))
}

/// The UTF-8 text whose bytes `latin1` spells one per character, if they are UTF-8.
fn utf8_again(latin1: &str) -> Option<String> {
    String::from_utf8(latin1_bytes(latin1)?).ok()
}

/// Makes every string in `value` UTF-8 again where its bytes were; whether one was not.
fn restore_strings(value: &mut Value) -> bool {
    match value {
        Value::String(s) => match utf8_again(s) {
            Some(text) => {
                *s = text;
                false
            }
            None => true,
        },
        // Every string is restored, whatever the ones before it were.
        Value::Array(items) => items
            .iter_mut()
            .map(restore_strings)
            .fold(false, |a, b| a | b),
        Value::Object(members) => members
            .values_mut()
            .map(restore_strings)
            .fold(false, |a, b| a | b),
        _ => false,
    }
}

/// The JSON value of an attribute and its NCZarr dtype: `<U1` for char, as netCDF-C
/// 4.9.0 writes it; for strings (which 4.9.0 cannot store), as netCDF-C 4.9.1 and later
/// write them: one JSON string, or a list of them for several, of the type
/// `|S<maxstrlen>` (the maximum length of its variable's strings, or of the dataset's
/// for a group attribute; the JSON holds the strings whole).
pub fn attribute_json(att: &Attribute, owner: &str, maxstrlen: usize) -> Result<(J, String)> {
    let TypeRef::Atomic(atomic) = att.type_ref else {
        return Err(ZarrError::BadType(format!(
            "attribute {owner}:{}: user-defined types cannot be stored in Zarr; netCDF-C's \
             NCZarr supports atomic types only",
            att.name
        )));
    };
    let items: Vec<J> = match &att.values {
        Values::Char(bytes) => {
            // Trailing NULs are not carried, as netCDF-C and kerchunk write char
            // attributes (xarray would show `'degrees_north\x00'`).
            let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
            let text = char_attribute_text(&bytes[..end]);
            let value = match json::parse_plain(&text, "a char attribute") {
                Ok(v @ Value::Object(_)) if text.trim_start().starts_with('{') => J::from_value(&v),
                _ => J::Str(text),
            };
            return Ok((value, "<U1".into()));
        }
        Values::String(strings) => {
            let mut items: Vec<J> = strings
                .iter()
                .map(|s| J::Str(String::from_utf8_lossy(s.as_deref().unwrap_or_default()).into()))
                .collect();
            let value = match items.len() {
                1 => items.pop().unwrap_or(J::Null),
                _ => J::Arr(items),
            };
            return Ok((value, format!("|S{}", maxstrlen.max(1))));
        }
        Values::User(_) => {
            return Err(ZarrError::BadType(format!(
                "attribute {owner}:{}: user-defined types cannot be stored in Zarr; netCDF-C's \
                 NCZarr supports atomic types only",
                att.name
            )))
        }
        Values::Byte(v) => v.iter().map(|x| J::int(*x)).collect(),
        Values::UByte(v) => v.iter().map(|x| J::int(*x)).collect(),
        Values::Short(v) => v.iter().map(|x| J::int(*x)).collect(),
        Values::UShort(v) => v.iter().map(|x| J::int(*x)).collect(),
        Values::Int(v) => v.iter().map(|x| J::int(*x)).collect(),
        Values::UInt(v) => v.iter().map(|x| J::int(*x)).collect(),
        Values::Int64(v) => v.iter().map(|x| J::int(*x)).collect(),
        Values::UInt64(v) => v.iter().map(|x| J::int(*x)).collect(),
        // The float's own value, as a double, as xarray's `to_zarr` writes it: JSON
        // numbers are read back as doubles, and `scale_factor = 0.01f` written as 0.01
        // unpacked differently (netCDF-C 4.10 writes 0.01, which it reads back as the
        // same float through its `<f4` type).
        Values::Float(v) => v.iter().map(|x| J::f64(f64::from(*x))).collect(),
        Values::Double(v) => v.iter().map(|x| J::f64(*x)).collect(),
    };
    let dtype = Dtype::v2_name(atomic, false).unwrap_or_default();
    let value = if items.len() == 1 {
        items.into_iter().next().unwrap_or(J::Null)
    } else {
        J::Arr(items)
    };
    Ok((value, dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_and_inferred() -> Result<()> {
        let v = json::parse(
            r#"{"a": [1,2], "b": "hi", "c": 2.5, "d": {"x": 1}, "e": NaN,
                "_NCZARR_ATTR": {"types": {"a": "<i2", "e": "<f4"}}}"#,
            "t",
        )?;
        let Some(map) = v.as_object() else {
            return Ok(());
        };
        let atts = read_attributes(map, "/", None)?;
        assert_eq!(atts[0].values, Values::Short(vec![1, 2]));
        assert_eq!(atts[1].values, Values::Char(b"hi".to_vec()));
        assert_eq!(atts[2].values, Values::Double(vec![2.5]));
        assert_eq!(atts[3].values, Values::Char(br#"{"x": 1}"#.to_vec()));
        assert_eq!(atts[4].type_ref, TypeRef::Atomic(AtomicType::Float));
        Ok(())
    }

    #[test]
    fn string_attributes_as_netcdf_c_writes_them() -> Result<()> {
        use AtomicType as A;
        let att = |values: Vec<&str>| Attribute {
            name: "s".into(),
            type_ref: TypeRef::Atomic(A::String),
            values: Values::String(values.iter().map(|s| Some(s.as_bytes().to_vec())).collect()),
        };
        let (one, t) = attribute_json(&att(vec!["abc"]), "/", 6)?;
        assert_eq!((one.nczarr_text(), t.as_str()), (r#""abc""#.into(), "|S6"));
        let (two, _) = attribute_json(&att(vec!["abc", "defghijk"]), "/", 6)?;
        assert_eq!(two.nczarr_text(), r#"["abc","defghijk"]"#);
        let v = json::parse(
            r#"{"one": "abc", "two": ["abc", "d"], "c": "ghi", "c1": "x",
                "_nczarr_attr": {"types": {"one": "|S1", "two": "|S128", "c": ">S1", "c1": "<U1"}}}"#,
            "t",
        )?;
        let Some(map) = v.as_object() else {
            return Ok(());
        };
        let atts = read_attributes(map, "/", None)?;
        let types: Vec<TypeRef> = atts.iter().map(|a| a.type_ref).collect();
        let want = [A::String, A::String, A::Char, A::Char].map(TypeRef::Atomic);
        assert_eq!(types, want);
        assert_eq!(
            atts[1].values,
            Values::String(vec![Some(b"abc".to_vec()), Some(b"d".to_vec())])
        );
        Ok(())
    }
}
