//! `ncgen -l c|f77|python|java`: a program that writes the netCDF file, instead of the
//! file itself.
//!
//! The code writer is one more [`StoreWriter`]: ncgen parses the CDL, applies the special
//! attributes and checks the dataset exactly as for a binary file, then hands the schema
//! to [`StoreWriter::define`], which emits the definitions, and streams the data through
//! [`StoreWriter::write`], which emits one block of code per slab as it comes. Memory stays
//! bounded by ncgen's batch size whatever the data's size; the data is inline in the code.
//!
//! The program goes to standard output; the file it creates is `-o FILE` when given, else
//! the CDL file's name with `.nc` in the working directory (the dataset name when the CDL
//! comes from standard input), as the reference ncgen does.

mod c;
mod fortran;
mod idents;
mod java;
mod literal;
mod python;

use std::cell::RefCell;
use std::io::Write;
use std::path::Path;

use ncmodel::{Dataset, Layout, Values};
use store::{ErrorKind, RawBuffer, StoreError, StoreWriter, VarPath};

/// A language ncgen can write a program in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// C, with netCDF-C's API (the full enhanced model).
    C,
    /// Fortran 77, with netCDF-Fortran's API (the classic model).
    Fortran77,
    /// Python, with netCDF4-python.
    Python,
    /// Java, with netCDF-Java 5's `NetcdfFormatWriter`.
    Java,
}

impl Language {
    /// The language named by `-l` (any case), or `None` for an unknown name; `b` (binary)
    /// is not a language and gives `None` too.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "c" => Some(Self::C),
            "f77" | "fortran77" | "f" => Some(Self::Fortran77),
            "python" | "py" => Some(Self::Python),
            "java" | "j" => Some(Self::Java),
            _ => None,
        }
    }
}

/// What a generated program is asked to do besides the dataset itself.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The file the program creates.
    pub file_name: String,
    /// Whether fill mode is off for the whole file (`-x`).
    pub no_fill: bool,
    /// The dataset's name (for comments, and Java's class name).
    pub dataset_name: String,
}

/// One slab of data handed to a generator.
#[derive(Debug)]
pub struct Slab<'a> {
    /// The path of the variable's group (empty for the root).
    pub group_path: &'a [String],
    /// The variable's name.
    pub name: &'a str,
    /// Where the slab starts, per dimension.
    pub start: &'a [usize],
    /// Its extent, per dimension.
    pub count: &'a [usize],
    /// Its values, row-major, of the variable's type.
    pub values: &'a Values,
}

/// A problem a language cannot express (a type, a filter), reported as an error that
/// names it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

/// The failure of a generator: the output could not be written, or the language cannot
/// express the dataset.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// Writing the code failed.
    #[error("writing the code: {0}")]
    Io(#[from] std::io::Error),
    /// The language cannot hold something in the dataset.
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
}

/// What each language implements: definitions, then data slabs, then the end.
trait Generator {
    /// Emits the program up to the end of the definitions.
    fn define(
        &mut self,
        out: &mut dyn Write,
        dataset: &Dataset,
        setup: &Setup,
    ) -> Result<(), GenerateError>;

    /// Emits the code writing one slab.
    fn write(&mut self, out: &mut dyn Write, slab: &Slab<'_>) -> Result<(), GenerateError>;

    /// Emits the end of the program.
    fn finish(&mut self, out: &mut dyn Write) -> Result<(), GenerateError>;
}

struct State {
    out: Box<dyn Write>,
    generator: Box<dyn Generator>,
}

/// A [`StoreWriter`] that writes a program instead of a file.
pub struct CodeWriter {
    setup: Setup,
    state: RefCell<State>,
}

impl CodeWriter {
    /// A writer of `language` code onto standard output. On a terminal, text from the CDL
    /// that could command it (C1 controls, bidirectional overrides) is written as octal
    /// escapes, as ncdump writes it; into a pipe or a file the program is byte for byte.
    pub fn to_stdout(language: Language, setup: Setup) -> Self {
        let out: Box<dyn Write> = Box::new(std::io::BufWriter::new(
            crate::dump::terminal::TerminalSafe::for_terminal(std::io::stdout()),
        ));
        Self::new(language, setup, out)
    }

    /// A writer of `language` code into `out`.
    pub fn new(language: Language, setup: Setup, out: Box<dyn Write>) -> Self {
        let generator: Box<dyn Generator> = match language {
            Language::C => Box::new(c::CGenerator::default()),
            Language::Fortran77 => Box::new(fortran::FortranGenerator::default()),
            Language::Python => Box::new(python::PythonGenerator::default()),
            Language::Java => Box::new(java::JavaGenerator::default()),
        };
        Self {
            setup,
            state: RefCell::new(State { out, generator }),
        }
    }

    fn fail(&self, what: &str, error: GenerateError) -> StoreError {
        let kind = match &error {
            GenerateError::Io(io) => ErrorKind::System {
                errno: io.raw_os_error(),
            },
            GenerateError::Unsupported(_) => ErrorKind::Unsupported,
        };
        StoreError::new(kind, error.to_string(), what.to_string())
    }
}

impl StoreWriter for CodeWriter {
    fn target(&self) -> &str {
        &self.setup.file_name
    }

    fn temporary_path(&self) -> Option<&Path> {
        None
    }

    fn set_no_fill(&mut self) -> Result<(), StoreError> {
        self.setup.no_fill = true;
        Ok(())
    }

    fn define(&mut self, dataset: &Dataset) -> Result<(), StoreError> {
        let state = self.state.get_mut();
        state
            .generator
            .define(&mut state.out, dataset, &self.setup)
            .map_err(|e| self.fail("generating the definitions", e))
    }

    fn write(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        values: &Values,
    ) -> Result<(), StoreError> {
        let mut state = self.state.borrow_mut();
        let State { out, generator } = &mut *state;
        let name = var.name.as_str();
        let slab = Slab {
            group_path: &var.groups,
            name,
            start,
            count,
            values,
        };
        generator
            .write(out, &slab)
            .map_err(|e| self.fail(&format!("generating the data of {name}"), e))
    }

    fn layout(&self, _var: &VarPath) -> Result<Layout, StoreError> {
        Err(StoreError::new(
            ErrorKind::NotFound,
            "no such variable",
            "code generation",
        ))
    }

    fn write_raw(
        &self,
        _var: &VarPath,
        _start: &[usize],
        _count: &[usize],
        _buffer: &RawBuffer,
    ) -> Result<(), StoreError> {
        Err(StoreError::new(
            ErrorKind::Unsupported,
            "raw writes are not generated",
            "code generation",
        ))
    }

    fn finish(self: Box<Self>) -> Result<(), StoreError> {
        let result = {
            let mut state = self.state.borrow_mut();
            let State { out, generator } = &mut *state;
            generator
                .finish(out)
                .and_then(|()| out.flush().map_err(GenerateError::from))
        };
        result.map_err(|e| self.fail("generating the end of the program", e))
    }
}

/// Every group of the dataset with its path, parents before children, in order.
fn groups_in_order(dataset: &Dataset) -> Vec<(Vec<String>, &ncmodel::Group)> {
    fn walk<'g>(
        group: &'g ncmodel::Group,
        path: &mut Vec<String>,
        out: &mut Vec<(Vec<String>, &'g ncmodel::Group)>,
    ) {
        out.push((path.clone(), group));
        for child in &group.groups {
            path.push(child.name.clone());
            walk(child, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(&dataset.root, &mut Vec::new(), &mut out);
    out
}

/// The type of the variable `name` of the group at `group_path`, if the dataset has it.
fn find_var_type(dataset: &Dataset, group_path: &[String], name: &str) -> Option<ncmodel::TypeRef> {
    let mut group = &dataset.root;
    for part in group_path {
        group = group.groups.iter().find(|g| &g.name == part)?;
    }
    group.var(name).map(|v| v.type_ref)
}
