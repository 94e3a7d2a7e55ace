//! netCDF types: the twelve atomic types and user-defined types.

use std::fmt;

/// A netCDF atomic type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicType {
    /// `byte`: signed 8-bit.
    Byte,
    /// `char`: 8-bit character.
    Char,
    /// `short`: signed 16-bit.
    Short,
    /// `int`: signed 32-bit.
    Int,
    /// `float`: 32-bit IEEE.
    Float,
    /// `double`: 64-bit IEEE.
    Double,
    /// `ubyte`: unsigned 8-bit.
    UByte,
    /// `ushort`: unsigned 16-bit.
    UShort,
    /// `uint`: unsigned 32-bit.
    UInt,
    /// `int64`: signed 64-bit.
    Int64,
    /// `uint64`: unsigned 64-bit.
    UInt64,
    /// `string`: variable-length text.
    String,
}

impl AtomicType {
    /// All atomic types in netCDF's id order (`NC_BYTE` = 1 ... `NC_STRING` = 12).
    pub const ALL: [AtomicType; 12] = [
        Self::Byte,
        Self::Char,
        Self::Short,
        Self::Int,
        Self::Float,
        Self::Double,
        Self::UByte,
        Self::UShort,
        Self::UInt,
        Self::Int64,
        Self::UInt64,
        Self::String,
    ];

    /// The netCDF type id (`nc_type`).
    pub fn nc_type(self) -> i32 {
        // Ids are 1-based positions in ALL.
        Self::ALL
            .iter()
            .position(|t| *t == self)
            .map_or(0, |i| i as i32 + 1)
    }

    /// The atomic type of a netCDF type id, if it is one.
    pub fn from_nc_type(id: i32) -> Option<Self> {
        usize::try_from(id - 1)
            .ok()
            .and_then(|i| Self::ALL.get(i).copied())
    }

    /// The CDL name (`float`, `ubyte`, ...).
    pub fn cdl_name(self) -> &'static str {
        match self {
            Self::Byte => "byte",
            Self::Char => "char",
            Self::Short => "short",
            Self::Int => "int",
            Self::Float => "float",
            Self::Double => "double",
            Self::UByte => "ubyte",
            Self::UShort => "ushort",
            Self::UInt => "uint",
            Self::Int64 => "int64",
            Self::UInt64 => "uint64",
            Self::String => "string",
        }
    }

    /// The size in bytes of one value in memory (a pointer for strings).
    pub fn size(self) -> usize {
        match self {
            Self::Byte | Self::Char | Self::UByte => 1,
            Self::Short | Self::UShort => 2,
            Self::Int | Self::Float | Self::UInt => 4,
            Self::Double | Self::Int64 | Self::UInt64 => 8,
            Self::String => size_of::<usize>(),
        }
    }

    /// Whether values are integers.
    pub fn is_integer(self) -> bool {
        !matches!(self, Self::Char | Self::Float | Self::Double | Self::String)
    }
}

impl fmt::Display for AtomicType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cdl_name())
    }
}

/// The id of a user-defined type (libnetcdf's `nc_type` for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub i32);

/// The type of a variable, attribute, field or vlen element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeRef {
    /// An atomic type.
    Atomic(AtomicType),
    /// A user-defined type, found in [`crate::Dataset::types`].
    User(TypeId),
}

/// One field of a compound type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompoundField {
    /// The field name.
    pub name: String,
    /// Byte offset in the compound's memory layout.
    pub offset: usize,
    /// The field type.
    pub type_ref: TypeRef,
    /// Array dimensions of the field (empty for a scalar field).
    pub dims: Vec<usize>,
}

/// What kind of user-defined type, with its details.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserTypeKind {
    /// A compound (struct) type of `size` bytes.
    Compound {
        /// Fields in order.
        fields: Vec<CompoundField>,
    },
    /// A variable-length sequence of `base`.
    Vlen {
        /// The element type.
        base: TypeRef,
    },
    /// Opaque blobs of a fixed size.
    Opaque,
    /// An enumeration over an integer base type.
    Enum {
        /// The integer base type.
        base: AtomicType,
        /// Members in definition order: name and value.
        members: Vec<(String, i128)>,
    },
}

/// A user-defined type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserType {
    /// Its id.
    pub id: TypeId,
    /// Its name.
    pub name: String,
    /// Names of the groups from the root down to the group that defines it.
    pub group_path: Vec<String>,
    /// Size in bytes of one value in memory.
    pub size: usize,
    /// Kind and details.
    pub kind: UserTypeKind,
}
