//! What one value takes in memory once decoded into [`Values`](crate::values::Values):
//! the sizes readers plan their reads by. A value of a user-defined type is far larger
//! decoded than stored: a compound of one byte is a [`Value`], a vector of [`Values`] and
//! a vector of one byte, about 110 bytes (before these weights, a 22 KB deflated file of
//! 20 million such values took 1.8 GB in `nccopy`, and one nesting such compounds nine
//! deep 2.8 GB in `ncdump`). Atomic values take their size; what a string or a sequence
//! holds is counted where it is read, from its stored length.

use crate::schema::Dataset;
use crate::types::{AtomicType, TypeRef, UserTypeKind};
use crate::values::{Value, Values};

/// What a heap allocation of `bytes` takes (glibc: the request and an 8-byte header,
/// rounded up to 16, at least 32).
pub fn allocation(bytes: usize) -> usize {
    bytes.saturating_add(8 + 15).max(32) & !15
}

/// One decoded [`Value`], as held inline in its vector.
pub const VALUE: usize = size_of::<Value>();

/// The weight of one value: what it holds inline (in its vector) and on the heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weight {
    /// Bytes in its vector.
    pub inline: usize,
    /// Bytes it allocates.
    pub heap: usize,
}

impl Weight {
    /// Inline and heap bytes together.
    pub fn total(self) -> usize {
        self.inline.saturating_add(self.heap)
    }
}

/// One atomic value of `t` in its [`Values`] vector (a string: its slot and its
/// smallest allocation, not counting its bytes, which are counted where read).
pub fn atomic(t: AtomicType) -> Weight {
    match t {
        AtomicType::String => Weight {
            inline: size_of::<Option<Vec<u8>>>(),
            heap: allocation(1),
        },
        other => Weight {
            inline: other.size(),
            heap: 0,
        },
    }
}

/// A compound value whose fields hold `(count, weight of one element)` each: its
/// vector of [`Values`], and each field's vector.
pub fn compound(fields: &[(usize, Weight)]) -> Weight {
    let heap = fields.iter().fold(
        allocation(fields.len().saturating_mul(size_of::<Values>())),
        |total, (count, element)| {
            total
                .saturating_add(allocation(count.saturating_mul(element.inline)))
                .saturating_add(count.saturating_mul(element.heap))
        },
    );
    Weight {
        inline: VALUE,
        heap,
    }
}

/// An opaque value of `size` bytes.
pub fn opaque(size: usize) -> Weight {
    Weight {
        inline: VALUE,
        heap: allocation(size),
    }
}

/// A sequence's value (its elements are counted where they are read).
pub const SEQUENCE: Weight = Weight {
    inline: VALUE,
    heap: 32,
};

/// An enum's value.
pub const ENUM: Weight = Weight {
    inline: VALUE,
    heap: 0,
};

/// The deepest user types may nest (compounds in compounds, sequences of them, arrays):
/// HDF5 copies the rest of a type at every level of it, so a deeper type is refused
/// where types are read and written (no netCDF file nests types this deep).
pub const MAX_TYPE_DEPTH: usize = 32;

/// Deeper nesting than this is not weighed (it is refused where types are read).
const MAX_DEPTH: usize = 64;

/// Weighs more than anything can take.
const TOO_DEEP: Weight = Weight {
    inline: usize::MAX,
    heap: 0,
};

impl Dataset {
    /// What one value of `t` takes once decoded (at least its stored size).
    pub fn decoded_bytes(&self, t: TypeRef) -> usize {
        self.weigh(t, 0).total().max(self.type_size(t))
    }

    /// How deep `t` nests user types (0 for an atomic type, 1 for a type of atomic
    /// members); at most [`MAX_DEPTH`] + 2, past which it is not followed.
    pub fn nesting(&self, t: TypeRef) -> usize {
        self.nesting_at(t, 0)
    }

    fn nesting_at(&self, t: TypeRef, depth: usize) -> usize {
        let TypeRef::User(id) = t else {
            return depth;
        };
        if depth > MAX_DEPTH {
            return depth + 1;
        }
        match self.user_type(id).map(|u| &u.kind) {
            Some(UserTypeKind::Compound { fields }) => fields
                .iter()
                .map(|f| self.nesting_at(f.type_ref, depth + 1))
                .max()
                .unwrap_or(depth + 1),
            Some(UserTypeKind::Vlen { base }) => self.nesting_at(*base, depth + 1),
            _ => depth + 1,
        }
    }

    fn weigh(&self, t: TypeRef, depth: usize) -> Weight {
        let id = match t {
            TypeRef::Atomic(a) => return atomic(a),
            TypeRef::User(id) => id,
        };
        let Some(user) = self.user_type(id) else {
            return ENUM;
        };
        if depth > MAX_DEPTH {
            return TOO_DEEP;
        }
        match &user.kind {
            UserTypeKind::Compound { fields } => {
                let fields: Vec<(usize, Weight)> = fields
                    .iter()
                    .map(|f| {
                        let count = f.dims.iter().fold(1usize, |n, d| n.saturating_mul(*d));
                        (count, self.weigh(f.type_ref, depth + 1))
                    })
                    .collect();
                compound(&fields)
            }
            UserTypeKind::Vlen { .. } => SEQUENCE,
            UserTypeKind::Opaque => opaque(user.size),
            UserTypeKind::Enum { .. } => ENUM,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_byte_compound_weighs_what_it_takes_decoded() {
        // A Value, its vector of one field, and that field's vector of one byte: the
        // ~110 bytes measured (s33 HG3).
        let one_byte = compound(&[(1, atomic(AtomicType::Byte))]);
        assert!((100..=130).contains(&one_byte.total()), "{one_byte:?}");
        // Nested, each level adds as much again.
        let nested = compound(&[(1, one_byte)]);
        assert!(nested.total() >= 2 * one_byte.total() - 40, "{nested:?}");
        assert_eq!(atomic(AtomicType::Double).total(), 8);
        assert!(opaque(1000).total() > 1000);
        assert_eq!(allocation(1), 32);
        assert_eq!(allocation(40), 48);
    }
}
