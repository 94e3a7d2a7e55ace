//! What a backend can hold and do. A location is resolved once into a backend, and the
//! front ends ask its [`Capabilities`] instead of looking at the path: which format
//! model it holds, how it stores strings and chunks, which codecs it can write and what
//! to do about one it cannot. Each backend states its own (`zarr::capabilities`,
//! `ncio::capabilities`, `classic::capabilities`); nothing else decides them.

use std::fmt;
use std::sync::Arc;

use ncmodel::{AtomicType, Attribute, Dataset, Format, TypeRef, Var};

/// Whether a backend can write a codec (an HDF5 filter id), and if not, what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// The backend writes and reads it.
    Available,
    /// It cannot; the text says why and what to do, for messages.
    Missing {
        /// Why, and the remedy: install a plugin, write another kind of store, choose
        /// another filter.
        remedy: String,
    },
}

impl Availability {
    /// Whether the codec is available.
    pub fn is_available(&self) -> bool {
        matches!(self, Self::Available)
    }
}

/// A backend's answer to "can you write this codec": implemented once per backend.
pub trait CodecSupport: Send + Sync {
    /// Whether the HDF5 filter `id` can be written (its chunks encoded and declared).
    fn codec(&self, id: u32) -> Availability;
}

/// How a backend stores strings.
#[derive(Clone, Copy)]
pub enum StringForm {
    /// Variable-length strings (netCDF-4's `string`), or no strings at all (netCDF-3).
    VariableLength,
    /// Fixed-width strings: each value takes the width `width` gives for a variable's
    /// attributes and the root group's (Zarr's, NCZarr's maximum string length). Filters
    /// apply to string variables too.
    FixedWidth {
        /// The width in bytes of each value, from `(root attributes, variable attributes)`.
        width: fn(&[Attribute], &[Attribute]) -> usize,
    },
}

impl fmt::Debug for StringForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::VariableLength => f.write_str("VariableLength"),
            Self::FixedWidth { .. } => f.write_str("FixedWidth"),
        }
    }
}

/// The form of a backend's stored chunk bytes: two backends of the same form take each
/// other's stored chunks as they are; across forms only the filters whose bytes are the
/// same in both (the codec registry's pass-through filters) do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkForm {
    /// No stored chunks handed out or taken (netCDF-3, a remote file for libnetcdf).
    None,
    /// HDF5's chunks, with filter masks (netCDF-4).
    Hdf5,
    /// Zarr's chunk objects.
    Zarr,
}

/// What a chunk the writer never wrote reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingChunks {
    /// netCDF's fill value, kept by the variable's fill setting (netCDF-4).
    NetcdfFill,
    /// The store's own fill value, which need not be netCDF's (Zarr).
    StoreFill,
}

/// What a backend can hold and do.
#[derive(Clone)]
pub struct Capabilities {
    /// What the backend is, for messages: `a netCDF file`, `a Zarr store`.
    pub name: &'static str,
    /// The format every dataset written here has, whatever was asked (a Zarr store holds
    /// the netCDF-4 model); `None` when any format may be written.
    pub implied_format: Option<Format>,
    /// Whether every variable is chunked (no contiguous or compact layout).
    pub chunked_only: bool,
    /// How strings are stored.
    pub strings: StringForm,
    /// The form of stored chunk bytes handed out or taken as they are.
    pub chunks: ChunkForm,
    /// What unwritten chunks read as.
    pub missing_chunks: MissingChunks,
    /// Whether variables can be stored in shards (Zarr version 3).
    pub shards: bool,
    /// The codecs it can write.
    codecs: Arc<dyn CodecSupport>,
}

impl fmt::Debug for Capabilities {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Capabilities")
            .field("name", &self.name)
            .field("implied_format", &self.implied_format)
            .field("chunked_only", &self.chunked_only)
            .field("strings", &self.strings)
            .field("chunks", &self.chunks)
            .field("missing_chunks", &self.missing_chunks)
            .field("shards", &self.shards)
            .finish_non_exhaustive()
    }
}

impl Capabilities {
    /// The capabilities of a backend that writes codecs as `codecs` says; the other
    /// facts are a netCDF file's until changed with the struct's fields.
    pub fn new(name: &'static str, codecs: Arc<dyn CodecSupport>) -> Self {
        Self {
            name,
            implied_format: None,
            chunked_only: false,
            strings: StringForm::VariableLength,
            chunks: ChunkForm::Hdf5,
            missing_chunks: MissingChunks::NetcdfFill,
            shards: false,
            codecs,
        }
    }

    /// Whether the HDF5 filter `id` can be written here, and if not, what to do.
    pub fn codec(&self, id: u32) -> Availability {
        self.codecs.codec(id)
    }

    /// Whether strings are stored fixed-width (so filters apply to them).
    pub fn fixed_width_strings(&self) -> bool {
        matches!(self.strings, StringForm::FixedWidth { .. })
    }

    /// Which stored chunks of `input` can be written here as they are, as far as the
    /// two backends go: between HDF5 chunks, any; with a Zarr store on either side, only
    /// chunks whose filters have the same bytes in HDF5 and Zarr (a chunk crosses the
    /// boundary declared by HDF5 filter ids, and goes out under the output's own codec
    /// forms); never where a side hands out or takes no stored chunks.
    pub fn stored_chunks_from(&self, input: &Capabilities) -> StoredChunks {
        match (input.chunks, self.chunks) {
            (ChunkForm::None, _) | (_, ChunkForm::None) => StoredChunks::Never,
            (ChunkForm::Hdf5, ChunkForm::Hdf5) => StoredChunks::Any,
            _ => StoredChunks::SameBytesOnly,
        }
    }

    /// The size in bytes of each stored value of `var` (of `dataset`) here, for the
    /// filters that depend on it (shuffle): a string variable stored fixed-width takes
    /// its width; other types take their own size.
    pub fn stored_value_size(&self, dataset: &Dataset, var: &Var) -> usize {
        match self.strings {
            StringForm::FixedWidth { width }
                if var.type_ref == TypeRef::Atomic(AtomicType::String) =>
            {
                width(&dataset.root.atts, &var.atts)
            }
            _ => dataset.type_size(var.type_ref),
        }
    }
}

/// Which stored chunks move from one backend to another as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredChunks {
    /// None: every chunk is decoded and encoded.
    Never,
    /// Any, when the filters, chunk shape, type and byte order are kept.
    Any,
    /// Only those whose every filter has the same bytes in both backends' forms (the
    /// codec registry's pass-through filters).
    SameBytesOnly,
}

/// The codec support of a backend that writes none (netCDF-3, a code generator).
#[derive(Debug, Clone)]
pub struct NoCodecs {
    /// Why, for messages.
    pub remedy: &'static str,
}

impl CodecSupport for NoCodecs {
    fn codec(&self, _id: u32) -> Availability {
        Availability::Missing {
            remedy: self.remedy.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(chunks: ChunkForm) -> Capabilities {
        let mut caps = Capabilities::new("test", Arc::new(NoCodecs { remedy: "none" }));
        caps.chunks = chunks;
        caps
    }

    #[test]
    fn stored_chunks_move_freely_between_hdf5_files_and_only_with_same_bytes_to_or_from_zarr() {
        let (hdf5, zarr, none) = (
            caps(ChunkForm::Hdf5),
            caps(ChunkForm::Zarr),
            caps(ChunkForm::None),
        );
        assert_eq!(hdf5.stored_chunks_from(&hdf5), StoredChunks::Any);
        assert_eq!(zarr.stored_chunks_from(&zarr), StoredChunks::SameBytesOnly);
        assert_eq!(zarr.stored_chunks_from(&hdf5), StoredChunks::SameBytesOnly);
        assert_eq!(hdf5.stored_chunks_from(&zarr), StoredChunks::SameBytesOnly);
        assert_eq!(hdf5.stored_chunks_from(&none), StoredChunks::Never);
        assert_eq!(none.stored_chunks_from(&hdf5), StoredChunks::Never);
    }

    #[test]
    fn a_backend_without_codecs_says_why() {
        let caps = caps(ChunkForm::None);
        assert_eq!(
            caps.codec(32015),
            Availability::Missing {
                remedy: "none".to_string()
            }
        );
        assert!(!caps.fixed_width_strings());
    }
}
