//! Reading the members of a numcodecs JSON configuration: numbers may be JSON numbers or,
//! as netCDF-C's codec plugins write them, strings holding numbers.

use serde_json::{Map, Value};

use super::error::CodecError;

/// The member `key` of `config` as an integer, if present.
pub(crate) fn int(
    codec: &'static str,
    config: &Map<String, Value>,
    key: &str,
) -> Result<Option<i64>, CodecError> {
    match config.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(Value::Number(n)) => n.as_i64().map(Some),
        Some(Value::String(s)) => s.trim().parse().ok().map(Some),
        Some(_) => None,
    }
    .ok_or_else(|| CodecError::config(codec, format!("\"{key}\" is not an integer")))
}

/// The member `key` of `config` as an integer within `range`, or `default` when absent.
pub(crate) fn int_in(
    codec: &'static str,
    config: &Map<String, Value>,
    key: &str,
    range: std::ops::RangeInclusive<i64>,
    default: Option<i64>,
) -> Result<i64, CodecError> {
    let value = int(codec, config, key)?
        .or(default)
        .ok_or_else(|| CodecError::config(codec, format!("\"{key}\" is missing")))?;
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(CodecError::config(
            codec,
            format!(
                "\"{key}\" is {value}, not from {} to {}",
                range.start(),
                range.end()
            ),
        ))
    }
}

/// The member `key` of `config` as a finite number, if present.
pub(crate) fn float(
    codec: &'static str,
    config: &Map<String, Value>,
    key: &str,
) -> Result<Option<f64>, CodecError> {
    match config.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(Value::Number(n)) => n.as_f64().map(Some),
        Some(Value::String(s)) => s.trim().parse().ok().map(Some),
        Some(_) => None,
    }
    .filter(|v| v.is_none_or(f64::is_finite))
    .ok_or_else(|| CodecError::config(codec, format!("\"{key}\" is not a finite number")))
}

/// The member `key` of `config` as a string, if present.
pub(crate) fn string<'a>(
    codec: &'static str,
    config: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a str>, CodecError> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(CodecError::config(
            codec,
            format!("\"{key}\" is not a string"),
        )),
    }
}
