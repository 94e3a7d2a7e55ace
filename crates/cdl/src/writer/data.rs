//! The data section: each variable's values row by row, with ncdump's wrapping,
//! fill-value `_`, record braces for nested unlimited dimensions and annotations. Data
//! is read in bounded slabs, never a whole variable at once.

use std::io::{self, Write};

use ncmodel::{AtomicType, Group, TypeRef, Var};

use super::fill::FillValue;
use super::names::Scope;
use super::slabs::SlabPlan;
use super::value::{ValueText, FILL};
use super::{Annotations, CdlWriter, DataSource, IndexLang, WriteError};
use crate::escape::escape_name;
use crate::number::CFormat;

/// The shape of a variable being written and where in it we are.
struct RowCursor<'v> {
    var: &'v Var,
    dims: Vec<usize>,
    /// Whether each dimension is unlimited.
    unlimited: Vec<bool>,
}

impl RowCursor<'_> {
    fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Values per row (the last dimension; 1 for a scalar).
    fn row_len(&self) -> usize {
        self.dims.last().copied().unwrap_or(1)
    }

    /// The outer indices of row number `row` (all dimensions but the last).
    fn row_indices(&self, row: usize) -> Vec<usize> {
        let outer = &self.dims[..self.rank().saturating_sub(1)];
        let mut indices = vec![0; outer.len()];
        let mut rest = row;
        for (i, d) in outer.iter().enumerate().rev() {
            indices[i] = rest % d.max(&1);
            rest /= d.max(&1);
        }
        indices
    }

    /// `{` opened before row `indices`: one per unlimited dimension past the first whose
    /// inner outer-indices are all zero.
    fn opened(&self, indices: &[usize]) -> usize {
        (1..self.rank())
            .filter(|&l| self.unlimited[l] && indices[l..].iter().all(|i| *i == 0))
            .count()
    }

    /// `}` closed after row `indices`: the same, with all inner indices at their last.
    fn closed(&self, indices: &[usize]) -> usize {
        (1..self.rank())
            .filter(|&l| {
                self.unlimited[l]
                    && indices[l..]
                        .iter()
                        .zip(&self.dims[l..])
                        .all(|(i, d)| *i + 1 == *d)
            })
            .count()
    }

    fn is_last_row(&self, indices: &[usize]) -> bool {
        indices.iter().zip(&self.dims).all(|(i, d)| *i + 1 == *d)
    }
}

impl<W: Write> CdlWriter<'_, W> {
    /// Writes `data:` and the data of the wanted variables of the current group.
    pub(crate) fn data_section<S: DataSource>(
        &mut self,
        scope: &Scope<'_>,
        source: &mut S,
    ) -> Result<(), WriteError<S::Error>> {
        let group = scope.group();
        if self.options.header_only || !self.group_wanted(scope) {
            return Ok(());
        }
        if !group.vars.is_empty() {
            self.indent_out()?;
            self.put("data:\n")?;
        }
        for var in &group.vars {
            if !self.var_wanted(scope, var) {
                continue;
            }
            if self.options.coordinates_only && !is_coordinate(scope, var) {
                continue;
            }
            let dims: Vec<usize> = var
                .dim_ids
                .iter()
                .map(|d| self.dataset.dim(*d).map_or(0, |d| d.len))
                .collect();
            if dims.contains(&0) {
                continue;
            }
            let unlimited = var
                .dim_ids
                .iter()
                .map(|d| self.dataset.dim(*d).is_some_and(|d| d.unlimited))
                .collect();
            let cursor = RowCursor {
                var,
                dims,
                unlimited,
            };
            self.var_data(scope, group, &cursor, source)?;
        }
        Ok(())
    }

    fn group_wanted(&self, scope: &Scope<'_>) -> bool {
        let Some(groups) = &self.options.groups else {
            return true;
        };
        let path = scope.path();
        let name = path.rsplit('/').next().unwrap_or("");
        groups.iter().any(|g| match g.as_str() {
            "" | "/" => scope.is_root(),
            absolute if absolute.starts_with('/') => path == absolute,
            relative => !scope.is_root() && name == relative,
        })
    }

    fn var_wanted(&self, scope: &Scope<'_>, var: &Var) -> bool {
        let Some(names) = &self.options.variables else {
            return true;
        };
        let full = scope.var_path(&var.name);
        names.iter().any(|n| {
            if n.starts_with('/') {
                *n == full
            } else if n.contains('/') {
                scope.var_path(n) == full
            } else {
                *n == var.name
            }
        })
    }

    fn var_data<S: DataSource>(
        &mut self,
        scope: &Scope<'_>,
        group: &Group,
        cursor: &RowCursor<'_>,
        source: &mut S,
    ) -> Result<(), WriteError<S::Error>> {
        let var = cursor.var;
        self.put("\n")?;
        self.indent_out()?;
        self.put(format!(" {}", escape_name(&var.name)))?;
        if cursor.rank() <= 1 {
            self.put(" = ")?;
            self.line_pos = var.name.len() + 4 + self.indent;
        } else {
            self.put(" =\n  ")?;
            self.line_pos = 2 + self.indent;
        }
        let is_char = var.type_ref == TypeRef::Atomic(AtomicType::Char);
        let axis = self.data_axis(var).filter(|_| !is_char);
        let numeric = matches!(var.type_ref, TypeRef::Atomic(t) if t != AtomicType::String);
        if axis.is_some() && !numeric {
            return Err(WriteError::TimeType {
                path: scope.var_path(&var.name),
            });
        }
        let fill = FillValue::of(var, self.dataset);
        let c_format = self.c_format(var);
        let texts = ValueText {
            dataset: self.dataset,
            digits: self.options.digits,
        };
        let row_len = cursor.row_len();
        let plan = SlabPlan::new(&cursor.dims);
        let mut row_text = RowText::default();
        let mut position = 0usize;
        let mut indices = Vec::new();
        for slab in plan.slabs() {
            let values = source
                .read(group, var, &slab.start, &slab.count)
                .map_err(|source| WriteError::Data {
                    path: scope.var_path(&var.name),
                    source,
                })?;
            for i in 0..values.len() {
                let col = position % row_len;
                if col == 0 {
                    indices = cursor.row_indices(position / row_len);
                    self.row_start(cursor, &indices)?;
                }
                if var.type_ref == TypeRef::Atomic(AtomicType::Char) {
                    row_text.chars.push(values.integer_at(i).unwrap_or(0) as u8);
                } else {
                    let text = &mut row_text.value;
                    text.clear();
                    if fill.matches(&values, i) {
                        text.extend_from_slice(FILL.as_bytes());
                    } else if let Some((axis, value)) = axis
                        .as_ref()
                        .and_then(|a| Some((a, super::times::number_at(&values, i)?)))
                    {
                        self.time_text(axis, value, text);
                    } else if let Some(format) = &c_format {
                        texts.push_c_format(text, format, &values, i);
                    } else {
                        texts.push_element(text, var.type_ref, &values, i);
                    }
                    if col + 1 < row_len {
                        let text = std::mem::take(&mut row_text.value);
                        self.value(cursor, &indices, col, &text)?;
                        row_text.value = text;
                    } else {
                        row_text.last.clone_from(&row_text.value);
                    }
                }
                if col + 1 == row_len {
                    self.row_end(cursor, &indices, &mut row_text)?;
                }
                position += 1;
            }
        }
        Ok(())
    }

    /// The variable's `C_format` attribute, for numeric variables, unless `-p` set the
    /// precision of its type.
    fn c_format(&self, var: &Var) -> Option<CFormat> {
        let digits = self.options.digits;
        match var.type_ref {
            TypeRef::Atomic(AtomicType::Float) if digits.float_specified => return None,
            TypeRef::Atomic(AtomicType::Double) if digits.double_specified => return None,
            TypeRef::Atomic(AtomicType::Char | AtomicType::String) | TypeRef::User(_) => {
                return None
            }
            TypeRef::Atomic(_) => {}
        }
        let att = var.atts.iter().find(|a| a.name == "C_format")?;
        match &att.values {
            ncmodel::Values::Char(text) => CFormat::from_attribute(text),
            _ => None,
        }
    }

    /// Braces and the brief annotation before a row.
    fn row_start(&mut self, cursor: &RowCursor<'_>, indices: &[usize]) -> io::Result<()> {
        for _ in 0..cursor.opened(indices) {
            self.lput("{")?;
        }
        if let Annotations::Brief(lang) = self.options.annotations {
            if cursor.rank() > 1 {
                self.brief_annotation(cursor, indices, lang)?;
            }
        }
        Ok(())
    }

    /// A value that is not the last of its row.
    fn value(
        &mut self,
        cursor: &RowCursor<'_>,
        indices: &[usize],
        col: usize,
        text: &[u8],
    ) -> io::Result<()> {
        if let Annotations::Full(lang) = self.options.annotations {
            self.put(text)?;
            self.put(", ")?;
            self.full_annotation(cursor, indices, col, lang)
        } else {
            self.lput_value(text)
        }
    }

    /// The end of a row: char text or the last value, closing braces, delimiter.
    fn row_end(
        &mut self,
        cursor: &RowCursor<'_>,
        indices: &[usize],
        row: &mut RowText,
    ) -> io::Result<()> {
        let is_char = cursor.var.type_ref == TypeRef::Atomic(AtomicType::Char);
        if is_char {
            let text = crate::escape::quote_char_data(&row.chars);
            self.put(&text)?;
            row.last.clear();
        }
        let mut text = std::mem::take(&mut row.last);
        row.chars.clear();
        text.extend_from_slice("}".repeat(cursor.closed(indices)).as_bytes());
        let last_row = cursor.is_last_row(indices);
        if let Annotations::Full(lang) = self.options.annotations {
            self.put(&text)?;
            self.put(if last_row { ";" } else { "," })?;
            let last_col = cursor.row_len().saturating_sub(1);
            let col = if cursor.rank() == 0 { 0 } else { last_col };
            return self.full_annotation(cursor, indices, col, lang);
        }
        self.lput(&text)?;
        if last_row {
            self.lput(" ;")?;
            self.lput("\n")
        } else {
            self.lput(",\n")?;
            self.lput("  ")
        }
    }

    fn brief_annotation(
        &mut self,
        cursor: &RowCursor<'_>,
        indices: &[usize],
        lang: IndexLang,
    ) -> io::Result<()> {
        let last = cursor.row_len();
        let mut text = format!("// {}(", escape_name(&cursor.var.name));
        match lang {
            IndexLang::C => {
                for i in indices {
                    text.push_str(&format!("{i},"));
                }
                if last == 1 {
                    text.push('0');
                } else {
                    text.push_str(&format!(" 0-{}", last - 1));
                }
            }
            IndexLang::Fortran => {
                if last == 1 {
                    text.push('1');
                } else {
                    text.push_str(&format!("1-{last} "));
                }
                for i in indices.iter().rev() {
                    text.push_str(&format!(",{}", i + 1));
                }
            }
        }
        text.push_str(")\n");
        self.put(&text)?;
        self.indent_out()?;
        self.put("    ")?;
        self.line_pos = 4 + self.indent;
        Ok(())
    }

    fn full_annotation(
        &mut self,
        cursor: &RowCursor<'_>,
        indices: &[usize],
        col: usize,
        lang: IndexLang,
    ) -> io::Result<()> {
        let mut text = format!("  // {}(", escape_name(&cursor.var.name));
        match lang {
            IndexLang::C => {
                for i in indices {
                    text.push_str(&format!("{i},"));
                }
                text.push_str(&col.to_string());
            }
            IndexLang::Fortran => {
                text.push_str(&(col + 1).to_string());
                for i in indices.iter().rev() {
                    text.push_str(&format!(",{}", i + 1));
                }
            }
        }
        text.push_str(")\n    ");
        self.put(&text)
    }
}

/// The pieces of the row being written.
#[derive(Default)]
struct RowText {
    /// The characters of a char row.
    chars: Vec<u8>,
    /// The text of the row's last value.
    last: Vec<u8>,
    /// A buffer for the value being formatted.
    value: Vec<u8>,
}

/// ncdump's coordinate-variable test: one-dimensional, named like a dimension in scope.
fn is_coordinate(scope: &Scope<'_>, var: &Var) -> bool {
    var.dim_ids.len() == 1 && scope.dims_in_scope().any(|d| d.name == var.name)
}
