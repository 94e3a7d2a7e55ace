//! Identifiers of generated code: netCDF names (any UTF-8, spaces, leading digits) made
//! into valid, distinct identifiers of the target language.

use std::collections::{HashMap, HashSet};

/// The identifiers given out so far in one scope, and the words the language reserves.
#[derive(Debug, Default)]
pub struct Idents {
    taken: HashSet<String>,
    /// For each base and suffix that collided, the number to try next, so that many
    /// names that clean up alike cost no more than one try each.
    next: HashMap<(String, String), usize>,
    /// Whether identifiers compare without case (Fortran).
    case_blind: bool,
    /// The longest identifier the language takes (0: no limit).
    max_len: usize,
}

impl Idents {
    /// A scope in which `reserved` (keywords, names the generated code itself uses) are
    /// never given out.
    pub fn new(reserved: &[&str]) -> Self {
        Self::with_rules(reserved, false, 0)
    }

    /// A scope with the language's rules: identifiers compared without case, or of at
    /// most `max_len` characters.
    pub fn with_rules(reserved: &[&str], case_blind: bool, max_len: usize) -> Self {
        let mut idents = Self {
            taken: HashSet::new(),
            next: HashMap::new(),
            case_blind,
            max_len,
        };
        for word in reserved {
            let key = idents.key(word);
            idents.taken.insert(key);
        }
        idents
    }

    fn key(&self, ident: &str) -> String {
        key_of(self.case_blind, ident)
    }

    /// A new identifier for the netCDF name `name` with `suffix` (`_id`, `_dim`...): the
    /// name with every character that cannot be in an identifier made `_`, a leading
    /// digit (or nothing) prefixed with `v`, and `_2`, `_3`... added until it is unused.
    pub fn fresh(&mut self, name: &str, suffix: &str) -> String {
        let mut base: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
            base.insert(0, 'v');
        }
        if self.max_len > 0 {
            let room = self.max_len.saturating_sub(suffix.len() + 4).max(1);
            base.truncate(room);
        }
        let first = format!("{base}{suffix}");
        if self.taken.insert(self.key(&first)) {
            return first;
        }
        let next = self
            .next
            .entry((base.clone(), suffix.to_string()))
            .or_insert(2);
        loop {
            let candidate = format!("{base}_{next}{suffix}");
            *next += 1;
            if self.taken.insert(key_of(self.case_blind, &candidate)) {
                return candidate;
            }
        }
    }
}

/// How an identifier is compared: as it is, or without case.
fn key_of(case_blind: bool, ident: &str) -> String {
    if case_blind {
        ident.to_ascii_lowercase()
    } else {
        ident.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_distinct_identifiers() {
        let mut idents = Idents::new(&["int", "stat"]);
        assert_eq!(idents.fresh("tas", "_id"), "tas_id");
        assert_eq!(idents.fresh("tas", "_id"), "tas_2_id");
        assert_eq!(idents.fresh("a b-c", ""), "a_b_c");
        assert_eq!(idents.fresh("2d", ""), "v2d");
        assert_eq!(idents.fresh("", ""), "v");
        assert_eq!(idents.fresh("int", ""), "int_2");
        assert_eq!(idents.fresh("stat", ""), "stat_2");
        assert_eq!(idents.fresh("été", ""), "v_t_");
    }

    #[test]
    fn case_blind_scopes_and_lengths() {
        let mut idents = Idents::with_rules(&["ncid"], true, 31);
        assert_eq!(idents.fresh("NCID", ""), "NCID_2");
        assert_eq!(idents.fresh("Tas", "_id"), "Tas_id");
        assert_eq!(idents.fresh("tas", "_id"), "tas_2_id");
        let long = idents.fresh(&"x".repeat(40), "_id");
        assert!(long.len() <= 31, "{long}");
    }
}
