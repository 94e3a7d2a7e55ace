//! How CDL data fills a `char` variable, as netCDF-C 4.9's ncgen does it: the strings and
//! character constants are laid end to end; in a variable of two or more dimensions each
//! string is padded with NULs to a whole number of rows (the last dimension), and an
//! empty string fills one row; character constants (`'a'`) and `_` take one byte each.

/// Bytes of a char variable's data, in row-major order, as they are produced. The NULs
/// that pad a string to its rows are kept as a count, not as bytes, until they are taken
/// (red team s35 RB13: one string on a record of 2,000,000,000 characters was padded in
/// memory, 2.17 GB from a 95-byte CDL).
#[derive(Debug, Default)]
pub struct CharPacker {
    /// The row length strings are padded to (none for scalars and one-dimensional
    /// variables, whose strings are simply concatenated).
    row: Option<usize>,
    /// Bytes produced and not yet taken.
    bytes: Vec<u8>,
    /// NULs produced after `bytes` and not yet taken.
    padding: usize,
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

    /// Turns the NULs counted after the bytes into bytes, before more bytes come (the
    /// caller takes bytes often enough that they are few).
    fn settle_padding(&mut self) {
        self.bytes.resize(self.bytes.len() + self.padding, 0);
        self.padding = 0;
    }

    /// Adds a string constant.
    pub fn push_str(&mut self, text: &[u8]) {
        self.settle_padding();
        self.bytes.extend_from_slice(text);
        self.produced += text.len();
        if let Some(row) = self.row {
            let rem = self.produced % row;
            let pad = match (text.is_empty(), rem) {
                (true, 0) => row,
                (_, 0) => 0,
                (_, rem) => row - rem,
            };
            self.padding = pad;
            self.produced += pad;
        }
    }

    /// Adds one byte (a character constant, or NUL for `_`).
    pub fn push_byte(&mut self, byte: u8) {
        self.settle_padding();
        self.bytes.push(byte);
        self.produced += 1;
    }

    /// The number of bytes waiting to be taken.
    pub fn pending(&self) -> usize {
        self.bytes.len() + self.padding
    }

    /// The NULs waiting after the bytes.
    pub fn padding(&self) -> usize {
        self.padding
    }

    /// Takes the waiting bytes before the padding, leaving the padding.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }

    /// Takes the padding (once the bytes before it are taken): how many NULs it was.
    pub fn take_padding(&mut self) -> usize {
        std::mem::take(&mut self.padding)
    }

    /// Takes at most `most` of the waiting bytes, the first ones.
    pub fn take_at_most(&mut self, most: usize) -> Vec<u8> {
        if self.bytes.len() >= most {
            let rest = self.bytes.split_off(most);
            return std::mem::replace(&mut self.bytes, rest);
        }
        let mut out = std::mem::take(&mut self.bytes);
        let zeros = self.padding.min(most - out.len());
        out.resize(out.len() + zeros, 0);
        self.padding -= zeros;
        out
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
        packer.take_at_most(usize::MAX)
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
        assert_eq!(packer.take_at_most(usize::MAX), b"abcde");
    }

    /// Red team s35 RB13: a row of two billion characters is padded a piece at a time.
    #[test]
    fn a_long_row_is_padded_a_piece_at_a_time() {
        let mut packer = CharPacker::new(&[3, 2_000_000_000]);
        packer.push_str(b"ab");
        assert_eq!(packer.pending(), 2_000_000_000);
        assert_eq!(packer.take_at_most(4), b"ab\0\0");
        assert_eq!(packer.pending(), 2_000_000_000 - 4);
        assert_eq!(packer.take_at_most(3), b"\0\0\0");
    }
}
