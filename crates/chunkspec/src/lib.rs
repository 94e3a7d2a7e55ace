//! nccopy's `-c` chunk specs (a crate of its own so that the fuzz target `chunk_spec`
//! builds without the rest of nctools), all forms of netCDF-C 4.9: `dim/n,dim2/n2,...` (per
//! dimension; `dim/` means the dimension's length), `var:n1,n2,...` (per variable),
//! `var:` and `var:contiguous` (unchunked), `var:compact`, and `/` (or `//`): no chunking
//! at all. Backslash escapes the next character of a name. Also `--shards` specs, the
//! shard shapes of Zarr version 3 output ([`ShardSpecs`]).

use anyhow::{anyhow, bail};
use filterspec::VarPath;

mod shards;

pub use shards::{ShardShape, ShardSpecs};

/// What `-c` asks for one variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarChunking {
    /// Chunked with these sizes, one per dimension.
    Sizes(Vec<usize>),
    /// Contiguous (`var:` or `var:contiguous`).
    Contiguous,
    /// Compact (`var:compact`).
    Compact,
}

/// All `-c` options of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkSpecs {
    /// `/` or `//`: no chunking anywhere.
    pub unchunked: bool,
    /// Per-dimension chunk lengths (`None`: the dimension's length) of the last
    /// dimension spec.
    pub dims: Vec<(String, Option<usize>)>,
    /// Per-variable chunking; the first spec of a variable wins (later ones are ignored,
    /// as in the reference).
    pub vars: Vec<(VarPath, VarChunking)>,
}

impl ChunkSpecs {
    /// Parses every `-c` argument.
    pub fn parse<'a>(args: impl IntoIterator<Item = &'a str>) -> anyhow::Result<Self> {
        let mut specs = Self::default();
        for arg in args {
            specs.add(arg)?;
        }
        Ok(specs)
    }

    /// Whether any `-c` was given.
    pub fn is_set(&self) -> bool {
        self.unchunked || !self.dims.is_empty() || !self.vars.is_empty()
    }

    fn add(&mut self, arg: &str) -> anyhow::Result<()> {
        let text = arg.trim();
        if text == "/" || text == "//" {
            // Like a dimension spec, it replaces the dimension specs before it.
            self.unchunked = true;
            self.dims.clear();
            return Ok(());
        }
        if let Some((name, sizes)) = split_unescaped(text, ':') {
            let path = VarPath::from_plain(&unescape(name))
                .ok_or_else(|| anyhow!("-c {arg}: `{name}` is not a variable name"))?;
            let chunking = match sizes.trim() {
                "" | "contiguous" => VarChunking::Contiguous,
                "compact" => VarChunking::Compact,
                list => VarChunking::Sizes(
                    list.split(',')
                        .map(|n| var_chunk_length(arg, n))
                        .collect::<anyhow::Result<_>>()?,
                ),
            };
            if !self.vars.iter().any(|(p, _)| *p == path) {
                self.vars.push((path, chunking));
            }
            return Ok(());
        }
        // Each dimension spec replaces the dimension specs (and `/`) before it, as in the
        // reference.
        self.unchunked = false;
        self.dims.clear();
        for item in split_all_unescaped(text, ',') {
            let Some((dim, length)) = split_unescaped(item, '/') else {
                bail!(
                    "-c {arg}: `{item}` is neither dim/length nor var:lengths; write e.g. \
                     -c time/1,lat/90 or -c temp:1,90,180"
                );
            };
            let dim = unescape(dim);
            if dim.is_empty() {
                bail!("-c {arg}: a dimension name is missing before `/`");
            }
            let length = match length.trim() {
                "" => None,
                n => Some(chunk_length(arg, n)?),
            };
            self.dims.push((dim, length));
        }
        Ok(())
    }
}

/// A chunk length: a positive integer.
fn chunk_length(arg: &str, text: &str) -> anyhow::Result<usize> {
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => bail!("-c {arg}: `{text}` is not a chunk length (a positive integer)"),
    }
}

/// A chunk length of the `var:` form: 0 leaves the dimension to the default.
fn var_chunk_length(arg: &str, text: &str) -> anyhow::Result<usize> {
    match text.trim() {
        "0" => Ok(0),
        _ => chunk_length(arg, text),
    }
}

/// Splits at the first `sep` not escaped by a backslash.
fn split_unescaped(text: &str, sep: char) -> Option<(&str, &str)> {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, c) if c == sep => return Some((&text[..i], &text[i + c.len_utf8()..])),
            _ => {}
        }
    }
    None
}

/// Splits at every `sep` not escaped by a backslash.
fn split_all_unescaped(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some((head, tail)) = split_unescaped(rest, sep) {
        parts.push(head);
        rest = tail;
    }
    parts.push(rest);
    parts
}

/// Removes the escaping backslashes of a name.
fn unescape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> ChunkSpecs {
        match ChunkSpecs::parse(args.iter().copied()) {
            Ok(specs) => specs,
            Err(e) => panic!("{args:?}: {e}"),
        }
    }

    #[test]
    fn dimension_form() {
        let specs = parse(&["time/1,lat/90,lon/"]);
        assert_eq!(
            specs.dims,
            vec![
                ("time".to_string(), Some(1)),
                ("lat".to_string(), Some(90)),
                ("lon".to_string(), None)
            ]
        );
        assert!(!specs.unchunked && specs.vars.is_empty());
        assert_eq!(parse(&["a\\ b/2"]).dims, vec![("a b".to_string(), Some(2))]);
    }

    #[test]
    fn variable_forms_first_spec_wins() {
        let specs = parse(&[
            "t:1,90",
            "/g/v:compact",
            "w:",
            "x:contiguous",
            "t:5,5",
            "z:0,4",
        ]);
        assert_eq!(
            specs.vars,
            vec![
                (
                    VarPath::new(Vec::<String>::new(), "t"),
                    VarChunking::Sizes(vec![1, 90])
                ),
                (VarPath::new(["g"], "v"), VarChunking::Compact),
                (
                    VarPath::new(Vec::<String>::new(), "w"),
                    VarChunking::Contiguous
                ),
                (
                    VarPath::new(Vec::<String>::new(), "x"),
                    VarChunking::Contiguous
                ),
                (
                    VarPath::new(Vec::<String>::new(), "z"),
                    VarChunking::Sizes(vec![0, 4])
                ),
            ]
        );
    }

    #[test]
    fn a_dimension_spec_replaces_the_ones_before() {
        let specs = parse(&["x/10", "y/20"]);
        assert_eq!(specs.dims, vec![("y".to_string(), Some(20))]);
        assert!(!parse(&["/", "x/10"]).unchunked);
        let last_slash = parse(&["x/10", "/"]);
        assert!(last_slash.unchunked && last_slash.dims.is_empty());
        assert_eq!(parse(&["x/10", "v:1"]).dims.len(), 1);
    }

    #[test]
    fn slash_alone_means_no_chunking() {
        assert!(parse(&["/"]).unchunked);
        assert!(parse(&["//"]).unchunked);
        assert!(!ChunkSpecs::default().is_set());
    }

    #[test]
    fn bad_specs_are_errors() {
        for bad in ["time", "time/x", "time/0", "/1", "t:a", "t:-1"] {
            assert!(ChunkSpecs::parse([bad]).is_err(), "{bad}");
        }
    }
}
