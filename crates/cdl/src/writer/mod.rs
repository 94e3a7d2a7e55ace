//! Writing a dataset as CDL exactly as netCDF-C 4.9's `ncdump` does: the header (types,
//! dimensions, variables, attributes, special attributes) and the data section, streamed
//! slab by slab from a [`DataSource`].

mod attribute;
mod data;
mod fill;
mod header;
mod names;
mod ncml;
mod slabs;
mod times;
mod value;

use std::io::{self, Write};

use ncmodel::{Dataset, Group, Values, Var};

pub use ncml::write_ncml;
pub use times::TimeStrings;

/// Which language's index conventions annotations use (`-b c`, `-f fortran`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexLang {
    /// 0-based, last index varies fastest.
    #[default]
    C,
    /// 1-based, first index varies fastest.
    Fortran,
}

/// Comments in the data section (`-b` brief, `-f` full).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Annotations {
    /// No comments.
    #[default]
    None,
    /// One comment per row.
    Brief(IndexLang),
    /// One comment per value.
    Full(IndexLang),
}

/// Significant digits for floating-point values (`-p fdig,ddig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloatDigits {
    /// Digits for `float` values.
    pub float: usize,
    /// Digits for `double` values.
    pub double: usize,
    /// Whether `-p` set the float digits (then `C_format` attributes are ignored).
    pub float_specified: bool,
    /// Whether `-p` set the double digits.
    pub double_specified: bool,
}

impl Default for FloatDigits {
    fn default() -> Self {
        Self {
            float: 7,
            double: 15,
            float_specified: false,
            double_specified: false,
        }
    }
}

/// What to write and how: the options of `ncdump`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpOptions {
    /// The name after `netcdf` (`-n`, or derived from the file name).
    pub name: String,
    /// Header only, no data (`-h`).
    pub header_only: bool,
    /// Data of coordinate variables only (`-c`).
    pub coordinates_only: bool,
    /// Special virtual attributes (`-s`).
    pub special_attributes: bool,
    /// Every filter in `_Filter`, none as `_Shuffle` & co. (`-F`).
    pub all_filters_in_filter_attribute: bool,
    /// Data comments (`-b`, `-f`).
    pub annotations: Annotations,
    /// Maximum line length of data lines (`-l`, default 80).
    pub max_line_len: usize,
    /// Floating-point digits (`-p`).
    pub digits: FloatDigits,
    /// The type before every variable's `_FillValue` attribute, whatever its type
    /// (`-XF`, netCDF-C 4.10.1).
    pub fill_value_types: bool,
    /// Variables whose data to write (`-v`), as given; `None` for all.
    pub variables: Option<Vec<String>>,
    /// Groups whose data to write (`-g`): full paths, or simple names matching groups of
    /// that name anywhere, `/` for the root; `None` for all.
    pub groups: Option<Vec<String>>,
    /// Values of time variables as date-time strings (`-t`, `-i`).
    pub times: TimeStrings,
}

impl Default for DumpOptions {
    fn default() -> Self {
        Self {
            name: String::new(),
            header_only: false,
            coordinates_only: false,
            special_attributes: false,
            all_filters_in_filter_attribute: false,
            annotations: Annotations::None,
            max_line_len: 80,
            digits: FloatDigits::default(),
            fill_value_types: false,
            variables: None,
            groups: None,
            times: TimeStrings::Off,
        }
    }
}

/// Whether the `-v` name `selector` selects the variable `var_name` of the group whose
/// full path is `group_path` (`/` for the root, `/g2/g3` below), as netCDF-C's ncdump
/// decides (`nc_inq_gvarid`):
/// - a name without `/` selects a variable of that name in every group;
/// - an absolute name (`/g2/g3/var`) selects that one variable (`/var` the root's, which
///   netCDF-C's ncdump refuses: its root's path `/` is compared with an empty prefix);
/// - a relative name (`g3/var`, `g2/g3/var`) selects `var` in every group whose full path
///   ends with the text before the last `/`.
pub fn variable_selected(selector: &str, group_path: &str, var_name: &str) -> bool {
    let Some((prefix, name)) = selector.rsplit_once('/') else {
        return selector == var_name;
    };
    if name != var_name {
        return false;
    }
    if selector.starts_with('/') {
        let prefix = if prefix.is_empty() { "/" } else { prefix };
        prefix == group_path
    } else {
        group_path.ends_with(prefix)
    }
}

/// Where variable data comes from.
pub trait DataSource {
    /// The error of a failed read.
    type Error: std::error::Error + 'static;

    /// Reads the hyperslab `start`/`count` of `var` in `group`, row-major.
    fn read(
        &mut self,
        group: &Group,
        var: &Var,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, Self::Error>;
}

/// Why writing stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError<E: std::error::Error + 'static> {
    /// Writing the output failed.
    #[error("writing output: {0}")]
    Io(#[from] io::Error),
    /// Reading a variable's data failed.
    #[error("reading data of variable {path}: {source}")]
    Data {
        /// The variable's full path.
        path: String,
        /// The reader's error.
        source: E,
    },
    /// A time variable (with `-t` or `-i`) is not of a numeric type; ncdump stops there
    /// too.
    #[error("to_double: type not numeric primitive (variable {path} has time units)")]
    TimeType {
        /// The variable's full path.
        path: String,
    },
}

/// Writes `dataset` as CDL to `out`, reading data from `source` as it goes.
pub fn write_dataset<W: Write, S: DataSource>(
    out: W,
    dataset: &Dataset,
    options: &DumpOptions,
    source: &mut S,
) -> Result<(), WriteError<S::Error>> {
    let mut writer = CdlWriter {
        out,
        dataset,
        options,
        indent: 0,
        line_pos: 0,
        max_line: options.max_line_len.saturating_sub(2),
        bounds: None,
    };
    writer.put(format!(
        "netcdf {} {{\n",
        crate::escape::escape_name(&options.name)
    ))?;
    let mut scope = names::Scope::root(&dataset.root);
    writer.group(&mut scope, source)?;
    writer.put("}\n")?;
    writer.out.flush()?;
    Ok(())
}

/// The output and ncdump's line state.
pub(crate) struct CdlWriter<'a, W: Write> {
    out: W,
    dataset: &'a Dataset,
    options: &'a DumpOptions,
    /// The current group indent, in blanks (2 per nesting level).
    indent: usize,
    /// ncdump's line position for wrapping (only `lput` output counts).
    line_pos: usize,
    /// Maximum line length for wrapping (`-l` minus 2).
    max_line: usize,
    /// The last `bounds` attribute written (with `-t`, `-i`).
    bounds: Option<times::BoundsLink>,
}

/// The indent of continued data lines.
const CONTINUATION: &str = "    ";

impl<W: Write> CdlWriter<'_, W> {
    /// Writes text (or raw bytes) as is.
    pub(crate) fn put(&mut self, text: impl AsRef<[u8]>) -> io::Result<()> {
        self.out.write_all(text.as_ref())
    }

    /// Writes the group indent.
    pub(crate) fn indent_out(&mut self) -> io::Result<()> {
        let blanks = " ".repeat(self.indent);
        self.put(&blanks)
    }

    /// Writes text with ncdump's line wrapping: a piece longer than 2 that would pass the
    /// maximum line length starts a continuation line.
    pub(crate) fn lput(&mut self, text: impl AsRef<[u8]>) -> io::Result<()> {
        let text = text.as_ref();
        let n = text.len();
        if n + self.line_pos > self.max_line && n > 2 {
            self.put("\n")?;
            self.indent_out()?;
            self.put(CONTINUATION)?;
            self.line_pos = CONTINUATION.len() + self.indent;
        }
        self.put(text)?;
        if text.ends_with(b"\n") {
            self.line_pos = self.indent;
        } else {
            self.line_pos += n;
        }
        Ok(())
    }

    /// `lput` of `text` followed by `, `, without building the joined text.
    pub(crate) fn lput_value(&mut self, text: &[u8]) -> io::Result<()> {
        let n = text.len() + 2;
        if n + self.line_pos > self.max_line && n > 2 {
            self.put("\n")?;
            self.indent_out()?;
            self.put(CONTINUATION)?;
            self.line_pos = CONTINUATION.len() + self.indent;
        }
        self.put(text)?;
        self.put(", ")?;
        self.line_pos += n;
        Ok(())
    }
}
