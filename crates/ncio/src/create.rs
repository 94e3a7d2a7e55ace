//! Creating a netCDF file from a schema and writing its data in slabs. The file is
//! written under a temporary name beside the target and renamed when finished; if the
//! writer is dropped unfinished, the temporary file is removed (DECISIONS D7).

use std::collections::HashMap;
use std::ffi::c_int;
use std::path::{Path, PathBuf};

use ncmodel::{
    Attribute, Dataset, Endianness, Format, Group, Layout, QuantizeMode, Storage, TypeRef,
    UserTypeKind, Values, Var,
};
use netcdf_sys::{nc_type, NC_GLOBAL};

use crate::chunk_write::EncodableVar;
use crate::encode::Layouts;
use crate::error::NcError;
use crate::names::{c_name, c_new_name, shown};
use crate::sys::{
    check, define, values, with_lib, ChunkingRequest, FieldShape, Grp, Lib, OpenFile,
    TypeDefinition,
};

/// Refuses a `string` variable whose chunks, filled by HDF5 with a copy of its
/// `_FillValue` for each element when first written, would take more than the chunk
/// limit (red team s35 RB9: a 60 KB fill string over chunks of 262,000 strings made a
/// 60 KB CDL write 19 GB in 20 s).
fn refuse_long_fill_strings(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    var: &Var,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    if var.type_ref != TypeRef::Atomic(ncmodel::AtomicType::String) {
        return Ok(());
    }
    let fill = var
        .atts
        .iter()
        .find(|a| a.name == "_FillValue")
        .and_then(|a| match &a.values {
            Values::String(strings) => strings.first().and_then(|s| s.as_ref()).map(Vec::len),
            _ => None,
        })
        .unwrap_or(0);
    if fill == 0 {
        return Ok(());
    }
    let (layout, chunks) = crate::sys::inquire::var_chunking(lib, grp, varid, context)?;
    if layout != crate::storage::NC_CHUNKED {
        return Ok(());
    }
    let elements = chunks.iter().try_fold(1usize, |n, c| n.checked_mul(*c));
    let limit = codecs::partial::decoded_chunk_cap();
    // Each element: the fill string's bytes and HDF5's heap object header.
    let bytes = elements.and_then(|n| n.checked_mul(fill + 16));
    if bytes.is_none_or(|bytes| bytes > limit) {
        return Err(NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: format!(
                "HDF5 fills each chunk of {} strings with a copy of its {fill}-byte \
                 _FillValue when it is first written, more than the {limit}-byte chunk \
                 limit; give it a shorter _FillValue or smaller chunks, or set {}=BYTES",
                elements.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                codecs::partial::CHUNK_LIMIT_VARIABLE
            ),
            context: context(),
        });
    }
    Ok(())
}

const NC_NETCDF4: c_int = 0x1000;
const NC_CLASSIC_MODEL: c_int = 0x0100;
const NC_64BIT_OFFSET: c_int = 0x0200;
const NC_64BIT_DATA: c_int = 0x0020;
const NC_CLOBBER: c_int = 0;
const NC_NOCLOBBER: c_int = 0x0004;
const NC_EEXIST: c_int = -35;
const NC_UNLIMITED: usize = 0;

/// A variable of the file being written.
#[derive(Debug, Clone, Copy)]
struct VarSlot {
    ncid: c_int,
    varid: c_int,
    type_ref: TypeRef,
}

/// A netCDF file being created.
pub struct NcWriter {
    /// The open file; `None` once closed or aborted.
    file: Option<OpenFile>,
    target: String,
    /// The temporary file, when the target is a local path (renamed at the end).
    temp: Option<PathBuf>,
    /// Where the finished temporary file goes (`None` for URLs).
    destination: Option<Destination>,
    /// The temporary file's entry in the table of temporaries signal handlers remove.
    _registration: Option<cleanup::Registration>,
    /// Built in memory and written out when closed (nccopy's `-w`).
    in_memory: bool,
    layouts: Layouts,
    types: HashMap<i32, nc_type>,
    dims: HashMap<i32, c_int>,
    vars: HashMap<(Vec<String>, String), VarSlot>,
    /// The variables whose chunks may be encoded here, by group and variable id.
    encodable: HashMap<(c_int, c_int), EncodableVar>,
    /// Whether HDF5 may open the file beside libnetcdf (a local netCDF-4 file on disk).
    direct_ok: bool,
}

fn cmode(format: Format) -> c_int {
    match format {
        Format::Classic => 0,
        Format::Offset64 => NC_64BIT_OFFSET,
        Format::Cdf5 => NC_64BIT_DATA,
        Format::Netcdf4 => NC_NETCDF4,
        Format::Netcdf4Classic => NC_NETCDF4 | NC_CLASSIC_MODEL,
    }
}

/// Where a finished output goes.
#[derive(Debug)]
enum Destination {
    /// Renamed onto this path: the target, or the file a symbolic link target leads to
    /// (the link stays a link, and what it points to is replaced atomically).
    Rename(PathBuf),
    /// Copied into this existing file that is neither a regular file nor a directory
    /// (the null device): opened for writing, never created, truncated, replaced or
    /// removed.
    Into(PathBuf),
}

impl Destination {
    /// Where the output `target` goes, and the path its temporary file is named after
    /// (the temporary is created in the same directory, so that the rename is atomic; for
    /// a device, in the directory for temporary files).
    fn of(target: &Path) -> (Self, PathBuf) {
        let resolved = cleanup::resolve_links(target);
        let special = std::fs::metadata(&resolved).is_ok_and(|m| !m.is_file() && !m.is_dir());
        if special {
            let name = resolved
                .file_name()
                .unwrap_or(std::ffi::OsStr::new("output"));
            let beside = std::env::temp_dir().join(name);
            (Self::Into(resolved), beside)
        } else {
            (Self::Rename(resolved.clone()), resolved)
        }
    }

    /// Moves the finished temporary file `temp` to its destination.
    fn deliver(&self, temp: &Path) -> std::io::Result<()> {
        match self {
            Self::Rename(path) => {
                cleanup::keep_permissions_of(path, temp);
                std::fs::rename(temp, path)
            }
            Self::Into(path) => {
                let mut from = std::fs::File::open(temp)?;
                let mut into = std::fs::OpenOptions::new().write(true).open(path)?;
                std::io::copy(&mut from, &mut into)?;
                std::fs::remove_file(temp)
            }
        }
    }
}

/// The result of `nc_create` as an [`NcError`] about `target`.
fn created(file: Result<OpenFile, c_int>, target: &str) -> Result<OpenFile, NcError> {
    file.map_err(|code| crate::error::from_status(code, format!("{target}: creating")))
}

/// Creates the temporary file of the output `target` beside `beside`, under a fresh
/// unpredictable name ([`cleanup::temporary_name`]), registered before it
/// exists and created through the gate, so that a signal handler that removes it never
/// races its creation.
///
/// libnetcdf creates the file itself, so the exclusivity is its: `NC_NOCLOBBER` makes
/// it open the name with `O_CREAT | O_EXCL` (classic formats, in `posixio`) or
/// `H5F_ACC_EXCL` (netCDF-4, which HDF5's default driver opens with `O_EXCL`), which fails
/// on anything already there, a planted symbolic link included, rather than following
/// it. Creating the file ourselves first and letting libnetcdf clobber it would leave a
/// window between the two opens in which the name could be swapped for a link (and would
/// show the name early). A name that exists is skipped for another, a few times at most.
///
/// An in-memory file (`NC_DISKLESS | NC_PERSIST`, nccopy's `-w`) is created on disk only
/// when libnetcdf writes it out at its close, with `O_CREAT | O_TRUNC` whatever the mode:
/// there only the unpredictable name protects it, as it appears nowhere before then.
fn create_temporary(
    target: &str,
    beside: &Path,
    mode: c_int,
) -> Result<(OpenFile, PathBuf, cleanup::Registration), NcError> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        let temp = cleanup::temporary_name(beside);
        let c_path = c_name(&temp.to_string_lossy(), || target.to_string())?;
        let registration = cleanup::register(&temp);
        let file =
            cleanup::gate(|| with_lib(|lib| OpenFile::create(lib, &c_path, mode | NC_NOCLOBBER)));
        match file {
            Err(NC_EEXIST) if attempts < cleanup::NAME_ATTEMPTS => continue,
            file => return Ok((created(file, target)?, temp, registration)),
        }
    }
}

/// Groups of the file being defined, by path.
type GroupIds<'f> = HashMap<Vec<String>, Grp<'f>>;

impl NcWriter {
    /// Starts writing `target` (a path, or an NCZarr URL written in place) in `format`.
    pub fn create(target: &str, format: Format) -> Result<Self, NcError> {
        Self::create_with(target, format, false)
    }

    /// Like [`NcWriter::create`]; with `in_memory`, the file is built in memory and
    /// written out when finished (nccopy's `-w`).
    pub fn create_with(target: &str, format: Format, in_memory: bool) -> Result<Self, NcError> {
        let mode = cmode(format)
            | if in_memory {
                netcdf_sys::NC_DISKLESS | netcdf_sys::NC_PERSIST
            } else {
                0
            };
        let (file, temp, registration, destination) = if target.contains("://") {
            // A URL (an NCZarr store in place): libnetcdf writes it where it is.
            let c_path = c_name(target, || target.to_string())?;
            let file = with_lib(|lib| OpenFile::create(lib, &c_path, mode | NC_CLOBBER));
            (created(file, target)?, None, None, None)
        } else {
            let (destination, beside) = Destination::of(Path::new(target));
            let (file, temp, registration) = create_temporary(target, &beside, mode)?;
            (file, Some(temp), Some(registration), Some(destination))
        };
        let direct_ok = !in_memory
            && temp.is_some()
            && matches!(format, Format::Netcdf4 | Format::Netcdf4Classic);
        Ok(Self {
            file: Some(file),
            target: target.to_string(),
            temp,
            destination,
            _registration: registration,
            in_memory,
            layouts: Layouts::new(&[]),
            types: HashMap::new(),
            dims: HashMap::new(),
            vars: HashMap::new(),
            encodable: HashMap::new(),
            direct_ok,
        })
    }

    /// The variable `var`, if its chunks may be encoded here.
    pub(crate) fn encodable_var(&self, var: crate::raw::VarHandle) -> Option<&EncodableVar> {
        self.encodable.get(&(var.group, var.var))
    }

    /// The file HDF5 may open beside libnetcdf for direct chunk writes, if any.
    pub(crate) fn direct_path(&self) -> Option<&Path> {
        self.temp.as_deref().filter(|_| self.direct_ok)
    }

    /// The temporary file the output is written to until [`NcWriter::finish`] renames it
    /// (`.NAME.nctools-PID-RANDOM.tmp` beside the target, or beside the file a symbolic
    /// link target leads to); `None` for URLs, written in place.
    pub fn temporary_path(&self) -> Option<&Path> {
        self.temp.as_deref()
    }

    /// The target path or URL.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The open file, or the error of using a closed one.
    pub(crate) fn open_file(&self) -> Result<&OpenFile, NcError> {
        self.file.as_ref().ok_or_else(|| NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: "the file is closed".into(),
            context: self.target.clone(),
        })
    }

    /// The group id and variable id of a defined variable.
    pub(crate) fn slot(&self, group_path: &[String], name: &str) -> Option<(c_int, c_int)> {
        self.vars
            .get(&(group_path.to_vec(), name.to_string()))
            .map(|s| (s.ncid, s.varid))
    }

    fn context(&self, what: &str) -> impl Fn() -> String {
        let text = format!("{}: {what}", self.target);
        move || text.clone()
    }

    /// Turns fill mode off for the whole file (ncgen -x): variables are not pre-filled,
    /// so what is never written holds whatever the file had there.
    pub fn set_no_fill(&mut self) -> Result<(), NcError> {
        let file = self.open_file()?;
        let status = with_lib(|lib| file.set_no_fill(lib));
        check(status, self.context("turning fill mode off"))
    }

    /// Defines the whole schema of `dataset` (groups, types, dimensions, variables with
    /// their storage and filters, attributes) and leaves define mode.
    pub fn define(&mut self, dataset: &Dataset) -> Result<(), NcError> {
        // A type nested deeper than nctools reads (HDF5 copies the rest of a type at
        // every level of it).
        for user in &dataset.types {
            let depth = dataset.nesting(TypeRef::User(user.id));
            let decoded = dataset.decoded_bytes(TypeRef::User(user.id));
            let limit = codecs::partial::value_cap();
            if decoded > limit {
                return Err(NcError {
                    kind: store::ErrorKind::InvalidRequest,
                    message: format!(
                        "type {}: values of {decoded} bytes each once decoded, {}",
                        shown(&user.name),
                        crate::sys::value_limit_words(limit as u64)
                    ),
                    context: self.target.clone(),
                });
            }
            if depth > ncmodel::weight::MAX_TYPE_DEPTH {
                return Err(NcError {
                    kind: store::ErrorKind::InvalidRequest,
                    message: format!(
                        "type {} nests user types {depth} deep, more than {}",
                        shown(&user.name),
                        ncmodel::weight::MAX_TYPE_DEPTH
                    ),
                    context: self.target.clone(),
                });
            }
        }
        self.layouts = Layouts::new(&dataset.types);
        let netcdf4 = !dataset.format.is_classic_family();
        let file = self.file.take().ok_or_else(|| NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: "the file is closed".into(),
            context: self.target.clone(),
        })?;
        let result = with_lib(|lib| {
            let mut group_ids = GroupIds::new();
            self.define_groups(
                lib,
                &dataset.root,
                file.root(),
                &mut Vec::new(),
                &mut group_ids,
            )?;
            for user in &dataset.types {
                let grp = group_ids
                    .get(&user.group_path)
                    .copied()
                    .unwrap_or(file.root());
                self.define_type(lib, grp, user)?;
            }
            self.define_contents(
                lib,
                &dataset.root,
                &mut Vec::new(),
                &group_ids,
                file.root(),
                netcdf4,
            )?;
            check(file.enddef(lib), self.context("leaving define mode"))
        });
        self.file = Some(file);
        result
    }

    fn define_groups<'f>(
        &self,
        lib: &Lib,
        group: &Group,
        grp: Grp<'f>,
        path: &mut Vec<String>,
        ids: &mut GroupIds<'f>,
    ) -> Result<(), NcError> {
        ids.insert(path.clone(), grp);
        for child in &group.groups {
            let context = self.context(&format!("defining group {}", shown(&child.name)));
            let name = c_new_name(&child.name, &context)?;
            let child_grp = define::def_grp(lib, grp, &name, &context)?;
            path.push(child.name.clone());
            self.define_groups(lib, child, child_grp, path, ids)?;
            path.pop();
        }
        Ok(())
    }

    fn file_type(&self, t: TypeRef) -> Option<nc_type> {
        match t {
            TypeRef::Atomic(a) => Some(a.nc_type()),
            TypeRef::User(id) => self.types.get(&id.0).copied(),
        }
    }

    fn known_type(&self, t: TypeRef, context: &dyn Fn() -> String) -> Result<nc_type, NcError> {
        self.file_type(t).ok_or_else(|| NcError {
            kind: store::ErrorKind::Unsupported,
            message: format!("type {t:?} is not defined"),
            context: context(),
        })
    }

    fn define_type(
        &mut self,
        lib: &Lib,
        grp: Grp<'_>,
        user: &ncmodel::UserType,
    ) -> Result<(), NcError> {
        let context = self.context(&format!("defining type {}", shown(&user.name)));
        let name = c_new_name(&user.name, &context)?;
        let laid = self
            .layouts
            .user(user.id)
            .cloned()
            .unwrap_or_else(|| user.clone());
        let definition = match &laid.kind {
            UserTypeKind::Compound { .. } => TypeDefinition::Compound(laid.size),
            UserTypeKind::Vlen { base } => TypeDefinition::Vlen(self.known_type(*base, &context)?),
            UserTypeKind::Opaque => TypeDefinition::Opaque(laid.size),
            UserTypeKind::Enum { base, .. } => TypeDefinition::Enum(base.nc_type()),
        };
        let xtype = define::def_type(lib, grp, &name, definition, &context)?;
        match &laid.kind {
            UserTypeKind::Compound { fields } => {
                for field in fields {
                    let fname = c_new_name(&field.name, &context)?;
                    let ftype = self.known_type(field.type_ref, &context)?;
                    let shape = FieldShape(&field.dims);
                    define::insert_field(
                        lib,
                        grp,
                        xtype,
                        &fname,
                        field.offset,
                        ftype,
                        shape,
                        &context,
                    )?;
                }
            }
            UserTypeKind::Enum { base, members } => {
                for (member, value) in members {
                    let mname = c_new_name(member, &context)?;
                    let bytes = value.to_ne_bytes();
                    let n = base.size();
                    let start = if cfg!(target_endian = "big") {
                        16 - n
                    } else {
                        0
                    };
                    let mut raw = [0u8; 8];
                    raw[..n].copy_from_slice(&bytes[start..start + n]);
                    define::insert_enum_member(lib, grp, xtype, &mname, &raw, &context)?;
                }
            }
            _ => {}
        }
        self.types.insert(user.id.0, xtype);
        Ok(())
    }

    fn define_contents(
        &mut self,
        lib: &Lib,
        group: &Group,
        path: &mut Vec<String>,
        group_ids: &GroupIds<'_>,
        root: Grp<'_>,
        netcdf4: bool,
    ) -> Result<(), NcError> {
        let grp = group_ids.get(path.as_slice()).copied().unwrap_or(root);
        for dim in &group.dims {
            let context = self.context(&format!("defining dimension {}", shown(&dim.name)));
            let name = c_new_name(&dim.name, &context)?;
            let len = if dim.unlimited { NC_UNLIMITED } else { dim.len };
            let dimid = define::def_dim(lib, grp, &name, len, &context)?;
            self.dims.insert(dim.id, dimid);
        }
        for var in &group.vars {
            let full: String = path.iter().map(|g| format!("/{g}")).collect();
            let full = format!("{full}/{}", var.name);
            let varid = self.define_var(lib, grp, var, &full, netcdf4)?;
            let slot = VarSlot {
                ncid: grp.id(),
                varid,
                type_ref: var.type_ref,
            };
            self.vars.insert((path.clone(), var.name.clone()), slot);
            if let Some(encodable) = EncodableVar::of(path, var) {
                self.encodable.insert((grp.id(), varid), encodable);
            }
        }
        for att in &group.atts {
            self.put_attribute(lib, grp, NC_GLOBAL, att)?;
        }
        for child in &group.groups {
            path.push(child.name.clone());
            self.define_contents(lib, child, path, group_ids, root, netcdf4)?;
            path.pop();
        }
        Ok(())
    }

    fn define_var(
        &mut self,
        lib: &Lib,
        grp: Grp<'_>,
        var: &Var,
        full_path: &str,
        netcdf4: bool,
    ) -> Result<c_int, NcError> {
        let context = self.context(&format!("defining variable {}", shown(full_path)));
        let name = c_new_name(&var.name, &context)?;
        let dims = var
            .dim_ids
            .iter()
            .map(|d| {
                self.dims.get(d).copied().ok_or_else(|| NcError {
                    kind: store::ErrorKind::NotFound,
                    message: format!("dimension id {d} is not defined"),
                    context: context(),
                })
            })
            .collect::<Result<Vec<c_int>, _>>()?;
        let xtype = self.known_type(var.type_ref, &context)?;
        let varid = define::def_var(lib, grp, &name, xtype, &dims, &context)?;
        // Storage first: turning fill off after `_FillValue` is written would delete it.
        if let (true, Some(storage)) = (netcdf4, &var.storage) {
            define_storage(lib, grp, varid, storage, &context)?;
        }
        for att in &var.atts {
            self.put_attribute(lib, grp, varid, att)?;
        }
        if netcdf4 {
            refuse_long_fill_strings(lib, grp, varid, var, &context)?;
        }
        Ok(varid)
    }

    fn put_attribute(
        &self,
        lib: &Lib,
        grp: Grp<'_>,
        varid: c_int,
        att: &Attribute,
    ) -> Result<(), NcError> {
        let context = self.context(&format!("writing attribute {}", shown(&att.name)));
        let name = c_new_name(&att.name, &context)?;
        match (&att.type_ref, &att.values) {
            (_, Values::Char(text)) => values::put_att_text(lib, grp, varid, &name, text, &context),
            (_, Values::String(strings)) => {
                values::put_att_string(lib, grp, varid, &name, strings, &context)
            }
            (&type_ref, values) => {
                let encoded = self.layouts.encode(type_ref, values).map_err(|e| NcError {
                    context: context(),
                    ..e
                })?;
                let xtype = self.known_type(type_ref, &context)?;
                let size = self.layouts.size(type_ref);
                values::put_att(
                    lib,
                    grp,
                    varid,
                    &name,
                    xtype,
                    values.len(),
                    size,
                    &encoded,
                    &context,
                )
            }
        }
    }

    /// Writes the hyperslab `start`/`count` of the variable `name` of the group at
    /// `group_path` (empty for the root). The values must be of the variable's type, one
    /// per element of the hyperslab; the rank is checked against the variable.
    pub fn write(
        &self,
        group_path: &[String],
        name: &str,
        start: &[usize],
        count: &[usize],
        values: &Values,
    ) -> Result<(), NcError> {
        let key = (group_path.to_vec(), name.to_string());
        let Some(slot) = self.vars.get(&key).copied() else {
            return Err(NcError {
                kind: store::ErrorKind::NotFound,
                message: "no such variable".into(),
                context: format!("{}: writing {name}", self.target),
            });
        };
        let context = self.context(&format!("writing variable {name}"));
        let encoded = self
            .layouts
            .encode(slot.type_ref, values)
            .map_err(|e| NcError {
                context: context(),
                ..e
            })?;
        let size = self.layouts.size(slot.type_ref);
        let file = self.open_file()?;
        let grp = self.group_of(file, slot.ncid)?;
        with_lib(|lib| {
            values::put_vara(lib, grp, slot.varid, start, count, &encoded, size, &context)
        })
    }

    /// A group of the file being written, by id.
    pub(crate) fn group_of<'f>(&self, file: &'f OpenFile, ncid: c_int) -> Result<Grp<'f>, NcError> {
        file.group(ncid).ok_or_else(|| NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: format!("group id {ncid} is not one of this file's"),
            context: self.target.clone(),
        })
    }

    /// Closes the file and moves it to its name.
    pub fn finish(mut self) -> Result<(), NcError> {
        let Some(file) = self.file.take() else {
            return Err(NcError {
                kind: store::ErrorKind::InvalidRequest,
                message: "the file is closed".into(),
                context: self.target.clone(),
            });
        };
        // An in-memory file is written out at its close: through the gate, as created.
        let in_memory = self.in_memory;
        let status = if in_memory {
            cleanup::gate(|| with_lib(|lib| file.close(lib)))
        } else {
            with_lib(|lib| file.close(lib))
        };
        check(status, self.context("closing"))?;
        if let (Some(temp), Some(destination)) = (self.temp.take(), &self.destination) {
            if let Err(e) = destination.deliver(&temp) {
                // Not a partial file left beside the target: remove it.
                let _ = std::fs::remove_file(&temp);
                return Err(NcError {
                    kind: store::ErrorKind::Other,
                    message: e.to_string(),
                    context: format!("{}: moving the finished file into place", self.target),
                });
            }
        }
        Ok(())
    }
}

impl Drop for NcWriter {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            // Abort closes the file without keeping it; an in-memory file is written out
            // by it all the same (libnetcdf's persist mode), so through the gate.
            if self.in_memory {
                let _ = cleanup::gate(|| with_lib(|lib| file.abort(lib)));
            } else {
                let _ = with_lib(|lib| file.abort(lib));
            }
        }
        if let Some(temp) = &self.temp {
            let _ = std::fs::remove_file(temp);
        }
    }
}

fn define_storage(
    lib: &Lib,
    grp: Grp<'_>,
    varid: c_int,
    storage: &Storage,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    let request = match &storage.layout {
        Layout::Contiguous => Some(ChunkingRequest::Contiguous),
        Layout::Compact => Some(ChunkingRequest::Compact),
        Layout::Chunked(sizes) => Some(ChunkingRequest::Chunked(sizes)),
        Layout::Other => None,
    };
    if let Some(request) = request {
        define::def_chunking(lib, grp, varid, &request, context)?;
    }
    for filter in &storage.filters {
        define::def_filter(lib, grp, varid, filter.id, &filter.params, &|| {
            format!("{}: filter {}", context(), filter.id)
        })?;
    }
    match storage.endianness {
        Endianness::Little => define::def_endian(lib, grp, varid, 1, context)?,
        Endianness::Big => define::def_endian(lib, grp, varid, 2, context)?,
        Endianness::Native => {}
    }
    if storage.no_fill {
        define::def_no_fill(lib, grp, varid, context)?;
    }
    if let Some(q) = storage.quantize {
        let mode = match q.mode {
            QuantizeMode::BitGroom => 1,
            QuantizeMode::GranularBitRound => 2,
            QuantizeMode::BitRound => 3,
        };
        define::def_quantize(lib, grp, varid, mode, q.nsd, context)?;
    }
    Ok(())
}
