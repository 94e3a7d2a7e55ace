//! The data section: each variable's values row by row, with ncdump's wrapping,
//! fill-value `_`, record braces for nested unlimited dimensions and annotations. Data
//! is read in bounded slabs, never a whole variable at once.

use std::io::{self, Write};

use ncmodel::{AtomicType, Group, TypeRef, Values, Var};
use rayon::prelude::*;

use super::fill::FillValue;
use super::names::Scope;
use super::slabs::SlabPlan;
use super::value::{ValueText, FILL};
use super::{Annotations, CdlWriter, DataSource, IndexLang, WriteError};
use crate::calendar::TimeAxis;
use crate::escape::escape_name;
use crate::number::CFormat;

/// The fewest values of a slab formatted in parallel: below, threads cost more than they
/// save.
const PARALLEL_VALUES: usize = 1 << 14;

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
                .map(|d| scope.dim(*d).map_or(0, |d| d.len))
                .collect();
            if dims.contains(&0) {
                continue;
            }
            let unlimited = var
                .dim_ids
                .iter()
                .map(|d| scope.dim(*d).is_some_and(|d| d.unlimited))
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
        let group_path = scope.path();
        names
            .iter()
            .any(|n| super::variable_selected(n, &group_path, &var.name))
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
        let style = ValueStyle {
            fill: FillValue::of(var, self.dataset),
            axis,
            c_format: self.c_format(var),
            texts: ValueText {
                dataset: self.dataset,
                digits: self.options.digits,
            },
        };
        let row_len = cursor.row_len();
        // What a value takes decoded (a user type's far more than stored).
        let plan = SlabPlan::new(&cursor.dims, self.dataset.decoded_bytes(var.type_ref));
        let mut rows = RowState::default();
        let mut position = 0usize;
        for slab in plan.slabs() {
            let values = source
                .read(group, var, &slab.start, &slab.count)
                .map_err(|source| WriteError::Data {
                    path: scope.var_path(&var.name),
                    source,
                })?;
            let whole_rows = position % row_len == 0 && values.len() % row_len == 0;
            if whole_rows && cursor.rank() > 1 && values.len() >= PARALLEL_VALUES {
                self.rows_in_parallel(cursor, &style, &values, position)?;
            } else {
                self.values_out(
                    cursor,
                    &style,
                    &values,
                    0..values.len(),
                    position,
                    &mut rows,
                )?;
            }
            position += values.len();
        }
        Ok(())
    }

    /// Writes `values[range]`, whose first is element `position` of the variable.
    fn values_out(
        &mut self,
        cursor: &RowCursor<'_>,
        style: &ValueStyle<'_>,
        values: &Values,
        range: std::ops::Range<usize>,
        position: usize,
        rows: &mut RowState,
    ) -> io::Result<()> {
        let row_len = cursor.row_len();
        let is_char = cursor.var.type_ref == TypeRef::Atomic(AtomicType::Char);
        let first = range.start;
        for i in range {
            let position = position + i - first;
            let col = position % row_len;
            if col == 0 {
                rows.indices = cursor.row_indices(position / row_len);
                self.row_start(cursor, &rows.indices)?;
            }
            let row_text = &mut rows.text;
            if is_char {
                row_text.chars.push(values.integer_at(i).unwrap_or(0) as u8);
            } else {
                let text = &mut row_text.value;
                text.clear();
                if style.fill.matches(values, i) {
                    text.extend_from_slice(FILL.as_bytes());
                } else if let Some((axis, value)) = style
                    .axis
                    .as_ref()
                    .and_then(|a| Some((a, super::times::number_at(values, i)?)))
                {
                    self.time_text(axis, value, text);
                } else if let Some(format) = &style.c_format {
                    style.texts.push_c_format(text, format, values, i);
                } else {
                    style
                        .texts
                        .push_element(text, cursor.var.type_ref, values, i);
                }
                if col + 1 < row_len {
                    let text = std::mem::take(&mut row_text.value);
                    self.value(cursor, &rows.indices, col, &text)?;
                    rows.text.value = text;
                } else {
                    row_text.last.clone_from(&row_text.value);
                }
            }
            if col + 1 == row_len {
                let indices = std::mem::take(&mut rows.indices);
                self.row_end(cursor, &indices, &mut rows.text)?;
                rows.indices = indices;
            }
        }
        Ok(())
    }

    /// Writes `values`, whole rows starting at element `position`, formatted on every
    /// thread of the pool and written in order. Every row starts in the same line state
    /// (the row's indent, a fresh line), so each part of the rows is formatted alone into
    /// text identical to what [`Self::values_out`] would write.
    fn rows_in_parallel(
        &mut self,
        cursor: &RowCursor<'_>,
        style: &ValueStyle<'_>,
        values: &Values,
        position: usize,
    ) -> io::Result<()> {
        let row_len = cursor.row_len();
        let rows = values.len() / row_len;
        let parts = (rayon::current_num_threads() * 4).clamp(1, rows);
        let rows_per_part = rows.div_ceil(parts);
        let ranges: Vec<(usize, usize)> = (0..rows)
            .step_by(rows_per_part)
            .map(|first| (first, (first + rows_per_part).min(rows)))
            .collect();
        let texts: Vec<io::Result<(Vec<u8>, usize)>> = ranges
            .par_iter()
            .map(|&(first, end)| {
                let mut part = CdlWriter {
                    out: Vec::with_capacity((end - first) * row_len * 12),
                    dataset: self.dataset,
                    options: self.options,
                    indent: self.indent,
                    line_pos: self.line_pos,
                    max_line: self.max_line,
                    bounds: None,
                };
                part.values_out(
                    cursor,
                    style,
                    values,
                    first * row_len..end * row_len,
                    position + first * row_len,
                    &mut RowState::default(),
                )?;
                Ok((part.out, part.line_pos))
            })
            .collect();
        for text in texts {
            let (text, line_pos) = text?;
            self.put(&text)?;
            self.line_pos = line_pos;
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
            Values::Char(text) => CFormat::from_attribute(text),
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

/// How a variable's values are written: fill, time strings, `C_format`, digits.
struct ValueStyle<'a> {
    fill: FillValue<'a>,
    axis: Option<TimeAxis>,
    c_format: Option<CFormat>,
    texts: ValueText<'a>,
}

/// Where the row being written is, and its pieces.
#[derive(Default)]
struct RowState {
    /// The outer indices of the row.
    indices: Vec<usize>,
    /// Its text so far.
    text: RowText,
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
    var.dim_ids.len() == 1 && scope.has_dim_named(&var.name)
}
