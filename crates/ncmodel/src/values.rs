//! Typed arrays of netCDF values: attribute values and slabs of variable data.

use crate::types::AtomicType;

/// A flat array of values of one type, in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// `byte` values.
    Byte(Vec<i8>),
    /// `char` values (bytes).
    Char(Vec<u8>),
    /// `short` values.
    Short(Vec<i16>),
    /// `int` values.
    Int(Vec<i32>),
    /// `float` values.
    Float(Vec<f32>),
    /// `double` values.
    Double(Vec<f64>),
    /// `ubyte` values.
    UByte(Vec<u8>),
    /// `ushort` values.
    UShort(Vec<u16>),
    /// `uint` values.
    UInt(Vec<u32>),
    /// `int64` values.
    Int64(Vec<i64>),
    /// `uint64` values.
    UInt64(Vec<u64>),
    /// `string` values; `None` is a NULL string.
    String(Vec<Option<Vec<u8>>>),
    /// Values of a user-defined type.
    User(Vec<Value>),
}

/// One value of a user-defined type.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A compound value: each field's values (several for an array field).
    Compound(Vec<Values>),
    /// A variable-length sequence.
    Vlen(Values),
    /// An opaque blob.
    Opaque(Vec<u8>),
    /// An enum value (its base integer).
    Enum(i128),
}

macro_rules! from_ne {
    ($bytes:expr, $t:ty) => {
        $bytes
            .chunks_exact(size_of::<$t>())
            .map(|c| {
                let mut a = [0u8; size_of::<$t>()];
                a.copy_from_slice(c);
                <$t>::from_ne_bytes(a)
            })
            .collect()
    };
}

impl Values {
    /// The values held by `bytes`, elements of the fixed-size type `t` in the machine's
    /// byte order (a trailing partial element is ignored); `None` for `string`.
    pub fn from_native_bytes(t: AtomicType, bytes: &[u8]) -> Option<Self> {
        use AtomicType as A;
        Some(match t {
            A::Byte => Self::Byte(bytes.iter().map(|b| *b as i8).collect()),
            A::Char => Self::Char(bytes.to_vec()),
            A::UByte => Self::UByte(bytes.to_vec()),
            A::Short => Self::Short(from_ne!(bytes, i16)),
            A::UShort => Self::UShort(from_ne!(bytes, u16)),
            A::Int => Self::Int(from_ne!(bytes, i32)),
            A::UInt => Self::UInt(from_ne!(bytes, u32)),
            A::Int64 => Self::Int64(from_ne!(bytes, i64)),
            A::UInt64 => Self::UInt64(from_ne!(bytes, u64)),
            A::Float => Self::Float(from_ne!(bytes, f32)),
            A::Double => Self::Double(from_ne!(bytes, f64)),
            A::String => return None,
        })
    }

    /// An empty array of the atomic type `t`.
    pub fn empty(t: AtomicType) -> Self {
        match t {
            AtomicType::Byte => Self::Byte(Vec::new()),
            AtomicType::Char => Self::Char(Vec::new()),
            AtomicType::Short => Self::Short(Vec::new()),
            AtomicType::Int => Self::Int(Vec::new()),
            AtomicType::Float => Self::Float(Vec::new()),
            AtomicType::Double => Self::Double(Vec::new()),
            AtomicType::UByte => Self::UByte(Vec::new()),
            AtomicType::UShort => Self::UShort(Vec::new()),
            AtomicType::UInt => Self::UInt(Vec::new()),
            AtomicType::Int64 => Self::Int64(Vec::new()),
            AtomicType::UInt64 => Self::UInt64(Vec::new()),
            AtomicType::String => Self::String(Vec::new()),
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Self::Byte(v) => v.len(),
            Self::Char(v) | Self::UByte(v) => v.len(),
            Self::Short(v) => v.len(),
            Self::Int(v) => v.len(),
            Self::Float(v) => v.len(),
            Self::Double(v) => v.len(),
            Self::UShort(v) => v.len(),
            Self::UInt(v) => v.len(),
            Self::Int64(v) => v.len(),
            Self::UInt64(v) => v.len(),
            Self::String(v) => v.len(),
            Self::User(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The library's default fill value of the atomic type `t` (netCDF's `NC_FILL_*`), as
    /// one value.
    pub fn default_fill(t: AtomicType) -> Self {
        match t {
            AtomicType::Byte => Self::Byte(vec![-127]),
            AtomicType::UByte => Self::UByte(vec![255]),
            AtomicType::Char => Self::Char(vec![0]),
            AtomicType::Short => Self::Short(vec![-32767]),
            AtomicType::Int => Self::Int(vec![-2147483647]),
            AtomicType::Float => Self::Float(vec![9.969_21e36]),
            AtomicType::Double => Self::Double(vec![9.969_209_968_386_869e36]),
            AtomicType::UShort => Self::UShort(vec![65535]),
            AtomicType::UInt => Self::UInt(vec![4294967295]),
            AtomicType::Int64 => Self::Int64(vec![-9223372036854775806]),
            AtomicType::UInt64 => Self::UInt64(vec![18446744073709551614]),
            AtomicType::String => Self::String(vec![Some(Vec::new())]),
        }
    }

    /// The values in `range` (which must lie within the array), as a new array.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Self {
        match self {
            Self::Byte(v) => Self::Byte(v[range].to_vec()),
            Self::Char(v) => Self::Char(v[range].to_vec()),
            Self::UByte(v) => Self::UByte(v[range].to_vec()),
            Self::Short(v) => Self::Short(v[range].to_vec()),
            Self::Int(v) => Self::Int(v[range].to_vec()),
            Self::Float(v) => Self::Float(v[range].to_vec()),
            Self::Double(v) => Self::Double(v[range].to_vec()),
            Self::UShort(v) => Self::UShort(v[range].to_vec()),
            Self::UInt(v) => Self::UInt(v[range].to_vec()),
            Self::Int64(v) => Self::Int64(v[range].to_vec()),
            Self::UInt64(v) => Self::UInt64(v[range].to_vec()),
            Self::String(v) => Self::String(v[range].to_vec()),
            Self::User(v) => Self::User(v[range].to_vec()),
        }
    }

    /// Appends the values of `other`; returns false (and changes nothing) when the two
    /// arrays differ in type.
    pub fn extend_from(&mut self, other: &Values) -> bool {
        match (self, other) {
            (Self::Byte(a), Self::Byte(b)) => a.extend_from_slice(b),
            (Self::Char(a), Self::Char(b)) | (Self::UByte(a), Self::UByte(b)) => {
                a.extend_from_slice(b)
            }
            (Self::Short(a), Self::Short(b)) => a.extend_from_slice(b),
            (Self::Int(a), Self::Int(b)) => a.extend_from_slice(b),
            (Self::Float(a), Self::Float(b)) => a.extend_from_slice(b),
            (Self::Double(a), Self::Double(b)) => a.extend_from_slice(b),
            (Self::UShort(a), Self::UShort(b)) => a.extend_from_slice(b),
            (Self::UInt(a), Self::UInt(b)) => a.extend_from_slice(b),
            (Self::Int64(a), Self::Int64(b)) => a.extend_from_slice(b),
            (Self::UInt64(a), Self::UInt64(b)) => a.extend_from_slice(b),
            (Self::String(a), Self::String(b)) => a.extend_from_slice(b),
            (Self::User(a), Self::User(b)) => a.extend_from_slice(b),
            _ => return false,
        }
        true
    }

    /// Sets value `i` to value `j` of `other`; returns false (and changes nothing) when
    /// the two arrays differ in type or an index is out of range.
    pub fn set_from(&mut self, i: usize, other: &Values, j: usize) -> bool {
        fn put<T: Clone>(dst: &mut [T], i: usize, src: &[T], j: usize) -> bool {
            match (dst.get_mut(i), src.get(j)) {
                (Some(d), Some(s)) => {
                    *d = s.clone();
                    true
                }
                _ => false,
            }
        }
        match (self, other) {
            (Self::Byte(d), Self::Byte(s)) => put(d, i, s, j),
            (Self::Char(d), Self::Char(s)) | (Self::UByte(d), Self::UByte(s)) => put(d, i, s, j),
            (Self::Short(d), Self::Short(s)) => put(d, i, s, j),
            (Self::Int(d), Self::Int(s)) => put(d, i, s, j),
            (Self::Float(d), Self::Float(s)) => put(d, i, s, j),
            (Self::Double(d), Self::Double(s)) => put(d, i, s, j),
            (Self::UShort(d), Self::UShort(s)) => put(d, i, s, j),
            (Self::UInt(d), Self::UInt(s)) => put(d, i, s, j),
            (Self::Int64(d), Self::Int64(s)) => put(d, i, s, j),
            (Self::UInt64(d), Self::UInt64(s)) => put(d, i, s, j),
            (Self::String(d), Self::String(s)) => put(d, i, s, j),
            (Self::User(d), Self::User(s)) => put(d, i, s, j),
            _ => false,
        }
    }

    /// The value at `i` as a number, for the number types (integers exactly below 2^53,
    /// as coordinates are).
    pub fn number_at(&self, i: usize) -> Option<f64> {
        match self {
            Self::Float(v) => v.get(i).map(|x| f64::from(*x)),
            Self::Double(v) => v.get(i).copied(),
            #[allow(clippy::cast_precision_loss)]
            other => other.integer_at(i).map(|x| x as f64),
        }
    }

    /// The value at `i` as an integer, for integer (and char) arrays and enums.
    pub fn integer_at(&self, i: usize) -> Option<i128> {
        match self {
            Self::Byte(v) => v.get(i).map(|x| i128::from(*x)),
            Self::Char(v) | Self::UByte(v) => v.get(i).map(|x| i128::from(*x)),
            Self::Short(v) => v.get(i).map(|x| i128::from(*x)),
            Self::Int(v) => v.get(i).map(|x| i128::from(*x)),
            Self::UShort(v) => v.get(i).map(|x| i128::from(*x)),
            Self::UInt(v) => v.get(i).map(|x| i128::from(*x)),
            Self::Int64(v) => v.get(i).map(|x| i128::from(*x)),
            Self::UInt64(v) => v.get(i).map(|x| i128::from(*x)),
            Self::User(v) => match v.get(i) {
                Some(Value::Enum(x)) => Some(*x),
                _ => None,
            },
            Self::Float(_) | Self::Double(_) | Self::String(_) => None,
        }
    }
}
