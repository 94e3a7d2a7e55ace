//! ncgen's `_ChunkSizes` attribute checked against its variable's dimensions before
//! anything reaches libnetcdf, whose `nc_def_var_chunking` reads one size per dimension
//! whatever the attribute holds (a short list made it read past the sizes).
//!
//! One positive size per dimension, none larger than a fixed dimension's length. Like
//! the reference, sizes beyond the variable's rank are ignored (the caller warns). Unlike
//! it, 0 is an error: the reference passes it on and the library quietly chooses a size.

use ncmodel::{Dataset, Values, Var};

/// One dimension of a variable, as the checks need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimShape {
    /// The dimension's name.
    pub name: String,
    /// Its length (the current one for an unlimited dimension).
    pub len: usize,
    /// Whether it is unlimited.
    pub unlimited: bool,
}

/// The dimensions of `var`, outermost first (an unknown id is left out; the definition
/// of the variable reports it).
pub fn dim_shapes(dataset: &Dataset, var: &Var) -> Vec<DimShape> {
    var.dim_ids
        .iter()
        .filter_map(|id| dataset.dim(*id))
        .map(|d| DimShape {
            name: d.name.clone(),
            len: d.len,
            unlimited: d.unlimited,
        })
        .collect()
}

/// Chunk sizes that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkSizes {
    /// One size per dimension.
    pub sizes: Vec<usize>,
    /// How many sizes were given beyond the variable's rank (and are ignored).
    pub ignored: usize,
}

/// Why a `_ChunkSizes` value cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkSizesError {
    /// What is wrong.
    pub problem: String,
    /// How to put it right.
    pub hint: Option<String>,
}

fn error(problem: String, hint: String) -> ChunkSizesError {
    ChunkSizesError {
        problem,
        hint: Some(hint),
    }
}

/// The chunk sizes `values` give a variable of dimensions `dims`.
pub fn chunk_sizes(values: &Values, dims: &[DimShape]) -> Result<ChunkSizes, ChunkSizesError> {
    let names = || {
        dims.iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let whole = || {
        dims.iter()
            .map(|d| if d.unlimited { 1 } else { d.len.max(1) }.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let integers = match values {
        Values::Float(_) | Values::Double(_) => None,
        Values::Char(_) | Values::String(_) | Values::User(_) => None,
        _ => (0..values.len())
            .map(|i| values.integer_at(i))
            .collect::<Option<Vec<i128>>>(),
    };
    let Some(integers) = integers else {
        return Err(error(
            "must be integers, one chunk size per dimension".into(),
            format!(
                "for whole dimensions ({}): _ChunkSizes = {} ;",
                names(),
                whole()
            ),
        ));
    };
    if dims.is_empty() {
        return Err(error(
            "a scalar variable has no chunks".into(),
            "remove _ChunkSizes, or give the variable dimensions".into(),
        ));
    }
    if integers.len() < dims.len() {
        return Err(error(
            format!(
                "{} size(s) for the {} dimensions ({}) of the variable",
                integers.len(),
                dims.len(),
                names()
            ),
            format!(
                "give one size per dimension, in order; for whole dimensions: \
                 _ChunkSizes = {} ;",
                whole()
            ),
        ));
    }
    let mut sizes = Vec::with_capacity(dims.len());
    for (size, dim) in integers.iter().zip(dims) {
        let fits = usize::try_from(*size)
            .ok()
            .filter(|s| *s > 0 && (dim.unlimited || *s <= dim.len));
        let Some(size) = fits else {
            return Err(bad_size(*size, dim));
        };
        sizes.push(size);
    }
    Ok(ChunkSizes {
        sizes,
        ignored: integers.len() - dims.len(),
    })
}

/// The error for `size`, which is not a chunk size dimension `dim` can have.
fn bad_size(size: i128, dim: &DimShape) -> ChunkSizesError {
    if size > 0 {
        return error(
            format!(
                "chunk size {size} for dimension {} is larger than its length {}",
                dim.name, dim.len
            ),
            format!("use at most {} for {}", dim.len, dim.name),
        );
    }
    let usual = if dim.unlimited {
        format!("1 is usual for the unlimited {}", dim.name)
    } else {
        format!("{} makes one chunk across {}", dim.len, dim.name)
    };
    error(
        format!(
            "chunk size {size} for dimension {} is not positive",
            dim.name
        ),
        format!("chunk sizes are at least 1; {usual}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(list: &[(&str, usize, bool)]) -> Vec<DimShape> {
        list.iter()
            .map(|&(name, len, unlimited)| DimShape {
                name: name.into(),
                len,
                unlimited,
            })
            .collect()
    }

    fn five() -> Vec<DimShape> {
        dims(&[
            ("a", 2, false),
            ("b", 3, false),
            ("c", 4, false),
            ("d", 5, false),
            ("e", 6, false),
        ])
    }

    #[test]
    fn one_size_per_dimension_passes() {
        let got = chunk_sizes(&Values::Int(vec![1, 2, 3, 4, 5]), &five());
        assert_eq!(
            got,
            Ok(ChunkSizes {
                sizes: vec![1, 2, 3, 4, 5],
                ignored: 0
            })
        );
        let unlimited = dims(&[("t", 0, true), ("x", 10, false)]);
        let got = chunk_sizes(&Values::Int(vec![1024, 10]), &unlimited);
        assert_eq!(got.map(|c| c.sizes), Ok(vec![1024, 10]));
    }

    #[test]
    fn fewer_sizes_than_dimensions_are_an_error() {
        let got = chunk_sizes(&Values::Int(vec![1]), &five());
        let e = got.err().map(|e| e.problem);
        assert_eq!(
            e.as_deref(),
            Some("1 size(s) for the 5 dimensions (a, b, c, d, e) of the variable")
        );
    }

    #[test]
    fn more_sizes_than_dimensions_are_ignored_as_the_reference_does() {
        let got = chunk_sizes(&Values::Int(vec![1, 2, 3, 4, 5, 0, -1]), &five());
        assert_eq!(
            got,
            Ok(ChunkSizes {
                sizes: vec![1, 2, 3, 4, 5],
                ignored: 2
            })
        );
    }

    #[test]
    fn zero_negative_and_oversized_chunks_are_errors() {
        for bad in [0, -3, 30] {
            let got = chunk_sizes(&Values::Int(vec![1, 2, bad, 4, 5]), &five());
            assert!(got.is_err(), "{bad}");
        }
        let got = chunk_sizes(&Values::Int(vec![0]), &dims(&[("t", 0, true)]));
        assert!(got.is_err());
    }

    #[test]
    fn text_floats_and_scalars_are_errors() {
        let d = dims(&[("a", 2, false), ("b", 3, false)]);
        assert!(chunk_sizes(&Values::Char(b"1, 2".to_vec()), &d).is_err());
        assert!(chunk_sizes(&Values::Double(vec![1.0, 2.0]), &d).is_err());
        assert!(chunk_sizes(&Values::Int(vec![1]), &[]).is_err());
    }
}
