//! The records of a zip archive (PKWARE's APPNOTE): the end of central directory (and
//! its zip64 form), central directory headers and local file headers, read from bytes
//! and written to bytes. Only what a Zarr store needs: one disk, entries stored
//! (method 0) or deflated (method 8), sizes and offsets beyond 4 GiB through zip64.

/// `PK\x03\x04`: a local file header.
pub const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
/// `PK\x01\x02`: a central directory header.
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
/// `PK\x05\x06`: the end of central directory record.
pub const END_SIGNATURE: u32 = 0x0605_4b50;
/// `PK\x06\x06`: the zip64 end of central directory record.
const END64_SIGNATURE: u32 = 0x0606_4b50;
/// `PK\x06\x07`: the zip64 end of central directory locator.
const LOCATOR64_SIGNATURE: u32 = 0x0706_4b50;

/// The fixed part of a local file header.
pub const LOCAL_LEN: u64 = 30;
/// The fixed part of a central directory header.
pub const CENTRAL_LEN: usize = 46;
/// The end of central directory record without its comment.
pub const END_LEN: usize = 22;
/// The zip64 end of central directory locator.
const LOCATOR64_LEN: usize = 20;
/// The zip64 end of central directory record (version 1, no extensible data).
const END64_LEN: usize = 56;
/// The longest comment an end record can have, so how far from the end it can be.
pub const MAX_COMMENT: usize = 0xFFFF;

/// Entries stored as they are.
pub const STORED: u16 = 0;
/// Entries compressed with deflate.
pub const DEFLATED: u16 = 8;

/// The 16-bit and 32-bit "see the zip64 field" values.
const MAX16: u16 = 0xFFFF;
const MAX32: u32 = 0xFFFF_FFFF;
/// The zip64 extra field's tag.
const ZIP64_TAG: u16 = 0x0001;
/// General purpose flag bit 0: the entry is encrypted.
const ENCRYPTED: u16 = 0x0001;
/// General purpose flag bit 11: the name is UTF-8.
const UTF8_NAME: u16 = 0x0800;
/// `version made by`: Unix (3), APPNOTE 4.5 (zip64).
const MADE_BY: u16 = (3 << 8) | 45;
/// `version needed`: 2.0 (stored and deflated entries, directories), 4.5 (zip64).
const NEEDED: u16 = 20;
const NEEDED64: u16 = 45;
/// DOS date 1980-01-01, time 00:00: every entry's, so that the same store gives the same
/// bytes.
const DOS_DATE: u16 = (1 << 5) | 1;
/// External attributes: a regular file (or directory) readable and writable by its
/// owner, as Python's `zipfile` writes them.
const FILE_ATTRS: u32 = 0o100_600 << 16;
const DIR_ATTRS: u32 = (0o040_700 << 16) | 0x10;

/// What is wrong with an archive's records.
pub type Problem = String;

/// Little-endian fields read one after another, failing past the end.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Problem> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return Err("a record runs past the end of its bytes".to_string());
        };
        let part = &self.bytes[self.at..end];
        self.at = end;
        Ok(part)
    }

    fn u16(&mut self) -> Result<u16, Problem> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, Problem> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, Problem> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

/// Where the central directory is and how many entries it says it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Directory {
    /// The number of entries.
    pub entries: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its offset from the start of the file.
    pub offset: u64,
}

/// The end of central directory record in `tail`, the last bytes of a file whose
/// `tail_start` is their offset: the last signature from which a whole record with its
/// comment reaches the end exactly. Returns the record's offset in the file and what it
/// says; the zip64 fields are still to be read ([`zip64_locator`]) where it says so.
pub fn find_end(tail: &[u8], tail_start: u64) -> Result<(u64, Directory, bool), Problem> {
    let last = tail.len().checked_sub(END_LEN).ok_or_else(not_a_zip)?;
    for at in (0..=last).rev() {
        let mut f = Fields::new(&tail[at..]);
        if f.u32()? != END_SIGNATURE {
            continue;
        }
        let disk = f.u16()?;
        let cd_disk = f.u16()?;
        let on_disk = f.u16()?;
        let entries = f.u16()?;
        let size = f.u32()?;
        let offset = f.u32()?;
        let comment = f.u16()?;
        if at + END_LEN + usize::from(comment) != tail.len() {
            continue;
        }
        if disk != 0 && disk != MAX16 || cd_disk != 0 && cd_disk != MAX16 || on_disk != entries {
            return Err("the archive spans several disks, which nctools does not read".into());
        }
        let zip64 = entries == MAX16 || size == MAX32 || offset == MAX32;
        let directory = Directory {
            entries: entries.into(),
            size: size.into(),
            offset: offset.into(),
        };
        return Ok((tail_start + at as u64, directory, zip64));
    }
    Err(not_a_zip())
}

fn not_a_zip() -> Problem {
    "no end of central directory record: not a zip archive, or a truncated one".to_string()
}

/// How many bytes before the end record the zip64 locator takes.
pub const LOCATOR64_BEFORE_END: u64 = LOCATOR64_LEN as u64;

/// The offset of the zip64 end record, from the locator's bytes.
pub fn zip64_locator(bytes: &[u8]) -> Result<u64, Problem> {
    let mut f = Fields::new(bytes);
    if f.u32()? != LOCATOR64_SIGNATURE {
        return Err("the end record asks for zip64 fields but there is no zip64 locator".into());
    }
    let disk = f.u32()?;
    let offset = f.u64()?;
    let disks = f.u32()?;
    if disk != 0 || disks > 1 {
        return Err("the archive spans several disks, which nctools does not read".into());
    }
    Ok(offset)
}

/// The length of the zip64 end record [`zip64_end`] reads.
pub const END64_READ: usize = END64_LEN;

/// The central directory the zip64 end record in `bytes` describes.
pub fn zip64_end(bytes: &[u8]) -> Result<Directory, Problem> {
    let mut f = Fields::new(bytes);
    if f.u32()? != END64_SIGNATURE {
        return Err("the zip64 locator leads to no zip64 end record".into());
    }
    let _record_size = f.u64()?;
    let _made_by = f.u16()?;
    let _needed = f.u16()?;
    let disk = f.u32()?;
    let cd_disk = f.u32()?;
    let on_disk = f.u64()?;
    let entries = f.u64()?;
    let size = f.u64()?;
    let offset = f.u64()?;
    if disk != 0 || cd_disk != 0 || on_disk != entries {
        return Err("the archive spans several disks, which nctools does not read".into());
    }
    Ok(Directory {
        entries,
        size,
        offset,
    })
}

/// One central directory header: an entry as the archive's index states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CentralEntry {
    /// The entry's name as stored (UTF-8 checked).
    pub name: String,
    /// How it is stored: [`STORED`], [`DEFLATED`] or another method (refused when read).
    pub method: u16,
    /// Whether it is encrypted (refused when read).
    pub encrypted: bool,
    /// The CRC-32 of its bytes.
    pub crc: u32,
    /// Its size as stored.
    pub compressed: u64,
    /// Its size once decompressed.
    pub size: u64,
    /// The offset of its local header.
    pub local_offset: u64,
}

/// The central directory headers in `bytes`, at most `entries` of them; `bytes` is the
/// whole directory, so no count can make more than `bytes.len() / 46` headers.
pub fn central_entries(bytes: &[u8], entries: u64) -> Result<Vec<CentralEntry>, Problem> {
    let most = bytes.len() / CENTRAL_LEN;
    if entries > most as u64 {
        return Err(format!(
            "the central directory claims {entries} entries but its {} bytes hold at most {most}",
            bytes.len()
        ));
    }
    let mut out = Vec::with_capacity(most.min(entries as usize));
    let mut f = Fields::new(bytes);
    for _ in 0..entries {
        out.push(central_entry(&mut f)?);
    }
    Ok(out)
}

fn central_entry(f: &mut Fields<'_>) -> Result<CentralEntry, Problem> {
    if f.u32()? != CENTRAL_SIGNATURE {
        return Err("a central directory header has a wrong signature".into());
    }
    let _made_by = f.u16()?;
    let _needed = f.u16()?;
    let flags = f.u16()?;
    let method = f.u16()?;
    let _time = f.u16()?;
    let _date = f.u16()?;
    let crc = f.u32()?;
    let compressed32 = f.u32()?;
    let size32 = f.u32()?;
    let name_len = f.u16()?;
    let extra_len = f.u16()?;
    let comment_len = f.u16()?;
    let disk16 = f.u16()?;
    let _internal = f.u16()?;
    let _external = f.u32()?;
    let offset32 = f.u32()?;
    let name = f.take(name_len.into())?;
    let extra = f.take(extra_len.into())?;
    f.take(comment_len.into())?;
    let name = std::str::from_utf8(name)
        .map_err(|_| {
            format!(
                "an entry's name is not UTF-8 ({:?})",
                String::from_utf8_lossy(name)
            )
        })?
        .to_string();
    let mut size = u64::from(size32);
    let mut compressed = u64::from(compressed32);
    let mut local_offset = u64::from(offset32);
    let mut disk = u32::from(disk16);
    if size32 == MAX32 || compressed32 == MAX32 || offset32 == MAX32 || disk16 == MAX16 {
        let mut z = zip64_field(extra)
            .ok_or_else(|| format!("the entry {name:?} lacks its zip64 extra field"))?;
        let mut next = |wanted: bool| -> Result<Option<u64>, Problem> {
            if !wanted {
                return Ok(None);
            }
            z.u64()
                .map(Some)
                .map_err(|_| format!("the entry {name:?} has a short zip64 extra field"))
        };
        size = next(size32 == MAX32)?.unwrap_or(size);
        compressed = next(compressed32 == MAX32)?.unwrap_or(compressed);
        local_offset = next(offset32 == MAX32)?.unwrap_or(local_offset);
        if disk16 == MAX16 {
            disk = z
                .u32()
                .map_err(|_| format!("the entry {name:?} has a short zip64 extra field"))?;
        }
    }
    if disk != 0 {
        return Err("the archive spans several disks, which nctools does not read".into());
    }
    Ok(CentralEntry {
        name,
        method,
        encrypted: flags & ENCRYPTED != 0,
        crc,
        compressed,
        size,
        local_offset,
    })
}

/// The zip64 extra field's data among the extra fields `extra`.
fn zip64_field(extra: &[u8]) -> Option<Fields<'_>> {
    let mut f = Fields::new(extra);
    while let (Ok(tag), Ok(len)) = (f.u16(), f.u16()) {
        let data = f.take(len.into()).ok()?;
        if tag == ZIP64_TAG {
            return Some(Fields::new(data));
        }
    }
    None
}

/// The length of a local header's name and extra field, from its fixed part `bytes`
/// ([`LOCAL_LEN`] of them): where the entry's data starts after the header.
pub fn local_variable_len(bytes: &[u8]) -> Result<u64, Problem> {
    let mut f = Fields::new(bytes);
    if f.u32()? != LOCAL_SIGNATURE {
        return Err("an entry's local header has a wrong signature".into());
    }
    f.take(22)?;
    let name_len = f.u16()?;
    let extra_len = f.u16()?;
    Ok(u64::from(name_len) + u64::from(extra_len))
}

/// An entry this crate writes: a value stored, a directory, or an entry of another
/// archive copied as it is stored there (deflated ones too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenEntry {
    /// Its name in the archive (a directory's ends in `/`).
    pub name: String,
    /// How its bytes are stored: [`STORED`] or [`DEFLATED`].
    pub method: u16,
    /// The CRC-32 of its bytes.
    pub crc: u32,
    /// Its size as stored in the archive.
    pub compressed: u64,
    /// Its size once decompressed.
    pub size: u64,
    /// The offset of its local header.
    pub local_offset: u64,
}

impl WrittenEntry {
    /// A value (or a directory) stored as it is.
    pub fn stored(name: String, crc: u32, size: u64, local_offset: u64) -> Self {
        Self {
            name,
            method: STORED,
            crc,
            compressed: size,
            size,
            local_offset,
        }
    }

    /// Whether a size needs the zip64 extra field.
    fn big(&self) -> bool {
        self.size >= u64::from(MAX32) || self.compressed >= u64::from(MAX32)
    }

    fn zip64(&self) -> bool {
        self.big() || self.local_offset >= u64::from(MAX32)
    }

    fn attrs(&self) -> u32 {
        if self.name.ends_with('/') {
            DIR_ATTRS
        } else {
            FILE_ATTRS
        }
    }

    /// The local header that comes before the entry's bytes. An entry of 4 GiB or more
    /// gives its sizes in a zip64 extra field.
    pub fn local_header(&self) -> Vec<u8> {
        let big = self.big();
        let mut out = Vec::with_capacity(LOCAL_LEN as usize + self.name.len() + 20);
        put32(&mut out, LOCAL_SIGNATURE);
        put16(&mut out, if big { NEEDED64 } else { NEEDED });
        put16(&mut out, UTF8_NAME);
        put16(&mut out, self.method);
        put16(&mut out, 0);
        put16(&mut out, DOS_DATE);
        put32(&mut out, self.crc);
        put32(&mut out, if big { MAX32 } else { self.compressed as u32 });
        put32(&mut out, if big { MAX32 } else { self.size as u32 });
        put16(&mut out, name_len(&self.name));
        put16(&mut out, if big { 20 } else { 0 });
        out.extend_from_slice(self.name.as_bytes());
        if big {
            put16(&mut out, ZIP64_TAG);
            put16(&mut out, 16);
            put64(&mut out, self.size);
            put64(&mut out, self.compressed);
        }
        out
    }

    /// The entry's central directory header.
    pub fn central_header(&self, out: &mut Vec<u8>) {
        let big = self.big();
        let far = self.local_offset >= u64::from(MAX32);
        let extra_len = 8 * (2 * u16::from(big) + u16::from(far));
        put32(out, CENTRAL_SIGNATURE);
        put16(out, MADE_BY);
        put16(out, if self.zip64() { NEEDED64 } else { NEEDED });
        put16(out, UTF8_NAME);
        put16(out, self.method);
        put16(out, 0);
        put16(out, DOS_DATE);
        put32(out, self.crc);
        put32(out, if big { MAX32 } else { self.compressed as u32 });
        put32(out, if big { MAX32 } else { self.size as u32 });
        put16(out, name_len(&self.name));
        put16(out, if extra_len > 0 { extra_len + 4 } else { 0 });
        put16(out, 0);
        put16(out, 0);
        put16(out, 0);
        put32(out, self.attrs());
        put32(out, if far { MAX32 } else { self.local_offset as u32 });
        out.extend_from_slice(self.name.as_bytes());
        if extra_len > 0 {
            put16(out, ZIP64_TAG);
            put16(out, extra_len);
            if big {
                put64(out, self.size);
                put64(out, self.compressed);
            }
            if far {
                put64(out, self.local_offset);
            }
        }
    }
}

/// The records that end an archive whose central directory `directory` describes: the
/// zip64 end record and its locator when a count, size or offset does not fit the
/// classic record (which then says so), and the classic end record.
pub fn end_records(directory: Directory) -> Vec<u8> {
    let mut out = Vec::with_capacity(END64_LEN + LOCATOR64_LEN + END_LEN);
    let zip64 = directory.entries >= u64::from(MAX16)
        || directory.size >= u64::from(MAX32)
        || directory.offset >= u64::from(MAX32);
    if zip64 {
        let end64_offset = directory.offset + directory.size;
        put32(&mut out, END64_SIGNATURE);
        put64(&mut out, (END64_LEN - 12) as u64);
        put16(&mut out, MADE_BY);
        put16(&mut out, NEEDED64);
        put32(&mut out, 0);
        put32(&mut out, 0);
        put64(&mut out, directory.entries);
        put64(&mut out, directory.entries);
        put64(&mut out, directory.size);
        put64(&mut out, directory.offset);
        put32(&mut out, LOCATOR64_SIGNATURE);
        put32(&mut out, 0);
        put64(&mut out, end64_offset);
        put32(&mut out, 1);
    }
    let entries16 = u16::try_from(directory.entries)
        .ok()
        .filter(|n| *n != MAX16)
        .unwrap_or(MAX16);
    let clip32 = |v: u64| {
        u32::try_from(v)
            .ok()
            .filter(|n| *n != MAX32)
            .unwrap_or(MAX32)
    };
    put32(&mut out, END_SIGNATURE);
    put16(&mut out, 0);
    put16(&mut out, 0);
    put16(&mut out, entries16);
    put16(&mut out, entries16);
    put32(&mut out, clip32(directory.size));
    put32(&mut out, clip32(directory.offset));
    put16(&mut out, 0);
    out
}

/// A name's length as a 16-bit field; names come from store keys, far shorter.
fn name_len(name: &str) -> u16 {
    u16::try_from(name.len()).unwrap_or(MAX16)
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_records_read_back() -> Result<(), Problem> {
        let entries = [
            WrittenEntry::stored("a/.zarray".into(), 7, 12, 0),
            WrittenEntry::stored("a/0.0".into(), 9, 5 << 32, 6 << 32),
        ];
        let mut cd = Vec::new();
        for e in &entries {
            cd.extend(e.central_header_bytes());
        }
        let read = central_entries(&cd, 2)?;
        assert_eq!(read[1].size, 5 << 32);
        assert_eq!(read[1].compressed, 5 << 32);
        assert_eq!(read[1].local_offset, 6 << 32);
        assert_eq!(read[0].name, "a/.zarray");
        let directory = Directory {
            entries: 70_000,
            size: cd.len() as u64,
            offset: 7 << 32,
        };
        let tail = end_records(directory);
        let (at, found, zip64) = find_end(&tail, 100)?;
        assert!(zip64);
        assert_eq!(at, 100 + (END64_LEN + LOCATOR64_LEN) as u64);
        assert_eq!(found.entries, 0xFFFF);
        let end64_at = zip64_locator(&tail[END64_LEN..])?;
        assert_eq!(end64_at, directory.offset + directory.size);
        assert_eq!(zip64_end(&tail[..END64_LEN])?, directory);
        Ok(())
    }

    #[test]
    fn a_count_larger_than_the_directory_is_refused() {
        let Err(problem) = central_entries(&[0; 100], 1 << 32) else {
            panic!("accepted");
        };
        assert!(problem.contains("claims 4294967296 entries"), "{problem}");
    }

    impl WrittenEntry {
        fn central_header_bytes(&self) -> Vec<u8> {
            let mut out = Vec::new();
            self.central_header(&mut out);
            out
        }
    }
}
