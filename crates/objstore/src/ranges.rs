//! The requests that read a value's byte ranges (a shard's inner chunks) from an object
//! store: ranges less than [`COALESCE_GAP`] apart are read in one request, as
//! `object_store`'s own `get_ranges` merges them, and a long range is cut into parts of
//! [`PART_BYTES`] so that its parts run concurrently.

use std::ops::Range;

/// Ranges at most this far apart are read in one request (object_store's own default):
/// a request costs more than reading the gap.
pub const COALESCE_GAP: u64 = object_store::OBJECT_STORE_COALESCE_DEFAULT;

/// The most bytes one request asks for: longer ranges are read in parts of this size,
/// concurrently.
pub const PART_BYTES: u64 = 8 << 20;

/// The requests for `wanted` (none for an empty range): sorted, merged where less than
/// [`COALESCE_GAP`] apart or overlapping, and cut into parts of at most [`PART_BYTES`];
/// consecutive parts of one merged range touch.
pub fn plan(wanted: &[Range<u64>]) -> Vec<Range<u64>> {
    let mut sorted: Vec<Range<u64>> = wanted.iter().filter(|r| r.start < r.end).cloned().collect();
    sorted.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<Range<u64>> = Vec::with_capacity(sorted.len());
    for range in sorted {
        match merged.last_mut() {
            Some(last) if range.start <= last.end.saturating_add(COALESCE_GAP) => {
                last.end = last.end.max(range.end);
            }
            _ => merged.push(range),
        }
    }
    let mut parts = Vec::with_capacity(merged.len());
    for range in merged {
        let mut start = range.start;
        while start < range.end {
            let end = start.saturating_add(PART_BYTES).min(range.end);
            parts.push(start..end);
            start = end;
        }
    }
    parts
}

/// The bytes of each of `wanted`, cut from `fetched`, the answers to `requests` (from
/// [`plan`]). An answer shorter than its request is where the value ended: the ranges
/// reaching past it get the bytes up to there.
pub fn assemble<B: AsRef<[u8]>>(
    wanted: &[Range<u64>],
    requests: &[Range<u64>],
    fetched: &[B],
) -> Vec<Vec<u8>> {
    wanted
        .iter()
        .map(|range| {
            let mut bytes = Vec::new();
            if range.start >= range.end {
                return bytes;
            }
            let first = requests.partition_point(|r| r.end <= range.start);
            for (request, answer) in requests.iter().zip(fetched).skip(first) {
                if request.start >= range.end {
                    break;
                }
                let answer = answer.as_ref();
                let available = request.start + answer.len() as u64;
                let from = range.start.max(request.start);
                let to = range.end.min(available);
                if from < to {
                    let at = (from - request.start) as usize;
                    bytes.extend_from_slice(&answer[at..at + (to - from) as usize]);
                }
                if available < request.end {
                    break;
                }
            }
            bytes
        })
        .collect()
}

/// Whether `error` is a server's 416 (a range that starts past the value's end).
pub fn unsatisfiable(error: &object_store::Error) -> bool {
    let text = error.to_string();
    ["416", "Range Not Satisfiable", "InvalidRange"]
        .iter()
        .any(|w| text.contains(w))
}

/// Whether `error` says the server answers no byte ranges (a `200` with the whole value
/// to a ranged GET, as RFC 9110 allows: python's `http.server` answers so).
pub fn unsupported(error: &object_store::Error) -> bool {
    error.to_string().contains("Range request not supported")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_ranges_are_one_request_and_long_ones_are_cut_into_parts() {
        let mib = 1 << 20;
        let wanted = [
            10 * mib..11 * mib,
            0..100,
            200..300,
            150..250,
            5..5,
            (11 * mib + 10)..(11 * mib + 20),
        ];
        assert_eq!(plan(&wanted), vec![0..300, 10 * mib..(11 * mib + 20)]);
        let long = std::iter::once(0..(PART_BYTES * 2 + 1)).collect::<Vec<_>>();
        assert_eq!(
            plan(&long),
            vec![
                0..PART_BYTES,
                PART_BYTES..PART_BYTES * 2,
                PART_BYTES * 2..PART_BYTES * 2 + 1
            ]
        );
        let empty = std::iter::once(3..3).collect::<Vec<_>>();
        assert!(plan(&empty).is_empty());
    }

    #[test]
    fn each_range_is_cut_from_the_answers_even_across_parts() {
        let value: Vec<u8> = (0..=255u8)
            .cycle()
            .take(PART_BYTES as usize + 100)
            .collect();
        let wanted = [
            0..4,
            (PART_BYTES - 2)..(PART_BYTES + 3),
            7..7,
            (PART_BYTES + 90)..(PART_BYTES + 200),
        ];
        let requests = plan(&wanted);
        let answers: Vec<&[u8]> = requests
            .iter()
            .map(|r| &value[r.start as usize..(r.end as usize).min(value.len())])
            .collect();
        let got = assemble(&wanted, &requests, &answers);
        let p = PART_BYTES as usize;
        assert_eq!(got[0], &value[0..4]);
        assert_eq!(got[1], &value[p - 2..p + 3]);
        assert!(got[2].is_empty());
        // The value ends at PART_BYTES + 100: the last range gets its first ten bytes.
        assert_eq!(got[3], &value[p + 90..p + 100]);
    }
}
