//! Whole chunks of a netCDF-4 variable, decoded, from any thread (a
//! [`store::DecodedChunkReader`]): a chunk inside the variable decoded here straight from
//! its stored bytes when its filters are decoded here, else (and at the variable's edges)
//! the chunk's region read as a hyperslab and padded with zeros.

use ncmodel::{Dataset, Layout, TypeRef, Var};
use store::{extent_in, pad_to_chunk, DecodedChunkReader, RawBuffer, StoreError};

use crate::file::NcFile;

/// One variable of a file being read, chunk by chunk.
pub(crate) struct NcChunkReader<'f> {
    file: &'f NcFile,
    group: i32,
    var: i32,
    shape: Vec<usize>,
    chunks: Vec<usize>,
    element: usize,
}

impl NcFile {
    /// The reader of the whole chunks of `var` of `group`; `None` when it is not chunked
    /// or not of a type that moves as raw bytes.
    pub(crate) fn chunk_reader(
        &self,
        dataset: &Dataset,
        group: i32,
        var: &Var,
    ) -> Option<NcChunkReader<'_>> {
        let Layout::Chunked(chunks) = &var.storage.as_ref()?.layout else {
            return None;
        };
        let TypeRef::Atomic(atomic) = var.type_ref else {
            return None;
        };
        if !store::is_raw_type(var.type_ref) || chunks.len() != var.dim_ids.len() {
            return None;
        }
        let shape = var
            .dim_ids
            .iter()
            .map(|id| dataset.dim(*id).map(|d| d.len))
            .collect::<Option<Vec<usize>>>()?;
        Some(NcChunkReader {
            file: self,
            group,
            var: var.id,
            shape,
            chunks: chunks.clone(),
            element: atomic.size(),
        })
    }
}

impl DecodedChunkReader for NcChunkReader<'_> {
    fn read(&self, offset: &[usize]) -> Result<Vec<u8>, StoreError> {
        let extent = extent_in(&self.shape, &self.chunks, offset);
        if extent == self.chunks {
            if let Some(chunk) = self.file.decode_whole_chunk(self.group, self.var, offset)? {
                return Ok(chunk);
            }
        }
        let mut part = RawBuffer::new();
        self.file
            .read_raw(self.group, self.var, offset, &extent, &mut part)?;
        if extent == self.chunks {
            return Ok(part.as_bytes().to_vec());
        }
        let zero = vec![0u8; self.element];
        Ok(pad_to_chunk(
            part.as_bytes(),
            &extent,
            &self.chunks,
            self.element,
            &zero,
        ))
    }
}
