//! Deterministic corruptions of a file: truncations and bit flips, chosen by a seeded
//! generator so that a campaign can be repeated exactly.

use std::fmt;

/// Where headers live: most bit flips land in the first this many bytes, and half the
/// truncations too.
pub const HEAD: usize = 4096;

/// SplitMix64: small, fast, and the same on every platform and Rust release.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `seed` and the words of `key` (FNV-1a over them), so that
    /// every (seed, file, copy) has a sequence of its own.
    pub fn for_key(seed: u64, key: &[&str]) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
        for word in key {
            for b in word.bytes().chain([0xff]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        Rng(h)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..hi` (`lo` when the range is empty).
    pub fn below(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64;
        lo + (self.next_u64() % span) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }
}

/// One corruption of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Corruption {
    /// Keep the first `len` bytes of `of`.
    Truncate {
        /// Bytes kept.
        len: usize,
        /// The file's length.
        of: usize,
    },
    /// XOR these masks into the bytes at these offsets (one bit each).
    Flip(Vec<(usize, u8)>),
}

impl Corruption {
    /// Chooses the corruption of copy `copy` (even copies are truncated, odd ones have
    /// bits flipped) of a file of `len` bytes.
    pub fn choose(rng: &mut Rng, copy: usize, len: usize) -> Corruption {
        if len == 0 {
            return Corruption::Truncate { len: 0, of: 0 };
        }
        let head = len.min(HEAD);
        if copy % 2 == 0 {
            // Half inside the header area, half past it (or anywhere in a small file).
            let cut = if rng.chance(1, 2) || len <= HEAD {
                rng.below(0, head.min(len))
            } else {
                rng.below(HEAD, len)
            };
            Corruption::Truncate { len: cut, of: len }
        } else {
            let n = rng.below(1, 9);
            let mut flips: Vec<(usize, u8)> = Vec::with_capacity(n);
            while flips.len() < n {
                let at = if rng.chance(3, 4) {
                    rng.below(0, head)
                } else {
                    rng.below(0, len)
                };
                if flips.iter().any(|&(o, _)| o == at) {
                    // One flip per byte; a file of fewer than n bytes gets fewer.
                    if flips.len() >= len {
                        break;
                    }
                    continue;
                }
                flips.push((at, 1u8 << rng.below(0, 8)));
            }
            flips.sort_unstable();
            Corruption::Flip(flips)
        }
    }

    /// The corrupted copy of `data`.
    pub fn apply(&self, data: &[u8]) -> Vec<u8> {
        match self {
            Corruption::Truncate { len, .. } => data[..(*len).min(data.len())].to_vec(),
            Corruption::Flip(flips) => {
                let mut out = data.to_vec();
                for &(at, mask) in flips {
                    if let Some(b) = out.get_mut(at) {
                        *b ^= mask;
                    }
                }
                out
            }
        }
    }
}

impl fmt::Display for Corruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Corruption::Truncate { len, of } => write!(f, "truncated to {len} of {of} bytes"),
            Corruption::Flip(flips) => {
                write!(f, "bit flips at")?;
                for (i, (at, mask)) in flips.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{at}^0x{mask:02x}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_corruptions() {
        for copy in 0..10 {
            let a = Corruption::choose(&mut Rng::for_key(7, &["nc4", "x", "3"]), copy, 50_000);
            let b = Corruption::choose(&mut Rng::for_key(7, &["nc4", "x", "3"]), copy, 50_000);
            assert_eq!(a, b);
        }
        let a = Corruption::choose(&mut Rng::for_key(7, &["nc4", "x"]), 1, 50_000);
        let b = Corruption::choose(&mut Rng::for_key(8, &["nc4", "x"]), 1, 50_000);
        let c = Corruption::choose(&mut Rng::for_key(7, &["nc3", "x"]), 1, 50_000);
        assert!(a != b || a != c, "seed and key both change the sequence");
        // Key words are separated: ("ab", "c") is not ("a", "bc").
        assert_ne!(
            Rng::for_key(1, &["ab", "c"]).next_u64(),
            Rng::for_key(1, &["a", "bc"]).next_u64()
        );
    }

    #[test]
    fn truncations_stay_within_the_file_and_reach_both_regions() {
        let (mut head, mut data) = (0, 0);
        for seed in 0..2000 {
            for len in [0usize, 1, 7, 4096, 4097, 100_000] {
                let c = Corruption::choose(&mut Rng::for_key(seed, &["t"]), 0, len);
                let Corruption::Truncate { len: cut, of } = c else {
                    panic!("even copies are truncated")
                };
                assert_eq!(of, len);
                assert!(cut < len || len == 0, "{cut} of {len}");
                if len == 100_000 {
                    if cut < HEAD {
                        head += 1;
                    } else {
                        data += 1;
                    }
                }
            }
        }
        assert!(
            head > 800 && data > 800,
            "{head} in the header, {data} past it"
        );
    }

    #[test]
    fn flips_stay_within_the_file_and_mostly_in_the_head() {
        let (mut in_head, mut total) = (0, 0);
        for seed in 0..2000 {
            for len in [1usize, 3, 4096, 1 << 20] {
                let c = Corruption::choose(&mut Rng::for_key(seed, &["f"]), 1, len);
                let Corruption::Flip(flips) = c else {
                    panic!("odd copies are flipped")
                };
                assert!(!flips.is_empty() && flips.len() <= 8.min(len));
                for &(at, mask) in &flips {
                    assert!(at < len);
                    assert_eq!(mask.count_ones(), 1);
                }
                if len == 1 << 20 {
                    total += flips.len();
                    in_head += flips.iter().filter(|&&(at, _)| at < HEAD).count();
                }
            }
        }
        assert!(
            in_head * 10 > total * 7,
            "{in_head} of {total} flips in the head"
        );
    }

    #[test]
    fn apply_truncates_and_flips() {
        let data: Vec<u8> = (0..=255).collect();
        let t = Corruption::Truncate { len: 10, of: 256 }.apply(&data);
        assert_eq!(t, &data[..10]);
        let f = Corruption::Flip(vec![(0, 1), (255, 0x80)]).apply(&data);
        assert_eq!(f.len(), 256);
        assert_eq!((f[0], f[1], f[255]), (1, 1, 0x7f));
        assert_eq!(
            Corruption::Flip(vec![(3, 4), (9, 0x80)]).to_string(),
            "bit flips at 3^0x04, 9^0x80"
        );
    }
}
