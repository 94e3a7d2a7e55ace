//! What an input file is, from its metadata and first bytes, and the plain words that say
//! why a tool cannot read it: one place for all three tools, so that a directory, an
//! empty file, a text file or an unknown format is explained the same way everywhere.

use std::io::Read;
use std::path::Path;

/// What a path holds, as far as the tools care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// Nothing is there.
    Missing,
    /// It could not be looked at (permissions, I/O error): the system's words.
    Unreadable(String),
    /// A directory.
    Directory,
    /// A FIFO, a device or a socket: never opened blocking, never read as a file.
    NotRegular,
    /// An empty file.
    Empty,
    /// A netCDF classic file (`CDF` and version 1, 2 or 5).
    Classic,
    /// An HDF5 file (netCDF-4 or not): the signature at 0, 512, 1024, ...
    Hdf5,
    /// Text: CDL if `cdl` (it starts with `netcdf`), else other text.
    Text {
        /// Whether it looks like CDL.
        cdl: bool,
    },
    /// Something else: its first bytes, for the message.
    Unknown(Vec<u8>),
}

/// The HDF5 signature.
const HDF5_SIGNATURE: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

/// Bytes looked at to tell text from binary.
const SNIFF: usize = 4096;

/// Looks at `path`: its metadata, then its first bytes (and, for HDF5, the places a user
/// block may push the signature to).
pub fn identify(path: &Path) -> InputKind {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return InputKind::Missing,
        Err(e) => return InputKind::Unreadable(e.to_string()),
    };
    if meta.is_dir() {
        return InputKind::Directory;
    }
    if !meta.is_file() {
        return InputKind::NotRegular;
    }
    if meta.len() == 0 {
        return InputKind::Empty;
    }
    let mut head = Vec::with_capacity(SNIFF);
    // Opened without blocking and checked again: it may have been swapped for a FIFO.
    let read = kv::input_file::open_regular_file(path)
        .and_then(|f| f.take(SNIFF as u64).read_to_end(&mut head));
    if let Err(e) = read {
        if kv::input_file::is_not_regular(&e) {
            return InputKind::NotRegular;
        }
        return InputKind::Unreadable(e.to_string());
    }
    if classic::is_classic_signature(&head) {
        return InputKind::Classic;
    }
    if head.starts_with(HDF5_SIGNATURE) || hdf5_after_user_block(path, meta.len()) {
        return InputKind::Hdf5;
    }
    if looks_like_text(&head) {
        let first_word = String::from_utf8_lossy(&head)
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        return InputKind::Text {
            cdl: matches!(first_word.as_str(), "netcdf" | "hdf5" | "data"),
        };
    }
    head.truncate(8);
    InputKind::Unknown(head)
}

/// Whether the HDF5 signature is at 512, 1024, 2048, ... (after a user block).
fn hdf5_after_user_block(path: &Path, len: u64) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(file) = kv::input_file::open_regular_file(path) else {
        return false;
    };
    hdf5_superblock_offset(len, |buf, at| file.read_exact_at(buf, at).is_ok()).is_some()
}

/// Where the HDF5 superblock of a file of `len` bytes starts: the first of 0, 512, 1024,
/// 2048, ... (after a user block) that holds HDF5's signature. `read_at` fills a buffer
/// from an offset, false when it cannot.
pub fn hdf5_superblock_offset(len: u64, read_at: impl Fn(&mut [u8], u64) -> bool) -> Option<u64> {
    let mut offset = 0u64;
    while offset + 8 <= len {
        let mut sig = [0u8; 8];
        if read_at(&mut sig, offset) && &sig == HDF5_SIGNATURE {
            return Some(offset);
        }
        offset = if offset == 0 { 512 } else { offset * 2 };
    }
    None
}

/// Whether `bytes` look like text: UTF-8 (a character cut at the end is allowed) with no
/// control characters but tabs, newlines, carriage returns and form feeds.
fn looks_like_text(bytes: &[u8]) -> bool {
    let valid = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    valid
        .chars()
        .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\x0c'))
}

/// Why ncdump or nccopy cannot read `path` as a netCDF file, in plain words; `None` when
/// it is a netCDF (classic or HDF5) file worth opening.
pub fn not_netcdf(path: &str, kind: &InputKind) -> Option<String> {
    Some(match kind {
        InputKind::Classic | InputKind::Hdf5 => return None,
        InputKind::Missing => format!("{path}: no such file"),
        InputKind::Unreadable(why) => format!("{path}: cannot read: {why}"),
        InputKind::Directory => format!(
            "{path}: is a directory, neither a netCDF file nor a Zarr store (a Zarr store \
             has .zgroup, .zarray or zarr.json at its top)"
        ),
        InputKind::NotRegular => format!("{path}: {}", kv::input_file::NOT_REGULAR_FILE),
        InputKind::Empty => format!("{path}: empty file, not a netCDF file"),
        InputKind::Text { cdl: true } => format!(
            "{path}: a text file in CDL, not a netCDF file; make a netCDF file from it with \
             `ncgen -o out.nc {path}`"
        ),
        InputKind::Text { cdl: false } => format!("{path}: a text file, not a netCDF file"),
        InputKind::Unknown(head) => format!(
            "{path}: not a netCDF file (unknown format: it starts with {}; netCDF files \
             start with `CDF` or with HDF5's signature)",
            hex(head)
        ),
    })
}

/// Whether an input `not_netcdf` refuses should first go to libnetcdf, which may read
/// formats nctools does not recognise (HDF4 when it is built with it, user-defined
/// formats): a binary file of unknown format. The refusal stands when libnetcdf fails.
pub fn for_libnetcdf_to_judge(kind: &InputKind) -> bool {
    matches!(kind, InputKind::Unknown(_))
}

/// Why ncgen cannot read `path` as CDL, in plain words; `None` when it may be CDL: text,
/// or bytes that are not text (CDL strings may hold any bytes: the parser judges them).
pub fn not_cdl(path: &str, kind: &InputKind) -> Option<String> {
    Some(match kind {
        // ncgen reads CDL from pipes (a shell's `<(...)` too): a stream is spooled.
        InputKind::Text { .. } | InputKind::Unknown(_) | InputKind::NotRegular => return None,
        InputKind::Missing => format!("{path}: no such file"),
        InputKind::Unreadable(why) => format!("{path}: cannot read: {why}"),
        InputKind::Directory => format!("{path}: is a directory, not a CDL file"),
        InputKind::Empty => format!("{path}: empty file, not a CDL file"),
        InputKind::Classic | InputKind::Hdf5 => format!(
            "{path}: a netCDF file, not CDL text; ncgen reads CDL (to see this file as CDL, \
             run `ncdump {path}`)"
        ),
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(bytes: &[u8]) -> InputKind {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("f");
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        identify(&path)
    }

    #[test]
    fn files_are_told_apart_by_their_first_bytes() {
        assert_eq!(kind_of(b""), InputKind::Empty);
        assert_eq!(kind_of(b"CDF\x01\0\0\0\0"), InputKind::Classic);
        assert_eq!(kind_of(b"CDF\x05"), InputKind::Classic);
        assert_eq!(kind_of(b"\x89HDF\r\n\x1a\n\0\0"), InputKind::Hdf5);
        let mut user_block = vec![0u8; 512];
        user_block.extend_from_slice(HDF5_SIGNATURE);
        assert_eq!(kind_of(&user_block), InputKind::Hdf5);
        assert_eq!(kind_of(b"netcdf x {\n}\n"), InputKind::Text { cdl: true });
        assert_eq!(
            kind_of("héllo\tworld\n".as_bytes()),
            InputKind::Text { cdl: false }
        );
        assert_eq!(
            kind_of(b"CDF\x03\x00\x01"),
            InputKind::Unknown(b"CDF\x03\x00\x01".to_vec())
        );
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(identify(dir.path()), InputKind::Directory);
        assert_eq!(identify(&dir.path().join("no")), InputKind::Missing);
    }

    #[test]
    fn each_kind_reads_the_same_in_every_tool() {
        let unknown = InputKind::Unknown(vec![0x5d, 0x3a]);
        assert_eq!(
            not_netcdf("f", &unknown).unwrap_or_default(),
            "f: not a netCDF file (unknown format: it starts with 5d 3a; netCDF files start \
             with `CDF` or with HDF5's signature)"
        );
        assert_eq!(not_netcdf("f", &InputKind::Hdf5), None);
        assert_eq!(not_cdl("f", &InputKind::Text { cdl: false }), None);
        for kind in [InputKind::Missing, InputKind::Directory, InputKind::Empty] {
            let a = not_netcdf("f", &kind).unwrap_or_default();
            let b = not_cdl("f", &kind).unwrap_or_default();
            assert_eq!(a.split(',').next(), b.split(',').next(), "{kind:?}");
        }
    }
}
