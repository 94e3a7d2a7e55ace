//! Where a variable's stored data lies in its file: what virtual references (kerchunk)
//! point at.

/// One stored block of a variable: a chunk, or a contiguous variable's whole data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPlace {
    /// The element offset of its first element, one entry per dimension (empty for a
    /// contiguous block).
    pub index: Vec<u64>,
    /// The filters skipped for it, one bit per filter of the pipeline, in order.
    pub filter_mask: u32,
    /// Its byte offset in the file.
    pub address: u64,
    /// Its stored length in bytes.
    pub size: u64,
}

/// How a variable's data is laid out in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredLayout {
    /// Chunks, each stored where its place says (only those ever written).
    Chunked(Vec<ChunkPlace>),
    /// One block, or `None` when it was never written (reads give fill values).
    Contiguous(Option<ChunkPlace>),
    /// Inside the object header: no place of its own in the file.
    Compact,
    /// Any other layout (virtual datasets, ...).
    Other,
}
