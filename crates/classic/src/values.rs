//! Big-endian values, as classic files store them, turned into the machine's.

use ncmodel::{AtomicType, Values};

/// Swaps the big-endian values of `t` in `bytes` into the machine's byte order in place.
pub(crate) fn big_endian_to_native(t: AtomicType, bytes: &mut [u8]) {
    if cfg!(target_endian = "big") {
        return;
    }
    match t.size() {
        2 => bytes.chunks_exact_mut(2).for_each(|v| v.reverse()),
        4 => bytes.chunks_exact_mut(4).for_each(|v| v.reverse()),
        8 => bytes.chunks_exact_mut(8).for_each(|v| v.reverse()),
        _ => {}
    }
}

/// The values of `t` stored big-endian in `bytes` (a whole number of them).
pub(crate) fn values_from_big_endian(t: AtomicType, bytes: &[u8]) -> Values {
    let mut native = bytes.to_vec();
    big_endian_to_native(t, &mut native);
    Values::from_native_bytes(t, &native).unwrap_or_else(|| Values::empty(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_endian_values_are_read_in_every_width() {
        assert_eq!(
            values_from_big_endian(AtomicType::Short, &[0x01, 0x02, 0xff, 0xfe]),
            Values::Short(vec![0x0102, -2])
        );
        assert_eq!(
            values_from_big_endian(AtomicType::Float, &1.5f32.to_be_bytes()),
            Values::Float(vec![1.5])
        );
        assert_eq!(
            values_from_big_endian(AtomicType::UInt64, &u64::MAX.to_be_bytes()),
            Values::UInt64(vec![u64::MAX])
        );
        assert_eq!(
            values_from_big_endian(AtomicType::Char, b"ab"),
            Values::Char(b"ab".to_vec())
        );
    }
}
