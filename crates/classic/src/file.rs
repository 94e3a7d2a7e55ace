//! An open classic file: its header, the layout of its variables and reads of hyperslabs.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use ncmodel::{AtomicType, Attribute, Dataset, Dim, Group, TypeRef, Values, Var};

use crate::error::ClassicError;
use crate::header::{Header, HeaderAttribute, Stop};
use crate::layout::{FileLayout, Missing, VarLayout};
use crate::values::big_endian_to_native;

/// How to open a classic file.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenOptions {
    /// Read the whole file into memory first.
    pub in_memory: bool,
    /// Accept a file shorter than its header requires: the values past its end read as
    /// fill values (see [`ClassicFile::missing`]).
    pub fill_missing: bool,
}

/// Where the bytes come from.
#[derive(Debug)]
enum Source {
    File(File),
    Memory(Vec<u8>),
}

impl Source {
    /// Reads into `buf` from `offset`, up to the end of the file; returns the bytes read.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Self::File(file) => {
                let mut done = 0;
                while done < buf.len() {
                    match file.read_at(&mut buf[done..], offset + done as u64) {
                        Ok(0) => break,
                        Ok(n) => done += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(done)
            }
            Self::Memory(bytes) => {
                let from = usize::try_from(offset)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                let n = buf.len().min(bytes.len() - from);
                buf[..n].copy_from_slice(&bytes[from..from + n]);
                Ok(n)
            }
        }
    }
}

/// A classic file open for reading.
#[derive(Debug)]
pub struct ClassicFile {
    path: String,
    source: Source,
    header: Header,
    layout: FileLayout,
    missing: Option<Missing>,
}

/// The most bytes a file read into memory whole may hold beyond what it stores.
const MAX_IN_MEMORY_HOLES: u64 = 64 << 20;

/// The first read of a header; more is read if it is longer.
const FIRST_HEADER_READ: usize = 64 * 1024;

impl ClassicFile {
    /// Opens the classic file at `path`, parsing and checking its header; an error if the
    /// header does not add up, or if the file is shorter than the header requires (unless
    /// `options.fill_missing`).
    pub fn open(path: &Path, options: OpenOptions) -> Result<Self, ClassicError> {
        let mut file = kv::input_file::open_regular_file(path)?;
        let source = if options.in_memory {
            // Read whole only what the file stores: a sparse file's holes cost nothing to
            // make (before, `nccopy -r` of 4 KB stored, 1.5 GB long, took 1.5 GB).
            let metadata = file.metadata()?;
            let stored = std::os::unix::fs::MetadataExt::blocks(&metadata).saturating_mul(512);
            let holes = metadata.len().saturating_sub(stored);
            if holes > MAX_IN_MEMORY_HOLES {
                return Err(ClassicError::BadRequest(format!(
                    "the file is {} bytes long but stores {stored} (a sparse file, or a \
                     compressing file system): it is not read into memory whole; copy it \
                     without -r",
                    metadata.len()
                )));
            }
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            Source::Memory(bytes)
        } else {
            Source::File(file)
        };
        Self::with_source(path.to_string_lossy().into_owned(), source, options)
    }

    /// Reads the classic file held by `bytes`, named `name` in messages, as [`open`]
    /// does a file on disk (`options.in_memory` does not matter).
    ///
    /// [`open`]: ClassicFile::open
    pub fn from_bytes(
        name: &str,
        bytes: Vec<u8>,
        options: OpenOptions,
    ) -> Result<Self, ClassicError> {
        Self::with_source(name.to_string(), Source::Memory(bytes), options)
    }

    fn with_source(
        path: String,
        source: Source,
        options: OpenOptions,
    ) -> Result<Self, ClassicError> {
        let file_len = match &source {
            Source::File(f) => f.metadata()?.len(),
            Source::Memory(b) => b.len() as u64,
        };
        let header = read_header(&source, file_len)?;
        let layout = FileLayout::new(&header, file_len)?;
        let missing = (layout.required_len > file_len).then_some(Missing {
            expected: layout.required_len,
            actual: file_len,
        });
        if let (Some(m), false) = (missing, options.fill_missing) {
            return Err(ClassicError::Truncated {
                expected: m.expected,
                actual: m.actual,
            });
        }
        Ok(Self {
            path,
            source,
            header,
            layout,
            missing,
        })
    }

    /// The path the file was opened with.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// How much the file lacks, when it was opened with [`OpenOptions::fill_missing`] and
    /// is shorter than its header requires.
    pub fn missing(&self) -> Option<Missing> {
        self.missing
    }

    /// The layout of the variable `var` (its index).
    pub fn var_layout(&self, var: usize) -> Option<&VarLayout> {
        self.layout.vars.get(var)
    }

    /// The dataset's schema, with the record dimension at its current length.
    pub fn dataset(&self) -> Dataset {
        let atts = |list: &[HeaderAttribute]| -> Vec<Attribute> {
            list.iter()
                .map(|a| Attribute {
                    name: a.name.clone(),
                    type_ref: TypeRef::Atomic(a.atomic_type),
                    values: a.values.clone(),
                })
                .collect()
        };
        let dims = self
            .header
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| Dim {
                id: i as i32,
                name: d.name.clone(),
                len: usize::try_from(if d.len == 0 {
                    self.layout.numrecs
                } else {
                    d.len
                })
                .unwrap_or(usize::MAX),
                unlimited: d.len == 0,
            })
            .collect();
        let vars = self
            .header
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| Var {
                id: i as i32,
                name: v.name.clone(),
                type_ref: TypeRef::Atomic(v.atomic_type),
                dim_ids: v.dim_ids.iter().map(|&d| d as i32).collect(),
                atts: atts(&v.atts),
                storage: None,
            })
            .collect();
        Dataset {
            format: self.header.version.format(),
            is_nczarr: false,
            specials: Default::default(),
            types: Vec::new(),
            root: Group {
                ncid: 0,
                name: "/".to_string(),
                dims,
                type_ids: Vec::new(),
                vars,
                atts: atts(&self.header.atts),
                groups: Vec::new(),
            },
        }
    }

    /// Reads the hyperslab `start`/`count` of the variable `var` (its index) into `out`,
    /// in the machine's byte order; `out` must hold exactly the values asked for.
    pub fn read_native(
        &self,
        var: usize,
        start: &[usize],
        count: &[usize],
        out: &mut [u8],
    ) -> Result<(), ClassicError> {
        let (layout, header_var) = match (self.layout.vars.get(var), self.header.vars.get(var)) {
            (Some(l), Some(h)) => (l, h),
            _ => return Err(ClassicError::BadRequest(format!("no variable {var}"))),
        };
        let slab = SlabRequest::new(layout, start, count)
            .map_err(|e| ClassicError::BadRequest(format!("variable {}: {e}", header_var.name)))?;
        if out.len() as u64 != slab.bytes {
            return Err(ClassicError::BadRequest(format!(
                "variable {}: {} bytes asked for {} values",
                header_var.name,
                out.len(),
                slab.values
            )));
        }
        let mut short = false;
        let mut done = 0usize;
        slab.for_each_run(layout, self.layout.recsize, |offset, len| {
            let buf = &mut out[done..done + len];
            let got = self.source.read_at(offset, buf)?;
            if got < len {
                short = true;
                // A value cut in two is missing too.
                let whole = got - got % header_var.atomic_type.size();
                fill_big_endian(&mut buf[whole..], header_var.atomic_type, &header_var.atts);
            }
            done += len;
            Ok(())
        })?;
        if short && self.missing.is_none() {
            return Err(ClassicError::Truncated {
                expected: self.layout.required_len,
                actual: self.source_len(),
            });
        }
        big_endian_to_native(header_var.atomic_type, out);
        Ok(())
    }

    fn source_len(&self) -> u64 {
        match &self.source {
            Source::File(f) => f.metadata().map_or(0, |m| m.len()),
            Source::Memory(b) => b.len() as u64,
        }
    }
}

fn read_header(source: &Source, file_len: u64) -> Result<Header, ClassicError> {
    let mut want = FIRST_HEADER_READ;
    loop {
        let len = usize::try_from(file_len).unwrap_or(usize::MAX).min(want);
        let mut bytes = vec![0; len];
        let got = source.read_at(0, &mut bytes)?;
        bytes.truncate(got);
        match Header::parse_prefix(&bytes, file_len) {
            Ok(header) => return Ok(header),
            Err(Stop::Failed(e)) => return Err(e),
            Err(Stop::NeedMore) if got < len || len as u64 >= file_len => {
                return Err(ClassicError::header(
                    got as u64,
                    "the file ends inside the header",
                ))
            }
            Err(Stop::NeedMore) => want = want.saturating_mul(4),
        }
    }
}

/// Fills `bytes` with the variable's fill value, big-endian: its `_FillValue` if it has
/// one of its type, else the default fill value of the type.
fn fill_big_endian(bytes: &mut [u8], t: AtomicType, atts: &[HeaderAttribute]) {
    let fill = atts
        .iter()
        .find(|a| a.name == "_FillValue" && a.atomic_type == t && a.values.len() == 1)
        .map(|a| a.values.clone())
        .unwrap_or_else(|| Values::default_fill(t));
    let pattern = fill_pattern(&fill);
    if pattern.is_empty() {
        bytes.fill(0);
        return;
    }
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = pattern[i % pattern.len()];
    }
}

/// One fill value's bytes, big-endian.
fn fill_pattern(fill: &Values) -> Vec<u8> {
    match fill {
        Values::Byte(v) => v.iter().map(|x| *x as u8).collect(),
        Values::Char(v) | Values::UByte(v) => v.clone(),
        Values::Short(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::UShort(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::Int(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::UInt(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::Float(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::Double(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::Int64(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::UInt64(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
        Values::String(_) | Values::User(_) => Vec::new(),
    }
}

/// A checked hyperslab of one variable.
struct SlabRequest<'a> {
    start: &'a [usize],
    count: &'a [usize],
    values: u64,
    bytes: u64,
}

impl<'a> SlabRequest<'a> {
    fn new(layout: &VarLayout, start: &'a [usize], count: &'a [usize]) -> Result<Self, String> {
        if start.len() != layout.shape.len() || count.len() != layout.shape.len() {
            return Err(format!(
                "a hyperslab of rank {} for a variable of rank {}",
                start.len(),
                layout.shape.len()
            ));
        }
        let mut values: u64 = 1;
        for ((&s, &c), &len) in start.iter().zip(count).zip(&layout.shape) {
            let end = (s as u64).checked_add(c as u64);
            if end.is_none_or(|e| e > len) {
                return Err(format!("the hyperslab {s}+{c} goes past the length {len}"));
            }
            values = values.saturating_mul(c as u64);
        }
        Ok(Self {
            start,
            count,
            values,
            bytes: values.saturating_mul(layout.element_size),
        })
    }

    /// Calls `run(offset, len)` for each contiguous run of the hyperslab in the file, in
    /// the order of the values.
    fn for_each_run(
        &self,
        layout: &VarLayout,
        recsize: u64,
        mut run: impl FnMut(u64, usize) -> Result<(), ClassicError>,
    ) -> Result<(), ClassicError> {
        if self.values == 0 {
            return Ok(());
        }
        let shape = &layout.shape;
        let rank = shape.len();
        // Strides in bytes within one record (or the whole variable).
        let mut strides = vec![layout.element_size; rank];
        for k in (0..rank.saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * shape[k + 1];
        }
        let first_inner = usize::from(layout.is_record);
        let full = |k: usize| self.start[k] == 0 && self.count[k] as u64 == shape[k];
        // The outermost dimension from which the hyperslab is contiguous (never the
        // record dimension: records are apart).
        let split = if rank <= first_inner {
            rank
        } else {
            let mut s = rank - 1;
            while s > first_inner && full(s) {
                s -= 1;
            }
            s
        };
        let run_len = if split < rank {
            self.count[split] as u64 * strides[split]
        } else {
            layout.element_size
        };
        let run_len = usize::try_from(run_len).map_err(|_| {
            ClassicError::BadRequest("a hyperslab too large for this machine".to_string())
        })?;
        // Odometer over the dimensions before `split`.
        let mut index: Vec<usize> = self.start[..split].to_vec();
        loop {
            let mut offset = layout.begin;
            for (k, &i) in index.iter().enumerate() {
                let step = if layout.is_record && k == 0 {
                    recsize
                } else {
                    strides[k]
                };
                offset += i as u64 * step;
            }
            if split < rank {
                offset += self.start[split] as u64 * strides[split];
            }
            run(offset, run_len)?;
            let mut k = split;
            loop {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
                index[k] += 1;
                if index[k] < self.start[k] + self.count[k] {
                    break;
                }
                index[k] = self.start[k];
            }
        }
    }
}

#[cfg(test)]
mod tests;
