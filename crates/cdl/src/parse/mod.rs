//! The CDL parser: `netcdf name { ... }` text to an [`ncmodel::Dataset`], streaming.
//!
//! [`parse_header`] reads a whole CDL source once through a `BufRead`: it builds the
//! schema (groups, types, dimensions, variables, attributes with their values) and only
//! scans the `data:` sections, recording where each entry's values start
//! ([`DataEntry`]). A [`DataReader`] then pulls the tokens of one entry from a reader
//! positioned there. Neither holds more than a bounded buffer of the source.
//!
//! Constants keep the type their spelling gives them ([`Constant`]); converting them
//! to a type is [`convert_constants`] (ncgen's rules: integers wrap, floats truncate).

mod attribute;
mod constant;
mod convert;
mod data;
mod error;
mod fields;
mod header;
mod input;
mod lexer;
mod number;
mod scope;
mod site;
mod skip;
mod types_section;

use std::io::BufRead;

use ncmodel::{Dataset, Format, GlobalSpecials};

pub use constant::{Constant, DataToken};
pub use convert::{convert_constants, infer_type, push_constant, ConvertError};
pub use data::DataReader;
pub use error::{Diagnostic, ErrorKind, ParseError, Position};
pub use fields::{
    enum_value, fit_field, is_char_constant, missing_fields, padding, FieldError, Padding,
};
pub use lexer::Dialect;
pub use site::{find_site, AttributeSite};

/// The result of [`parse_header`]: the schema, the dataset name and the data entries.
#[derive(Debug, Clone, PartialEq)]
pub struct CdlHeader {
    /// The schema. `format` is a placeholder ([`Format::Classic`]): ncgen decides it.
    pub dataset: Dataset,
    /// The name after `netcdf` (blanks removed, escapes resolved).
    pub name: String,
    /// Every `name = values ;` entry of every `data:` section, in source order.
    pub data: Vec<DataEntry>,
    /// Warnings about attribute values the parser dropped as the reference ncgen does
    /// (`file:line:col: message`), in source order.
    pub warnings: Vec<String>,
    /// Where each attribute whose name starts with `_` is, in source order.
    pub sites: Vec<AttributeSite>,
}

/// Where the values of one data entry are in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataEntry {
    /// Names of the groups from the root down to the variable's group.
    pub group_path: Vec<String>,
    /// The variable's name.
    pub var_name: String,
    /// Byte offset of the first byte after the entry's `=`.
    pub offset: u64,
    /// Line of that byte (1-based).
    pub line: u32,
    /// Column of that byte (1-based, characters).
    pub col: u32,
}

/// Parses a CDL source read from `reader` (named `source_name` in errors): the whole
/// schema, and the positions of the data entries (whose values are checked lexically
/// and for balanced braces, but neither converted nor kept).
pub fn parse_header<R: BufRead>(reader: R, source_name: &str) -> Result<CdlHeader, ParseError> {
    parse_header_as(reader, source_name, Dialect::Enhanced)
}

/// [`parse_header`] with the type names that `dialect` reserves (ncgen's `-k` decides it).
pub fn parse_header_as<R: BufRead>(
    reader: R,
    source_name: &str,
    dialect: Dialect,
) -> Result<CdlHeader, ParseError> {
    let mut parser = header::Parser::new(reader, source_name);
    parser.lex.dialect = dialect;
    let name = parser.file()?;
    let data = std::mem::take(&mut parser.data);
    let warnings = std::mem::take(&mut parser.warnings);
    let sites = std::mem::take(&mut parser.sites);
    let (root, types) = parser.scope.finish();
    Ok(CdlHeader {
        dataset: Dataset {
            format: Format::Classic,
            is_nczarr: false,
            specials: GlobalSpecials::default(),
            types,
            root,
        },
        name,
        data,
        warnings,
        sites,
    })
}
