//! netCDF-4's lossy quantization, in pure Rust, for stores nctools writes without
//! libnetcdf (Zarr). It gives the bits libnetcdf 4.9 gives for the same values, but for
//! one case: where more bits are asked for than the type has, values are left as they
//! are (libnetcdf 4.9.0 damages them; see [`quantize_f32`]).
//!
//! The three algorithms keep a number of significant bits of each value's mantissa and
//! make the rest compress well:
//!
//! - **BitRound** keeps `n` mantissa bits and rounds to nearest (a half rounds up in
//!   magnitude), clearing the others.
//! - **BitGroom** keeps enough bits for `n` decimal digits plus two guard bits, then
//!   alternately clears the rest (values at even positions) and sets them (odd positions,
//!   non-zero values), so that the errors average out.
//! - **Granular BitRound** keeps, for each value, the bits needed for `n` decimal digits
//!   at that value's own magnitude, and rounds like BitRound.
//!
//! A value equal to the variable's fill value is never changed; libnetcdf compares with
//! the `_FillValue` attribute or, without one, with the type's default fill.

pub use ncmodel::{Quantize, QuantizeMode};

/// log10(2) and log2(10), computed as libnetcdf computes them (a quotient of natural
/// logarithms; `log10(2.0)` itself differs in the last bit, which moves values that are
/// exact powers of ten).
fn digits_per_bit() -> f64 {
    std::f64::consts::LN_2 / std::f64::consts::LN_10
}

fn bits_per_digit() -> f64 {
    std::f64::consts::LN_10 / std::f64::consts::LN_2
}

/// A floating-point type as the algorithms see it: its bits in a `u64`.
trait Ieee: Copy + PartialEq {
    /// Width in bits.
    const WIDTH: u32;
    /// Mantissa digits, with the implicit bit (24 or 53).
    const MANT_DIG: i64;
    fn bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
    fn wide(self) -> f64;
}

impl Ieee for f32 {
    const WIDTH: u32 = 32;
    const MANT_DIG: i64 = 24;
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    fn wide(self) -> f64 {
        f64::from(self)
    }
}

impl Ieee for f64 {
    const WIDTH: u32 = 64;
    const MANT_DIG: i64 = 53;
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    fn wide(self) -> f64 {
        self
    }
}

/// Quantizes `values` in place with `q`; values equal to `fill` are left alone.
///
/// Where `q` asks for more bits than an `f32` has (BitGroom and Granular BitRound with 7
/// digits reach 26 bits for some values), the values keep all their bits. libnetcdf
/// 4.9.0 instead shifts by a negative count there and damages them (1.0 becomes
/// 1.9999999 with BitGroom, 1e10 becomes -0.0 with Granular BitRound).
pub fn quantize_f32(values: &mut [f32], q: Quantize, fill: Option<f32>) {
    quantize(values, q, fill);
}

/// Quantizes `values` in place with `q`; values equal to `fill` are left alone.
pub fn quantize_f64(values: &mut [f64], q: Quantize, fill: Option<f64>) {
    quantize(values, q, fill);
}

fn quantize<T: Ieee>(values: &mut [T], q: Quantize, fill: Option<T>) {
    let nsd = i64::from(q.nsd.max(1));
    let skip = |v: T| fill == Some(v);
    match q.mode {
        QuantizeMode::BitRound => {
            let cleared = T::MANT_DIG - 1 - nsd;
            for v in values.iter_mut().filter(|v| !skip(**v)) {
                *v = round_clearing(*v, cleared);
            }
        }
        QuantizeMode::BitGroom => {
            let kept = (nsd as f64 * bits_per_digit()).ceil() as i64 + 2;
            let cleared = T::MANT_DIG - kept;
            if cleared <= 0 {
                return;
            }
            let low = (1u64 << cleared) - 1;
            for (i, v) in values.iter_mut().enumerate().filter(|(_, v)| !skip(**v)) {
                let bits = v.bits();
                *v = if i % 2 == 0 {
                    T::from_bits(bits & !low)
                } else if bits != 0 {
                    T::from_bits(bits | low)
                } else {
                    *v
                };
            }
        }
        QuantizeMode::GranularBitRound => {
            for v in values.iter_mut().filter(|v| !skip(**v)) {
                let wide = v.wide();
                if wide == 0.0 || !wide.is_finite() {
                    continue;
                }
                let (mantissa, exponent) = frexp(wide);
                let digits = (exponent as f64 * digits_per_bit() + mantissa.abs().log10()).floor()
                    as i64
                    + 1;
                let power = (bits_per_digit() * (digits - nsd) as f64).floor() as i64;
                let kept = (exponent - power).abs();
                *v = round_clearing(*v, T::MANT_DIG - kept);
            }
        }
    }
}

/// `v` rounded to nearest (a half up in magnitude) with its low `cleared` bits cleared;
/// unchanged unless `0 < cleared < width`.
fn round_clearing<T: Ieee>(v: T, cleared: i64) -> T {
    if cleared <= 0 || cleared >= i64::from(T::WIDTH) {
        return v;
    }
    let low = (1u64 << cleared) - 1;
    let half = 1u64 << (cleared - 1);
    let width_mask = if T::WIDTH == 64 {
        u64::MAX
    } else {
        (1u64 << T::WIDTH) - 1
    };
    T::from_bits((v.bits().wrapping_add(half) & !low) & width_mask)
}

/// `(m, e)` with `x = m * 2^e` and `0.5 <= |m| < 1`, for finite non-zero `x`.
fn frexp(x: f64) -> (f64, i64) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    if biased == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * f64::from_bits(0x43f0_0000_0000_0000)); // 2^64
        return (m, e - 64);
    }
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (mantissa, biased - 1022)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(mode: QuantizeMode, nsd: i32) -> Quantize {
        Quantize { mode, nsd }
    }

    #[test]
    fn frexp_splits_like_c() {
        assert_eq!(frexp(1.0), (0.5, 1));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(0.1), (0.8, -3));
        let (m, e) = frexp(5e-324);
        assert_eq!((m, e), (0.5, -1073));
    }

    #[test]
    fn bitround_keeps_the_bits_asked_for() {
        let mut v = [std::f32::consts::PI, 100.123_46, 1.0, 9.969_21e36];
        quantize_f32(&mut v, q(QuantizeMode::BitRound, 10), Some(9.969_21e36));
        assert_eq!(v, [3.140_625, 100.125, 1.0, 9.969_21e36]);
    }

    #[test]
    fn bitgroom_shaves_even_and_sets_odd_positions() {
        let mut v = [1.0_f32, 1.0, 0.0, 0.0];
        quantize_f32(&mut v, q(QuantizeMode::BitGroom, 1), None);
        // 1 digit: 4 + 2 bits kept of 24, 18 cleared or set.
        assert_eq!(v[0], 1.0);
        assert_eq!(v[1].to_bits(), 1.0_f32.to_bits() | 0x3_ffff);
        assert_eq!(v[2..], [0.0, 0.0]);
    }

    #[test]
    fn more_bits_than_the_type_has_leave_values_alone() {
        let original = [1.0_f32, -1.0, 0.5, 1e10, 100.123];
        for mode in [QuantizeMode::BitGroom, QuantizeMode::GranularBitRound] {
            let mut v = original;
            quantize_f32(&mut v, q(mode, 7), None);
            for (a, b) in v.iter().zip(original) {
                assert!(((a - b) / b).abs() < 1e-6, "{mode:?}: {b} became {a}");
            }
        }
        let mut v = original;
        quantize_f32(&mut v, q(QuantizeMode::BitRound, 23), None);
        assert_eq!(v, original);
    }
}
