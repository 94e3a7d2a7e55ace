//! `ncgen -l c`: a C program writing the dataset with netCDF-C's API, for the whole
//! enhanced model (groups, user-defined types, strings, filters, quantization, chunking,
//! byte order, fill) and the classic formats.
//!
//! The calls are made in the order nctools' own writer makes them (groups, types, then
//! each group's dimensions, variables with their storage and attributes, group
//! attributes), so the program's file and `ncgen -b`'s dump alike.

mod literals;

use std::collections::HashMap;
use std::io::Write;

use ncmodel::{
    Attribute, Dataset, Endianness, Format, Layout, QuantizeMode, TypeId, TypeRef, UserTypeKind,
    Values, Var,
};

use super::idents::Idents;
use super::literal::{comment_text, group_label, wrap};
use super::{groups_in_order, GenerateError, Generator, Setup, Slab, Unsupported};
use literals::{atomic_c, string_literal, Initializers};

/// What the program's `main` and the C language reserve.
const RESERVED: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "main",
    "stat",
    "ncid",
    "check_err",
    "size_t",
    "ptrdiff_t",
    "nc_vlen_t",
    "nc_type",
    "FILE",
    "NULL",
    "NAN",
    "INFINITY",
    "data",
    "start",
    "count",
    "values",
    "params",
    "dims",
    "chunks",
    "member",
    "exit",
    "fprintf",
    "stderr",
    "errno",
];

/// A variable of the program: the C names of its group's id and its own id, and its type.
struct VarCode {
    group: String,
    id: String,
    type_ref: TypeRef,
}

/// The C generator's state between the definitions and the data slabs.
#[derive(Default)]
pub struct CGenerator {
    dataset: Option<Dataset>,
    /// The C names of each user type: its typedef and its type id.
    types: HashMap<TypeId, (String, String)>,
    groups: HashMap<Vec<String>, String>,
    dims: HashMap<i32, String>,
    vars: HashMap<(Vec<String>, String), VarCode>,
    /// Numbers the arrays of vlen contents.
    arrays: usize,
}

const CHECK: &str = "    check_err(stat, __LINE__, __FILE__);\n";

impl CGenerator {
    /// The C type of values of `t`.
    fn c_type(&self, t: TypeRef) -> String {
        match t {
            TypeRef::Atomic(a) => atomic_c(a).0.to_string(),
            TypeRef::User(id) => self
                .types
                .get(&id)
                .map_or_else(|| "void".to_string(), |(name, _)| name.clone()),
        }
    }

    /// The expression of `t`'s type id (`NC_INT`, `point_t_typ`).
    fn type_id(&self, t: TypeRef) -> String {
        match t {
            TypeRef::Atomic(a) => atomic_c(a).1.to_string(),
            TypeRef::User(id) => self
                .types
                .get(&id)
                .map_or_else(|| "NC_NAT".to_string(), |(_, typ)| typ.clone()),
        }
    }

    /// Names every group, type, dimension and variable.
    fn name_everything(&mut self, dataset: &Dataset, idents: &mut Idents) {
        for (path, group) in groups_in_order(dataset) {
            let group_id = match path.last() {
                None => "ncid".to_string(),
                Some(_) => idents.fresh(&path.join("_"), "_grp"),
            };
            for dim in &group.dims {
                self.dims.insert(dim.id, idents.fresh(&dim.name, "_dim"));
            }
            for var in &group.vars {
                let id = idents.fresh(&var.name, "_id");
                let code = VarCode {
                    group: group_id.clone(),
                    id,
                    type_ref: var.type_ref,
                };
                self.vars.insert((path.clone(), var.name.clone()), code);
            }
            self.groups.insert(path, group_id);
        }
        for user in &dataset.types {
            // Not `NAME_t`: the headers define `float_t`, `div_t`, `off_t`..., and POSIX
            // reserves every `*_t`.
            let c_name = idents.fresh(&user.name, "_ctype");
            let typ = idents.fresh(&user.name, "_typ");
            self.types.insert(user.id, (c_name, typ));
        }
    }

    /// The typedefs of the user types, each after the types it is made of.
    fn typedefs(&self, dataset: &Dataset) -> Result<String, Unsupported> {
        let mut done: Vec<TypeId> = Vec::new();
        let mut out = String::new();
        for user in &dataset.types {
            self.typedef(dataset, user.id, &mut done, &mut out, 0)?;
        }
        Ok(out)
    }

    fn typedef(
        &self,
        dataset: &Dataset,
        id: TypeId,
        done: &mut Vec<TypeId>,
        out: &mut String,
        depth: usize,
    ) -> Result<(), Unsupported> {
        if done.contains(&id) {
            return Ok(());
        }
        if depth > dataset.types.len() {
            return Err(Unsupported("user types that contain themselves".into()));
        }
        let user = dataset
            .user_type(id)
            .ok_or_else(|| Unsupported(format!("type id {} is not defined", id.0)))?;
        let name = self.c_type(TypeRef::User(id));
        match &user.kind {
            UserTypeKind::Compound { fields } => {
                for field in fields {
                    if let TypeRef::User(inner) = field.type_ref {
                        self.typedef(dataset, inner, done, out, depth + 1)?;
                    }
                }
                let mut members = Idents::new(RESERVED);
                out.push_str(&format!(
                    "/* compound {} */\ntypedef struct {{\n",
                    user.name
                ));
                for field in fields {
                    let member = members.fresh(&field.name, "");
                    let dims: String = field.dims.iter().map(|d| format!("[{d}]")).collect();
                    let c_type = self.c_type(field.type_ref);
                    let sep = if c_type.ends_with('*') { "" } else { " " };
                    out.push_str(&format!("    {c_type}{sep}{member}{dims};\n"));
                }
                if fields.is_empty() {
                    out.push_str("    char unused;\n");
                }
                out.push_str(&format!("}} {name};\n\n"));
            }
            UserTypeKind::Vlen { base } => {
                if let TypeRef::User(inner) = base {
                    self.typedef(dataset, *inner, done, out, depth + 1)?;
                }
                out.push_str(&format!(
                    "/* vlen {} of {} */\ntypedef nc_vlen_t {name};\n\n",
                    user.name,
                    self.c_type(*base)
                ));
            }
            UserTypeKind::Opaque => {
                out.push_str(&format!(
                    "/* opaque {} */\ntypedef unsigned char {name}[{}];\n\n",
                    user.name,
                    user.size.max(1)
                ));
            }
            UserTypeKind::Enum { base, .. } => {
                out.push_str(&format!(
                    "/* enum {} */\ntypedef {} {name};\n\n",
                    user.name,
                    atomic_c(*base).0
                ));
            }
        }
        done.push(id);
        Ok(())
    }

    /// The statements defining the user type `id` in its group.
    fn define_type(&self, dataset: &Dataset, id: TypeId) -> Result<String, Unsupported> {
        let user = dataset
            .user_type(id)
            .ok_or_else(|| Unsupported(format!("type id {} is not defined", id.0)))?;
        let grp = self
            .groups
            .get(&user.group_path)
            .cloned()
            .unwrap_or_else(|| "ncid".into());
        let name = string_literal(user.name.as_bytes(), "        ");
        let c_name = self.c_type(TypeRef::User(id));
        let typ = self.type_id(TypeRef::User(id));
        let mut out = String::new();
        match &user.kind {
            UserTypeKind::Compound { fields } => {
                out.push_str(&format!(
                    "    stat = nc_def_compound({grp}, sizeof({c_name}), {name}, &{typ});\n{CHECK}"
                ));
                let mut members = Idents::new(RESERVED);
                for field in fields {
                    let member = members.fresh(&field.name, "");
                    let fname = string_literal(field.name.as_bytes(), "        ");
                    let ftype = self.type_id(field.type_ref);
                    if field.dims.is_empty() {
                        out.push_str(&format!(
                            "    stat = nc_insert_compound({grp}, {typ}, {fname},\n        \
                             NC_COMPOUND_OFFSET({c_name}, {member}), {ftype});\n{CHECK}"
                        ));
                    } else {
                        let dims = wrap(field.dims.iter().map(|d| d.to_string()), "        ");
                        out.push_str(&format!(
                            "    {{\n        static const int dims[{}] = {{{dims}}};\n        \
                             stat = nc_insert_array_compound({grp}, {typ}, {fname},\n            \
                             NC_COMPOUND_OFFSET({c_name}, {member}), {ftype}, {}, dims);\n    \
                             {CHECK}    }}\n",
                            field.dims.len(),
                            field.dims.len()
                        ));
                    }
                }
            }
            UserTypeKind::Vlen { base } => {
                out.push_str(&format!(
                    "    stat = nc_def_vlen({grp}, {name}, {}, &{typ});\n{CHECK}",
                    self.type_id(*base)
                ));
            }
            UserTypeKind::Opaque => {
                out.push_str(&format!(
                    "    stat = nc_def_opaque({grp}, sizeof({c_name}), {name}, &{typ});\n{CHECK}"
                ));
            }
            UserTypeKind::Enum { base, members } => {
                let (base_c, base_nc, _) = atomic_c(*base);
                out.push_str(&format!(
                    "    stat = nc_def_enum({grp}, {base_nc}, {name}, &{typ});\n{CHECK}"
                ));
                let mut counter = 0;
                for (member, value) in members {
                    let type_name = |t: TypeRef| self.c_type(t);
                    let mut init = Initializers::new(dataset, &type_name, &mut counter);
                    let literal = init
                        .elements(
                            TypeRef::User(id),
                            &Values::User(vec![ncmodel::Value::Enum(*value)]),
                        )?
                        .concat();
                    let mname = string_literal(member.as_bytes(), "        ");
                    out.push_str(&format!(
                        "    {{\n        const {base_c} member = {literal};\n        \
                         stat = nc_insert_enum({grp}, {typ}, {mname}, &member);\n    {CHECK}    }}\n"
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The statements defining a variable: the variable, its storage, its attributes.
    fn define_var(
        &mut self,
        dataset: &Dataset,
        path: &[String],
        var: &Var,
        netcdf4: bool,
    ) -> Result<String, Unsupported> {
        let key = (path.to_vec(), var.name.clone());
        let (grp, id) = match self.vars.get(&key) {
            Some(code) => (code.group.clone(), code.id.clone()),
            None => return Err(Unsupported(format!("variable {} was not named", var.name))),
        };
        let name = string_literal(var.name.as_bytes(), "        ");
        let typ = self.type_id(var.type_ref);
        let mut out = String::new();
        if var.dim_ids.is_empty() {
            out.push_str(&format!(
                "    stat = nc_def_var({grp}, {name}, {typ}, 0, NULL, &{id});\n{CHECK}"
            ));
        } else {
            let dims: Vec<String> = var
                .dim_ids
                .iter()
                .map(|d| self.dims.get(d).cloned().unwrap_or_else(|| "-1".into()))
                .collect();
            let rank = dims.len();
            out.push_str(&format!(
                "    {{\n        int dims[{rank}];\n{}        \
                 stat = nc_def_var({grp}, {name}, {typ}, {rank}, dims, &{id});\n    {CHECK}    }}\n",
                dims.iter()
                    .enumerate()
                    .map(|(i, d)| format!("        dims[{i}] = {d};\n"))
                    .collect::<String>()
            ));
        }
        if let (true, Some(storage)) = (netcdf4, &var.storage) {
            match &storage.layout {
                Layout::Contiguous => out.push_str(&format!(
                    "    stat = nc_def_var_chunking({grp}, {id}, NC_CONTIGUOUS, NULL);\n{CHECK}"
                )),
                Layout::Compact => out.push_str(&format!(
                    "    stat = nc_def_var_chunking({grp}, {id}, NC_COMPACT, NULL);\n{CHECK}"
                )),
                // Chunked, with the library's chunk sizes.
                Layout::Chunked(sizes) if sizes.is_empty() => out.push_str(&format!(
                    "    stat = nc_def_var_chunking({grp}, {id}, NC_CHUNKED, NULL);\n{CHECK}"
                )),
                Layout::Chunked(sizes) => {
                    let list = wrap(sizes.iter().map(|s| s.to_string()), "        ");
                    out.push_str(&format!(
                        "    {{\n        static const size_t chunks[{}] = {{{list}}};\n        \
                         stat = nc_def_var_chunking({grp}, {id}, NC_CHUNKED, chunks);\n    {CHECK}    }}\n",
                        sizes.len()
                    ));
                }
                Layout::Other => {}
            }
            for filter in &storage.filters {
                // Filters HDF5 does not have built in come from a plugin, which the
                // program finds only where HDF5_PLUGIN_PATH (or HDF5's default) says.
                let plugin = filter.id > 6;
                let name = filterspec::known::name_of(filter.id);
                let what = match (name, plugin) {
                    (Some(n), false) => format!(" /* {n} */"),
                    (Some(n), true) => format!(
                        " /* {n}: an HDF5 filter plugin; set HDF5_PLUGIN_PATH to its \
                         directory (nctools' plugins: scripts/install --plugins) */"
                    ),
                    (None, true) => " /* an HDF5 filter plugin; set HDF5_PLUGIN_PATH to its \
                         directory */"
                        .to_string(),
                    (None, false) => String::new(),
                };
                if filter.params.is_empty() {
                    out.push_str(&format!(
                        "    stat = nc_def_var_filter({grp}, {id}, {}, 0, NULL);{what}\n{CHECK}",
                        filter.id
                    ));
                } else {
                    let list = wrap(filter.params.iter().map(|p| format!("{p}U")), "        ");
                    out.push_str(&format!(
                        "    {{{what}\n        static const unsigned int params[{}] = {{{list}}};\n        \
                         stat = nc_def_var_filter({grp}, {id}, {}, {}, params);\n    {CHECK}    }}\n",
                        filter.params.len(),
                        filter.id,
                        filter.params.len()
                    ));
                }
            }
            let endian = match storage.endianness {
                Endianness::Little => Some("NC_ENDIAN_LITTLE"),
                Endianness::Big => Some("NC_ENDIAN_BIG"),
                Endianness::Native => None,
            };
            if let Some(endian) = endian {
                out.push_str(&format!(
                    "    stat = nc_def_var_endian({grp}, {id}, {endian});\n{CHECK}"
                ));
            }
            if storage.no_fill {
                out.push_str(&format!(
                    "    stat = nc_def_var_fill({grp}, {id}, NC_NOFILL, NULL);\n{CHECK}"
                ));
            }
            if let Some(q) = storage.quantize {
                let mode = match q.mode {
                    QuantizeMode::BitGroom => "NC_QUANTIZE_BITGROOM",
                    QuantizeMode::GranularBitRound => "NC_QUANTIZE_GRANULARBR",
                    QuantizeMode::BitRound => "NC_QUANTIZE_BITROUND",
                };
                out.push_str(&format!(
                    "    stat = nc_def_var_quantize({grp}, {id}, {mode}, {});\n{CHECK}",
                    q.nsd
                ));
            }
        }
        for att in &var.atts {
            out.push_str(&self.put_attribute(dataset, &grp, &id, att)?);
        }
        Ok(out)
    }

    /// The statements writing one attribute (`varid` is `NC_GLOBAL` for a group's).
    fn put_attribute(
        &mut self,
        dataset: &Dataset,
        grp: &str,
        varid: &str,
        att: &Attribute,
    ) -> Result<String, Unsupported> {
        let name = string_literal(att.name.as_bytes(), "        ");
        let n = att.values.len();
        Ok(match (&att.type_ref, &att.values) {
            (_, Values::Char(text)) => format!(
                "    stat = nc_put_att_text({grp}, {varid}, {name}, {n},\n        {});\n{CHECK}",
                string_literal(text, "        ")
            ),
            (TypeRef::Atomic(a), _) if n == 0 => {
                let (_, nc, suffix) = atomic_c(*a);
                let extra = if suffix == "string" {
                    String::new()
                } else {
                    format!(" {nc},")
                };
                format!(
                    "    stat = nc_put_att_{suffix}({grp}, {varid}, {name},{extra} 0, NULL);\n{CHECK}"
                )
            }
            (&t, values) => {
                let block = self.static_array(dataset, t, values, "values")?;
                let call = match t {
                    TypeRef::Atomic(ncmodel::AtomicType::String) => format!(
                        "nc_put_att_string({grp}, {varid}, {name}, {n}, (const char **)values)"
                    ),
                    TypeRef::Atomic(a) => {
                        let (_, nc, suffix) = atomic_c(a);
                        format!("nc_put_att_{suffix}({grp}, {varid}, {name}, {nc}, {n}, values)")
                    }
                    TypeRef::User(_) => format!(
                        "nc_put_att({grp}, {varid}, {name}, {}, {n}, values)",
                        self.type_id(t)
                    ),
                };
                format!("    {{\n{block}        stat = {call};\n    {CHECK}    }}\n")
            }
        })
    }

    /// `static const T NAME[N] = {...};`, after the arrays of vlen contents it uses.
    fn static_array(
        &mut self,
        dataset: &Dataset,
        t: TypeRef,
        values: &Values,
        array: &str,
    ) -> Result<String, Unsupported> {
        let n = values.len();
        let c_type = self.c_type(t);
        if let Values::Char(text) = values {
            return Ok(format!(
                "        static const char {array}[{n}] =\n            {};\n",
                string_literal(text, "            ")
            ));
        }
        let types = &self.types;
        let type_name = |t: TypeRef| match t {
            TypeRef::Atomic(a) => atomic_c(a).0.to_string(),
            TypeRef::User(id) => types
                .get(&id)
                .map_or_else(|| "void".to_string(), |(name, _)| name.clone()),
        };
        let mut init = Initializers::new(dataset, &type_name, &mut self.arrays);
        let elements = init.elements(t, values)?;
        let mut out = String::new();
        for aux in &init.aux {
            out.push_str("        ");
            out.push_str(aux);
            out.push('\n');
        }
        let qualifier = if c_type.ends_with('*') { "" } else { " " };
        out.push_str(&format!(
            "        static const {c_type}{qualifier}{array}[{n}] = {{\n            {}\n        }};\n",
            wrap(elements, "            ")
        ));
        Ok(out)
    }

    /// The statements defining each group's contents, parents first.
    fn define_contents(&mut self, dataset: &Dataset) -> Result<String, Unsupported> {
        let netcdf4 = !dataset.format.is_classic_family();
        let mut out = String::new();
        for (path, group) in groups_in_order(dataset) {
            let grp = self
                .groups
                .get(&path)
                .cloned()
                .unwrap_or_else(|| "ncid".into());
            let label = group_label(&path);
            out.push_str(&format!("\n    /* {label} */\n"));
            for dim in &group.dims {
                let id = self.dims.get(&dim.id).cloned().unwrap_or_default();
                let len = if dim.unlimited {
                    "NC_UNLIMITED".to_string()
                } else {
                    dim.len.to_string()
                };
                out.push_str(&format!(
                    "    stat = nc_def_dim({grp}, {}, {len}, &{id});\n{CHECK}",
                    string_literal(dim.name.as_bytes(), "        ")
                ));
            }
            for var in &group.vars {
                out.push_str(&self.define_var(dataset, &path, var, netcdf4)?);
            }
            for att in &group.atts {
                out.push_str(&self.put_attribute(dataset, &grp, "NC_GLOBAL", att)?);
            }
        }
        Ok(out)
    }
}

/// The `nc_create` mode of a format.
fn create_mode(format: Format) -> &'static str {
    match format {
        Format::Classic => "NC_CLOBBER",
        Format::Offset64 => "NC_CLOBBER | NC_64BIT_OFFSET",
        Format::Cdf5 => "NC_CLOBBER | NC_64BIT_DATA",
        Format::Netcdf4 => "NC_CLOBBER | NC_NETCDF4",
        Format::Netcdf4Classic => "NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL",
    }
}

const CHECK_ERR: &str = "/* Stops the program with the library's message when a call fails. */
static void
check_err(const int stat, const int line, const char *file)
{
    if (stat != NC_NOERR) {
        (void)fprintf(stderr, \"line %d of %s: %s\\n\", line, file, nc_strerror(stat));
        fflush(stderr);
        exit(1);
    }
}
";

impl Generator for CGenerator {
    fn define(
        &mut self,
        out: &mut dyn Write,
        dataset: &Dataset,
        setup: &Setup,
    ) -> Result<(), GenerateError> {
        let mut idents = Idents::new(RESERVED);
        self.name_everything(dataset, &mut idents);
        let comment = comment_text(&setup.dataset_name);
        let mut text = format!(
            "/* Writes the netCDF dataset {comment} ({}).\n   Generated by nctools ncgen -l c; \
             build with: cc prog.c -lnetcdf -lm */\n\
             #include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <netcdf.h>\n\n",
            dataset.format.name()
        );
        text.push_str(&self.typedefs(dataset)?);
        text.push_str(CHECK_ERR);
        text.push_str("\nint\nmain(void)\n{\n    int stat; /* the status of each call */\n    int ncid; /* the file (its root group) */\n");
        let mut groups: Vec<&String> = self.groups.values().filter(|g| *g != "ncid").collect();
        groups.sort();
        let declare = |what: &str, names: Vec<&String>| -> String {
            if names.is_empty() {
                return String::new();
            }
            let list = wrap(names.iter().map(|n| n.to_string()), "        ");
            format!("    int {list}; /* {what} */\n")
        };
        text.push_str(&declare("group ids", groups));
        let mut typs: Vec<&String> = self.types.values().map(|(_, t)| t).collect();
        typs.sort();
        text.push_str(&declare("type ids", typs));
        let mut dims: Vec<&String> = self.dims.values().collect();
        dims.sort();
        text.push_str(&declare("dimension ids", dims));
        let mut vars: Vec<&String> = self.vars.values().map(|v| &v.id).collect();
        vars.sort();
        text.push_str(&declare("variable ids", vars));
        text.push_str(&format!(
            "\n    stat = nc_create({}, {}, &ncid);\n{CHECK}",
            string_literal(setup.file_name.as_bytes(), "        "),
            create_mode(dataset.format)
        ));
        if setup.no_fill {
            text.push_str(&format!(
                "    stat = nc_set_fill(ncid, NC_NOFILL, NULL);\n{CHECK}"
            ));
        }
        for (path, _) in groups_in_order(dataset).into_iter().skip(1) {
            let (parent, name) = path.split_at(path.len() - 1);
            let parent_id = self.groups.get(parent).cloned().unwrap_or_default();
            let id = self.groups.get(&path).cloned().unwrap_or_default();
            text.push_str(&format!(
                "    stat = nc_def_grp({parent_id}, {}, &{id});\n{CHECK}",
                string_literal(name.concat().as_bytes(), "        ")
            ));
        }
        for user in &dataset.types {
            text.push_str(&self.define_type(dataset, user.id)?);
        }
        text.push_str(&self.define_contents(dataset)?);
        text.push_str(&format!("\n    stat = nc_enddef(ncid);\n{CHECK}"));
        out.write_all(text.as_bytes())?;
        self.dataset = Some(dataset.clone());
        Ok(())
    }

    fn write(&mut self, out: &mut dyn Write, slab: &Slab<'_>) -> Result<(), GenerateError> {
        if slab.values.is_empty() {
            return Ok(());
        }
        let key = (slab.group_path.to_vec(), slab.name.to_string());
        let Some(code) = self.vars.get(&key) else {
            return Err(Unsupported(format!("no variable {} was defined", slab.name)).into());
        };
        let (grp, id, t) = (code.group.clone(), code.id.clone(), code.type_ref);
        let Some(dataset) = self.dataset.take() else {
            return Err(Unsupported("data before the definitions".into()).into());
        };
        let block = self.static_array(&dataset, t, slab.values, "data");
        self.dataset = Some(dataset);
        let block = block?;
        let where_ = if slab.start.is_empty() {
            String::new()
        } else {
            let ranges: Vec<String> = slab
                .start
                .iter()
                .zip(slab.count)
                .map(|(s, c)| format!("{s}:{}", s + c))
                .collect();
            format!("[{}]", ranges.join(", "))
        };
        let suffix = match t {
            TypeRef::Atomic(a) => format!("_{}", atomic_c(a).2),
            TypeRef::User(_) => String::new(),
        };
        let mut text = format!(
            "\n    {{ /* {}{where_} */\n{block}",
            comment_text(slab.name)
        );
        if slab.start.is_empty() {
            text.push_str(&format!(
                "        stat = nc_put_var{suffix}({grp}, {id}, data);\n"
            ));
        } else {
            let rank = slab.start.len();
            let list = |v: &[usize]| wrap(v.iter().map(|x| x.to_string()), "            ");
            text.push_str(&format!(
                "        static const size_t start[{rank}] = {{{}}};\n        \
                 static const size_t count[{rank}] = {{{}}};\n        \
                 stat = nc_put_vara{suffix}({grp}, {id}, start, count, data);\n",
                list(slab.start),
                list(slab.count)
            ));
        }
        text.push_str(&format!("    {CHECK}    }}\n"));
        out.write_all(text.as_bytes())?;
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> Result<(), GenerateError> {
        out.write_all(
            format!("\n    stat = nc_close(ncid);\n{CHECK}    return 0;\n}}\n").as_bytes(),
        )?;
        Ok(())
    }
}
