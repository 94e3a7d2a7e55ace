//! `ncgen -l python`: a Python script writing the dataset with netCDF4-python and numpy.
//!
//! netCDF4-python holds less than netCDF-C: opaque types, compounds with string, vlen,
//! enum or opaque fields, vlens of anything but numbers, attributes of those types and
//! empty numeric attributes, filters other than deflate, shuffle (with deflate only),
//! fletcher32, bzip2 and zstd, the compact layout, and `_NoFill` together with
//! `_FillValue` cannot be written with it: the generator refuses them with a message
//! naming what. `_FillValue` is given when the variable is created (netCDF4-python's only
//! way), so it comes first among the variable's attributes.

use std::collections::HashMap;
use std::io::Write;

use codecs::known::{DEFLATE, FLETCHER32, SHUFFLE};
use ncmodel::{
    AtomicType, Attribute, Dataset, Endianness, Format, Layout, QuantizeMode, TypeId, TypeRef,
    UserTypeKind, Value, Values, Var,
};

use super::idents::Idents;
use super::literal::{comment_text, f32_text, f64_text, group_label, wrap};
use super::{groups_in_order, GenerateError, Generator, Setup, Slab, Unsupported};

const RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "np", "netCDF4", "ds", "vlens", "print",
];

/// The numpy dtype code of an atomic type (`str` for strings).
fn dtype(t: AtomicType) -> &'static str {
    match t {
        AtomicType::Byte => "'i1'",
        AtomicType::Char => "'S1'",
        AtomicType::Short => "'i2'",
        AtomicType::Int => "'i4'",
        AtomicType::Float => "'f4'",
        AtomicType::Double => "'f8'",
        AtomicType::UByte => "'u1'",
        AtomicType::UShort => "'u2'",
        AtomicType::UInt => "'u4'",
        AtomicType::Int64 => "'i8'",
        AtomicType::UInt64 => "'u8'",
        AtomicType::String => "str",
    }
}

/// A Python `str` literal when `bytes` is UTF-8, else a `bytes` literal.
fn text_literal(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            let mut out = String::from("'");
            for c in text.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                        out.push_str(&format!("\\x{:02x}", c as u32));
                    }
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Err(_) => bytes_literal(bytes),
    }
}

/// A Python `bytes` literal.
fn bytes_literal(bytes: &[u8]) -> String {
    let mut out = String::from("b'");
    for &b in bytes {
        match b {
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

fn float_literal(x: f64, text: Option<String>) -> String {
    match text {
        Some(t) => t,
        None if x.is_nan() => "np.nan".into(),
        None if x < 0.0 => "-np.inf".into(),
        None => "np.inf".into(),
    }
}

/// The Python names of what the script defines.
#[derive(Default)]
pub struct PythonGenerator {
    dataset: Option<Dataset>,
    groups: HashMap<Vec<String>, String>,
    types: HashMap<TypeId, String>,
    dims: HashMap<i32, String>,
    vars: HashMap<(Vec<String>, String), (String, TypeRef)>,
}

impl PythonGenerator {
    fn user<'d>(
        &self,
        dataset: &'d Dataset,
        id: TypeId,
    ) -> Result<&'d ncmodel::UserType, Unsupported> {
        dataset
            .user_type(id)
            .ok_or_else(|| Unsupported(format!("type id {} is not defined", id.0)))
    }

    /// The datatype argument of `createVariable` for `t`.
    fn datatype(&self, t: TypeRef) -> String {
        match t {
            TypeRef::Atomic(a) => dtype(a).to_string(),
            TypeRef::User(id) => self.types.get(&id).cloned().unwrap_or_default(),
        }
    }

    /// The numpy dtype of values of `t` (a user type's `.dtype`).
    fn numpy_dtype(&self, dataset: &Dataset, t: TypeRef) -> Result<String, Unsupported> {
        Ok(match t {
            TypeRef::Atomic(AtomicType::String) => "object".into(),
            TypeRef::Atomic(a) => dtype(a).to_string(),
            TypeRef::User(id) => match &self.user(dataset, id)?.kind {
                UserTypeKind::Enum { base, .. } => dtype(*base).to_string(),
                UserTypeKind::Vlen { .. } => "object".into(),
                _ => format!("{}.dtype", self.datatype(t)),
            },
        })
    }

    fn define_type(&self, dataset: &Dataset, id: TypeId) -> Result<String, Unsupported> {
        let user = self.user(dataset, id)?;
        let grp = self
            .groups
            .get(&user.group_path)
            .cloned()
            .unwrap_or_else(|| "ds".into());
        let var = self.datatype(TypeRef::User(id));
        let name = text_literal(user.name.as_bytes());
        match &user.kind {
            UserTypeKind::Compound { fields } => {
                let mut items = Vec::new();
                for field in fields {
                    let ftype = match field.type_ref {
                        TypeRef::Atomic(AtomicType::String) => None,
                        TypeRef::Atomic(a) => Some(dtype(a).to_string()),
                        TypeRef::User(inner) => match self.user(dataset, inner)?.kind {
                            UserTypeKind::Compound { .. } => {
                                Some(format!("{}.dtype", self.datatype(field.type_ref)))
                            }
                            _ => None,
                        },
                    };
                    let Some(ftype) = ftype else {
                        return Err(Unsupported(format!(
                            "netCDF4-python cannot write the compound type {}: its field {} is \
                             not of a number, char or compound type",
                            user.name, field.name
                        )));
                    };
                    let fname = text_literal(field.name.as_bytes());
                    items.push(if field.dims.is_empty() {
                        format!("({fname}, {ftype})")
                    } else {
                        let dims: Vec<String> =
                            field.dims.iter().map(|d| format!("{d},")).collect();
                        format!("({fname}, {ftype}, ({}))", dims.concat())
                    });
                }
                Ok(format!(
                    "{var} = {grp}.createCompoundType(np.dtype([\n    {}]), {name})\n",
                    wrap(items, "    ")
                ))
            }
            UserTypeKind::Vlen { base } => match base {
                TypeRef::Atomic(a) if !matches!(a, AtomicType::String | AtomicType::Char) => {
                    Ok(format!(
                        "{var} = {grp}.createVLType(np.dtype({}), {name})\n",
                        dtype(*a)
                    ))
                }
                _ => Err(Unsupported(format!(
                    "netCDF4-python cannot write the vlen type {}: its elements are not numbers",
                    user.name
                ))),
            },
            UserTypeKind::Enum { base, members } => {
                let items = members
                    .iter()
                    .map(|(m, v)| format!("{}: {v}", text_literal(m.as_bytes())));
                Ok(format!(
                    "{var} = {grp}.createEnumType(np.dtype({}), {name}, {{\n    {}}})\n",
                    dtype(*base),
                    wrap(items, "    ")
                ))
            }
            UserTypeKind::Opaque => Err(Unsupported(format!(
                "netCDF4-python cannot write the opaque type {}",
                user.name
            ))),
        }
    }

    /// Python values (nested lists for compounds' array fields) of `values`, of type `t`.
    fn elements(
        &self,
        dataset: &Dataset,
        t: TypeRef,
        values: &Values,
    ) -> Result<Vec<String>, Unsupported> {
        let f32s = |v: &[f32]| {
            v.iter()
                .map(|&x| float_literal(f64::from(x), f32_text(x)))
                .collect()
        };
        Ok(match values {
            Values::Byte(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::Char(v) => v.iter().map(|&c| bytes_literal(&[c])).collect(),
            Values::Short(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::Int(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::Float(v) => f32s(v),
            Values::Double(v) => v.iter().map(|&x| float_literal(x, f64_text(x))).collect(),
            Values::UByte(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::UShort(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::UInt(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::Int64(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::UInt64(v) => v.iter().map(|x| x.to_string()).collect(),
            Values::String(v) => {
                let mut out = Vec::new();
                for s in v {
                    let Some(bytes) = s.as_deref() else {
                        return Err(Unsupported(
                            "netCDF4-python cannot write a NULL string (NIL)".into(),
                        ));
                    };
                    if std::str::from_utf8(bytes).is_err() {
                        return Err(Unsupported(
                            "netCDF4-python cannot write a string that is not UTF-8".into(),
                        ));
                    }
                    out.push(text_literal(bytes));
                }
                out
            }
            Values::User(v) => {
                let TypeRef::User(id) = t else {
                    return Err(Unsupported("user values of an atomic type".into()));
                };
                let user = self.user(dataset, id)?;
                let mut out = Vec::with_capacity(v.len());
                for value in v {
                    out.push(match (&user.kind, value) {
                        (UserTypeKind::Enum { .. }, Value::Enum(n)) => n.to_string(),
                        (UserTypeKind::Vlen { base }, Value::Vlen(inner)) => {
                            let items = self.elements(dataset, *base, inner)?;
                            format!("[{}]", items.join(", "))
                        }
                        (UserTypeKind::Compound { fields }, Value::Compound(parts)) => {
                            let mut items = Vec::new();
                            for (field, part) in fields.iter().zip(parts) {
                                let elements = self.elements(dataset, field.type_ref, part)?;
                                items.push(if field.dims.is_empty() {
                                    elements.into_iter().next().unwrap_or_else(|| "0".into())
                                } else {
                                    nested(&elements, &field.dims)
                                });
                            }
                            format!("({},)", items.join(", "))
                        }
                        _ => {
                            return Err(Unsupported(format!(
                                "netCDF4-python cannot write values of the type {}",
                                user.name
                            )))
                        }
                    });
                }
                out
            }
        })
    }

    /// A numpy array expression of `values` with `shape`.
    fn array(
        &self,
        dataset: &Dataset,
        t: TypeRef,
        values: &Values,
        shape: &[usize],
    ) -> Result<String, Unsupported> {
        let reshape = if shape.len() > 1 {
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!(".reshape(({}))", dims.join(", "))
        } else {
            String::new()
        };
        if let Values::Char(bytes) = values {
            return Ok(format!(
                "np.frombuffer({}, dtype='S1'){reshape}",
                bytes_literal(bytes)
            ));
        }
        let items = self.elements(dataset, t, values)?;
        let is_vlen = matches!(t, TypeRef::User(id)
            if matches!(self.user(dataset, id).map(|u| &u.kind), Ok(UserTypeKind::Vlen { .. })));
        if is_vlen {
            let base = match t {
                TypeRef::User(id) => match &self.user(dataset, id)?.kind {
                    UserTypeKind::Vlen { base } => self.numpy_dtype(dataset, *base)?,
                    _ => String::new(),
                },
                TypeRef::Atomic(_) => String::new(),
            };
            let dims: Vec<String> = shape.iter().map(|d| format!("{d},")).collect();
            return Ok(format!(
                "vlens({base}, ({}), [\n    {}])",
                dims.concat(),
                wrap(items, "    ")
            ));
        }
        Ok(format!(
            "np.array([\n    {}], dtype={}){reshape}",
            wrap(items, "    "),
            self.numpy_dtype(dataset, t)?
        ))
    }

    fn put_attribute(
        &self,
        dataset: &Dataset,
        owner: &str,
        att: &Attribute,
    ) -> Result<String, Unsupported> {
        let name = text_literal(att.name.as_bytes());
        match (&att.type_ref, &att.values) {
            // netCDF4-python writes a `str` that is not ASCII as a string attribute.
            (_, Values::Char(text)) if text.is_ascii() => Ok(format!(
                "{owner}.setncattr({name}, {})\n",
                text_literal(text)
            )),
            (_, Values::Char(text)) => {
                let literal = match std::str::from_utf8(text) {
                    Ok(_) => format!("{}.encode('utf-8')", text_literal(text)),
                    Err(_) => bytes_literal(text),
                };
                Ok(format!("{owner}.setncattr({name}, {literal})\n"))
            }
            (_, Values::String(strings)) => {
                let items =
                    self.elements(dataset, att.type_ref, &Values::String(strings.clone()))?;
                Ok(format!(
                    "{owner}.setncattr_string({name}, [{}])\n",
                    items.join(", ")
                ))
            }
            (_, values) if values.is_empty() => Err(Unsupported(format!(
                "netCDF4-python cannot write the empty attribute {}",
                att.name
            ))),
            (TypeRef::User(id), _)
                if !matches!(self.user(dataset, *id)?.kind, UserTypeKind::Compound { .. }) =>
            {
                Err(Unsupported(format!(
                    "netCDF4-python cannot write the attribute {} of the type {}",
                    att.name,
                    self.user(dataset, *id)?.name
                )))
            }
            (&t, values) => {
                let array = self.array(dataset, t, values, &[values.len()])?;
                Ok(format!("{owner}.setncattr({name}, {array})\n"))
            }
        }
    }

    fn define_var(
        &self,
        dataset: &Dataset,
        path: &[String],
        var: &Var,
        netcdf4: bool,
    ) -> Result<String, Unsupported> {
        let grp = self
            .groups
            .get(path)
            .cloned()
            .unwrap_or_else(|| "ds".into());
        let Some((id, _)) = self.vars.get(&(path.to_vec(), var.name.clone())) else {
            return Err(Unsupported(format!("variable {} was not named", var.name)));
        };
        for id in &var.dim_ids {
            if let Some(hidden) = hidden_dimension(dataset, path, *id) {
                return Err(Unsupported(format!(
                    "netCDF4-python cannot write the variable {}: it finds its dimension by \
                     name, and {hidden} is hidden by another of the same name",
                    var.name
                )));
            }
        }
        let dims: Vec<String> = var
            .dim_ids
            .iter()
            .map(|d| format!("{},", self.dims.get(d).cloned().unwrap_or_default()))
            .collect();
        let mut args = vec![
            text_literal(var.name.as_bytes()),
            self.datatype(var.type_ref),
            format!("({})", dims.concat()),
        ];
        let fill = var.atts.iter().rev().find(|a| a.name == "_FillValue");
        let no_fill = netcdf4 && var.storage.as_ref().is_some_and(|s| s.no_fill);
        match (fill, no_fill) {
            (Some(_), true) => {
                return Err(Unsupported(format!(
                    "netCDF4-python cannot write the variable {} with both _FillValue and _NoFill",
                    var.name
                )))
            }
            (Some(att), false) => {
                if let TypeRef::User(id) = att.type_ref {
                    if !matches!(self.user(dataset, id)?.kind, UserTypeKind::Enum { .. }) {
                        return Err(Unsupported(format!(
                            "netCDF4-python cannot write the _FillValue of the variable {}, of \
                             the type {}",
                            var.name,
                            self.user(dataset, id)?.name
                        )));
                    }
                }
                let items = self.elements(dataset, att.type_ref, &att.values)?;
                let value = match &att.values {
                    Values::Char(c) => bytes_literal(c),
                    _ => format!(
                        "np.array([{}], dtype={})[0]",
                        items.first().cloned().unwrap_or_default(),
                        self.numpy_dtype(dataset, att.type_ref)?
                    ),
                };
                args.push(format!("fill_value={value}"));
            }
            (None, true) if matches!(var.type_ref, TypeRef::User(_)) => {
                return Err(Unsupported(format!(
                    "netCDF4-python cannot write the variable {} with _NoFill: it turns fill \
                     off only for variables of atomic types",
                    var.name
                )))
            }
            (None, true) => args.push("fill_value=False".into()),
            (None, false) => {}
        }
        if let (true, Some(storage)) = (netcdf4, &var.storage) {
            self.storage_args(var, storage, &mut args)?;
        }
        let mut out = format!("{id} = {grp}.createVariable({})\n", wrap(args, "    "));
        for att in var.atts.iter().filter(|a| a.name != "_FillValue") {
            out.push_str(&self.put_attribute(dataset, id, att)?);
        }
        Ok(out)
    }

    fn storage_args(
        &self,
        var: &Var,
        storage: &ncmodel::Storage,
        args: &mut Vec<String>,
    ) -> Result<(), Unsupported> {
        let refuse = |what: &str| {
            Unsupported(format!(
                "netCDF4-python cannot write the variable {}: {what}",
                var.name
            ))
        };
        match &storage.layout {
            Layout::Contiguous => args.push("contiguous=True".into()),
            Layout::Chunked(sizes) if sizes.is_empty() => {}
            Layout::Chunked(sizes) => {
                let sizes: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
                args.push(format!("chunksizes=[{}]", sizes.join(", ")));
            }
            Layout::Compact => return Err(refuse("the compact layout")),
            Layout::Other => {}
        }
        let ids: Vec<u32> = storage.filters.iter().map(|f| f.id).collect();
        // netCDF4-python's name of a compressor whose one parameter is its level.
        let compressor_name =
            |id: u32| codecs::registry::by_hdf5_id(id).and_then(|c| c.netcdf4_python);
        let mut compressor = None;
        for filter in &storage.filters {
            let level = filter.params.first().copied();
            match (
                filter.id,
                compressor_name(filter.id),
                level,
                filter.params.len(),
            ) {
                (_, Some(name), Some(l), 1) => {
                    compressor = Some(format!("compression='{name}', complevel={l}"))
                }
                (SHUFFLE, _, _, 0) if ids.contains(&DEFLATE) => args.push("shuffle=True".into()),
                (FLETCHER32, _, _, 0) => args.push("fletcher32=True".into()),
                _ => {
                    return Err(refuse(&format!(
                        "the filter {} with {} parameter(s){}",
                        filter.id,
                        filter.params.len(),
                        if filter.id == SHUFFLE {
                            " (shuffle only goes with deflate)"
                        } else {
                            ""
                        }
                    )))
                }
            }
        }
        if ids
            .iter()
            .filter(|id| compressor_name(**id).is_some())
            .count()
            > 1
        {
            return Err(refuse("more than one compressor"));
        }
        if let Some(c) = compressor {
            // netCDF4-python shuffles deflated data unless told not to.
            if ids.contains(&1) && !ids.contains(&2) {
                args.push("shuffle=False".into());
            }
            args.push(c);
        }
        match storage.endianness {
            Endianness::Little => args.push("endian='little'".into()),
            Endianness::Big => args.push("endian='big'".into()),
            Endianness::Native => {}
        }
        if let Some(q) = storage.quantize {
            let mode = match q.mode {
                QuantizeMode::BitGroom => "BitGroom",
                QuantizeMode::GranularBitRound => "GranularBitRound",
                QuantizeMode::BitRound => "BitRound",
            };
            args.push(format!(
                "significant_digits={}, quantize_mode='{mode}'",
                q.nsd
            ));
        }
        Ok(())
    }
}

/// The name of the dimension `id` when the group at `path` sees another dimension of
/// that name first (in itself or a nearer ancestor).
fn hidden_dimension(dataset: &Dataset, path: &[String], id: i32) -> Option<String> {
    let name = &dataset.dim(id)?.name;
    let mut chain = vec![&dataset.root];
    for part in path {
        let next = chain.last()?.groups.iter().find(|g| &g.name == part)?;
        chain.push(next);
    }
    let seen = chain
        .iter()
        .rev()
        .find_map(|g| g.dims.iter().find(|d| &d.name == name))?;
    (seen.id != id).then(|| name.clone())
}

/// A nested Python list of `items` with the shape `dims`.
fn nested(items: &[String], dims: &[usize]) -> String {
    match dims {
        [] | [_] => format!("[{}]", items.join(", ")),
        [_, rest @ ..] => {
            let inner: usize = rest.iter().product::<usize>().max(1);
            let parts: Vec<String> = items.chunks(inner).map(|c| nested(c, rest)).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

const VLENS: &str = "

def vlens(dtype, shape, items):
    \"\"\"An array of the given shape holding each item as a numpy array of dtype.\"\"\"
    array = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        array[i] = np.array(item, dtype=dtype)
    return array.reshape(shape)

";

impl Generator for PythonGenerator {
    fn define(
        &mut self,
        out: &mut dyn Write,
        dataset: &Dataset,
        setup: &Setup,
    ) -> Result<(), GenerateError> {
        let mut idents = Idents::new(RESERVED);
        for (path, group) in groups_in_order(dataset) {
            let g = if path.is_empty() {
                "ds".to_string()
            } else {
                idents.fresh(&path.join("_"), "_grp")
            };
            for dim in &group.dims {
                self.dims.insert(dim.id, idents.fresh(&dim.name, "_dim"));
            }
            for var in &group.vars {
                let id = idents.fresh(&var.name, "_var");
                self.vars
                    .insert((path.clone(), var.name.clone()), (id, var.type_ref));
            }
            self.groups.insert(path, g);
        }
        for user in &dataset.types {
            self.types
                .insert(user.id, idents.fresh(&user.name, "_type"));
        }
        let format = match dataset.format {
            Format::Classic => "NETCDF3_CLASSIC",
            Format::Offset64 => "NETCDF3_64BIT_OFFSET",
            Format::Cdf5 => "NETCDF3_64BIT_DATA",
            Format::Netcdf4 => "NETCDF4",
            Format::Netcdf4Classic => "NETCDF4_CLASSIC",
        };
        let mut text = format!(
            "#!/usr/bin/env python3\n\"\"\"Writes the netCDF dataset {} ({}) with netCDF4-python.\n\n\
             Generated by nctools ncgen -l python; run with: python3 prog.py\n\"\"\"\n\
             import numpy as np\nimport netCDF4\n{VLENS}\
             ds = netCDF4.Dataset({}, 'w', format='{format}')\n",
            comment_text(&setup.dataset_name),
            dataset.format.name(),
            text_literal(setup.file_name.as_bytes())
        );
        if setup.no_fill {
            text.push_str("ds.set_fill_off()\n");
        }
        for (path, _) in groups_in_order(dataset).into_iter().skip(1) {
            let (parent, name) = path.split_at(path.len() - 1);
            let parent = self.groups.get(parent).cloned().unwrap_or_default();
            let id = self.groups.get(&path).cloned().unwrap_or_default();
            text.push_str(&format!(
                "{id} = {parent}.createGroup({})\n",
                text_literal(name.concat().as_bytes())
            ));
        }
        for user in &dataset.types {
            text.push_str(&self.define_type(dataset, user.id)?);
        }
        let netcdf4 = !dataset.format.is_classic_family();
        for (path, group) in groups_in_order(dataset) {
            let grp = self
                .groups
                .get(&path)
                .cloned()
                .unwrap_or_else(|| "ds".into());
            text.push_str(&format!("\n# {}\n", group_label(&path)));
            for dim in &group.dims {
                let len = if dim.unlimited {
                    "None".to_string()
                } else {
                    dim.len.to_string()
                };
                let id = self.dims.get(&dim.id).cloned().unwrap_or_default();
                text.push_str(&format!(
                    "{id} = {grp}.createDimension({}, {len})\n",
                    text_literal(dim.name.as_bytes())
                ));
            }
            for var in &group.vars {
                text.push_str(&self.define_var(dataset, &path, var, netcdf4)?);
            }
            for att in &group.atts {
                text.push_str(&self.put_attribute(dataset, &grp, att)?);
            }
        }
        text.push_str(
            "\n# Values are written as they are: no scaling, masking or string conversion.\n\
                       ds.set_auto_maskandscale(False)\nds.set_auto_chartostring(False)\n",
        );
        out.write_all(text.as_bytes())?;
        self.dataset = Some(dataset.clone());
        Ok(())
    }

    fn write(&mut self, out: &mut dyn Write, slab: &Slab<'_>) -> Result<(), GenerateError> {
        if slab.values.is_empty() {
            return Ok(());
        }
        let Some(dataset) = &self.dataset else {
            return Err(Unsupported("data before the definitions".into()).into());
        };
        let key = (slab.group_path.to_vec(), slab.name.to_string());
        let Some((id, t)) = self.vars.get(&key) else {
            return Err(Unsupported(format!("no variable {} was defined", slab.name)).into());
        };
        let array = self.array(dataset, *t, slab.values, slab.count)?;
        let text = if slab.start.is_empty() {
            format!("\n{id}.assignValue({array})\n")
        } else {
            let ranges: Vec<String> = slab
                .start
                .iter()
                .zip(slab.count)
                .map(|(s, c)| format!("{s}:{}", s + c))
                .collect();
            format!("\n{id}[{}] = {array}\n", ranges.join(", "))
        };
        out.write_all(text.as_bytes())?;
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> Result<(), GenerateError> {
        out.write_all(b"\nds.close()\n")?;
        Ok(())
    }
}
