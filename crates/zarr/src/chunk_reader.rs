//! Whole chunks of a Zarr variable, decoded, from any thread (a
//! [`store::DecodedChunkReader`]): what a copy into chunks of the same shape hands the
//! writer chunk by chunk, with no slab in between. Each read decodes the one chunk (or
//! inner chunk of a shard) the region covers; edge chunks are padded with zeros.

use ncmodel::{Layout, Var};
use store::{extent_in, pad_to_chunk, DecodedChunkReader, StoreError};

use crate::schema::VarEntry;

/// One variable of a store being read, chunk by chunk.
pub(crate) struct ZarrChunkReader<'r> {
    entry: &'r VarEntry,
    /// The store's text, for messages.
    text: &'r str,
    chunks: Vec<usize>,
}

impl<'r> ZarrChunkReader<'r> {
    /// The reader of `entry`, whose schema variable is `var`; `None` when it is not
    /// chunked along every dimension or its values do not move as raw bytes.
    pub(crate) fn new(entry: &'r VarEntry, var: &Var, text: &'r str) -> Option<Self> {
        let Some(Layout::Chunked(chunks)) = var.storage.as_ref().map(|s| &s.layout) else {
            return None;
        };
        let raw = store::is_raw_type(var.type_ref)
            && entry.meta.dtype.atomic != ncmodel::AtomicType::String;
        if !raw || chunks.is_empty() || chunks.len() != entry.meta.shape.len() {
            return None;
        }
        Some(Self {
            entry,
            text,
            chunks: chunks.clone(),
        })
    }
}

impl DecodedChunkReader for ZarrChunkReader<'_> {
    fn read(&self, offset: &[usize]) -> Result<Vec<u8>, StoreError> {
        let extent = extent_in(&self.entry.meta.shape, &self.chunks, offset);
        let part = crate::read::read_slab(self.entry, offset, &extent).map_err(|e| {
            e.into_store(format!(
                "{}: reading variable {}",
                self.text, self.entry.path
            ))
        })?;
        if extent == self.chunks {
            return Ok(part);
        }
        let element = self.entry.meta.dtype.size;
        Ok(pad_to_chunk(
            &part,
            &extent,
            &self.chunks,
            element,
            &vec![0; element],
        ))
    }
}
