//! The `--try-filters` report: a table per variable, the pipelines no other beats on both
//! ratio and encoding speed marked, and one suggested; or the same as JSON.

use std::io::Write;

use serde_json::{json, Value};

use super::candidates::Candidate;
use super::measure::Measure;

/// What was found for one variable.
pub struct VarResult {
    /// The variable.
    pub path: filterspec::VarPath,
    /// `float(time=4, lat=6)`.
    pub declaration: String,
    /// Chunks sampled and chunks in all.
    pub sampled: (usize, u64),
    /// One measure per candidate, in the candidates' order.
    pub measures: Vec<Measure>,
}

impl VarResult {
    /// Whether candidate `i` ran and no other candidate that ran beats it on both ratio and
    /// encoding speed (at least as good on both, better on one).
    pub fn unbeaten(&self, i: usize) -> bool {
        let me = &self.measures[i];
        if me.unavailable.is_some() {
            return false;
        }
        !self.measures.iter().enumerate().any(|(j, other)| {
            j != i
                && other.unavailable.is_none()
                && other.ratio() >= me.ratio()
                && other.encode_mb_s() >= me.encode_mb_s()
                && (other.ratio() > me.ratio() || other.encode_mb_s() > me.encode_mb_s())
        })
    }

    /// The suggested candidate, the same for the same input whatever the machine's load:
    /// of the lossless candidates that ran, the cheapest to encode ([`encoding_cost`], a
    /// fixed order, not the measured speeds) whose stored size is within
    /// [`SIZE_TOLERANCE`] of the smallest; among equal costs, the first listed. Sizes
    /// are exact (the same chunks, the same encoders), so the choice does not move.
    pub fn suggested(&self, candidates: &[Candidate]) -> Option<usize> {
        let ran: Vec<usize> = (0..self.measures.len())
            .filter(|&i| self.measures[i].unavailable.is_none() && candidates[i].quantize.is_none())
            .collect();
        let smallest = ran.iter().map(|&i| self.measures[i].stored_bytes).min()?;
        let bound = smallest as f64 * (1.0 + SIZE_TOLERANCE);
        ran.into_iter()
            .filter(|&i| self.measures[i].stored_bytes as f64 <= bound)
            .min_by_key(|&i| (encoding_cost(&candidates[i]), i))
    }
}

/// How much larger than the smallest a suggested pipeline's stored size may be: 1%.
pub const SIZE_TOLERANCE: f64 = 0.01;

/// A fixed order of what a pipeline costs to encode, from the codecs' known speeds
/// (lz4 and blosc fastest, then zstd's low levels, deflate's, zstd's high levels,
/// bzip2 and szip; shuffle and checksums nearly free), so that a suggestion does not
/// depend on timings: smaller is cheaper.
fn encoding_cost(candidate: &Candidate) -> u32 {
    use filterspec::known::{BLOSC, BZIP2, DEFLATE, FLETCHER32, LZ4, SHUFFLE, SZIP, ZSTD};
    candidate
        .filters
        .iter()
        .map(|f| {
            let level = f.params.first().copied().unwrap_or(1).min(22);
            match f.id {
                SHUFFLE | FLETCHER32 => 1,
                LZ4 | BLOSC => 5,
                ZSTD if level <= 3 => 8 + level,
                DEFLATE => 12 + 2 * level,
                ZSTD => 12 + 3 * level,
                SZIP => 40,
                BZIP2 => 60,
                _ => 50,
            }
        })
        .sum()
}

/// Writes the tables.
pub fn write_text(
    out: &mut impl Write,
    candidates: &[Candidate],
    results: &[VarResult],
) -> anyhow::Result<()> {
    let lossy = candidates.iter().any(|c| c.quantize.is_some());
    let width = candidates
        .iter()
        .map(|c| c.label().chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    for (n, result) in results.iter().enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        writeln!(
            out,
            "{}  {}  {} of {} chunks sampled ({})",
            result.path,
            result.declaration,
            result.sampled.0,
            result.sampled.1,
            human_bytes(result.measures.first().map_or(0, |m| m.raw_bytes))
        )?;
        let errors_head = if lossy {
            "  max abs err  max rel err"
        } else {
            ""
        };
        writeln!(
            out,
            "    {:<width$}  {:>8}  {:>12}  {:>12}{errors_head}",
            "pipeline", "ratio", "encode MiB/s", "decode MiB/s"
        )?;
        for (i, (candidate, m)) in candidates.iter().zip(&result.measures).enumerate() {
            let mark = if result.unbeaten(i) { "*" } else { " " };
            if let Some(why) = &m.unavailable {
                writeln!(
                    out,
                    "  {mark} {:<width$}  not run: {why}",
                    candidate.label()
                )?;
                continue;
            }
            let errors = match (lossy, m.errors) {
                (true, Some((abs, rel))) => format!("  {abs:>11.3e}  {rel:>11.3e}"),
                (true, None) => format!("  {:>11}  {:>11}", "0", "0"),
                (false, _) => String::new(),
            };
            writeln!(
                out,
                "  {mark} {:<width$}  {:>8}  {:>12.1}  {:>12.1}{errors}",
                candidate.label(),
                format!("{:.2}:1", m.ratio()),
                m.encode_mb_s(),
                m.decode_mb_s()
            )?;
        }
        match result.suggested(candidates) {
            Some(i) => writeln!(
                out,
                "  suggested: -F '{},{}'",
                filterspec::escape_path(&result.path),
                candidates[i].text
            )?,
            None => writeln!(out, "  no candidate could run")?,
        }
    }
    let all: Vec<String> = results
        .iter()
        .filter_map(|r| {
            let i = r.suggested(candidates)?;
            Some(format!(
                "-F '{},{}'",
                filterspec::escape_path(&r.path),
                candidates[i].text
            ))
        })
        .collect();
    if !all.is_empty() {
        writeln!(
            out,
            "\nall suggested, to paste: nccopy {} IN OUT",
            all.join(" ")
        )?;
    }
    writeln!(
        out,
        "\n* no other candidate has both a better ratio and a faster encoding. Speeds are \
         of one thread on the sample; nothing was written. The suggestion is the cheapest \
         lossless pipeline to encode (a fixed order: lz4 and blosc, zstd 1-3, deflate, \
         higher zstd, szip, bzip2) whose size is within 1% of the smallest, so the same \
         input gives the same suggestion."
    )?;
    Ok(())
}

/// Writes the same as a JSON array, one object per variable.
pub fn write_json(
    out: &mut impl Write,
    candidates: &[Candidate],
    results: &[VarResult],
) -> anyhow::Result<()> {
    let round = |x: f64, places: i32| {
        let scale = 10f64.powi(places);
        (x * scale).round() / scale
    };
    let all: Vec<Value> = results
        .iter()
        .map(|r| {
            let rows: Vec<Value> = candidates
                .iter()
                .zip(&r.measures)
                .enumerate()
                .map(|(i, (c, m))| {
                    let ran = m.unavailable.is_none();
                    json!({
                        "pipeline": c.text,
                        "quantize": c.quantize.map(|q| format!("{},{}", super::candidates::mode_name(q), q.nsd)),
                        "ran": ran,
                        "why_not": m.unavailable,
                        "raw_bytes": m.raw_bytes,
                        "stored_bytes": m.stored_bytes,
                        "ratio": ran.then(|| round(m.ratio(), 4)),
                        "encode_mib_s": ran.then(|| round(m.encode_mb_s(), 1)),
                        "decode_mib_s": ran.then(|| round(m.decode_mb_s(), 1)),
                        "max_abs_error": m.errors.map(|e| e.0),
                        "max_rel_error": m.errors.map(|e| e.1),
                        "unbeaten": r.unbeaten(i),
                    })
                })
                .collect();
            json!({
                "variable": r.path.to_string(),
                "declaration": r.declaration,
                "sampled_chunks": r.sampled.0,
                "total_chunks": r.sampled.1,
                "candidates": rows,
                "suggested": r.suggested(candidates).map(|i| candidates[i].text.clone()),
            })
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &all)?;
    writeln!(out)?;
    Ok(())
}

fn human_bytes(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1 << 20 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(raw: u64, stored: u64, seconds: f64) -> Measure {
        Measure {
            raw_bytes: raw,
            stored_bytes: stored,
            encode_seconds: seconds,
            decode_seconds: seconds,
            ..Measure::default()
        }
    }

    #[test]
    fn unbeaten_pipelines_are_marked_and_the_cheapest_within_one_percent_of_the_smallest_suggested()
    {
        let candidates = super::super::candidates::parse_candidates("lz4;zstd,3;zstd,19;bzip2,9")
            .unwrap_or_default();
        let result = VarResult {
            path: filterspec::VarPath::new(Vec::<String>::new(), "v".to_string()),
            declaration: "float(x=1)".into(),
            sampled: (1, 1),
            measures: vec![
                measure(100_000_000, 50_000_000, 0.1),  // 2:1 at 954 MiB/s
                measure(100_000_000, 30_000_000, 0.5),  // 3.3:1 at 191 MiB/s
                measure(100_000_000, 25_000_000, 10.0), // 4:1 at 9.5 MiB/s
                measure(100_000_000, 40_000_000, 8.0),  // 2.5:1 at 11.9 MiB/s: beaten
            ],
        };
        let marks: Vec<bool> = (0..4).map(|i| result.unbeaten(i)).collect();
        assert_eq!(marks, [true, true, true, false]);
        // The smallest is zstd,19; nothing else is within 1% of it.
        assert_eq!(result.suggested(&candidates), Some(2));
        // zstd,3 within 1% of zstd,19: the cheaper one, whatever the timings say.
        let mut close = result;
        close.measures[1] = measure(100_000_000, 25_200_000, 99.0);
        assert_eq!(close.suggested(&candidates), Some(1));
        close.measures[2].stored_bytes = 30_000_000;
        close.measures[0].stored_bytes = 25_000_000;
        // lz4 now the smallest: it is suggested, however slow its measured speed.
        close.measures[0].encode_seconds = 1000.0;
        assert_eq!(close.suggested(&candidates), Some(0));
    }
}
