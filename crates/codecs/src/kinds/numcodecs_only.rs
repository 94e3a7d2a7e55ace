//! The forms of the numcodecs codecs that are no HDF5 filter (their chunks are in
//! `crate::numcodecs`): the JSON is the only form, named `numcodecs.ID` in Zarr version 3
//! unless the specification has a core codec (`gzip`, `crc32c`).

use serde_json::{Map, Value};

use crate::numcodecs::{Chunks, CodecError as NumcodecsError, MakeChunks};
use crate::registry::{Codec, CodecEntry};

/// A numcodecs codec with no HDF5 filter and no version 3 particulars: its facts, and
/// how its chunks are made from its JSON (in its own file under `crate::numcodecs`).
#[derive(Debug)]
pub struct NumcodecsOnly {
    entry: CodecEntry,
    chunks: MakeChunks,
}

impl NumcodecsOnly {
    /// The codec of `entry` whose chunks `chunks` makes.
    pub const fn new(entry: CodecEntry, chunks: MakeChunks) -> Self {
        Self { entry, chunks }
    }
}

impl Codec for NumcodecsOnly {
    fn entry(&self) -> &CodecEntry {
        &self.entry
    }

    fn numcodecs_chunks(
        &self,
        config: &Map<String, Value>,
    ) -> Option<Result<Box<dyn Chunks>, NumcodecsError>> {
        Some((self.chunks)(config))
    }
}

/// numcodecs' `crc32c`: version 3's core `crc32c` has its checksum at the end, so the
/// core name applies only to that `location`.
#[derive(Debug)]
pub struct Crc32c;

pub(crate) const CRC32C: CodecEntry = CodecEntry::numcodecs("crc32c", true).core("crc32c");

impl Codec for Crc32c {
    fn entry(&self) -> &CodecEntry {
        &CRC32C
    }

    fn numcodecs_chunks(
        &self,
        config: &Map<String, Value>,
    ) -> Option<Result<Box<dyn Chunks>, NumcodecsError>> {
        Some(crate::numcodecs::crc32c_chunks(config))
    }

    fn numcodecs_to_v3(
        &self,
        configuration: &mut Map<String, Value>,
        _element_size: usize,
    ) -> String {
        if configuration.get("location").is_none_or(|l| l == "end") {
            configuration.remove("location");
            "crc32c".into()
        } else {
            "numcodecs.crc32c".into()
        }
    }
}
