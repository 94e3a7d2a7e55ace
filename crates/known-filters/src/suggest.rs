//! "Did you mean" suggestions by edit distance.

/// The edit distance between two strings, counted in chars: insertions, deletions,
/// substitutions and transpositions of neighbours each cost one (optimal string alignment).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The largest distance that still counts as a likely typo of a word of this length.
fn tolerance(len: usize) -> usize {
    match len {
        0..=2 => 0,
        3..=5 => 1,
        6..=9 => 2,
        _ => 3,
    }
}

/// Candidates within typo distance of `word`, closest first (ties keep input order).
pub fn close_matches<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let limit = tolerance(word.chars().count());
    let mut scored: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    scored.into_iter().map(|(_, c)| c).collect()
}

/// The single closest candidate within typo distance of `word`.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    close_matches(word, candidates).into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("bzip", "bzip2"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("zstd", "zstd"), 0);
        assert_eq!(edit_distance("bzpi2", "bzip2"), 1);
    }

    #[test]
    fn suggestions_are_close_only() {
        assert_eq!(closest("bzpi2", ["bzip2", "zstd"]), Some("bzip2"));
        assert_eq!(closest("foo", ["bzip2", "zstd"]), None);
        assert_eq!(
            close_matches("temp", ["tmp", "temp2", "pressure"]),
            vec!["tmp", "temp2"]
        );
    }
}
