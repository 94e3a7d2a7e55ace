//! `ncgen -l java`: a Java class writing the dataset with netCDF-Java 5's
//! `NetcdfFormatWriter` builder API.
//!
//! It holds groups, every atomic type (strings and the unsigned and 64-bit types in
//! netCDF-4 output, which netCDF-Java writes through the netCDF-C library) and every
//! format; user-defined types and the storage attributes (filters, quantization,
//! chunking, byte order, `_NoFill`) are refused with a message naming them. A Java method
//! holds at most 64 KiB of bytecode, so the data goes into one method per piece of at most
//! [`PIECE`] values.

use std::io::Write;

use ncmodel::{AtomicType, Attribute, Dataset, Format, Group, TypeRef, Values};

use super::idents::Idents;
use super::literal::{comment_text, f32_text, f64_text, wrap};
use super::{groups_in_order, GenerateError, Generator, Setup, Slab, Unsupported};
use crate::generate::linear::hyperslabs;

/// Java's keywords and the names the class itself uses.
const RESERVED: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "record",
    "builder",
    "root",
    "writer",
    "args",
    "define",
    "main",
    "Array",
    "DataType",
    "Attribute",
    "Dimension",
    "Group",
    "Variable",
    "Arrays",
    "Writer",
    "NetcdfFormatWriter",
    "NetcdfFileFormat",
    "IOException",
    "InvalidRangeException",
];

/// The most values one generated method writes.
const PIECE: usize = 1000;

/// The `DataType` constant and Java array type of an atomic type.
fn java_type(t: AtomicType) -> (&'static str, &'static str) {
    match t {
        AtomicType::Byte => ("BYTE", "byte"),
        AtomicType::Char => ("CHAR", "char"),
        AtomicType::Short => ("SHORT", "short"),
        AtomicType::Int => ("INT", "int"),
        AtomicType::Float => ("FLOAT", "float"),
        AtomicType::Double => ("DOUBLE", "double"),
        AtomicType::UByte => ("UBYTE", "byte"),
        AtomicType::UShort => ("USHORT", "short"),
        AtomicType::UInt => ("UINT", "int"),
        AtomicType::Int64 => ("LONG", "long"),
        AtomicType::UInt64 => ("ULONG", "long"),
        AtomicType::String => ("STRING", "String"),
    }
}

/// A Java string literal: printable ASCII as it is, everything else as `\uXXXX` (UTF-8
/// decoded; bytes that are not UTF-8 as the characters U+0080..U+00FF).
fn string_literal(bytes: &[u8]) -> String {
    let text: Vec<char> = match std::str::from_utf8(bytes) {
        Ok(s) => s.chars().collect(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    };
    let mut out = String::from("\"");
    for c in text {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            // A `\u` escape of a line end would end the literal (Java reads `\u` first).
            c if (c as u32) < 0x80 => out.push_str(&format!("\\{:03o}", c as u32)),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// The elements of a Java array initializer of `values`.
fn elements(values: &Values) -> Result<Vec<String>, Unsupported> {
    let float = |x: f32| match f32_text(x) {
        Some(t) => format!("{t}f"),
        None if x.is_nan() => "Float.NaN".into(),
        None if x < 0.0 => "Float.NEGATIVE_INFINITY".into(),
        None => "Float.POSITIVE_INFINITY".into(),
    };
    let double = |x: f64| match f64_text(x) {
        Some(t) => t,
        None if x.is_nan() => "Double.NaN".into(),
        None if x < 0.0 => "Double.NEGATIVE_INFINITY".into(),
        None => "Double.POSITIVE_INFINITY".into(),
    };
    Ok(match values {
        Values::Byte(v) => v.iter().map(|x| x.to_string()).collect(),
        Values::UByte(v) => v.iter().map(|&x| (x as i8).to_string()).collect(),
        Values::Char(v) => v.iter().map(|&c| format!("(char) {c}")).collect(),
        Values::Short(v) => v.iter().map(|x| x.to_string()).collect(),
        Values::UShort(v) => v.iter().map(|&x| (x as i16).to_string()).collect(),
        Values::Int(v) => v.iter().map(|x| x.to_string()).collect(),
        Values::UInt(v) => v.iter().map(|&x| (x as i32).to_string()).collect(),
        Values::Int64(v) => v.iter().map(|x| format!("{x}L")).collect(),
        Values::UInt64(v) => v.iter().map(|&x| format!("{}L", x as i64)).collect(),
        Values::Float(v) => v.iter().map(|&x| float(x)).collect(),
        Values::Double(v) => v.iter().map(|&x| double(x)).collect(),
        Values::String(v) => v
            .iter()
            .map(|s| string_literal(s.as_deref().unwrap_or_default()))
            .collect(),
        Values::User(_) => {
            return Err(Unsupported(
                "Java code cannot write values of user-defined types".into(),
            ))
        }
    })
}

/// `Array.factory(DataType.T, new int[] {shape}, new t[] {values})`.
fn array(t: AtomicType, shape: &[usize], values: &Values) -> Result<String, Unsupported> {
    let (data_type, java) = java_type(t);
    let shape: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let storage = match values {
        Values::Char(bytes) => format!("{}.toCharArray()", string_literal_bytes_as_chars(bytes)),
        _ => format!(
            "new {java}[] {{\n                {}}}",
            wrap(elements(values)?, "                ")
        ),
    };
    Ok(format!(
        "Array.factory(DataType.{data_type}, new int[] {{{}}}, {storage})",
        shape.join(", ")
    ))
}

/// A string literal with one Java `char` per byte (netCDF `char` data is bytes).
fn string_literal_bytes_as_chars(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(char::from(b)),
            0..=0x7f => out.push_str(&format!("\\{b:03o}")),
            _ => out.push_str(&format!("\\u{b:04x}")),
        }
    }
    out.push('"');
    out
}

/// The escaped full name netCDF-Java finds a variable by (`g/sub/v`).
fn full_name(group_path: &[String], name: &str) -> String {
    let escape = |s: &str| {
        s.chars()
            .flat_map(|c| match c {
                '/' | '.' | '\\' => vec!['\\', c],
                c => vec![c],
            })
            .collect::<String>()
    };
    let mut parts: Vec<String> = group_path.iter().map(|g| escape(g)).collect();
    parts.push(escape(name));
    parts.join("/")
}

/// The Java names of the definitions.
struct Names {
    idents: Idents,
    dims: std::collections::HashMap<i32, String>,
}

/// The Java generator's state: the dataset and the data methods written so far.
#[derive(Default)]
pub struct JavaGenerator {
    dataset: Option<Dataset>,
    /// Names of the data methods, in order.
    writers: Vec<String>,
}

impl JavaGenerator {
    fn check_model(dataset: &Dataset) -> Result<(), Unsupported> {
        if let Some(t) = dataset.types.first() {
            return Err(Unsupported(format!(
                "Java code cannot write the user-defined type {}",
                t.name
            )));
        }
        for (_, group) in groups_in_order(dataset) {
            for var in &group.vars {
                if let Some(s) = &var.storage {
                    let plain = s.filters.is_empty()
                        && s.quantize.is_none()
                        && s.layout == ncmodel::Layout::Other
                        && s.endianness == ncmodel::Endianness::Native
                        && !s.no_fill;
                    if !plain && !dataset.format.is_classic_family() {
                        return Err(Unsupported(format!(
                            "Java code cannot write the storage attributes of the variable {} \
                             (filters, quantization, chunking, byte order, _NoFill)",
                            var.name
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn attribute(att: &Attribute) -> Result<String, Unsupported> {
        let name = string_literal(att.name.as_bytes());
        match (&att.type_ref, &att.values) {
            (_, Values::Char(text)) => {
                Ok(format!("new Attribute({name}, {})", string_literal(text)))
            }
            (TypeRef::Atomic(t), values) => Ok(format!(
                "Attribute.fromArray({name}, {})",
                array(*t, &[values.len()], values)?
            )),
            (TypeRef::User(_), _) => Err(Unsupported(format!(
                "Java code cannot write the attribute {} of a user-defined type",
                att.name
            ))),
        }
    }

    /// Statements defining the contents of `group`, whose builder is `builder`.
    fn define_group(
        group: &Group,
        builder: &str,
        names: &mut Names,
        out: &mut String,
    ) -> Result<(), Unsupported> {
        for dim in &group.dims {
            let d = names.idents.fresh(&dim.name, "Dim");
            out.push_str(&format!(
                "        Dimension {d} = Dimension.builder().setName({}).setLength({}){}.build();\n        {builder}.addDimension({d});\n",
                string_literal(dim.name.as_bytes()),
                if dim.unlimited { 0 } else { dim.len },
                if dim.unlimited { ".setIsUnlimited(true)" } else { "" },
            ));
            names.dims.insert(dim.id, d);
        }
        for var in &group.vars {
            let TypeRef::Atomic(t) = var.type_ref else {
                return Err(Unsupported(format!(
                    "Java code cannot write the variable {} of a user-defined type",
                    var.name
                )));
            };
            let v = names.idents.fresh(&var.name, "Var");
            let dims: Vec<String> = var
                .dim_ids
                .iter()
                .map(|d| names.dims.get(d).cloned().unwrap_or_default())
                .collect();
            out.push_str(&format!(
                "        Variable.Builder<?> {v} = Variable.builder().setName({}).setDataType(DataType.{})\n            .setParentGroupBuilder({builder}).setDimensions(Arrays.asList({}));\n",
                string_literal(var.name.as_bytes()),
                java_type(t).0,
                dims.join(", ")
            ));
            for att in &var.atts {
                out.push_str(&format!(
                    "        {v}.addAttribute({});\n",
                    Self::attribute(att)?
                ));
            }
            out.push_str(&format!("        {builder}.addVariable({v});\n"));
        }
        for att in &group.atts {
            out.push_str(&format!(
                "        {builder}.addAttribute({});\n",
                Self::attribute(att)?
            ));
        }
        for child in &group.groups {
            let g = names.idents.fresh(&child.name, "Group");
            out.push_str(&format!(
                "\n        // group {}\n        Group.Builder {g} = Group.builder().setName({});\n        {builder}.addGroup({g});\n",
                comment_text(&child.name),
                string_literal(child.name.as_bytes())
            ));
            Self::define_group(child, &g, names, out)?;
        }
        Ok(())
    }
}

impl Generator for JavaGenerator {
    fn define(
        &mut self,
        out: &mut dyn Write,
        dataset: &Dataset,
        setup: &Setup,
    ) -> Result<(), GenerateError> {
        Self::check_model(dataset)?;
        let file = string_literal(setup.file_name.as_bytes());
        let builder = match dataset.format {
            Format::Classic => format!("NetcdfFormatWriter.createNewNetcdf3({file})"),
            Format::Netcdf4 => format!("NetcdfFormatWriter.createNewNetcdf4({file})"),
            Format::Offset64 => format!(
                "NetcdfFormatWriter.builder().setFormat(NetcdfFileFormat.NETCDF3_64BIT_OFFSET).setLocation({file})"
            ),
            Format::Cdf5 => format!(
                "NetcdfFormatWriter.builder().setFormat(NetcdfFileFormat.NETCDF3_64BIT_DATA).setLocation({file})"
            ),
            Format::Netcdf4Classic => format!(
                "NetcdfFormatWriter.builder().setFormat(NetcdfFileFormat.NETCDF4_CLASSIC).setLocation({file})"
            ),
        };
        let mut text = format!(
            "// Writes the netCDF dataset {} ({}) with netCDF-Java 5's NetcdfFormatWriter.\n\
             // Generated by nctools ncgen -l java; build with netCDF-Java (cdm-core) on the\n\
             // class path: javac Writer.java && java Writer\n\
             import java.io.IOException;\nimport java.util.Arrays;\n\
             import ucar.ma2.Array;\nimport ucar.ma2.DataType;\nimport ucar.ma2.InvalidRangeException;\n\
             import ucar.nc2.Attribute;\nimport ucar.nc2.Dimension;\nimport ucar.nc2.Group;\nimport ucar.nc2.Variable;\n\
             import ucar.nc2.iosp.NetcdfFileFormat;\nimport ucar.nc2.write.NetcdfFormatWriter;\n\n\
             public class Writer {{\n\n    /** The definitions: dimensions, variables, attributes, groups. */\n    \
             static NetcdfFormatWriter.Builder define() {{\n        NetcdfFormatWriter.Builder builder = {builder};\n",
            comment_text(&setup.dataset_name),
            dataset.format.name()
        );
        if setup.no_fill {
            text.push_str("        builder.setFill(false);\n");
        }
        text.push_str("        Group.Builder root = builder.getRootGroup();\n");
        let mut names = Names {
            idents: Idents::new(RESERVED),
            dims: std::collections::HashMap::new(),
        };
        Self::define_group(&dataset.root, "root", &mut names, &mut text)?;
        text.push_str("        return builder;\n    }\n");
        out.write_all(text.as_bytes())?;
        self.dataset = Some(dataset.clone());
        Ok(())
    }

    fn write(&mut self, out: &mut dyn Write, slab: &Slab<'_>) -> Result<(), GenerateError> {
        if slab.values.is_empty() {
            return Ok(());
        }
        let t = match &self.dataset {
            Some(dataset) => super::find_var_type(dataset, slab.group_path, slab.name),
            None => None,
        };
        let Some(TypeRef::Atomic(t)) = t else {
            return Err(Unsupported(format!("no variable {} was defined", slab.name)).into());
        };
        let name = string_literal(full_name(slab.group_path, slab.name).as_bytes());
        let mut text = String::new();
        let mut offset = 0;
        while offset < slab.values.len() {
            let n = PIECE.min(slab.values.len() - offset);
            for piece in hyperslabs(slab.count, offset, n) {
                let count: usize = piece.count.iter().product();
                let origin: Vec<String> = piece
                    .start
                    .iter()
                    .zip(slab.start)
                    .map(|(p, s)| (p + s).to_string())
                    .collect();
                let part = slab.values.slice(offset..offset + count);
                let method = format!("w{}", self.writers.len() + 1);
                text.push_str(&format!(
                    "\n    static void {method}(NetcdfFormatWriter writer) throws IOException, InvalidRangeException {{\n        \
                     writer.write({name}, new int[] {{{}}},\n            {});\n    }}\n",
                    origin.join(", "),
                    array(t, &piece.count, &part)?
                ));
                self.writers.push(method);
                offset += count;
            }
        }
        out.write_all(text.as_bytes())?;
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> Result<(), GenerateError> {
        let mut text = String::from(
            "\n    public static void main(String[] args) throws IOException, InvalidRangeException {\n        \
             try (NetcdfFormatWriter writer = define().build()) {\n",
        );
        for method in &self.writers {
            text.push_str(&format!("            {method}(writer);\n"));
        }
        text.push_str("        }\n    }\n}\n");
        out.write_all(text.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_never_hold_a_unicode_escape_of_a_line_end() {
        assert_eq!(string_literal(b"a\nb\"\\"), "\"a\\012b\\\"\\\\\"");
        assert_eq!(
            string_literal("é😀".as_bytes()),
            "\"\\u00e9\\ud83d\\ude00\""
        );
        assert_eq!(string_literal_bytes_as_chars(b"\r\xff"), "\"\\015\\u00ff\"");
        assert_eq!(full_name(&["g.1".into()], "v/w"), "g\\.1/v\\/w");
    }
}
