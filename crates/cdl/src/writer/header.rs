//! The header part of each group: types, dimensions, variables with their attributes,
//! group attributes, special attributes; then the group's data and its child groups.

use std::io::{self, Write};

use filterspec::{FilterAttributeStyle, FilterAttributes};
use ncmodel::{Format, Layout, TypeRef, UserType, UserTypeKind, Var};

use super::names::Scope;
use super::{CdlWriter, DataSource, WriteError};
use crate::escape::escape_name;

/// Variable names after which ncdump puts a blank before `:` in attribute lines.
const KEYWORDS: [&str; 5] = ["variables", "dimensions", "data", "group", "types"];

impl<W: Write> CdlWriter<'_, W> {
    /// Writes a group: header, data, then child groups.
    pub(crate) fn group<S: DataSource>(
        &mut self,
        scope: &mut Scope<'_>,
        source: &mut S,
    ) -> Result<(), WriteError<S::Error>> {
        let group = scope.group();
        self.types(scope)?;
        if !group.dims.is_empty() {
            self.indent_out()?;
            self.put("dimensions:\n")?;
        }
        for dim in &group.dims {
            self.indent_out()?;
            let line = if dim.unlimited {
                format!(
                    "\t{} = UNLIMITED ; // ({} currently)\n",
                    escape_name(&dim.name),
                    dim.len
                )
            } else {
                format!("\t{} = {} ;\n", escape_name(&dim.name), dim.len)
            };
            self.put(&line)?;
        }
        if !group.vars.is_empty() {
            self.indent_out()?;
            self.put("variables:\n")?;
        }
        for var in &group.vars {
            self.var_header(scope, var)?;
        }
        self.group_attributes(scope)?;
        self.data_section(scope, source)?;
        for child in &group.groups {
            self.put("\n")?;
            self.indent_out()?;
            self.put(format!("group: {} {{\n", escape_name(&child.name)))?;
            self.indent += 2;
            scope.push(child);
            self.group(scope, source)?;
            scope.pop();
            self.indent_out()?;
            self.put(format!("}} // group {}\n", escape_name(&child.name)))?;
            self.indent -= 2;
        }
        Ok(())
    }

    fn types(&mut self, scope: &Scope<'_>) -> io::Result<()> {
        let dataset = self.dataset;
        let group = scope.group();
        if group.type_ids.is_empty() {
            return Ok(());
        }
        self.indent_out()?;
        self.put("types:\n")?;
        self.indent += 2;
        for id in &group.type_ids {
            if let Some(user) = dataset.user_type(*id) {
                self.type_declaration(scope, user)?;
            }
        }
        self.indent -= 2;
        Ok(())
    }

    fn type_declaration(&mut self, scope: &Scope<'_>, user: &UserType) -> io::Result<()> {
        let dataset = self.dataset;
        let name = scope.type_name(dataset, TypeRef::User(user.id));
        match &user.kind {
            UserTypeKind::Vlen { base } => {
                self.indent_out()?;
                let base = scope.type_name(dataset, *base);
                self.put(format!("{base}(*) {name} ;\n"))
            }
            UserTypeKind::Opaque => {
                self.indent_out()?;
                self.put(format!("opaque({}) {name} ;\n", user.size))
            }
            UserTypeKind::Enum { base, members } => {
                self.indent_out()?;
                let head = format!("{} enum {} {{", base.cdl_name(), escape_name(&user.name));
                self.lput(&head)?;
                for (i, (member, value)) in members.iter().enumerate() {
                    let delim = if i + 1 == members.len() {
                        "} ;\n"
                    } else {
                        ", "
                    };
                    self.lput(format!("{} = {value}{delim}", escape_name(member)))?;
                }
                Ok(())
            }
            UserTypeKind::Compound { fields } => {
                self.indent_out()?;
                self.put(format!("compound {name} {{\n"))?;
                for field in fields {
                    self.indent_out()?;
                    let mut line = format!(
                        "  {} {}",
                        scope.type_name(dataset, field.type_ref),
                        escape_name(&field.name)
                    );
                    if !field.dims.is_empty() {
                        let dims: Vec<String> = field.dims.iter().map(usize::to_string).collect();
                        line.push_str(&format!("({})", dims.join(", ")));
                    }
                    line.push_str(" ;\n");
                    self.put(&line)?;
                }
                self.indent_out()?;
                self.put(format!("}}; // {name}\n"))
            }
        }
    }

    fn var_header(&mut self, scope: &Scope<'_>, var: &Var) -> io::Result<()> {
        let dataset = self.dataset;
        self.indent_out()?;
        let mut line = format!(
            "\t{} {}",
            scope.type_name(dataset, var.type_ref),
            escape_name(&var.name)
        );
        if !var.dim_ids.is_empty() {
            let dims: Vec<String> = var
                .dim_ids
                .iter()
                .map(|d| scope.dim_name(dataset, *d))
                .collect();
            line.push_str(&format!("({})", dims.join(", ")));
        }
        line.push_str(" ;\n");
        self.put(&line)?;
        let own_axis = self
            .time_separator()
            .and_then(|_| super::times::own_axis(var));
        for att in &var.atts {
            let axis = self.attribute_axis(own_axis);
            self.attribute(scope, &var.name, att, axis.as_ref())?;
            self.note_bounds(var, att);
        }
        if self.options.special_attributes {
            self.var_specials(var)?;
        }
        Ok(())
    }

    /// Writes the start of an attribute line: indent, tabs, an optional type name, then
    /// `var:name`.
    pub(crate) fn attribute_name(
        &mut self,
        type_prefix: Option<&str>,
        var_name: &str,
        att_name: &str,
    ) -> io::Result<()> {
        self.indent_out()?;
        let blank = if KEYWORDS.contains(&var_name) {
            " "
        } else {
            ""
        };
        let prefix = type_prefix.map(|t| format!("{t} ")).unwrap_or_default();
        let text = format!(
            "\t\t{prefix}{}{blank}:{}",
            escape_name(var_name),
            escape_name(att_name)
        );
        self.put(&text)
    }

    /// A special attribute line (ncdump writes no blank after keyword variable names here).
    fn special(&mut self, var_name: &str, att_name: &str, value: &str) -> io::Result<()> {
        self.indent_out()?;
        let line = format!(
            "\t\t{}:{} = {value} ;\n",
            escape_name(var_name),
            escape_name(att_name)
        );
        self.put(&line)
    }

    fn var_specials(&mut self, var: &Var) -> io::Result<()> {
        let format = self.dataset.format;
        // netCDF-3 variables have no storage properties (the reference fails on CDF5).
        let Some(storage) = var.storage.as_ref().filter(|_| !format.is_classic_family()) else {
            return Ok(());
        };
        let name = var.name.as_str();
        match &storage.layout {
            Layout::Contiguous => self.special(name, "_Storage", "\"contiguous\"")?,
            Layout::Compact => self.special(name, "_Storage", "\"compact\"")?,
            Layout::Chunked(chunks) => {
                self.special(name, "_Storage", "\"chunked\"")?;
                let sizes: Vec<String> = chunks.iter().map(usize::to_string).collect();
                self.special(name, "_ChunkSizes", &sizes.join(", "))?;
            }
            Layout::Other => self.special(name, "_Storage", "\"unknown\"")?,
        }
        let style = if self.options.all_filters_in_filter_attribute {
            FilterAttributeStyle::All
        } else {
            FilterAttributeStyle::WithoutBuiltins
        };
        let filters = FilterAttributes::of(&storage.filters, style);
        if filters.fletcher32 {
            self.special(name, "_Fletcher32", "\"true\"")?;
        }
        if filters.shuffle {
            self.special(name, "_Shuffle", "\"true\"")?;
        }
        if let Some(level) = filters.deflate_level {
            self.special(name, "_DeflateLevel", &level.to_string())?;
        }
        if let Some(filter) = &filters.filter {
            self.special(name, "_Filter", &format!("\"{filter}\""))?;
        }
        if let Some(codecs) = storage.codecs.as_ref().filter(|c| !c.is_empty()) {
            let escaped = crate::escape::escape_special_string(codecs);
            self.special(name, "_Codecs", &format!("\"{escaped}\""))?;
        }
        if self.type_size(var.type_ref) > 1 {
            match storage.endianness {
                ncmodel::Endianness::Little => self.special(name, "_Endianness", "\"little\"")?,
                ncmodel::Endianness::Big => self.special(name, "_Endianness", "\"big\"")?,
                ncmodel::Endianness::Native => {}
            }
        }
        if storage.no_fill {
            self.special(name, "_NoFill", "\"true\"")?;
        }
        Ok(())
    }

    /// The in-memory size ncdump uses for a type (a pointer for strings, `nc_vlen_t` for
    /// vlens).
    fn type_size(&self, type_ref: TypeRef) -> usize {
        match type_ref {
            TypeRef::Atomic(t) => t.size(),
            TypeRef::User(id) => match self.dataset.user_type(id) {
                Some(UserType {
                    kind: UserTypeKind::Vlen { .. },
                    ..
                }) => 2 * size_of::<usize>(),
                Some(user) => user.size,
                None => 0,
            },
        }
    }

    fn group_attributes(&mut self, scope: &Scope<'_>) -> io::Result<()> {
        let group = scope.group();
        let root = scope.is_root();
        let atts: Vec<_> = group
            .atts
            .iter()
            .filter(|a| !(root && a.name == "_NCProperties"))
            .collect();
        let specials = self.options.special_attributes;
        if !atts.is_empty() || specials {
            self.put("\n")?;
            self.indent_out()?;
            self.put(if root {
                "// global attributes:\n"
            } else {
                "// group attributes:\n"
            })?;
        }
        for att in atts {
            self.attribute(scope, "", att, None)?;
        }
        if root && specials {
            self.global_specials()?;
        }
        Ok(())
    }

    fn global_specials(&mut self) -> io::Result<()> {
        let dataset = self.dataset;
        let hidden = &dataset.specials;
        if let Some(props) = &hidden.nc_properties {
            self.special("", "_NCProperties", &format!("\"{props}\""))?;
        }
        if let Some(version) = hidden.superblock_version {
            self.special("", "_SuperblockVersion", &version.to_string())?;
        }
        if let Some(is_netcdf4) = hidden.is_netcdf4 {
            self.special("", "_IsNetcdf4", if is_netcdf4 != 0 { "1" } else { "0" })?;
        }
        let kind = match dataset.format {
            Format::Classic => "classic",
            other => other.name(),
        };
        self.special("", "_Format", &format!("\"{kind}\""))
    }
}
