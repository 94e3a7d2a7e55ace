//! A byte buffer aligned for any atomic type, for moving values as raw bytes.

/// Whether values of `type_ref` can move as raw bytes: atomic types other than `string`.
pub fn is_raw_type(type_ref: ncmodel::TypeRef) -> bool {
    matches!(type_ref, ncmodel::TypeRef::Atomic(t) if t != ncmodel::AtomicType::String)
}

/// A byte buffer aligned for any atomic type (it is backed by `u64` words), so that a
/// backend may hand it to C as an array of any atomic type.
#[derive(Debug, Default, Clone)]
pub struct RawBuffer {
    words: Vec<u64>,
    len: usize,
}

impl RawBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes the buffer `bytes` long, reusing its memory when it is large enough. New
    /// bytes are zero.
    pub fn resize(&mut self, bytes: usize) {
        let words = bytes.div_ceil(8);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
        self.len = bytes;
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[..self.len]
    }

    /// The bytes, to fill.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::RawBuffer;

    #[test]
    fn resizing_keeps_alignment_and_zeroes_new_bytes() {
        let mut buffer = RawBuffer::new();
        buffer.resize(13);
        assert_eq!(buffer.as_bytes(), &[0; 13]);
        buffer.as_bytes_mut()[12] = 7;
        assert_eq!(buffer.as_bytes()[12], 7);
        assert_eq!(buffer.as_bytes().as_ptr() as usize % 8, 0);
        buffer.resize(3);
        assert_eq!(buffer.len(), 3);
    }
}
