//! Creating a netCDF file from a schema and writing its data in slabs. The file is
//! written under a temporary name beside the target and renamed when finished; if the
//! writer is dropped unfinished, the temporary file is removed (DECISIONS D7).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, CString};
use std::path::{Path, PathBuf};

use ncmodel::{
    Attribute, Dataset, Endianness, Format, Group, Layout, QuantizeMode, Storage, TypeRef,
    UserTypeKind, Values, Var,
};
use netcdf_sys::{
    nc_abort, nc_close, nc_create, nc_def_compound, nc_def_dim, nc_def_enum, nc_def_grp,
    nc_def_opaque, nc_def_var, nc_def_var_chunking, nc_def_var_endian, nc_def_var_fill,
    nc_def_var_filter, nc_def_vlen, nc_enddef, nc_insert_array_compound, nc_insert_compound,
    nc_insert_enum, nc_put_att, nc_put_att_string, nc_put_att_text, nc_put_vara, nc_set_fill,
    nc_type, NC_GLOBAL,
};

use crate::encode::Layouts;
use crate::error::NcError;
use crate::ffi::{c_name, check, locked};

const NC_NETCDF4: c_int = 0x1000;
const NC_CLASSIC_MODEL: c_int = 0x0100;
const NC_64BIT_OFFSET: c_int = 0x0200;
const NC_64BIT_DATA: c_int = 0x0020;
const NC_CLOBBER: c_int = 0;
const NC_UNLIMITED: usize = 0;

extern "C" {
    /// `nc_def_var_quantize` (netCDF-C 4.9), not bound by netcdf-sys 0.9.
    fn nc_def_var_quantize(ncid: c_int, varid: c_int, mode: c_int, nsd: c_int) -> c_int;
}

/// A variable of the file being written.
#[derive(Debug, Clone, Copy)]
struct VarSlot {
    ncid: c_int,
    varid: c_int,
    type_ref: TypeRef,
}

/// A netCDF file being created.
pub struct NcWriter {
    ncid: c_int,
    target: String,
    /// The temporary file, when the target is a local path (renamed at the end).
    temp: Option<PathBuf>,
    layouts: Layouts,
    types: HashMap<i32, nc_type>,
    dims: HashMap<i32, c_int>,
    vars: HashMap<(Vec<String>, String), VarSlot>,
    finished: bool,
    /// Whether HDF5 may open the file beside libnetcdf (a local netCDF-4 file on disk).
    direct_ok: bool,
}

fn cmode(format: Format) -> c_int {
    NC_CLOBBER
        | match format {
            Format::Classic => 0,
            Format::Offset64 => NC_64BIT_OFFSET,
            Format::Cdf5 => NC_64BIT_DATA,
            Format::Netcdf4 => NC_NETCDF4,
            Format::Netcdf4Classic => NC_NETCDF4 | NC_CLASSIC_MODEL,
        }
}

/// The temporary name beside `target`.
fn temporary_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.nctools-{}.tmp", std::process::id()))
}

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
        let temp = (!target.contains("://")).then(|| temporary_path(Path::new(target)));
        let path = temp
            .as_ref()
            .map_or(target.to_string(), |p| p.to_string_lossy().into_owned());
        let c_path = c_name(&path, || target.to_string())?;
        let mut ncid: c_int = -1;
        // SAFETY: c_path is a valid C string and ncid a valid out-pointer.
        let status = locked(|| unsafe { nc_create(c_path.as_ptr(), mode, &mut ncid) });
        check(status, || format!("{target}: creating"))?;
        let direct_ok = !in_memory
            && temp.is_some()
            && matches!(format, Format::Netcdf4 | Format::Netcdf4Classic);
        Ok(Self {
            ncid,
            target: target.to_string(),
            temp,
            layouts: Layouts::new(&[]),
            types: HashMap::new(),
            dims: HashMap::new(),
            vars: HashMap::new(),
            finished: false,
            direct_ok,
        })
    }

    /// The file HDF5 may open beside libnetcdf for direct chunk writes, if any.
    pub(crate) fn direct_path(&self) -> Option<&Path> {
        self.temp.as_deref().filter(|_| self.direct_ok)
    }

    /// The target path or URL.
    pub(crate) fn target(&self) -> &str {
        &self.target
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
        const NC_NOFILL: c_int = 0x100;
        let mut old: c_int = 0;
        // SAFETY: ncid is open and old a valid out-pointer.
        let status = locked(|| unsafe { nc_set_fill(self.ncid, NC_NOFILL, &mut old) });
        check(status, self.context("turning fill mode off"))
    }

    /// Defines the whole schema of `dataset` (groups, types, dimensions, variables with
    /// their storage and filters, attributes) and leaves define mode.
    pub fn define(&mut self, dataset: &Dataset) -> Result<(), NcError> {
        self.layouts = Layouts::new(&dataset.types);
        let netcdf4 = !dataset.format.is_classic_family();
        locked(|| {
            let mut group_ids = HashMap::new();
            self.define_groups(&dataset.root, self.ncid, &mut Vec::new(), &mut group_ids)?;
            for user in &dataset.types {
                let ncid = group_ids
                    .get(&user.group_path)
                    .copied()
                    .unwrap_or(self.ncid);
                self.define_type(ncid, user)?;
            }
            self.define_contents(&dataset.root, &mut Vec::new(), &group_ids, netcdf4)?;
            // SAFETY: plain call on the open file.
            check(
                unsafe { nc_enddef(self.ncid) },
                self.context("leaving define mode"),
            )
        })
    }

    fn define_groups(
        &self,
        group: &Group,
        ncid: c_int,
        path: &mut Vec<String>,
        ids: &mut HashMap<Vec<String>, c_int>,
    ) -> Result<(), NcError> {
        ids.insert(path.clone(), ncid);
        for child in &group.groups {
            let name = c_name(&child.name, self.context("group name"))?;
            let mut child_id: c_int = -1;
            // SAFETY: valid name and out-pointer.
            let status = unsafe { nc_def_grp(ncid, name.as_ptr(), &mut child_id) };
            check(
                status,
                self.context(&format!("defining group {}", child.name)),
            )?;
            path.push(child.name.clone());
            self.define_groups(child, child_id, path, ids)?;
            path.pop();
        }
        Ok(())
    }

    fn file_type(&self, t: TypeRef) -> nc_type {
        match t {
            TypeRef::Atomic(a) => a.nc_type(),
            TypeRef::User(id) => self.types.get(&id.0).copied().unwrap_or(0),
        }
    }

    fn define_type(&mut self, ncid: c_int, user: &ncmodel::UserType) -> Result<(), NcError> {
        let context = self.context(&format!("defining type {}", user.name));
        let name = c_name(&user.name, &context)?;
        let laid = self
            .layouts
            .user(user.id)
            .cloned()
            .unwrap_or_else(|| user.clone());
        let mut xtype: nc_type = 0;
        // SAFETY (all calls below): valid names, out-pointers and dimension arrays.
        let status = match &laid.kind {
            UserTypeKind::Compound { .. } => unsafe {
                nc_def_compound(ncid, laid.size, name.as_ptr(), &mut xtype)
            },
            UserTypeKind::Vlen { base } => unsafe {
                nc_def_vlen(ncid, name.as_ptr(), self.file_type(*base), &mut xtype)
            },
            UserTypeKind::Opaque => unsafe {
                nc_def_opaque(ncid, laid.size, name.as_ptr(), &mut xtype)
            },
            UserTypeKind::Enum { base, .. } => unsafe {
                nc_def_enum(ncid, base.nc_type(), name.as_ptr(), &mut xtype)
            },
        };
        check(status, &context)?;
        match &laid.kind {
            UserTypeKind::Compound { fields } => {
                for field in fields {
                    let fname = c_name(&field.name, &context)?;
                    let ftype = self.file_type(field.type_ref);
                    let status = if field.dims.is_empty() {
                        unsafe {
                            nc_insert_compound(ncid, xtype, fname.as_ptr(), field.offset, ftype)
                        }
                    } else {
                        let dims: Vec<c_int> = field.dims.iter().map(|d| *d as c_int).collect();
                        unsafe {
                            nc_insert_array_compound(
                                ncid,
                                xtype,
                                fname.as_ptr(),
                                field.offset,
                                ftype,
                                dims.len() as c_int,
                                dims.as_ptr(),
                            )
                        }
                    };
                    check(status, &context)?;
                }
            }
            UserTypeKind::Enum { base, members } => {
                for (member, value) in members {
                    let mname = c_name(member, &context)?;
                    let bytes = value.to_ne_bytes();
                    let n = base.size();
                    let start = if cfg!(target_endian = "big") {
                        16 - n
                    } else {
                        0
                    };
                    let mut raw = [0u8; 8];
                    raw[..n].copy_from_slice(&bytes[start..start + n]);
                    let status =
                        unsafe { nc_insert_enum(ncid, xtype, mname.as_ptr(), raw.as_ptr().cast()) };
                    check(status, &context)?;
                }
            }
            _ => {}
        }
        self.types.insert(user.id.0, xtype);
        Ok(())
    }

    fn define_contents(
        &mut self,
        group: &Group,
        path: &mut Vec<String>,
        group_ids: &HashMap<Vec<String>, c_int>,
        netcdf4: bool,
    ) -> Result<(), NcError> {
        let ncid = group_ids.get(path.as_slice()).copied().unwrap_or(self.ncid);
        for dim in &group.dims {
            let name = c_name(&dim.name, self.context("dimension name"))?;
            let len = if dim.unlimited { NC_UNLIMITED } else { dim.len };
            let mut dimid: c_int = -1;
            // SAFETY: valid name and out-pointer.
            let status = unsafe { nc_def_dim(ncid, name.as_ptr(), len, &mut dimid) };
            check(
                status,
                self.context(&format!("defining dimension {}", dim.name)),
            )?;
            self.dims.insert(dim.id, dimid);
        }
        for var in &group.vars {
            let full: String = path.iter().map(|g| format!("/{g}")).collect();
            let full = format!("{full}/{}", var.name);
            let varid = self.define_var(ncid, var, &full, netcdf4)?;
            let slot = VarSlot {
                ncid,
                varid,
                type_ref: var.type_ref,
            };
            self.vars.insert((path.clone(), var.name.clone()), slot);
        }
        for att in &group.atts {
            self.put_attribute(ncid, NC_GLOBAL, att)?;
        }
        for child in &group.groups {
            path.push(child.name.clone());
            self.define_contents(child, path, group_ids, netcdf4)?;
            path.pop();
        }
        Ok(())
    }

    fn define_var(
        &mut self,
        ncid: c_int,
        var: &Var,
        full_path: &str,
        netcdf4: bool,
    ) -> Result<c_int, NcError> {
        let context = self.context(&format!("defining variable {full_path}"));
        let name = c_name(&var.name, &context)?;
        let dims: Vec<c_int> = var
            .dim_ids
            .iter()
            .map(|d| self.dims.get(d).copied().unwrap_or(-1))
            .collect();
        let mut varid: c_int = -1;
        // SAFETY: valid name, dimension array and out-pointer.
        let status = unsafe {
            nc_def_var(
                ncid,
                name.as_ptr(),
                self.file_type(var.type_ref),
                dims.len() as c_int,
                dims.as_ptr(),
                &mut varid,
            )
        };
        check(status, &context)?;
        // Storage first: turning fill off after `_FillValue` is written would delete it.
        if let (true, Some(storage)) = (netcdf4, &var.storage) {
            define_storage(ncid, varid, storage, &context)?;
        }
        for att in &var.atts {
            self.put_attribute(ncid, varid, att)?;
        }
        Ok(varid)
    }

    fn put_attribute(&self, ncid: c_int, varid: c_int, att: &Attribute) -> Result<(), NcError> {
        let context = self.context(&format!("writing attribute {}", att.name));
        let name = c_name(&att.name, &context)?;
        let len = att.values.len();
        // SAFETY (all branches): the buffers hold `len` values of the attribute's type.
        let status = match &att.values {
            Values::Char(text) => unsafe {
                nc_put_att_text(ncid, varid, name.as_ptr(), text.len(), text.as_ptr().cast())
            },
            Values::String(strings) => {
                // A NULL string (CDL's NIL) is written as a NULL pointer.
                let owned: Vec<Option<CString>> = strings
                    .iter()
                    .map(|s| s.clone().map(|b| CString::new(b).unwrap_or_default()))
                    .collect();
                let mut pointers: Vec<*const c_char> = owned
                    .iter()
                    .map(|s| s.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
                    .collect();
                unsafe { nc_put_att_string(ncid, varid, name.as_ptr(), len, pointers.as_mut_ptr()) }
            }
            values => {
                let encoded = self.layouts.encode(att.type_ref, values);
                let xtype = self.file_type(att.type_ref);
                unsafe { nc_put_att(ncid, varid, name.as_ptr(), xtype, len, encoded.as_ptr()) }
            }
        };
        check(status, &context)
    }

    /// Writes the hyperslab `start`/`count` of the variable `name` of the group at
    /// `group_path` (empty for the root).
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
                code: -49,
                message: "no such variable".into(),
                context: format!("{}: writing {name}", self.target),
            });
        };
        let encoded = self.layouts.encode(slot.type_ref, values);
        let context = self.context(&format!("writing variable {name}"));
        locked(|| {
            // SAFETY: the buffer holds count's product of values of the variable's type.
            let status = unsafe {
                nc_put_vara(
                    slot.ncid,
                    slot.varid,
                    start.as_ptr(),
                    count.as_ptr(),
                    encoded.as_ptr(),
                )
            };
            check(status, &context)
        })
    }

    /// Closes the file and moves it to its name.
    pub fn finish(mut self) -> Result<(), NcError> {
        self.finished = true;
        // SAFETY: ncid is open and closed once.
        let status = locked(|| unsafe { nc_close(self.ncid) });
        check(status, self.context("closing"))?;
        if let Some(temp) = &self.temp {
            std::fs::rename(temp, &self.target).map_err(|e| NcError {
                code: -31,
                message: e.to_string(),
                context: format!("{}: moving the finished file into place", self.target),
            })?;
        }
        Ok(())
    }
}

impl Drop for NcWriter {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // SAFETY: ncid is open; abort closes it without keeping the file.
        let _ = locked(|| unsafe { nc_abort(self.ncid) });
        if let Some(temp) = &self.temp {
            let _ = std::fs::remove_file(temp);
        }
    }
}

fn define_storage(
    ncid: c_int,
    varid: c_int,
    storage: &Storage,
    context: &dyn Fn() -> String,
) -> Result<(), NcError> {
    // SAFETY (all calls): plain calls on a variable in define mode with valid arrays.
    match &storage.layout {
        Layout::Contiguous => check(
            unsafe { nc_def_var_chunking(ncid, varid, 1, std::ptr::null()) },
            context,
        )?,
        Layout::Compact => check(
            unsafe { nc_def_var_chunking(ncid, varid, 2, std::ptr::null()) },
            context,
        )?,
        Layout::Chunked(sizes) => {
            // No sizes: the library's default chunk sizes.
            let sizes_ptr = if sizes.is_empty() {
                std::ptr::null()
            } else {
                sizes.as_ptr()
            };
            check(
                unsafe { nc_def_var_chunking(ncid, varid, 0, sizes_ptr) },
                context,
            )?
        }
        Layout::Other => {}
    }
    for filter in &storage.filters {
        let status = unsafe {
            nc_def_var_filter(
                ncid,
                varid,
                filter.id as c_uint,
                filter.params.len(),
                filter.params.as_ptr(),
            )
        };
        check(status, || format!("{}: filter {}", context(), filter.id))?;
    }
    match storage.endianness {
        Endianness::Little => check(unsafe { nc_def_var_endian(ncid, varid, 1) }, context)?,
        Endianness::Big => check(unsafe { nc_def_var_endian(ncid, varid, 2) }, context)?,
        Endianness::Native => {}
    }
    if storage.no_fill {
        check(
            unsafe { nc_def_var_fill(ncid, varid, 1, std::ptr::null()) },
            context,
        )?;
    }
    if let Some(q) = storage.quantize {
        let mode = match q.mode {
            QuantizeMode::BitGroom => 1,
            QuantizeMode::GranularBitRound => 2,
            QuantizeMode::BitRound => 3,
        };
        check(
            unsafe { nc_def_var_quantize(ncid, varid, mode, q.nsd) },
            context,
        )?;
    }
    Ok(())
}
