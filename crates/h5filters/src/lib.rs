//! HDF5 filters implemented in Rust. For now: encoding a whole chunk exactly as HDF5's
//! filter pipeline would (shuffle, deflate, bzip2), so that nccopy can compress chunks on
//! several threads and hand them to HDF5's direct chunk write; the result decodes with
//! HDF5's own filters and the standard plugins.

mod codec;
mod encoder;

pub use codec::{bzip2_compress, bzip2_decompress, deflate, inflate, shuffle, unshuffle};
pub use encoder::{ChunkEncoder, EncodeError};
