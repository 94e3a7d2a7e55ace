//! CDL, netCDF's text form: formatting exactly as netCDF-C 4.9's ncdump writes it.
//!
//! Pure Rust, no C: numbers are formatted by the C `printf` rules ncdump relies on
//! ([`number`]), names and strings escaped as ncdump escapes them ([`escape`]).

pub mod calendar;
pub mod escape;
pub mod number;
pub mod parse;
pub mod writer;

pub use parse::{parse_header, CdlHeader, Constant, DataEntry, DataReader, DataToken, ParseError};
pub use writer::{
    write_dataset, write_ncml, Annotations, DataSource, DumpOptions, FloatDigits, IndexLang,
    TimeStrings, WriteError,
};
