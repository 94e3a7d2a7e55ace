//! An open netCDF file: the entry point of reading.

use std::ffi::{c_int, CStr, CString};
use std::path::Path;
use std::sync::OnceLock;

use ncmodel::{Dataset, UserType, Values, Var};
use netcdf_sys::NC_NOWRITE;

use crate::error::NcError;
use crate::sys::{self, refusal_before_open, with_lib, NameCapacity, OpenFile, Refusal, TypeTable};

/// A netCDF file opened for reading. Closed when dropped.
#[derive(Debug)]
pub struct NcFile {
    file: OpenFile,
    path: String,
    /// The file's user types, read once: values are decoded only with the file's own
    /// layouts, never with types a caller passes in.
    types: OnceLock<Vec<UserType>>,
    /// The variables whose chunks are decoded here, found on first read.
    chunked: crate::chunk_read::ChunkedVars,
    /// The string variables read as HDF5 fixed-length strings, found on first read.
    hdf5_strings: crate::string_read::HdfStringVars,
    /// The ids of the variables named so far by path.
    var_ids: crate::var_ids::VarIds,
}

/// The largest classic file whose malformed header is still handed to libnetcdf. It pads
/// what is missing past the end of a file with zeros and opens headers cut short (as the
/// reference ncdump does), so a name it copies is never longer than the file: names are
/// read into buffers that large.
const LENIENT_CLASSIC_BYTES: u64 = 16 << 20;

/// How large names read from `path` can be: for a classic file, from its header.
fn name_capacity(path: &str) -> Result<NameCapacity, NcError> {
    if store::is_url(path) {
        // A store on disk: its largest metadata file bounds its names. Other URLs (remote
        // stores, DAP) keep the netCDF-4 bound.
        let largest = crate::zarr_names::store_directory(path)
            .map_or(0, |dir| crate::zarr_names::largest_metadata(&dir));
        return Ok(NameCapacity::at_least(largest));
    }
    // libnetcdf opens the file by its path and would wait on a FIFO for a writer: a
    // path that is not a regular file is refused before it sees it.
    if let Err(e) = kv::input_file::open_regular_file(Path::new(path)) {
        if kv::input_file::is_not_regular(&e) {
            return Err(NcError {
                kind: store::ErrorKind::InvalidRequest,
                message: kv::input_file::NOT_REGULAR_FILE.into(),
                context: path.to_string(),
            });
        }
    }
    match crate::classic_names::longest_classic_name(Path::new(path)) {
        Ok(Some(longest)) => Ok(NameCapacity::classic(longest)),
        Ok(None) => Ok(NameCapacity::NETCDF4),
        Err(malformed) => {
            let len = std::fs::metadata(path).map_or(u64::MAX, |m| m.len());
            match usize::try_from(len) {
                Ok(len) if len as u64 <= LENIENT_CLASSIC_BYTES => Ok(NameCapacity::classic(len)),
                _ => Err(NcError {
                    kind: store::ErrorKind::NotNetcdf,
                    message: format!("not a valid netCDF file: {malformed}"),
                    context: path.to_string(),
                }),
            }
        }
    }
}

/// Why the local file `path` is refused before libnetcdf opens it: an object that makes
/// HDF5 read another file, variable-length attributes that would take more than
/// [`crate::string_read::variable_length_budget`] once read, or a variable stored twice.
fn refusal_before(path: &str, c_path: &CStr) -> Option<NcError> {
    let budget = crate::string_read::variable_length_budget(path);
    let (kind, message) = match with_lib(|lib| refusal_before_open(lib, c_path, budget))? {
        Refusal::ReachesAnotherFile(what) => (
            store::ErrorKind::Unsupported,
            format!(
                "{what}: it makes HDF5 read another file, which nctools refuses (a file \
                 could name any file the tool can read, its environment included); copy \
                 the data into the file itself"
            ),
        ),
        Refusal::SoftLink(what) => (
            store::ErrorKind::Unsupported,
            format!(
                "{what}: a soft link, which no netCDF library writes: libnetcdf reads what \
                 it names once more for each (a link to a group above it for ever), so \
                 nctools refuses the file"
            ),
        ),
        Refusal::LinkedTwice(what) => (
            store::ErrorKind::Corrupt,
            format!(
                "{what}: libnetcdf would read it once per link (a group's whole tree \
                 each time), which no netCDF library writes: the file is probably corrupt \
                 or hostile"
            ),
        ),
        Refusal::TwoDatasets(what) => (
            store::ErrorKind::Corrupt,
            format!(
                "variable {what} is stored twice (as {what} and with libnetcdf's \
                 `_nc4_non_coord_` prefix), which no netCDF library writes: the file is \
                 probably corrupt or hostile"
            ),
        ),
        Refusal::Sparse(holes) => (
            store::ErrorKind::Corrupt,
            format!(
                "the file has {holes} bytes of holes (a sparse file), which no netCDF \
                 library writes, so it is probably corrupt or hostile: HDF5 would take the \
                 holes for data, trusting the sizes it reads as far as the file's length. \
                 nctools refuses netCDF-4/HDF5 files with more than 64 MiB of holes; for a \
                 file you trust, copy it whole first (cp --sparse=never)"
            ),
        ),
        Refusal::Unopenable => (
            store::ErrorKind::Corrupt,
            "HDF5 finds its signature but cannot open it: it is cut short, its superblock \
             or root group is damaged, or a program writing it holds its lock"
                .to_string(),
        ),
        Refusal::FilteredHeap(what) => (
            store::ErrorKind::Corrupt,
            format!(
                "{what}; HDF5 is not asked to read it: the file is probably corrupt or \
                 hostile"
            ),
        ),
        Refusal::BadReference(what) => (
            store::ErrorKind::Corrupt,
            format!(
                "attribute {what}; HDF5 is not asked to read it: the file is probably \
                 corrupt or hostile"
            ),
        ),
        Refusal::OversizedAttributes(what) => (
            store::ErrorKind::Corrupt,
            format!(
                "attribute {what} (as nctools holds them decoded), more than a file of \
                 this size can hold: the file is probably corrupt or hostile"
            ),
        ),
    };
    Some(NcError {
        kind,
        message,
        context: path.to_string(),
    })
}

/// Whether `path` is a URL libnetcdf would read with its DAP4 client: the scheme `dap4`
/// (`dap4s`), or the word `dap4` in its fragment (`#dap4`, `#mode=dap4`,
/// `#protocol=dap4`).
fn is_dap4_url(path: &str) -> bool {
    if !store::is_url(path) {
        return false;
    }
    let lower = path.to_ascii_lowercase();
    if lower.starts_with("dap4:") || lower.starts_with("dap4s:") {
        return true;
    }
    lower.split_once('#').is_some_and(|(_, fragment)| {
        fragment
            .split(['&', ',', '=', '#'])
            .any(|word| word.trim() == "dap4")
    })
}

impl NcFile {
    /// Opens `path` (a file path or an NCZarr URL) read-only.
    pub fn open(path: &str) -> Result<Self, NcError> {
        Self::open_with(path, false)
    }

    /// Like [`NcFile::open`]; with `in_memory`, the whole file is read into memory first
    /// (nccopy's `-r`).
    pub fn open_with(path: &str, in_memory: bool) -> Result<Self, NcError> {
        let mode = NC_NOWRITE
            | if in_memory {
                netcdf_sys::NC_DISKLESS
            } else {
                0
            };
        let c_path = CString::new(path).map_err(|_| NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: "path contains a NUL byte".into(),
            context: path.to_string(),
        })?;
        // What libnetcdf would act on at once is checked before it reads the file.
        if !store::is_url(path) {
            if let Some(refusal) = refusal_before(path, &c_path) {
                return Err(refusal);
            }
        }
        if is_dap4_url(path) {
            return Err(NcError {
                kind: store::ErrorKind::Unsupported,
                message: "nctools does not read DAP4 URLs: libnetcdf's DAP4 client reads \
                          past the data a server sends when the server turns its checksums \
                          off (it printed the process's memory as values, exit 0); read the \
                          dataset through its DAP2 URL (no `dap4` in it), or download it"
                    .into(),
                context: store::redact_url(path),
            });
        }
        let names = name_capacity(path)?;
        if store::is_url(path) {
            // libnetcdf's DAP client reports some failures only on standard error.
            sys::library_stderr::catch_from_now_on();
        }
        let file = with_lib(|lib| OpenFile::open(lib, &c_path, mode, names));
        let file = file.map_err(|code| crate::error::from_status(code, path.to_string()))?;
        Ok(Self {
            file,
            path: path.to_string(),
            types: OnceLock::new(),
            chunked: Default::default(),
            hdf5_strings: Default::default(),
            var_ids: Default::default(),
        })
    }

    /// The path or URL the file was opened with.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// libnetcdf's id of the root group.
    pub fn ncid(&self) -> c_int {
        self.file.raw_id()
    }

    /// Whether HDF5's stored chunks can be read from this file as they are: a file on
    /// disk, not a URL (DAP, byte ranges) libnetcdf reads for us.
    pub fn hands_out_stored_chunks(&self) -> bool {
        !store::is_url(self.path())
    }

    /// Whether the filter `id` can be used here (built into HDF5, registered, or found as a
    /// plugin); see [`crate::filter_available`].
    pub fn filter_available(&self, id: u32) -> bool {
        crate::plugins::filter_available(id)
    }

    /// The open file, for the readers of this crate.
    pub(crate) fn open_file(&self) -> &OpenFile {
        &self.file
    }

    /// The ids of the variables named so far by path.
    pub(crate) fn var_id_cache(&self) -> &crate::var_ids::VarIds {
        &self.var_ids
    }

    /// The variables whose chunks are decoded here.
    pub(crate) fn chunked_vars(&self) -> &crate::chunk_read::ChunkedVars {
        &self.chunked
    }

    /// The string variables read with HDF5 (fixed-length strings), found on first read.
    pub(crate) fn hdf5_string_vars(&self) -> &crate::string_read::HdfStringVars {
        &self.hdf5_strings
    }

    /// The file's user types, read on first use.
    pub(crate) fn user_types(&self) -> Result<&[UserType], NcError> {
        if let Some(types) = self.types.get() {
            return Ok(types);
        }
        let types = with_lib(|lib| crate::schema::read_types(lib, &self.file, &self.path))?;
        Ok(self.types.get_or_init(|| types))
    }

    /// libnetcdf's extended format of the file (`NC_FORMATX_NC3`, `NC_FORMATX_NC_HDF5`,
    /// `NC_FORMATX_DAP2`, ...) and the mode it was opened with, as
    /// `nc_inq_format_extended` gives them (what `ncdump -K` prints).
    pub fn extended_format(&self) -> Result<(c_int, c_int), NcError> {
        let context = || format!("{}: format", self.path);
        with_lib(|lib| {
            let (_, formatx, mode) = sys::inquire::format(lib, self.file.root(), &context)?;
            Ok((formatx, mode))
        })
    }

    /// Reads the whole schema: groups, dimensions, types, variables, attributes, storage,
    /// and the virtual global attributes but `_IsNetcdf4` (see
    /// [`NcFile::is_netcdf4_attribute`]).
    pub fn schema(&self) -> Result<Dataset, NcError> {
        let types = self.user_types()?.to_vec();
        with_lib(|lib| crate::schema::read_dataset(lib, &self.file, types, &self.path))
    }

    /// The virtual global attribute `_IsNetcdf4` of a netCDF-4 file (what `ncdump -s`
    /// prints), which [`NcFile::schema`] leaves out: libnetcdf reads every attribute of the
    /// file to answer it.
    pub fn is_netcdf4_attribute(&self) -> Option<i32> {
        let types = self.user_types().ok()?;
        let context = || self.path.clone();
        with_lib(|lib| {
            let table = TypeTable::new(types, &context).ok()?;
            crate::schema::read_global_int(lib, table, self.file.root(), "_IsNetcdf4", &self.path)
        })
    }

    /// Reads the hyperslab `start`/`count` of `var` (in group `group_ncid`) in row-major
    /// order. A scalar variable takes empty `start` and `count`. The group must be one of
    /// this file's, and the variable's type, rank and the hyperslab are checked against
    /// what libnetcdf reports before anything is read; values are decoded with the file's
    /// own type layouts (`_dataset` is not trusted for them).
    pub fn read_slab(
        &self,
        _dataset: &Dataset,
        group_ncid: c_int,
        var: &Var,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, NcError> {
        let context = || format!("{}: reading variable {}", self.path, var.name);
        let numbers =
            matches!(var.type_ref, ncmodel::TypeRef::Atomic(a) if a != ncmodel::AtomicType::String);
        if !numbers {
            // HDF5 reads these: their chunks are checked first (none is decoded here).
            self.read_decoded(group_ncid, var.id, start, count)?;
        }
        if var.type_ref == ncmodel::TypeRef::Atomic(ncmodel::AtomicType::String) {
            if let Some(read) = self.read_hdf5_strings(group_ncid, var.id, start, count, &context) {
                return read;
            }
        }
        if let ncmodel::TypeRef::Atomic(atomic) = var.type_ref {
            if let Some(bytes) = self.read_decoded(group_ncid, var.id, start, count)? {
                if let Some(values) = Values::from_native_bytes(atomic, &bytes) {
                    return Ok(values);
                }
            }
        }
        let pieces =
            crate::read_pieces::pieces(start, count, &self.chunk_shape(group_ncid, var.id));
        if pieces.len() > 1 {
            // Each piece read, then appended to the ones before (row-major order).
            let mut all: Option<Values> = None;
            for (piece_start, piece_count) in &pieces {
                let piece = self.read_slab(_dataset, group_ncid, var, piece_start, piece_count)?;
                match &mut all {
                    None => all = Some(piece),
                    Some(all) => {
                        if !all.extend_from(&piece) {
                            return Err(NcError {
                                kind: store::ErrorKind::Corrupt,
                                message: "pieces of one read came back as different types".into(),
                                context: context(),
                            });
                        }
                    }
                }
            }
            if let Some(all) = all {
                return Ok(all);
            }
        }
        if matches!(var.type_ref, ncmodel::TypeRef::User(_)) {
            self.measure_hdf5_values(group_ncid, var.id, start, count, &context)?;
        }
        let types = self.user_types()?;
        let grp = self.file.group(group_ncid).ok_or_else(|| NcError {
            kind: store::ErrorKind::InvalidRequest,
            message: format!("group id {group_ncid} is not one of this file's"),
            context: context(),
        })?;
        with_lib(|lib| {
            let table = TypeTable::new(types, &context)?;
            table.get_vara(lib, grp, var.id, var.type_ref, start, count, &context)
        })
    }
}
