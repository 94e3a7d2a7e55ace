//! [`ConfigReader`]: the members of one numcodecs codec object (`{"id": "zlib",
//! "level": 5}`), checked as each codec's forms read them.

use serde_json::{Map, Value};

use crate::nczarr::CodecError;

/// The members of one codec object, read for the codec `codec` (named in errors).
#[derive(Debug, Clone, Copy)]
pub struct ConfigReader<'a> {
    /// The codec's numcodecs id.
    pub codec: &'static str,
    /// The object.
    pub object: &'a Map<String, Value>,
}

/// Every value of a parameter word.
pub(crate) const U32_RANGE: std::ops::RangeInclusive<i64> = 0..=u32::MAX as i64;

impl ConfigReader<'_> {
    /// The member `key` as an integer in `range` (`expected` says what it must be), if
    /// present. Numbers may also come quoted, as some writers store them.
    pub fn integer(
        &self,
        key: &'static str,
        range: std::ops::RangeInclusive<i64>,
        expected: &'static str,
    ) -> Result<Option<i64>, CodecError> {
        let bad = || CodecError::BadValue {
            codec: self.codec,
            key,
            expected,
        };
        let Some(value) = self.object.get(key) else {
            return Ok(None);
        };
        let number = match value {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        number
            .filter(|n| range.contains(n))
            .map(Some)
            .ok_or_else(bad)
    }

    /// The member `key` as an integer in `range`, which must be present, as a parameter
    /// word (negative values as their two's-complement bits).
    pub fn required(
        &self,
        key: &'static str,
        range: std::ops::RangeInclusive<i64>,
        expected: &'static str,
    ) -> Result<u32, CodecError> {
        let value = self.integer(key, range, expected)?;
        value.map(|v| v as u32).ok_or(CodecError::MissingKey {
            codec: self.codec,
            key,
        })
    }
}
