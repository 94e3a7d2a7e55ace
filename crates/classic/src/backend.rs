//! The classic reader behind the storage boundary.

use ncmodel::{AtomicType, Dataset, TypeRef, Values};
use store::{ErrorKind, RawBuffer, StoreError, StoreReader, VarPath};

use crate::error::ClassicError;
use crate::file::ClassicFile;

/// The capabilities of a netCDF classic file read by this backend: no stored chunks to
/// hand out, no codecs.
pub fn capabilities() -> store::Capabilities {
    let mut caps = store::Capabilities::new(
        "a netCDF classic file",
        std::sync::Arc::new(store::NoCodecs {
            remedy: "netCDF classic files hold no filters; write netCDF-4 (-k nc4)",
        }),
    );
    caps.chunks = store::ChunkForm::None;
    caps
}

impl ClassicFile {
    fn store_error(&self, e: ClassicError, context: String) -> StoreError {
        let kind = match &e {
            ClassicError::BadRequest(_) => ErrorKind::InvalidRequest,
            ClassicError::Truncated { .. } | ClassicError::Header { .. } => ErrorKind::Corrupt,
            ClassicError::Io(io) => ErrorKind::System {
                errno: io.raw_os_error(),
            },
            ClassicError::NotClassic => ErrorKind::NotNetcdf,
        };
        StoreError::new(kind, e.to_string(), context)
    }

    fn values_len(count: &[usize]) -> usize {
        count.iter().product()
    }

    /// The index in the header of the variable `path` names (a classic file has only the
    /// root group); `usize::MAX`, which no read accepts, when there is none.
    fn index_of(&self, path: &VarPath) -> usize {
        if !path.groups.is_empty() {
            return usize::MAX;
        }
        self.header()
            .vars
            .iter()
            .position(|v| v.name == path.name)
            .unwrap_or(usize::MAX)
    }
}

impl StoreReader for ClassicFile {
    fn path(&self) -> &str {
        ClassicFile::path(self)
    }

    fn capabilities(&self) -> store::Capabilities {
        capabilities()
    }

    fn schema(&self) -> Result<Dataset, StoreError> {
        Ok(self.dataset())
    }

    fn read_slab(
        &self,
        dataset: &Dataset,
        path: &VarPath,
        start: &[usize],
        count: &[usize],
    ) -> Result<Values, StoreError> {
        let context = || format!("{}: reading variable {}", self.path(), path.name);
        let Some((_, var)) = dataset.var_at(path) else {
            return Err(StoreError::new(
                ErrorKind::NotFound,
                format!("no variable {path}"),
                context(),
            ));
        };
        let TypeRef::Atomic(t) = var.type_ref else {
            return Err(StoreError::new(
                ErrorKind::InvalidRequest,
                "a classic file has no user-defined types",
                context(),
            ));
        };
        let index = usize::try_from(var.id).unwrap_or(usize::MAX);
        let n = Self::values_len(count);
        // Read straight into the typed array: no second copy.
        macro_rules! typed {
            ($variant:ident, $zero:expr) => {{
                let mut v = vec![$zero; n];
                self.read_native(index, start, count, bytemuck::cast_slice_mut(&mut v))
                    .map_err(|e| self.store_error(e, context()))?;
                Values::$variant(v)
            }};
        }
        Ok(match t {
            AtomicType::Byte => typed!(Byte, 0i8),
            AtomicType::Char => typed!(Char, 0u8),
            AtomicType::UByte => typed!(UByte, 0u8),
            AtomicType::Short => typed!(Short, 0i16),
            AtomicType::UShort => typed!(UShort, 0u16),
            AtomicType::Int => typed!(Int, 0i32),
            AtomicType::UInt => typed!(UInt, 0u32),
            AtomicType::Int64 => typed!(Int64, 0i64),
            AtomicType::UInt64 => typed!(UInt64, 0u64),
            AtomicType::Float => typed!(Float, 0f32),
            AtomicType::Double => typed!(Double, 0f64),
            AtomicType::String => {
                return Err(StoreError::new(
                    ErrorKind::InvalidRequest,
                    "not a fixed-size type",
                    context(),
                ))
            }
        })
    }

    fn read_raw(
        &self,
        var: &VarPath,
        start: &[usize],
        count: &[usize],
        buffer: &mut RawBuffer,
    ) -> Result<(), StoreError> {
        let index = self.index_of(var);
        let context = || format!("{}: reading variable {}", self.path(), var.name);
        let size = self
            .var_layout(index)
            .map_or(0, |l| usize::try_from(l.element_size).unwrap_or(0));
        buffer.resize(Self::values_len(count).saturating_mul(size));
        self.read_native(index, start, count, buffer.as_bytes_mut())
            .map_err(|e| self.store_error(e, context()))
    }

    fn filter_available(&self, _id: u32) -> bool {
        false
    }

    fn filter_remedy(&self) -> String {
        "classic files have no filters".to_string()
    }

    fn stored_sizes(&self, vars: &[VarPath]) -> Vec<Option<u64>> {
        vec![None; vars.len()]
    }
}
