//! The header of a classic file: magic, record count, dimensions, global attributes and
//! variables, every field checked against the file's length before it is used.
//!
//! The layout (big-endian throughout): `CDF` and a version byte (1, 2 or 5); the record
//! count; then three lists, each a tag (10 dimensions, 12 attributes, 11 variables) and a
//! count, or eight (CDF-5: twelve) zero bytes when empty. Counts, lengths and sizes take
//! 4 bytes, 8 in CDF-5; variable offsets 4 bytes in CDF-1, 8 in CDF-2 and CDF-5. Names
//! and attribute values are padded to 4 bytes.

use std::collections::HashSet;

use ncmodel::{AtomicType, Format, Values};

use crate::error::ClassicError;
use crate::values::values_from_big_endian;

/// Which classic format a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// CDF-1, "classic": 32-bit offsets.
    Classic,
    /// CDF-2, "64-bit offset".
    Offset64,
    /// CDF-5, "64-bit data": 64-bit counts and the unsigned and 64-bit integer types.
    Data64,
}

impl Version {
    /// The dataset format of this version.
    pub fn format(self) -> Format {
        match self {
            Self::Classic => Format::Classic,
            Self::Offset64 => Format::Offset64,
            Self::Data64 => Format::Cdf5,
        }
    }

    /// Bytes of a count, length or size.
    fn count_len(self) -> usize {
        if self == Self::Data64 {
            8
        } else {
            4
        }
    }

    /// Bytes of a variable's data offset.
    fn offset_len(self) -> usize {
        if self == Self::Classic {
            4
        } else {
            8
        }
    }
}

/// A dimension as the header gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderDim {
    /// Its name.
    pub name: String,
    /// Its length; 0 for the record (unlimited) dimension.
    pub len: u64,
}

/// An attribute as the header gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderAttribute {
    /// Its name.
    pub name: String,
    /// Its type.
    pub atomic_type: AtomicType,
    /// Its values.
    pub values: Values,
}

/// A variable as the header gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderVar {
    /// Its name.
    pub name: String,
    /// Indices of its dimensions in the header's list, outermost first.
    pub dim_ids: Vec<usize>,
    /// Its attributes, in order.
    pub atts: Vec<HeaderAttribute>,
    /// Its type.
    pub atomic_type: AtomicType,
    /// The size the header records for it (of one record, for a record variable).
    pub vsize: u64,
    /// Where its data starts (its first record, for a record variable).
    pub begin: u64,
    /// Where in the file its entry of the header starts, for messages.
    pub entry_offset: u64,
}

/// A parsed header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The format version.
    pub version: Version,
    /// The record count; `None` when the file was being streamed (the count is then
    /// worked out from the file's length).
    pub numrecs: Option<u64>,
    /// The dimensions, in id order.
    pub dims: Vec<HeaderDim>,
    /// The global attributes.
    pub atts: Vec<HeaderAttribute>,
    /// The variables, in id order.
    pub vars: Vec<HeaderVar>,
    /// The header's length in bytes.
    pub len: u64,
}

/// Why parsing stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The bytes given end inside the header, and the file goes on: read more.
    NeedMore,
    /// The header is wrong.
    Failed(ClassicError),
}

impl From<ClassicError> for Stop {
    fn from(e: ClassicError) -> Self {
        Self::Failed(e)
    }
}

const TAG_DIMENSION: u32 = 10;
const TAG_VARIABLE: u32 = 11;
const TAG_ATTRIBUTE: u32 = 12;

/// A read position in the header's bytes, which knows the file's whole length.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    file_len: u64,
    version: Version,
}

impl Cursor<'_> {
    fn offset(&self) -> u64 {
        self.pos as u64
    }

    fn fail(&self, what: impl Into<String>) -> Stop {
        Stop::Failed(ClassicError::header(self.offset(), what))
    }

    /// The next `n` bytes, `what` naming them for the error if the file ends first.
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], Stop> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            if (self.bytes.len() as u64) < self.file_len {
                return Err(Stop::NeedMore);
            }
            return Err(self.fail(format!(
                "the file ends inside the header, in {what} (the file has {} bytes)",
                self.file_len
            )));
        };
        let taken = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(taken)
    }

    fn u32(&mut self, what: &str) -> Result<u32, Stop> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &str) -> Result<u64, Stop> {
        let b = self.take(8, what)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(b);
        Ok(u64::from_be_bytes(word))
    }

    /// A count, length or size: 4 bytes (a non-negative 32-bit integer), 8 in CDF-5.
    fn count(&mut self, what: &str) -> Result<u64, Stop> {
        let at = self.offset();
        if self.version.count_len() == 8 {
            let n = self.u64(what)?;
            if n > i64::MAX as u64 {
                return Err(Stop::Failed(ClassicError::header(
                    at,
                    format!("{what} is negative ({})", n as i64),
                )));
            }
            Ok(n)
        } else {
            Ok(u64::from(self.u32(what)?))
        }
    }

    /// A dimension's length: as [`Self::count`], except that in CDF-5 it is unsigned, as
    /// libnetcdf writes and reads it (`nc_def_dim` takes up to 2^64 - 1 there; netCDF-C's
    /// `tst_dimsizes` writes 2^64 - 4).
    fn dimension_length(&mut self, what: &str) -> Result<u64, Stop> {
        if self.version.count_len() == 8 {
            self.u64(what)
        } else {
            self.count(what)
        }
    }

    /// Checks that `n` items of at least `each` bytes can fit in what is left of the file.
    fn fits(&self, n: u64, each: u64, what: &str) -> Result<(), Stop> {
        let left = self.file_len.saturating_sub(self.offset());
        if n.checked_mul(each).is_none_or(|need| need > left) {
            return Err(self.fail(format!(
                "{n} {what} cannot fit in the {left} bytes left in the file"
            )));
        }
        Ok(())
    }

    /// Skips the padding after `len` bytes to the next multiple of 4.
    fn pad(&mut self, len: u64, what: &str) -> Result<(), Stop> {
        let pad = (4 - len % 4) % 4;
        self.take(pad as usize, what).map(|_| ())
    }

    fn name(&mut self, what: &str) -> Result<String, Stop> {
        let at = self.offset();
        let len = self.count(&format!("the length of the name of {what}"))?;
        self.fits(len, 1, &format!("bytes of the name of {what}"))?;
        let bytes = self.take(len as usize, &format!("the name of {what}"))?;
        let name = String::from_utf8(bytes.to_vec()).map_err(|_| {
            Stop::Failed(ClassicError::header(
                at,
                format!("the name of {what} is not UTF-8"),
            ))
        })?;
        if name.is_empty() {
            return Err(Stop::Failed(ClassicError::header(
                at,
                format!("{what} has an empty name"),
            )));
        }
        self.pad(len, &format!("the padding of the name of {what}"))?;
        Ok(name)
    }

    /// The tag and count of a list: `None` for an absent (empty) list.
    fn list(&mut self, tag: u32, what: &str) -> Result<u64, Stop> {
        let at = self.offset();
        let found = self.u32(&format!("the tag of the {what} list"))?;
        let n = self.count(&format!("the number of {what}"))?;
        match (found, n) {
            (0, 0) => Ok(0),
            (t, n) if t == tag => Ok(n),
            (0, n) => Err(Stop::Failed(ClassicError::header(
                at,
                format!("an absent {what} list with a count of {n} (should be 0)"),
            ))),
            (t, _) => Err(Stop::Failed(ClassicError::header(
                at,
                format!("expected the {what} list (tag {tag}), found tag {t}"),
            ))),
        }
    }

    fn atomic_type(&mut self, what: &str) -> Result<AtomicType, Stop> {
        let at = self.offset();
        let id = self.u32(&format!("the type of {what}"))?;
        let t = i32::try_from(id).ok().and_then(AtomicType::from_nc_type);
        let allowed = match t {
            Some(AtomicType::String) | None => false,
            Some(t) => self.version == Version::Data64 || t.nc_type() <= 6,
        };
        match t {
            Some(t) if allowed => Ok(t),
            _ => Err(Stop::Failed(ClassicError::header(
                at,
                format!("{what} has type id {id}, not a type of this format"),
            ))),
        }
    }

    fn attributes(&mut self, owner: &str) -> Result<Vec<HeaderAttribute>, Stop> {
        let n = self.list(TAG_ATTRIBUTE, &format!("attributes of {owner}"))?;
        let min = 2 * self.version.count_len() as u64 + 4;
        self.fits(n, min, &format!("attributes of {owner}"))?;
        let mut atts = Vec::with_capacity(n as usize);
        for i in 0..n {
            let name = self.name(&format!("attribute {i} of {owner}"))?;
            let what = format!("attribute {owner}:{name}");
            let t = self.atomic_type(&what)?;
            let count = self.count(&format!("the number of values of {what}"))?;
            self.fits(count, t.size() as u64, &format!("values of {what}"))?;
            let len = count * t.size() as u64;
            let bytes = self.take(len as usize, &format!("the values of {what}"))?;
            let values = values_from_big_endian(t, bytes);
            self.pad(len, &format!("the padding of the values of {what}"))?;
            atts.push(HeaderAttribute {
                name,
                atomic_type: t,
                values,
            });
        }
        Ok(atts)
    }

    fn dims(&mut self) -> Result<Vec<HeaderDim>, Stop> {
        let n = self.list(TAG_DIMENSION, "dimensions")?;
        self.fits(n, 2 * self.version.count_len() as u64, "dimensions")?;
        let mut dims: Vec<HeaderDim> = Vec::with_capacity(n as usize);
        // The names seen so far and the unlimited dimension's index: one look-up per
        // dimension, so a header of many dimensions is read in linear time.
        let mut names: HashSet<String> = HashSet::with_capacity(n as usize);
        let mut unlimited: Option<usize> = None;
        for i in 0..n {
            let name = self.name(&format!("dimension {i}"))?;
            let at = self.offset();
            let len = self.dimension_length(&format!("the length of dimension {name}"))?;
            if len == 0 {
                if let Some(other) = unlimited.and_then(|k| dims.get(k)) {
                    return Err(Stop::Failed(ClassicError::header(
                        at,
                        format!(
                            "a second unlimited dimension, {name} ({} is one already)",
                            other.name
                        ),
                    )));
                }
            }
            if !names.insert(name.clone()) {
                return Err(Stop::Failed(ClassicError::header(
                    at,
                    format!("two dimensions named {name}"),
                )));
            }
            if len == 0 {
                unlimited = Some(dims.len());
            }
            dims.push(HeaderDim { name, len });
        }
        Ok(dims)
    }

    fn vars(&mut self, dims: &[HeaderDim]) -> Result<Vec<HeaderVar>, Stop> {
        let n = self.list(TAG_VARIABLE, "variables")?;
        let count_len = self.version.count_len() as u64;
        let min = 4 * count_len + 8 + 4 + self.version.offset_len() as u64;
        self.fits(n, min, "variables")?;
        let mut vars: Vec<HeaderVar> = Vec::with_capacity(n as usize);
        let mut names: HashSet<String> = HashSet::with_capacity(n as usize);
        for i in 0..n {
            let entry_offset = self.offset();
            let name = self.name(&format!("variable {i}"))?;
            if !names.insert(name.clone()) {
                return Err(self.fail(format!("two variables named {name}")));
            }
            let rank = self.count(&format!("the rank of variable {name}"))?;
            self.fits(
                rank,
                count_len,
                &format!("dimension ids of variable {name}"),
            )?;
            let mut dim_ids = Vec::with_capacity(rank as usize);
            for k in 0..rank {
                let at = self.offset();
                let id = self.count(&format!("dimension id {k} of variable {name}"))?;
                let dim = usize::try_from(id).ok().and_then(|i| dims.get(i));
                match dim {
                    None => {
                        return Err(Stop::Failed(ClassicError::header(
                            at,
                            format!(
                                "variable {name} uses dimension id {id}, but there are {} \
                                 dimensions",
                                dims.len()
                            ),
                        )))
                    }
                    Some(d) if d.len == 0 && k > 0 => {
                        return Err(Stop::Failed(ClassicError::header(
                            at,
                            format!(
                                "variable {name} has the unlimited dimension {} in place \
                                 {k}; only the first may be unlimited",
                                d.name
                            ),
                        )))
                    }
                    Some(_) => dim_ids.push(id as usize),
                }
            }
            let atts = self.attributes(&format!("variable {name}"))?;
            let atomic_type = self.atomic_type(&format!("variable {name}"))?;
            let vsize = self.count(&format!("the size of variable {name}"))?;
            let begin = if self.version.offset_len() == 8 {
                self.u64(&format!("the data offset of variable {name}"))?
            } else {
                u64::from(self.u32(&format!("the data offset of variable {name}"))?)
            };
            vars.push(HeaderVar {
                name,
                dim_ids,
                atts,
                atomic_type,
                vsize,
                begin,
                entry_offset,
            });
        }
        Ok(vars)
    }
}

impl Header {
    /// Parses the header from `bytes`, the start of a file of `file_len` bytes.
    pub(crate) fn parse_prefix(bytes: &[u8], file_len: u64) -> Result<Self, Stop> {
        let version = match bytes {
            [b'C', b'D', b'F', v, ..] => match v {
                1 => Version::Classic,
                2 => Version::Offset64,
                5 => Version::Data64,
                other => {
                    return Err(Stop::Failed(ClassicError::header(
                        3,
                        format!("unknown version byte {other} after CDF (1, 2 or 5 expected)"),
                    )))
                }
            },
            _ if bytes.len() < 4 && (bytes.len() as u64) < file_len => return Err(Stop::NeedMore),
            _ => return Err(Stop::Failed(ClassicError::NotClassic)),
        };
        let mut cursor = Cursor {
            bytes,
            pos: 4,
            file_len,
            version,
        };
        let streaming = if version == Version::Data64 {
            u64::MAX
        } else {
            u64::from(u32::MAX)
        };
        let raw_numrecs = if version == Version::Data64 {
            cursor.u64("the record count")?
        } else {
            u64::from(cursor.u32("the record count")?)
        };
        let numrecs = (raw_numrecs != streaming).then_some(raw_numrecs);
        let dims = cursor.dims()?;
        let atts = cursor.attributes("the file (global)")?;
        let vars = cursor.vars(&dims)?;
        Ok(Self {
            version,
            numrecs,
            dims,
            atts,
            vars,
            len: cursor.offset(),
        })
    }

    /// Parses a header from `bytes`, the whole file or a prefix of it holding the whole
    /// header: an error if the header does not add up or does not end within `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Self, ClassicError> {
        Self::parse_prefix(bytes, bytes.len() as u64).map_err(|stop| match stop {
            Stop::Failed(e) => e,
            Stop::NeedMore => ClassicError::header(bytes.len() as u64, "the header is cut short"),
        })
    }
}

#[cfg(test)]
mod tests;
