//! Where each variable's values lie in the file, worked out from the header and checked:
//! no size overflows, no data inside the header, and the file long enough for all of it.

use crate::error::ClassicError;
use crate::header::Header;

/// Where one variable's values lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarLayout {
    /// Its shape, the record dimension (if any) at its current length.
    pub shape: Vec<u64>,
    /// Whether its first dimension is the record dimension.
    pub is_record: bool,
    /// The size of one value.
    pub element_size: u64,
    /// The bytes of its values in one record (a record variable) or in all (a fixed one).
    pub slice_bytes: u64,
    /// Where its values (its first record's) start.
    pub begin: u64,
}

/// How much of the data a file cut short lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missing {
    /// The length the header requires.
    pub expected: u64,
    /// The file's length.
    pub actual: u64,
}

/// The layout of every variable, the record size and the length the file must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileLayout {
    /// Per variable, in id order.
    pub vars: Vec<VarLayout>,
    /// The number of records.
    pub numrecs: u64,
    /// The distance from one record to the next.
    pub recsize: u64,
    /// The smallest length that holds every value.
    pub required_len: u64,
}

fn overflow(header: &Header, var: usize) -> ClassicError {
    let v = &header.vars[var];
    ClassicError::header(
        v.entry_offset,
        format!("variable {} is too large: its size overflows", v.name),
    )
}

impl FileLayout {
    /// Works out the layout of `header`'s variables in a file of `file_len` bytes.
    pub(crate) fn new(header: &Header, file_len: u64) -> Result<Self, ClassicError> {
        let mut vars = Vec::with_capacity(header.vars.len());
        for (i, var) in header.vars.iter().enumerate() {
            let is_record = var
                .dim_ids
                .first()
                .is_some_and(|&d| header.dims.get(d).is_some_and(|d| d.len == 0));
            let element_size = var.atomic_type.size() as u64;
            let mut slice_bytes = element_size;
            for &d in var.dim_ids.iter().skip(usize::from(is_record)) {
                let len = header.dims.get(d).map_or(0, |d| d.len);
                slice_bytes = slice_bytes
                    .checked_mul(len)
                    .ok_or_else(|| overflow(header, i))?;
            }
            if var.begin < header.len {
                return Err(ClassicError::header(
                    var.entry_offset,
                    format!(
                        "the data of variable {} would start at byte {}, inside the header \
                         (which ends at byte {})",
                        var.name, var.begin, header.len
                    ),
                ));
            }
            vars.push(VarLayout {
                shape: Vec::new(),
                is_record,
                element_size,
                slice_bytes,
                begin: var.begin,
            });
        }
        let record_vars: Vec<usize> = (0..vars.len()).filter(|&i| vars[i].is_record).collect();
        let mut recsize: u64 = 0;
        for &i in &record_vars {
            let padded = vars[i]
                .slice_bytes
                .checked_next_multiple_of(4)
                .ok_or_else(|| overflow(header, i))?;
            recsize = recsize
                .checked_add(padded)
                .ok_or_else(|| overflow(header, i))?;
        }
        // A lone record variable (or one with all the record's bytes) is not padded: its
        // records follow one another with no gap.
        if let Some(&first) = record_vars.first() {
            if recsize == vars[first].slice_bytes.next_multiple_of(4) {
                recsize = vars[first].slice_bytes;
            }
        }
        let begin_rec = record_vars.iter().map(|&i| vars[i].begin).min();
        let numrecs = match (header.numrecs, begin_rec) {
            (Some(n), _) => n,
            (None, Some(begin)) if recsize > 0 => file_len.saturating_sub(begin) / recsize,
            (None, _) => 0,
        };
        let mut required_len = header.len;
        for (i, v) in vars.iter().enumerate() {
            let end = if v.is_record {
                if numrecs == 0 || v.slice_bytes == 0 {
                    continue;
                }
                (numrecs - 1)
                    .checked_mul(recsize)
                    .and_then(|r| r.checked_add(v.begin))
                    .and_then(|r| r.checked_add(v.slice_bytes))
            } else {
                if v.slice_bytes == 0 {
                    continue;
                }
                v.begin.checked_add(v.slice_bytes)
            };
            required_len = required_len.max(end.ok_or_else(|| overflow(header, i))?);
        }
        for (var, layout) in header.vars.iter().zip(vars.iter_mut()) {
            layout.shape = var
                .dim_ids
                .iter()
                .map(|&d| match header.dims.get(d).map_or(0, |d| d.len) {
                    0 => numrecs,
                    len => len,
                })
                .collect();
        }
        Ok(Self {
            vars,
            numrecs,
            recsize,
            required_len,
        })
    }
}
