//! How CDL data fills a `char` variable, as netCDF-C 4.9's ncgen does it: the strings and
//! character constants are laid end to end; in a variable of two or more dimensions each
//! string is padded with NULs to a whole number of rows (the last dimension), and an
//! empty string fills one row; character constants (`'a'`) and `_` take one byte each.

/// Bytes of a char variable's data, in row-major order, as they are produced.
#[derive(Debug, Default)]
pub struct CharPacker {
    /// The row length strings are padded to (none for scalars and one-dimensional
    /// variables, whose strings are simply concatenated).
    row: Option<usize>,
    /// Bytes produced and not yet taken.
    bytes: Vec<u8>,
    /// Bytes produced in all, taken or not.
    produced: usize,
}

impl CharPacker {
    /// A packer for a variable with these dimension lengths (outermost first).
    pub fn new(shape: &[usize]) -> Self {
        let row = match shape {
            [_, .., last] if shape.len() >= 2 && *last > 0 => Some(*last),
            _ => None,
        };
        Self {
            row,
            ..Self::default()
        }
    }

    /// Adds a string constant.
    pub fn push_str(&mut self, text: &[u8]) {
        self.bytes.extend_from_slice(text);
        self.produced += text.len();
        if let Some(row) = self.row {
            let rem = self.produced % row;
            let pad = match (text.is_empty(), rem) {
                (true, 0) => row,
                (_, 0) => 0,
                (_, rem) => row - rem,
            };
            self.bytes.resize(self.bytes.len() + pad, 0);
            self.produced += pad;
        }
    }

    /// Adds one byte (a character constant, or NUL for `_`).
    pub fn push_byte(&mut self, byte: u8) {
        self.bytes.push(byte);
        self.produced += 1;
    }

    /// The number of bytes waiting to be taken.
    pub fn pending(&self) -> usize {
        self.bytes.len()
    }

    /// Takes every waiting byte.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(shape: &[usize], items: &[&[u8]]) -> Vec<u8> {
        let mut packer = CharPacker::new(shape);
        for item in items {
            packer.push_str(item);
        }
        packer.take()
    }

    // Expected values observed with netCDF-C 4.9.0's ncgen then ncdump.
    #[test]
    fn strings_are_padded_to_rows() {
        assert_eq!(pack(&[3, 4], &[b"ab", b"cdef", b"g"]), b"ab\0\0cdefg\0\0\0");
        assert_eq!(pack(&[3, 4], &[b"abcdefgh", b"ij"]), b"abcdefghij\0\0");
        assert_eq!(pack(&[3, 4], &[b"abcd", b"efghi"]), b"abcdefghi\0\0\0");
    }

    #[test]
    fn an_empty_string_fills_a_row() {
        assert_eq!(pack(&[3, 4], &[b"", b"x"]), b"\0\0\0\0x\0\0\0");
    }

    #[test]
    fn one_dimension_concatenates() {
        assert_eq!(pack(&[4], &[b"ab", b"c"]), b"abc");
        assert_eq!(pack(&[], &[b"x"]), b"x");
    }

    #[test]
    fn characters_are_not_padded() {
        let mut packer = CharPacker::new(&[3, 4]);
        for c in b"abcde" {
            packer.push_byte(*c);
        }
        assert_eq!(packer.pending(), 5);
        assert_eq!(packer.take(), b"abcde");
    }
}
