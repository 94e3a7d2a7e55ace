//! The forms of the numcodecs codecs that are no HDF5 filter (their chunks are in
//! `crate::numcodecs`): the JSON is the only form, named `numcodecs.ID` in Zarr version 3
//! unless the specification has a core codec (`gzip`, `crc32c`).

use serde_json::{Map, Value};

use crate::registry::{Codec, CodecEntry};

/// A numcodecs codec with no HDF5 filter and no version 3 particulars.
#[derive(Debug)]
pub struct NumcodecsOnly(pub CodecEntry);

impl Codec for NumcodecsOnly {
    fn entry(&self) -> &CodecEntry {
        &self.0
    }
}

/// numcodecs' `crc32c`: version 3's core `crc32c` has its checksum at the end, so the
/// core name applies only to that `location`.
#[derive(Debug)]
pub struct Crc32c;

const CRC32C: CodecEntry = CodecEntry::numcodecs("crc32c", true).core("crc32c");

impl Codec for Crc32c {
    fn entry(&self) -> &CodecEntry {
        &CRC32C
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
