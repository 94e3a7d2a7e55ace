//! The longest name in a classic (CDF-1, CDF-2, CDF-5) file's header, found by walking the
//! header in Rust before libnetcdf opens the file. libnetcdf copies names of any length
//! into its callers' buffers, so the buffers must be sized from the file itself.
//!
//! Every count and length is checked against the file's size before it is used; a header
//! that does not add up is reported with the byte offset where it stops making sense.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

const NC_DIMENSION: u32 = 0x0A;
const NC_VARIABLE: u32 = 0x0B;
const NC_ATTRIBUTE: u32 = 0x0C;

/// What is wrong with a classic header, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the classic header is malformed at byte {offset}: {what}")]
pub struct MalformedHeader {
    /// The byte offset where reading stopped.
    pub offset: u64,
    /// What was expected there.
    pub what: String,
}

/// The classic format versions: 1 (CDF-1), 2 (64-bit offset), 5 (64-bit data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    Cdf1,
    Cdf2,
    Cdf5,
}

struct HeaderWalk {
    input: BufReader<File>,
    offset: u64,
    file_len: u64,
    version: Version,
    longest: usize,
}

impl HeaderWalk {
    fn fail(&self, what: impl Into<String>) -> MalformedHeader {
        MalformedHeader {
            offset: self.offset,
            what: what.into(),
        }
    }

    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N], MalformedHeader> {
        let mut buf = [0u8; N];
        self.input
            .read_exact(&mut buf)
            .map_err(|_| self.fail(format!("the file ends inside {what}")))?;
        self.offset += N as u64;
        Ok(buf)
    }

    fn u32(&mut self, what: &str) -> Result<u32, MalformedHeader> {
        Ok(u32::from_be_bytes(self.bytes::<4>(what)?))
    }

    /// A count: 4 bytes, or 8 in CDF-5.
    fn count(&mut self, what: &str) -> Result<u64, MalformedHeader> {
        match self.version {
            Version::Cdf5 => Ok(u64::from_be_bytes(self.bytes::<8>(what)?)),
            _ => Ok(u64::from(self.u32(what)?)),
        }
    }

    /// Skips `n` bytes that must lie inside the file.
    fn skip(&mut self, n: u64, what: &str) -> Result<(), MalformedHeader> {
        let end = self
            .offset
            .checked_add(n)
            .filter(|end| *end <= self.file_len)
            .ok_or_else(|| {
                self.fail(format!("{what} of {n} bytes runs past the end of the file"))
            })?;
        // Relative, so that a skip inside the read buffer costs no system call.
        let step = i64::try_from(n).map_err(|_| self.fail(format!("{what} is too large")))?;
        self.input
            .seek_relative(step)
            .map_err(|e| self.fail(e.to_string()))?;
        self.offset = end;
        Ok(())
    }

    /// A name: its length, then its bytes padded to 4.
    fn name(&mut self, what: &str) -> Result<(), MalformedHeader> {
        let len = self.count(&format!("the length of {what}"))?;
        if len > self.file_len {
            return Err(self.fail(format!("{what} claims {len} bytes, more than the file")));
        }
        self.skip(len.next_multiple_of(4), what)?;
        self.longest = self.longest.max(usize::try_from(len).unwrap_or(usize::MAX));
        Ok(())
    }

    /// A list header: the tag (or ABSENT) and the number of elements.
    fn list(&mut self, tag: u32, what: &str) -> Result<u64, MalformedHeader> {
        let found = self.u32(&format!("the {what} list tag"))?;
        let n = self.count(&format!("the {what} count"))?;
        match found {
            0 if n == 0 => Ok(0),
            t if t == tag => Ok(n),
            _ => Err(self.fail(format!(
                "expected the {what} list (tag {tag}), found tag {found}"
            ))),
        }
    }

    fn attributes(&mut self) -> Result<(), MalformedHeader> {
        let n = self.list(NC_ATTRIBUTE, "attribute")?;
        for _ in 0..n {
            self.name("an attribute name")?;
            let xtype = self.u32("an attribute type")?;
            let size: u64 = match xtype {
                1 | 2 | 7 => 1,
                3 | 8 => 2,
                4 | 5 | 9 => 4,
                6 | 10 | 11 => 8,
                other => return Err(self.fail(format!("unknown attribute type {other}"))),
            };
            let count = self.count("an attribute length")?;
            let bytes = count
                .checked_mul(size)
                .ok_or_else(|| self.fail("an attribute too large"))?;
            self.skip(bytes.next_multiple_of(4), "attribute values")?;
        }
        Ok(())
    }

    fn walk(&mut self) -> Result<(), MalformedHeader> {
        self.count("the record count")?;
        let ndims = self.list(NC_DIMENSION, "dimension")?;
        for _ in 0..ndims {
            self.name("a dimension name")?;
            self.count("a dimension length")?;
        }
        self.attributes()?;
        let nvars = self.list(NC_VARIABLE, "variable")?;
        for _ in 0..nvars {
            self.name("a variable name")?;
            let rank = self.count("a variable's number of dimensions")?;
            let id_bytes = if self.version == Version::Cdf5 { 8 } else { 4 };
            let ids = rank
                .checked_mul(id_bytes)
                .ok_or_else(|| self.fail("too many dimensions"))?;
            self.skip(ids, "dimension ids")?;
            self.attributes()?;
            self.u32("a variable type")?;
            self.count("a variable size")?;
            if self.version == Version::Cdf1 {
                self.u32("a variable offset")?;
            } else {
                self.bytes::<8>("a variable offset")?;
            }
        }
        Ok(())
    }
}

/// The length in bytes of the longest name (dimension, variable or attribute) in the
/// header of the file at `path`, when it is a classic file; `Ok(None)` when it is not one
/// (or cannot be read: libnetcdf then reports why).
pub fn longest_classic_name(path: &Path) -> Result<Option<usize>, MalformedHeader> {
    let Ok(file) = kv::input_file::open_regular_file(path) else {
        return Ok(None);
    };
    let file_len = file.metadata().map_or(0, |m| m.len());
    let mut input = BufReader::with_capacity(64 * 1024, file);
    let mut magic = [0u8; 4];
    if input.read_exact(&mut magic).is_err() || &magic[..3] != b"CDF" {
        return Ok(None);
    }
    let version = match magic[3] {
        1 => Version::Cdf1,
        2 => Version::Cdf2,
        5 => Version::Cdf5,
        _ => return Ok(None),
    };
    let mut walk = HeaderWalk {
        input,
        offset: 4,
        file_len,
        version,
        longest: 0,
    };
    walk.walk()?;
    Ok(Some(walk.longest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(bytes: &mut Vec<u8>, text: &str) {
        bytes.extend((text.len() as u32).to_be_bytes());
        bytes.extend(text.as_bytes());
        bytes.resize(bytes.len().next_multiple_of(4), 0);
    }

    /// A CDF-1 file with one dimension, one global text attribute and one variable.
    fn cdf1(dim: &str, att: &str, var: &str) -> Vec<u8> {
        let mut b = b"CDF\x01".to_vec();
        b.extend(0u32.to_be_bytes());
        b.extend([0, 0, 0, 0x0A, 0, 0, 0, 1]);
        name(&mut b, dim);
        b.extend(3u32.to_be_bytes());
        b.extend([0, 0, 0, 0x0C, 0, 0, 0, 1]);
        name(&mut b, att);
        b.extend(2u32.to_be_bytes());
        b.extend(1u32.to_be_bytes());
        b.extend(b"x\0\0\0");
        b.extend([0, 0, 0, 0x0B, 0, 0, 0, 1]);
        name(&mut b, var);
        b.extend(1u32.to_be_bytes());
        b.extend(0u32.to_be_bytes());
        b.extend([0u8; 8]);
        b.extend(4u32.to_be_bytes());
        b.extend(12u32.to_be_bytes());
        let offset = b.len() as u32 + 8;
        b.extend(offset.to_be_bytes());
        b.extend([0u8; 12]);
        b
    }

    fn longest(bytes: &[u8]) -> Result<Option<usize>, MalformedHeader> {
        let dir = tempfile::tempdir().map_err(|e| MalformedHeader {
            offset: 0,
            what: e.to_string(),
        })?;
        let path = dir.path().join("f.nc");
        std::fs::write(&path, bytes).map_err(|e| MalformedHeader {
            offset: 0,
            what: e.to_string(),
        })?;
        longest_classic_name(&path)
    }

    #[test]
    fn finds_the_longest_name_of_each_kind() {
        let long = "n".repeat(300);
        assert_eq!(longest(&cdf1(&long, "a", "v")), Ok(Some(300)));
        assert_eq!(longest(&cdf1("d", &long, "v")), Ok(Some(300)));
        assert_eq!(longest(&cdf1("d", "a", &long)), Ok(Some(300)));
        assert_eq!(longest(&cdf1("d", "ab", "v")), Ok(Some(2)));
    }

    #[test]
    fn a_name_longer_than_the_file_is_malformed() {
        let mut bytes = cdf1("d", "a", "v");
        // The dimension name's length, right after the list header.
        bytes[16..20].copy_from_slice(&0x7fff_ffffu32.to_be_bytes());
        let error = longest(&bytes).err();
        assert_eq!(error.map(|e| e.offset), Some(20));
    }

    #[test]
    fn a_truncated_header_is_malformed_and_other_files_are_not_classic() {
        let bytes = cdf1("d", "a", "v");
        assert!(longest(&bytes[..30]).is_err());
        assert_eq!(longest(b"\x89HDF\r\n\x1a\n"), Ok(None));
        assert_eq!(longest(b""), Ok(None));
    }
}
