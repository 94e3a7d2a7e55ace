//! Datasets, groups, dimensions, variables, attributes and storage properties.

use crate::{FilterSpec, VarPath};

use crate::types::{TypeId, TypeRef, UserType};
use crate::values::Values;

/// The on-disk format of a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// netCDF-3 classic.
    Classic,
    /// netCDF-3 64-bit offset.
    Offset64,
    /// CDF5 (64-bit data).
    Cdf5,
    /// netCDF-4 (HDF5 or NCZarr storage).
    Netcdf4,
    /// netCDF-4 restricted to the classic model.
    Netcdf4Classic,
}

impl Format {
    /// The name `ncdump -k` prints and `_Format` holds.
    pub fn name(self) -> &'static str {
        match self {
            Self::Classic => "classic",
            Self::Offset64 => "64-bit offset",
            Self::Cdf5 => "cdf5",
            Self::Netcdf4 => "netCDF-4",
            Self::Netcdf4Classic => "netCDF-4 classic model",
        }
    }

    /// Whether this is a netCDF-3 format (no groups, no user types, no filters).
    pub fn is_classic_family(self) -> bool {
        matches!(self, Self::Classic | Self::Offset64 | Self::Cdf5)
    }
}

/// The global special attributes `ncdump -s` shows for netCDF-4 files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalSpecials {
    /// `_NCProperties`.
    pub nc_properties: Option<String>,
    /// `_SuperblockVersion`.
    pub superblock_version: Option<i32>,
    /// `_IsNetcdf4`.
    pub is_netcdf4: Option<i32>,
}

/// A whole dataset's schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// The format.
    pub format: Format,
    /// Whether the dataset is stored by NCZarr (netCDF-4 model on Zarr).
    pub is_nczarr: bool,
    /// Global special attributes.
    pub specials: GlobalSpecials,
    /// Every user-defined type of every group, in id order.
    pub types: Vec<UserType>,
    /// The root group.
    pub root: Group,
}

impl Dataset {
    /// The user-defined type with this id.
    pub fn user_type(&self, id: TypeId) -> Option<&UserType> {
        self.types.iter().find(|t| t.id == id)
    }

    /// Whether values of this type have a variable size (string, vlen, or a compound
    /// holding one, transitively): filters cannot apply to them (DECISIONS D4).
    pub fn is_variable_sized(&self, t: TypeRef) -> bool {
        match t {
            TypeRef::Atomic(a) => a == crate::types::AtomicType::String,
            TypeRef::User(id) => match self.user_type(id).map(|u| &u.kind) {
                Some(crate::types::UserTypeKind::Vlen { .. }) => true,
                Some(crate::types::UserTypeKind::Compound { fields }) => {
                    fields.iter().any(|f| self.is_variable_sized(f.type_ref))
                }
                _ => false,
            },
        }
    }

    /// The size in bytes of one value of `t` (a pointer's size for strings and vlens).
    pub fn type_size(&self, t: TypeRef) -> usize {
        match t {
            TypeRef::Atomic(a) => a.size(),
            TypeRef::User(id) => self.user_type(id).map_or(1, |u| u.size),
        }
    }

    /// The dimension with this id, searching every group.
    pub fn dim(&self, id: i32) -> Option<&Dim> {
        self.root.find_dim(id)
    }

    /// The group at `path` (group names from the root; empty for the root group).
    pub fn group_at(&self, path: &[String]) -> Option<&Group> {
        path.iter().try_fold(&self.root, |group, name| {
            group.groups.iter().find(|g| &g.name == name)
        })
    }

    /// The variable `path` names, with its group.
    pub fn var_at(&self, path: &VarPath) -> Option<(&Group, &Var)> {
        let group = self.group_at(&path.groups)?;
        Some((group, group.var(&path.name)?))
    }

    /// The path of the variable `var` of the group whose id is `ncid`.
    pub fn var_path(&self, ncid: i32, var: &Var) -> Option<VarPath> {
        fn names(group: &Group, ncid: i32, above: &mut Vec<String>) -> bool {
            if group.ncid == ncid {
                return true;
            }
            group.groups.iter().any(|g| {
                above.push(g.name.clone());
                names(g, ncid, above) || {
                    above.pop();
                    false
                }
            })
        }
        let mut groups = Vec::new();
        names(&self.root, ncid, &mut groups).then(|| VarPath::new(groups, var.name.clone()))
    }
}

/// A group: the root group or a nested one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    /// libnetcdf's group id.
    pub ncid: i32,
    /// Its name (`/` for the root group).
    pub name: String,
    /// Dimensions defined here, in id order.
    pub dims: Vec<Dim>,
    /// Ids of the user types defined here, in id order.
    pub type_ids: Vec<TypeId>,
    /// Variables, in id order.
    pub vars: Vec<Var>,
    /// Group (or global) attributes, in order.
    pub atts: Vec<Attribute>,
    /// Child groups, in order.
    pub groups: Vec<Group>,
}

impl Group {
    /// The dimension with this id here or in a descendant group.
    pub fn find_dim(&self, id: i32) -> Option<&Dim> {
        self.dims
            .iter()
            .find(|d| d.id == id)
            .or_else(|| self.groups.iter().find_map(|g| g.find_dim(id)))
    }

    /// The variable with this name here.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }
}

/// A dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dim {
    /// libnetcdf's dimension id.
    pub id: i32,
    /// Its name.
    pub name: String,
    /// Its current length.
    pub len: usize,
    /// Whether it is unlimited.
    pub unlimited: bool,
}

/// An attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// Its name.
    pub name: String,
    /// Its type.
    pub type_ref: TypeRef,
    /// Its values.
    pub values: Values,
}

/// A variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    /// libnetcdf's variable id.
    pub id: i32,
    /// Its name.
    pub name: String,
    /// Its type.
    pub type_ref: TypeRef,
    /// Ids of its dimensions, outermost first.
    pub dim_ids: Vec<i32>,
    /// Its ordinary attributes, in order.
    pub atts: Vec<Attribute>,
    /// Storage properties (netCDF-4 only).
    pub storage: Option<Storage>,
}

/// How a variable's data is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// One contiguous block.
    Contiguous,
    /// Stored in the object header.
    Compact,
    /// Chunked with these chunk sizes.
    Chunked(Vec<usize>),
    /// Another layout (virtual datasets, ...).
    Other,
}

/// Byte order of stored data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endianness {
    /// The machine's.
    Native,
    /// Little-endian.
    Little,
    /// Big-endian.
    Big,
}

impl Endianness {
    /// Whether values stored in this byte order are in the machine's.
    pub fn is_machine_order(self) -> bool {
        match self {
            Self::Native => true,
            Self::Little => cfg!(target_endian = "little"),
            Self::Big => cfg!(target_endian = "big"),
        }
    }
}

/// A quantize algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantizeMode {
    /// BitGroom (significant digits).
    BitGroom,
    /// Granular BitRound (significant digits).
    GranularBitRound,
    /// BitRound (significant bits).
    BitRound,
}

impl QuantizeMode {
    /// Every mode, in the order of the spec.
    pub const ALL: [QuantizeMode; 3] = [Self::BitGroom, Self::GranularBitRound, Self::BitRound];

    /// The attribute that records this mode and its digits (or bits), under the spec's
    /// name.
    pub fn attribute_name(self) -> &'static str {
        match self {
            Self::BitGroom => "_QuantizeBitGroomNumberOfSignificantDigits",
            Self::GranularBitRound => "_QuantizeGranularBitRoundNumberOfSignificantDigits",
            Self::BitRound => "_QuantizeBitRoundNumberOfSignificantBits",
        }
    }

    /// The mode recorded by the attribute `name`, if it is a quantize attribute.
    pub fn from_attribute_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.attribute_name() == name)
    }
}

/// Quantization applied when writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantize {
    /// The algorithm.
    pub mode: QuantizeMode,
    /// Significant digits (or bits for BitRound).
    pub nsd: i32,
}

/// Storage properties of a netCDF-4 variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Storage {
    /// The layout.
    pub layout: Layout,
    /// The filter pipeline, in stored order.
    pub filters: Vec<FilterSpec>,
    /// Stored byte order.
    pub endianness: Endianness,
    /// Whether fill mode is off.
    pub no_fill: bool,
    /// Quantization, if any.
    pub quantize: Option<Quantize>,
    /// The `_Codecs` JSON of an NCZarr variable, if any.
    pub codecs: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::AtomicType;

    fn var(id: i32, name: &str) -> Var {
        Var {
            id,
            name: name.to_string(),
            type_ref: TypeRef::Atomic(AtomicType::Int),
            dim_ids: Vec::new(),
            atts: Vec::new(),
            storage: None,
        }
    }

    /// `/v` and `/g/h/v` (a variable of the same name in a nested group).
    fn dataset() -> Dataset {
        let h = Group {
            ncid: 3,
            name: "h".into(),
            vars: vec![var(0, "w"), var(1, "v")],
            ..Group::default()
        };
        let g = Group {
            ncid: 2,
            name: "g".into(),
            groups: vec![h],
            ..Group::default()
        };
        Dataset {
            format: Format::Netcdf4,
            is_nczarr: false,
            specials: GlobalSpecials::default(),
            types: Vec::new(),
            root: Group {
                ncid: 1,
                name: "/".into(),
                vars: vec![var(0, "v")],
                groups: vec![g],
                ..Group::default()
            },
        }
    }

    #[test]
    fn a_path_names_one_variable_and_the_ids_give_its_path_back() {
        let ds = dataset();
        let nested = VarPath::new(["g", "h"], "v");
        let (group, found) = ds.var_at(&nested).unwrap_or_else(|| panic!("no {nested}"));
        assert_eq!((group.ncid, found.id), (3, 1));
        assert_eq!(ds.var_path(group.ncid, found), Some(nested));
        let top = VarPath::in_root("v");
        let (group, found) = ds.var_at(&top).unwrap_or_else(|| panic!("no {top}"));
        assert_eq!((group.ncid, found.id), (1, 0));
        assert_eq!(ds.var_path(1, found), Some(top));
        assert!(ds.var_at(&VarPath::new(["g"], "v")).is_none());
        assert!(ds.var_at(&VarPath::new(["x"], "v")).is_none());
        assert_eq!(ds.group_at(&[]).map(|g| g.ncid), Some(1));
        assert_eq!(ds.var_path(9, found), None);
    }
}
