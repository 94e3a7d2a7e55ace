//! [`StoreKey`]: the name of a value in a key-value store (a Zarr store's metadata
//! document or chunk), checked once when it is built.
//!
//! A key is a sequence of segments joined by `/`, as object stores name objects. Every
//! name that reaches a store (a variable, a group, a consolidated-metadata key, a chunk
//! index) becomes a key through [`StoreKey::child`] or [`StoreKey::parse`], which refuse
//! what could leave the store or mean something else to a file system: an empty
//! segment, `.` or `..`, a leading `/`, a NUL or a backslash. Nothing outside a store's
//! own implementation turns a key into a file-system path.

use std::fmt;

/// The name of a value or of a prefix (a "directory") in a store, relative to the
/// store's root. The empty key is the root prefix.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StoreKey(String);

/// A name that cannot be part of a store key, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the name {name:?} cannot name anything in a store: {reason}")]
pub struct KeyError {
    /// The name as given.
    pub name: String,
    /// Why it is refused.
    pub reason: &'static str,
}

/// Why `segment` cannot be one segment of a key; `None` when it can.
fn segment_problem(segment: &str) -> Option<&'static str> {
    if segment.is_empty() {
        Some("it is empty")
    } else if segment == "." || segment == ".." {
        Some("it is '.' or '..', which would leave its place in the store")
    } else if segment.contains('/') {
        Some("it holds '/'")
    } else if segment.contains('\\') {
        Some("it holds a backslash")
    } else if segment.contains('\0') {
        Some("it holds a NUL byte")
    } else {
        None
    }
}

impl StoreKey {
    /// The root prefix (the empty key).
    pub fn root() -> Self {
        Self(String::new())
    }

    /// A key from text whose segments are separated by `/` (`g/v/.zarray`). Every
    /// segment is checked; a leading or trailing `/`, or two in a row, is an empty
    /// segment and refused. The empty text is the root.
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        if text.is_empty() {
            return Ok(Self::root());
        }
        for segment in text.split('/') {
            if let Some(reason) = segment_problem(segment) {
                return Err(KeyError {
                    name: text.to_string(),
                    reason: if text.starts_with('/') {
                        "it starts with '/'"
                    } else {
                        reason
                    },
                });
            }
        }
        Ok(Self(text.to_string()))
    }

    /// This key with one more segment, `name`, which must be a valid segment on its own.
    pub fn child(&self, name: &str) -> Result<Self, KeyError> {
        if let Some(reason) = segment_problem(name) {
            return Err(KeyError {
                name: name.to_string(),
                reason,
            });
        }
        Ok(self.child_unchecked(name))
    }

    /// This key with the segments of `suffix` (`c/0/1`) appended, each checked.
    pub fn join(&self, suffix: &str) -> Result<Self, KeyError> {
        let tail = Self::parse(suffix)?;
        if tail.is_root() {
            return Ok(self.clone());
        }
        Ok(self.child_unchecked(&tail.0))
    }

    fn child_unchecked(&self, checked: &str) -> Self {
        if self.0.is_empty() {
            Self(checked.to_string())
        } else {
            Self(format!("{}/{checked}", self.0))
        }
    }

    /// Whether this is the root prefix.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The key as text (`g/v/.zarray`; empty for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its segments, from the root down.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// How many segments it has (0 for the root).
    pub fn depth(&self) -> usize {
        self.segments().count()
    }

    /// The key one segment up; `None` for the root.
    pub fn parent(&self) -> Option<Self> {
        if self.0.is_empty() {
            return None;
        }
        Some(match self.0.rsplit_once('/') {
            Some((head, _)) => Self(head.to_string()),
            None => Self::root(),
        })
    }

    /// The last segment (empty for the root).
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }
}

impl fmt::Display for StoreKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("/")
        } else {
            f.write_str(&self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_keys_are_kept_as_written() {
        let key = StoreKey::parse("g/v/.zarray").ok();
        assert_eq!(key.as_ref().map(StoreKey::as_str), Some("g/v/.zarray"));
        assert_eq!(key.as_ref().map(StoreKey::depth), Some(3));
        assert_eq!(key.as_ref().map(StoreKey::name), Some(".zarray"));
        let child = StoreKey::root().child("temp").and_then(|k| k.join("c/0/1"));
        assert_eq!(child.clone().map(|k| k.0), Ok("temp/c/0/1".to_string()));
        let up = child.ok().and_then(|k| k.parent());
        assert_eq!(up.as_ref().map(StoreKey::as_str), Some("temp/c/0"));
        assert_eq!(
            StoreKey::parse("g").ok().and_then(|k| k.parent()),
            Some(StoreKey::root())
        );
        assert_eq!(StoreKey::root().parent(), None);
        assert!(StoreKey::parse("").is_ok_and(|k| k.is_root()));
        // Dots inside a name are fine, and so are spaces and non-ASCII letters.
        for name in [".zattrs", "..x", "a..b", "x.", " ", "température"] {
            assert!(StoreKey::root().child(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn names_that_could_leave_the_store_are_refused() {
        for name in [
            "", ".", "..", "../x", "a/b", "/etc", "a\\b", "..\\x", "a\0b",
        ] {
            let err = StoreKey::root().child(name);
            assert!(err.is_err(), "{name:?} was accepted");
        }
        for text in [
            "/etc/passwd",
            "../outside",
            "g/../../x",
            "g//v",
            "g/v/",
            "./g",
            "g/.",
            "a\\..\\b",
            "x\0",
        ] {
            let err = StoreKey::parse(text);
            assert!(err.is_err(), "{text:?} was accepted");
        }
        let err = StoreKey::parse("/etc/cron.d").err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("the name \"/etc/cron.d\" cannot name anything in a store: it starts with '/'")
        );
        let err = StoreKey::root().child("..").err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "the name \"..\" cannot name anything in a store: it is '.' or '..', which \
                 would leave its place in the store"
            )
        );
    }

    #[test]
    fn a_suffix_is_checked_segment_by_segment() {
        let base = StoreKey::root().child("v").unwrap_or_default();
        assert!(base.join("../../x").is_err());
        assert!(base.join("/x").is_err());
        assert_eq!(base.join("").ok(), Some(base.clone()));
    }
}
