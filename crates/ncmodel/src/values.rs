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

impl Values {
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
