//! Decompression bombs cost no more memory than the limit: measured with the process's
//! peak resident size (Linux's `VmHWM`), in a test binary of its own with a single test,
//! so nothing else runs meanwhile.
#![cfg(target_os = "linux")]

use std::io::Write;

use codecs::wire::{self, WireError, BZIP2, ZSTD};

const MIB: usize = 1 << 20;

/// The bombs: 40 MiB of zeros, compressed a MiB at a time (the zstd frame without its
/// content size, as a streaming encoder writes it).
const BOMB_MIB: usize = 40;

fn feed<W: Write>(mut encoder: W) -> std::io::Result<W> {
    let zeros = vec![0u8; MIB];
    for _ in 0..BOMB_MIB {
        encoder.write_all(&zeros)?;
    }
    Ok(encoder)
}

/// The process's peak resident size so far, in bytes.
fn peak_resident() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok());
    match kib {
        Some(kib) => kib * 1024,
        None => panic!("no VmHWM in /proc/self/status"),
    }
}

/// Lowers the peak to the current resident size (Linux 4.0 and later), so that the next
/// measure shows what comes after; where this is refused, the measures are only less
/// sharp (the control below still checks them).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

#[test]
fn bombs_stop_at_the_limit_without_growing_the_peak_memory() -> std::io::Result<()> {
    let level = bzip2::Compression::new(9);
    let bzip2_bomb = feed(bzip2::write::BzEncoder::new(Vec::new(), level))?.finish()?;
    let zstd_bomb = feed(zstd::stream::write::Encoder::new(Vec::new(), 3)?)?.finish()?;
    assert!(bzip2_bomb.len() < 1024 && zstd_bomb.len() < 8192);

    reset_peak();
    let before = peak_resident();
    for (id, bomb) in [(BZIP2, &bzip2_bomb), (ZSTD, &zstd_bomb)] {
        let result = wire::decode(id, bomb, MIB);
        assert!(
            matches!(result, Err(WireError::TooLarge { limit: MIB, .. })),
            "{id}: {result:?}"
        );
    }
    let bounded = peak_resident().saturating_sub(before);
    eprintln!("bounded decodes: the peak grew by {bounded} bytes");
    assert!(
        bounded < 12 * MIB,
        "the bounded decodes grew the peak by {bounded} bytes"
    );

    // The control: decoding a bomb whole does show in the measure.
    reset_peak();
    let before = peak_resident();
    let whole = wire::decode(BZIP2, &bzip2_bomb, BOMB_MIB * MIB);
    assert!(whole.is_ok_and(|d| d.len() == BOMB_MIB * MIB));
    let unbounded = peak_resident().saturating_sub(before);
    eprintln!("whole decode: the peak grew by {unbounded} bytes");
    assert!(
        unbounded >= 32 * MIB,
        "a whole decode grew the peak by {unbounded} bytes only"
    );
    Ok(())
}
