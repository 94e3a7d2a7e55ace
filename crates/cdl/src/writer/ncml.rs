//! NcML output (`ncdump -x`), for datasets of the classic model: dimensions, attributes
//! and variables as XML, as netCDF-C 4.9's ncdump writes it (no data values).

use std::io::{self, Write};

use ncmodel::{AtomicType, Attribute, Dataset, TypeRef, Values, Var};

use super::DumpOptions;
use crate::escape::quote_ncml_attribute;
use crate::number::{ncml_double, ncml_float, ncml_int64, ncml_uint64};

/// Writes `dataset` (classic model) as NcML; `location` is the path as given.
pub fn write_ncml<W: Write>(
    mut out: W,
    dataset: &Dataset,
    options: &DumpOptions,
    location: &str,
) -> io::Result<()> {
    writeln!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<netcdf \
         xmlns=\"https://www.unidata.ucar.edu/namespaces/netcdf/ncml-2.2\" location=\"{location}\">"
    )?;
    let root = &dataset.root;
    for dim in &root.dims {
        let unlimited = if dim.unlimited {
            " isUnlimited=\"true\""
        } else {
            ""
        };
        writeln!(
            out,
            "  <dimension name=\"{}\" length=\"{}\"{unlimited} />",
            dim.name, dim.len as i32
        )?;
    }
    for att in root.atts.iter().filter(|a| a.name != "_NCProperties") {
        attribute(&mut out, att, false, options)?;
    }
    for var in &root.vars {
        write!(out, "  <variable name=\"{}\"", var.name)?;
        if !var.dim_ids.is_empty() {
            let names: Vec<&str> = var
                .dim_ids
                .iter()
                .filter_map(|d| dataset.dim(*d).map(|d| d.name.as_str()))
                .collect();
            write!(out, " shape=\"{}\"", names.join(" "))?;
        }
        let type_name = type_name(var.type_ref);
        if var.atts.is_empty() && is_one_line(dataset, var, options) {
            writeln!(out, " type=\"{type_name}\" />")?;
            continue;
        }
        writeln!(out, " type=\"{type_name}\">")?;
        for att in &var.atts {
            attribute(&mut out, att, true, options)?;
        }
        writeln!(out, "  </variable>")?;
    }
    writeln!(out, "</netcdf>")
}

fn type_name(type_ref: TypeRef) -> &'static str {
    match type_ref {
        TypeRef::Atomic(t) => t.cdl_name(),
        TypeRef::User(_) => "compound",
    }
}

/// Whether a variable without attributes is written as one `<variable ... />` line.
fn is_one_line(dataset: &Dataset, var: &Var, options: &DumpOptions) -> bool {
    let listed = options
        .variables
        .as_ref()
        .is_none_or(|names| names.contains(&var.name));
    let is_coordinate =
        var.dim_ids.len() == 1 && dataset.root.dims.iter().any(|d| d.name == var.name);
    let empty_record = var
        .dim_ids
        .iter()
        .filter_map(|d| dataset.dim(*d))
        .any(|d| d.unlimited && d.len == 0);
    options.header_only || !listed || (options.coordinates_only && !is_coordinate) || empty_record
}

fn join<T>(values: &[T], text: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = values.iter().map(text).collect();
    parts.join(" ")
}

fn attribute<W: Write>(
    out: &mut W,
    att: &Attribute,
    in_variable: bool,
    options: &DumpOptions,
) -> io::Result<()> {
    let indent = if in_variable { "  " } else { "" };
    let digits = options.digits;
    let values = match &att.values {
        Values::Char(text) => {
            write!(out, "{indent}  <attribute name=\"{}\" value=", att.name)?;
            out.write_all(&quote_ncml_attribute(text))?;
            return writeln!(out, " />");
        }
        _ if att.values.is_empty() => {
            write!(out, "{indent}  <attribute name=\"{}\" value=", att.name)?;
            return writeln!(out, "\"\" />");
        }
        Values::Byte(v) => join(v, i8::to_string),
        Values::Short(v) => join(v, i16::to_string),
        Values::Int(v) => join(v, i32::to_string),
        Values::UByte(v) => join(v, u8::to_string),
        Values::UShort(v) => join(v, u16::to_string),
        Values::UInt(v) => join(v, u32::to_string),
        Values::Int64(v) => join(v, |x| ncml_int64(*x)),
        Values::UInt64(v) => join(v, |x| ncml_uint64(*x)),
        Values::Float(v) => join(v, |x| ncml_float(*x, digits.float)),
        Values::Double(v) => join(v, |x| ncml_double(*x, digits.double)),
        Values::String(_) | Values::User(_) => String::new(),
    };
    let type_name = match att.type_ref {
        TypeRef::Atomic(AtomicType::String) => "string",
        other => type_name(other),
    };
    writeln!(
        out,
        "{indent}  <attribute name=\"{}\" type=\"{type_name}\" value=\"{values}\" />",
        att.name
    )
}
