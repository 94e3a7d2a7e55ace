//! A small scanner with the C `scanf` matching rules ncdump's time-unit parsing relies
//! on: `%s` tokens, `%[^T]` runs, literal words after optional blanks, and numbers.

/// The rest of a text being scanned.
#[derive(Clone, Copy)]
pub(crate) struct Scanner<'a> {
    rest: &'a [u8],
}

/// C's `isspace` in the "C" locale.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a [u8]) -> Self {
        Self { rest: text }
    }

    /// A blank in a format: skips any number of white-space characters, even none.
    pub(crate) fn blanks(&mut self) {
        let n = self.rest.iter().take_while(|b| is_space(**b)).count();
        self.rest = &self.rest[n..];
    }

    /// A literal in a format: the exact bytes, no blanks skipped.
    pub(crate) fn literal(&mut self, word: &[u8]) -> bool {
        match self.rest.strip_prefix(word) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// `%s`: blanks skipped, then one or more non-blank characters.
    pub(crate) fn token(&mut self) -> Option<&'a [u8]> {
        self.blanks();
        let n = self.rest.iter().take_while(|b| !is_space(**b)).count();
        self.take(n)
    }

    /// `%[^T]`: one or more characters other than `T`, blanks included.
    pub(crate) fn not_t(&mut self) -> Option<&'a [u8]> {
        let n = self.rest.iter().take_while(|b| **b != b'T').count();
        self.take(n)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n == 0 {
            return None;
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(head)
    }

    /// `%ld` (and `%d`, `%hd` before narrowing): blanks, an optional sign, decimal
    /// digits; saturates like `strtol`.
    pub(crate) fn integer(&mut self) -> Option<i64> {
        self.blanks();
        let (negative, digits_at) = match self.rest.first() {
            Some(b'-') => (true, 1),
            Some(b'+') => (false, 1),
            _ => (false, 0),
        };
        let digits = self.rest[digits_at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        let mut value: i64 = 0;
        for d in &self.rest[digits_at..digits_at + digits] {
            value = value.saturating_mul(10).saturating_add(i64::from(d - b'0'));
        }
        self.rest = &self.rest[digits_at + digits..];
        Some(if negative { -value } else { value })
    }

    /// `%lf`: blanks, then a decimal floating-point number (sign, digits, point,
    /// exponent) or `inf`/`infinity`/`nan`.
    pub(crate) fn double(&mut self) -> Option<f64> {
        self.blanks();
        let text = self.rest;
        let mut n = usize::from(matches!(text.first(), Some(b'+' | b'-')));
        let lower: Vec<u8> = text[n..]
            .iter()
            .take(8)
            .map(u8::to_ascii_lowercase)
            .collect();
        for word in [&b"infinity"[..], b"inf", b"nan"] {
            if lower.starts_with(word) {
                let negative = text.first() == Some(&b'-');
                self.rest = &text[n + word.len()..];
                let value = if word == b"nan" {
                    f64::NAN
                } else {
                    f64::INFINITY
                };
                return Some(if negative { -value } else { value });
            }
        }
        let int = text[n..].iter().take_while(|b| b.is_ascii_digit()).count();
        n += int;
        let mut frac = 0;
        if text.get(n) == Some(&b'.') {
            frac = text[n + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            n += 1 + frac;
        }
        if int + frac == 0 {
            return None;
        }
        if matches!(text.get(n), Some(b'e' | b'E')) {
            let mut m = n + 1;
            if matches!(text.get(m), Some(b'+' | b'-')) {
                m += 1;
            }
            let exp = text[m..].iter().take_while(|b| b.is_ascii_digit()).count();
            if exp > 0 {
                n = m + exp;
            }
        }
        let value = std::str::from_utf8(&text[..n]).ok()?.parse::<f64>().ok()?;
        self.rest = &text[n..];
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_literals_and_numbers() {
        let mut s = Scanner::new(b"  days since1900-1-2 3:4:5.5e0");
        assert_eq!(s.token(), Some(&b"days"[..]));
        s.blanks();
        assert!(s.literal(b"since"));
        assert_eq!(s.integer(), Some(1900));
        assert!(s.literal(b"-"));
        assert_eq!(s.integer(), Some(1));
        assert!(s.literal(b"-"));
        assert_eq!(s.integer(), Some(2));
        s.blanks();
        assert_eq!(s.integer(), Some(3));
        assert!(s.literal(b":"));
        assert_eq!(s.integer(), Some(4));
        assert!(s.literal(b":"));
        assert_eq!(s.double(), Some(5.5));
        assert_eq!(Scanner::new(b"T1").not_t(), None);
        assert_eq!(Scanner::new(b"a bT1").not_t(), Some(&b"a b"[..]));
    }
}
