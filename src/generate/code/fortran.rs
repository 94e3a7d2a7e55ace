//! `ncgen -l f77` (`-f`): a Fortran 77 program (fixed form) writing the dataset with
//! netCDF-Fortran's `nf_` API, for the classic data model, as the reference's.
//!
//! Fortran 77 wants every declaration before the first statement of a program unit, and
//! the data comes after the definitions: so the definitions are one subroutine, each data
//! slab another (its values in `DATA` statements), and the main program, written last,
//! calls them in order. The ids they share are in a `COMMON` block. Dimensions are listed
//! in Fortran's order (fastest varying first) and indices start at 1.

use std::collections::HashMap;
use std::io::Write;

use ncmodel::{AtomicType, Attribute, Dataset, Endianness, Format, Layout, TypeRef, Values, Var};

use super::idents::Idents;
use super::literal::{comment_text, f32_text, f64_text};
use super::{GenerateError, Generator, Setup, Slab, Unsupported};

const RESERVED: &[&str] = &[
    "program",
    "subroutine",
    "function",
    "end",
    "data",
    "common",
    "integer",
    "real",
    "double",
    "character",
    "stat",
    "ncid",
    "check_err",
    "defs",
    "main",
    "start",
    "count",
    "dims",
    "chunks",
    "params",
    "vals",
    "text",
    "i",
    "include",
    "call",
    "if",
    "then",
    "else",
    "endif",
    "stop",
    "print",
    "transfer",
    "char",
];

/// The Fortran spelling of a classic atomic type: declaration, `nf_` type, function
/// suffix (`nf_put_vara_int2`).
fn fortran_type(t: AtomicType) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match t {
        AtomicType::Byte => ("integer*1", "nf_byte", "int1"),
        AtomicType::Char => ("character", "nf_char", "text"),
        AtomicType::Short => ("integer*2", "nf_short", "int2"),
        AtomicType::Int => ("integer", "nf_int", "int"),
        AtomicType::Float => ("real", "nf_float", "real"),
        AtomicType::Double => ("double precision", "nf_double", "double"),
        _ => return None,
    })
}

/// One statement in fixed form: from column 7, cut at column 72 onto continuation lines
/// (`&` in column 6). A cut inside a character constant is safe, since every line but
/// the last is full to column 72.
fn statement(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (i, part) in chars.chunks(66).enumerate() {
        out.push_str(if i == 0 { "      " } else { "     &" });
        out.extend(part.iter());
        out.push('\n');
    }
    if chars.is_empty() {
        out.push('\n');
    }
    out
}

/// A character constant of printable ASCII (quotes doubled); `None` when `bytes` holds
/// anything else.
fn plain_constant(bytes: &[u8]) -> Option<String> {
    if !bytes.iter().all(|b| (0x20..=0x7e).contains(b)) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes).replace('\'', "''");
    Some(format!("'{text}'"))
}

/// Statements giving the `character*(n)` variable `name` the bytes `text`: printable runs
/// as constants, other bytes with `char(n)`.
fn assign_text(name: &str, text: &[u8]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < text.len() {
        let printable = (0x20..=0x7e).contains(&text[i]);
        let mut j = i + 1;
        while j < text.len() && j - i < 60 && (0x20..=0x7e).contains(&text[j]) == printable {
            j += 1;
        }
        if !printable {
            j = i + 1;
        }
        let value = match plain_constant(&text[i..j]) {
            Some(constant) => constant,
            None => format!("char({})", text[i]),
        };
        out.push_str(&statement(&format!("{name}({}:{}) = {value}", i + 1, j)));
        i = j;
    }
    out
}

/// A name as a character expression: a constant, with `//char(n)` for each byte that is
/// not printable ASCII (so the source stays ASCII, and its columns bytes).
fn name_constant(name: &str) -> String {
    let bytes = name.as_bytes();
    if let Some(constant) = plain_constant(bytes) {
        return constant;
    }
    let mut parts = Vec::new();
    let mut run = Vec::new();
    for &b in bytes {
        if (0x20..=0x7e).contains(&b) {
            run.push(b);
        } else {
            if let Some(constant) = plain_constant(&run).filter(|_| !run.is_empty()) {
                parts.push(constant);
            }
            run.clear();
            parts.push(format!("char({b})"));
        }
    }
    if let Some(constant) = plain_constant(&run).filter(|_| !run.is_empty()) {
        parts.push(constant);
    }
    parts.join("//")
}

/// The values of an array as `DATA` constants, with the statements (after the `DATA`)
/// that set those no constant can give: the most negative `int`, NaN and infinities.
fn constants(values: &Values, array: &str) -> Result<(Vec<String>, String), Unsupported> {
    let mut fixes = String::new();
    let mut fix = |i: usize, value: String| {
        fixes.push_str(&statement(&format!("{array}({}) = {value}", i + 1)));
    };
    let items: Vec<String> = match values {
        Values::Byte(v) => v.iter().map(|x| x.to_string()).collect(),
        Values::Short(v) => v.iter().map(|x| x.to_string()).collect(),
        Values::Int(v) => v
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                if x == i32::MIN {
                    fix(i, "-2147483647 - 1".into());
                    "0".to_string()
                } else {
                    x.to_string()
                }
            })
            .collect(),
        Values::Float(v) => v
            .iter()
            .enumerate()
            .map(|(i, &x)| match f32_text(x) {
                Some(t) => t.replace('e', "E"),
                None => {
                    fix(i, format!("transfer({}, {array}(1))", x.to_bits() as i32));
                    "0.0".to_string()
                }
            })
            .collect(),
        Values::Double(v) => v
            .iter()
            .enumerate()
            .map(|(i, &x)| match f64_text(x) {
                Some(t) if t.contains('e') => t.replace('e', "D"),
                Some(t) => format!("{t}D0"),
                None => {
                    fix(i, format!("transfer({}_8, {array}(1))", x.to_bits() as i64));
                    "0.0D0".to_string()
                }
            })
            .collect(),
        other => {
            return Err(Unsupported(format!(
                "Fortran 77 code cannot write values like {:?}",
                other.slice(0..other.len().min(1))
            )))
        }
    };
    Ok((items, fixes))
}

/// `DATA` statements for `items` of `array`, a few lines each (Fortran 77 allows 19
/// continuation lines).
fn data_statements(array: &str, items: &[String]) -> String {
    let mut out = String::new();
    let mut first = 0;
    while first < items.len() {
        let mut len = 0;
        let mut last = first;
        while last < items.len() && len + items[last].len() + 2 < 15 * 66 {
            len += items[last].len() + 2;
            last += 1;
        }
        out.push_str(&statement(&format!(
            "data ({array}(i), i = {}, {}) /{}/",
            first + 1,
            last,
            items[first..last].join(", ")
        )));
        first = last;
    }
    out
}

/// The Fortran generator's names and the subroutines written so far.
#[derive(Default)]
pub struct FortranGenerator {
    dataset: Option<Dataset>,
    dims: HashMap<i32, String>,
    vars: HashMap<String, (String, AtomicType)>,
    /// `integer ...` and `common /ncids/ ...`, the same in every unit.
    common: String,
    /// Names of the data subroutines, in order.
    writers: Vec<String>,
}

impl FortranGenerator {
    /// The start of a subroutine: its name, the include, the shared ids.
    fn unit(&self, name: &str) -> String {
        format!(
            "\n      subroutine {name}\n      include 'netcdf.inc'\n      integer stat, i\n{}",
            self.common
        )
    }

    fn check_model(dataset: &Dataset) -> Result<(), Unsupported> {
        let refuse = |what: String| {
            Err(Unsupported(format!(
                "Fortran 77 code cannot write {what} (it holds the classic model only)"
            )))
        };
        if !dataset.root.groups.is_empty() {
            return refuse("groups".into());
        }
        if let Some(t) = dataset.types.first() {
            return refuse(format!("the user-defined type {}", t.name));
        }
        let classic = |t: TypeRef| matches!(t, TypeRef::Atomic(a) if fortran_type(a).is_some());
        for var in &dataset.root.vars {
            if !classic(var.type_ref) {
                return refuse(format!("the variable {} of a netCDF-4 type", var.name));
            }
            if let Some(att) = var.atts.iter().find(|a| !classic(a.type_ref)) {
                return refuse(format!(
                    "the attribute {}:{} of a netCDF-4 type",
                    var.name, att.name
                ));
            }
            if var.storage.as_ref().is_some_and(|s| s.quantize.is_some()) {
                return Err(Unsupported(format!(
                    "Fortran 77 code cannot write the quantization of {} (netCDF-Fortran 4.5 \
                     has no nf_def_var_quantize)",
                    var.name
                )));
            }
        }
        if let Some(att) = dataset.root.atts.iter().find(|a| !classic(a.type_ref)) {
            return refuse(format!("the attribute :{} of a netCDF-4 type", att.name));
        }
        Ok(())
    }

    /// Declarations and statements writing one attribute (`n` numbers its arrays).
    fn put_attribute(
        varid: &str,
        att: &Attribute,
        n: usize,
    ) -> Result<(String, String), Unsupported> {
        let name = name_constant(&att.name);
        let len = att.values.len();
        if let Values::Char(text) = &att.values {
            return Ok(match plain_constant(text) {
                Some(constant) if !text.is_empty() => (
                    String::new(),
                    statement(&format!(
                        "stat = nf_put_att_text(ncid, {varid}, {name}, {len}, {constant})"
                    )),
                ),
                _ => {
                    let var = format!("t{n}");
                    (
                        statement(&format!("character*({}) {var}", len.max(1))),
                        format!(
                            "{}{}",
                            assign_text(&var, text),
                            statement(&format!(
                                "stat = nf_put_att_text(ncid, {varid}, {name}, {len}, {var})"
                            ))
                        ),
                    )
                }
            });
        }
        let TypeRef::Atomic(t) = att.type_ref else {
            return Err(Unsupported(
                "Fortran 77 code cannot write user-defined types".into(),
            ));
        };
        let (decl, nf_type, suffix) = fortran_type(t)
            .ok_or_else(|| Unsupported(format!("Fortran 77 code cannot write the type {t}")))?;
        let array = format!("a{n}");
        let (items, fixes) = constants(&att.values, &array)?;
        let decls = format!(
            "{}{}",
            statement(&format!("{decl} {array}({})", len.max(1))),
            data_statements(&array, &items)
        );
        let body = format!(
            "{fixes}{}",
            statement(&format!(
                "stat = nf_put_att_{suffix}(ncid, {varid}, {name}, {nf_type}, {len}, {array})"
            ))
        );
        Ok((decls, body))
    }

    fn define_var(
        &self,
        var: &Var,
        netcdf4: bool,
        decls: &mut String,
        body: &mut String,
        n: &mut usize,
    ) -> Result<(), Unsupported> {
        let Some((id, t)) = self.vars.get(&var.name) else {
            return Err(Unsupported(format!("variable {} was not named", var.name)));
        };
        let nf_type = fortran_type(*t).map(|f| f.1).unwrap_or("nf_int");
        let rank = var.dim_ids.len();
        for (i, dim) in var.dim_ids.iter().rev().enumerate() {
            let d = self.dims.get(dim).cloned().unwrap_or_default();
            body.push_str(&statement(&format!("dims({}) = {d}", i + 1)));
        }
        body.push_str(&statement(&format!(
            "stat = nf_def_var(ncid, {}, {nf_type}, {rank}, dims, {id})",
            name_constant(&var.name)
        )));
        body.push_str(CHECK);
        if let (true, Some(storage)) = (netcdf4, &var.storage) {
            match &storage.layout {
                Layout::Contiguous => body.push_str(&statement(&format!(
                    "stat = nf_def_var_chunking(ncid, {id}, nf_contiguous, dims)"
                ))),
                Layout::Compact => body.push_str(&statement(&format!(
                    "stat = nf_def_var_chunking(ncid, {id}, nf_compact, dims)"
                ))),
                Layout::Chunked(sizes) => {
                    for (i, size) in sizes.iter().rev().enumerate() {
                        body.push_str(&statement(&format!("chunks({}) = {size}", i + 1)));
                    }
                    if sizes.is_empty() {
                        for i in 0..rank {
                            body.push_str(&statement(&format!("chunks({}) = 0", i + 1)));
                        }
                    }
                    body.push_str(&statement(&format!(
                        "stat = nf_def_var_chunking(ncid, {id}, nf_chunked, chunks)"
                    )));
                }
                Layout::Other => {}
            }
            if storage.layout != Layout::Other {
                body.push_str(CHECK);
            }
            for filter in &storage.filters {
                for (i, p) in filter.params.iter().enumerate() {
                    // Parameters are unsigned 32-bit words: those past 2^31 as negatives.
                    body.push_str(&statement(&format!("params({}) = {}", i + 1, *p as i32)));
                }
                body.push_str(&statement(&format!(
                    "stat = nf_def_var_filter(ncid, {id}, {}, {}, params)",
                    filter.id,
                    filter.params.len()
                )));
                body.push_str(CHECK);
            }
            let endian = match storage.endianness {
                Endianness::Little => Some("nf_endian_little"),
                Endianness::Big => Some("nf_endian_big"),
                Endianness::Native => None,
            };
            if let Some(endian) = endian {
                body.push_str(&statement(&format!(
                    "stat = nf_def_var_endian(ncid, {id}, {endian})"
                )));
                body.push_str(CHECK);
            }
            if storage.no_fill {
                body.push_str(&statement(&format!(
                    "stat = nf_def_var_fill(ncid, {id}, 1, 0)"
                )));
                body.push_str(CHECK);
            }
        }
        for att in &var.atts {
            *n += 1;
            let (d, b) = Self::put_attribute(id, att, *n)?;
            decls.push_str(&d);
            body.push_str(&b);
            body.push_str(CHECK);
        }
        Ok(())
    }
}

const CHECK: &str = "      call check_err(stat)\n";

const CHECK_ERR: &str = "
* Stops the program with the library's message when a call fails.
      subroutine check_err(stat)
      include 'netcdf.inc'
      integer stat
      if (stat .ne. nf_noerr) then
      print *, nf_strerror(stat)
      stop 1
      endif
      end
";

impl Generator for FortranGenerator {
    fn define(
        &mut self,
        out: &mut dyn Write,
        dataset: &Dataset,
        setup: &Setup,
    ) -> Result<(), GenerateError> {
        Self::check_model(dataset)?;
        let mut idents = Idents::with_rules(RESERVED, true, 31);
        let mut shared = vec!["ncid".to_string()];
        for dim in &dataset.root.dims {
            let id = idents.fresh(&dim.name, "_dim");
            shared.push(id.clone());
            self.dims.insert(dim.id, id);
        }
        for var in &dataset.root.vars {
            let id = idents.fresh(&var.name, "_id");
            shared.push(id.clone());
            if let TypeRef::Atomic(t) = var.type_ref {
                self.vars.insert(var.name.clone(), (id, t));
            }
        }
        let list = shared.join(", ");
        self.common = format!(
            "{}{}",
            statement(&format!("integer {list}")),
            statement(&format!("common /ncids/ {list}"))
        );
        let mode = match dataset.format {
            Format::Classic => "nf_clobber",
            Format::Offset64 => "nf_clobber + nf_64bit_offset",
            Format::Cdf5 => "nf_clobber + nf_64bit_data",
            Format::Netcdf4 => "nf_clobber + nf_netcdf4",
            Format::Netcdf4Classic => "nf_clobber + nf_netcdf4 + nf_classic_model",
        };
        let max_rank = dataset
            .root
            .vars
            .iter()
            .map(|v| v.dim_ids.len())
            .max()
            .unwrap_or(0);
        let max_params = dataset
            .root
            .vars
            .iter()
            .filter_map(|v| v.storage.as_ref())
            .flat_map(|s| s.filters.iter().map(|f| f.params.len()))
            .max()
            .unwrap_or(0);
        let mut decls = format!(
            "      integer dims({}), chunks({}), params({})\n",
            max_rank.max(1),
            max_rank.max(1),
            max_params.max(1)
        );
        let mut body = statement(&format!(
            "stat = nf_create({}, {mode}, ncid)",
            name_constant(&setup.file_name)
        ));
        body.push_str(CHECK);
        if setup.no_fill {
            body.push_str("      stat = nf_set_fill(ncid, nf_nofill, i)\n");
            body.push_str(CHECK);
        }
        for dim in &dataset.root.dims {
            let len = if dim.unlimited {
                "nf_unlimited".to_string()
            } else {
                dim.len.to_string()
            };
            let id = self.dims.get(&dim.id).cloned().unwrap_or_default();
            body.push_str(&statement(&format!(
                "stat = nf_def_dim(ncid, {}, {len}, {id})",
                name_constant(&dim.name)
            )));
            body.push_str(CHECK);
        }
        let netcdf4 = !dataset.format.is_classic_family();
        let mut n = 0;
        for var in &dataset.root.vars {
            self.define_var(var, netcdf4, &mut decls, &mut body, &mut n)?;
        }
        for att in &dataset.root.atts {
            n += 1;
            let (d, b) = Self::put_attribute("nf_global", att, n)?;
            decls.push_str(&d);
            body.push_str(&b);
            body.push_str(CHECK);
        }
        body.push_str("      stat = nf_enddef(ncid)\n");
        body.push_str(CHECK);
        let text = format!(
            "* Writes the netCDF dataset {} ({}).\n* Generated by nctools ncgen -l f77; \
             build with: gfortran prog.f -I/usr/include -lnetcdff\n{CHECK_ERR}\n* The definitions.{}{decls}{body}      end\n",
            comment_text(&setup.dataset_name),
            dataset.format.name(),
            self.unit("defs")
        );
        out.write_all(text.as_bytes())?;
        self.dataset = Some(dataset.clone());
        Ok(())
    }

    fn write(&mut self, out: &mut dyn Write, slab: &Slab<'_>) -> Result<(), GenerateError> {
        if slab.values.is_empty() {
            return Ok(());
        }
        let Some((id, t)) = self.vars.get(slab.name).cloned() else {
            return Err(Unsupported(format!("no variable {} was defined", slab.name)).into());
        };
        let name = format!("w{}", self.writers.len() + 1);
        let rank = slab.start.len();
        let mut text = format!("\n* {}, values {}.", slab.name, slab.values.len());
        text.push_str(&self.unit(&name));
        let (_, _, suffix) = fortran_type(t).unwrap_or(("", "", "int"));
        if rank > 0 {
            text.push_str(&format!("      integer start({rank}), count({rank})\n"));
        }
        let fixes = match slab.values {
            Values::Char(bytes) => {
                text.push_str(&statement(&format!("character*({}) vals", bytes.len())));
                assign_text("vals", bytes)
            }
            values => {
                let decl = fortran_type(t).map(|f| f.0).unwrap_or("integer");
                text.push_str(&statement(&format!("{decl} vals({})", values.len())));
                let (items, more) = constants(values, "vals")?;
                text.push_str(&data_statements("vals", &items));
                more
            }
        };
        text.push_str(&fixes);
        if rank == 0 {
            text.push_str(&statement(&format!(
                "stat = nf_put_var_{suffix}(ncid, {id}, vals)"
            )));
        } else {
            for (i, (s, c)) in slab.start.iter().zip(slab.count).rev().enumerate() {
                text.push_str(&statement(&format!("start({}) = {}", i + 1, s + 1)));
                text.push_str(&statement(&format!("count({}) = {c}", i + 1)));
            }
            text.push_str(&statement(&format!(
                "stat = nf_put_vara_{suffix}(ncid, {id}, start, count, vals)"
            )));
        }
        text.push_str(CHECK);
        text.push_str("      end\n");
        out.write_all(text.as_bytes())?;
        self.writers.push(name);
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> Result<(), GenerateError> {
        let mut text = format!(
            "\n* Defines the dataset, writes each slab of data, closes the file.\n      program main\n      include 'netcdf.inc'\n      integer stat\n{}      call defs\n",
            self.common
        );
        for writer in &self.writers {
            text.push_str(&format!("      call {writer}\n"));
        }
        text.push_str("      stat = nf_close(ncid)\n");
        text.push_str(CHECK);
        text.push_str("      end\n");
        out.write_all(text.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_cut_at_column_72() {
        let long = format!("x = '{}'", "a".repeat(100));
        let text = statement(&long);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), 72);
        assert!(lines[1].starts_with("     &"));
    }

    #[test]
    fn names_stay_ascii() {
        assert_eq!(name_constant("it's"), "'it''s'");
        assert_eq!(name_constant("aé"), "'a'//char(195)//char(169)");
    }

    #[test]
    fn text_with_control_bytes() {
        assert_eq!(
            assign_text("t", b"ab\0'"),
            "      t(1:2) = 'ab'\n      t(3:3) = char(0)\n      t(4:4) = ''''\n"
        );
    }
}
