//! The in-memory schema of a netCDF dataset, shared by the CDL writer and parser (pure
//! Rust) and by `ncio` (which fills it from libnetcdf and creates files from it).
//!
//! Identifiers (`ncid`, `varid`, dimension and type ids) are libnetcdf's where the
//! dataset was read from a file; a dataset built from CDL numbers them itself. Across the
//! storage boundary a variable is named by its [`VarPath`] (groups from the root, then
//! its name), never by those ids.

pub mod filter;
pub mod limits;
pub mod names;
pub mod schema;
pub mod shape;
pub mod types;
pub mod values;
pub mod var_path;
pub mod weight;

pub use filter::FilterSpec;
pub use names::{check_dataset_names, check_name, BadName, NameProblem};
pub use schema::{
    Attribute, Dataset, Dim, Endianness, Format, GlobalSpecials, Group, Layout, Quantize,
    QuantizeMode, Storage, Var,
};
pub use shape::{check_values, field_len, Misfit};
pub use types::{AtomicType, CompoundField, TypeId, TypeRef, UserType, UserTypeKind};
pub use values::{Value, Values};
pub use var_path::VarPath;
