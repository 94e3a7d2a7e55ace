//! The 8-byte parameter fix (the spec's Appendix A): how a 64-bit value (double, long long)
//! becomes two 32-bit filter parameters so that the file holds it in little-endian order
//! whatever the byte order of the machine that wrote it.
//!
//! On a little-endian host nothing needs doing: the 8 bytes are passed as two native
//! 32-bit words. On a big-endian host the 8 bytes are byte-swapped as a whole and then each
//! 4-byte half is swapped again, which together exchanges the two halves. Both ways, the
//! first word holds the low 32 bits of the value and the second the high 32 bits, so
//! [`u64_to_words`] and [`words_to_u64`] are independent of the host.

/// A machine byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    /// Least significant byte first (x86, most ARM).
    Little,
    /// Most significant byte first.
    Big,
}

impl ByteOrder {
    /// The byte order of the machine running this code.
    pub const fn native() -> Self {
        if cfg!(target_endian = "big") {
            Self::Big
        } else {
            Self::Little
        }
    }
}

/// Fixes the memory image of an 8-byte value, as held on a host of byte order `host`, so
/// that reading it as two native 32-bit words gives the spec's encoding. The fix is its own
/// inverse, so decoding (inside a filter) applies the same function.
pub const fn fix8(mem: [u8; 8], host: ByteOrder) -> [u8; 8] {
    match host {
        ByteOrder::Little => mem,
        ByteOrder::Big => {
            // Whole 8-byte swap, then each 4-byte half swapped: the halves trade places.
            let [a, b, c, d, e, f, g, h] = mem;
            [e, f, g, h, a, b, c, d]
        }
    }
}

/// Reads a 4-byte memory image as a 32-bit word on a host of byte order `host`.
pub const fn word_from_memory(bytes: [u8; 4], host: ByteOrder) -> u32 {
    match host {
        ByteOrder::Little => u32::from_le_bytes(bytes),
        ByteOrder::Big => u32::from_be_bytes(bytes),
    }
}

/// The memory image of a 64-bit value on a host of byte order `host`.
pub const fn memory_of_u64(value: u64, host: ByteOrder) -> [u8; 8] {
    match host {
        ByteOrder::Little => value.to_le_bytes(),
        ByteOrder::Big => value.to_be_bytes(),
    }
}

/// The two parameter words a host of byte order `host` passes to HDF5 for `value`.
pub const fn u64_to_words_on(value: u64, host: ByteOrder) -> [u32; 2] {
    let [a, b, c, d, e, f, g, h] = fix8(memory_of_u64(value, host), host);
    [
        word_from_memory([a, b, c, d], host),
        word_from_memory([e, f, g, h], host),
    ]
}

/// The two parameter words for a 64-bit value: low 32 bits first.
pub const fn u64_to_words(value: u64) -> [u32; 2] {
    u64_to_words_on(value, ByteOrder::native())
}

/// The 64-bit value encoded by two parameter words (the inverse of [`u64_to_words`]).
pub const fn words_to_u64(words: [u32; 2]) -> u64 {
    (words[0] as u64) | ((words[1] as u64) << 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fix8_is_identity_on_little_endian_and_an_involution_on_big() {
        let mem = [1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(fix8(mem, ByteOrder::Little), mem);
        assert_eq!(fix8(mem, ByteOrder::Big), [5, 6, 7, 8, 1, 2, 3, 4]);
        assert_eq!(fix8(fix8(mem, ByteOrder::Big), ByteOrder::Big), mem);
    }

    #[test]
    fn both_byte_orders_give_the_same_words() {
        for value in [
            0,
            1,
            u64::MAX,
            0x0123_4567_89ab_cdef,
            12345678.12345678f64.to_bits(),
        ] {
            let little = u64_to_words_on(value, ByteOrder::Little);
            let big = u64_to_words_on(value, ByteOrder::Big);
            assert_eq!(little, big, "value {value:#x}");
            assert_eq!(little, [value as u32, (value >> 32) as u32]);
            assert_eq!(words_to_u64(little), value);
        }
    }

    #[test]
    fn double_of_the_conformance_vector() {
        assert_eq!(
            u64_to_words(12345678.12345678f64.to_bits()),
            [3287505826, 1097305129]
        );
    }
}
