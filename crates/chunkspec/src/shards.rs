//! nccopy's `--shards` specs, for Zarr version 3 output (`sharding_indexed`):
//! `VAR:n1,n2,...` (inner chunks per shard along each dimension), `VAR:SIZE` (a target
//! size of a shard's values, `64M`), `VAR:none` (not sharded), and `*:SIZE` or `*:none`
//! for every variable. A later spec of the same variable replaces an earlier one; a
//! variable's own spec wins over `*`.

use anyhow::{anyhow, bail};
use filterspec::VarPath;

use crate::{split_unescaped, unescape};

/// How one variable (or every one) is to be sharded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardShape {
    /// Not sharded.
    Unsharded,
    /// This many inner chunks per shard along each dimension.
    Chunks(Vec<usize>),
    /// As many inner chunks per shard as fit in this many bytes of values (before
    /// compression).
    TargetBytes(u64),
}

/// Every `--shards` of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShardSpecs {
    /// `*:...`: what variables named by no spec get.
    pub all: Option<ShardShape>,
    /// Per-variable specs, one per variable (the last given).
    pub vars: Vec<(VarPath, ShardShape)>,
}

impl ShardSpecs {
    /// Parses every `--shards` argument.
    pub fn parse<'a>(args: impl IntoIterator<Item = &'a str>) -> anyhow::Result<Self> {
        let mut specs = Self::default();
        for arg in args {
            specs.add(arg)?;
        }
        Ok(specs)
    }

    /// Whether any variable is to be sharded.
    pub fn is_set(&self) -> bool {
        self.all
            .as_ref()
            .is_some_and(|s| *s != ShardShape::Unsharded)
            || self.vars.iter().any(|(_, s)| *s != ShardShape::Unsharded)
    }

    /// What the variable `path` gets: its own spec, else `*`'s, else none.
    pub fn of(&self, path: &VarPath) -> Option<&ShardShape> {
        self.vars
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, s)| s)
            .or(self.all.as_ref())
            .filter(|s| **s != ShardShape::Unsharded)
    }

    fn add(&mut self, arg: &str) -> anyhow::Result<()> {
        let text = arg.trim();
        let Some((name, shape)) = split_unescaped(text, ':') else {
            bail!(
                "--shards {arg}: write VAR:n1,n2,... (inner chunks per shard along each \
                 dimension), VAR:SIZE (e.g. VAR:64M), VAR:none, or *:SIZE for every variable"
            );
        };
        let shape = shape_of(arg, shape.trim())?;
        if name.trim() == "*" {
            if let ShardShape::Chunks(_) = shape {
                bail!(
                    "--shards {arg}: `*` takes a size (e.g. *:64M) or none, since variables \
                     differ in rank; give chunk counts per variable (VAR:n1,n2,...)"
                );
            }
            self.all = Some(shape);
            return Ok(());
        }
        let path = VarPath::from_plain(&unescape(name))
            .ok_or_else(|| anyhow!("--shards {arg}: `{name}` is not a variable name"))?;
        self.vars.retain(|(p, _)| *p != path);
        self.vars.push((path, shape));
        Ok(())
    }
}

/// The part after `:`: `none`, a size with a suffix, or chunk counts.
fn shape_of(arg: &str, text: &str) -> anyhow::Result<ShardShape> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(ShardShape::Unsharded);
    }
    if let Some(bytes) = size_of(arg, text)? {
        return Ok(ShardShape::TargetBytes(bytes));
    }
    text.split(',')
        .map(|n| match n.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => bail!(
                "--shards {arg}: `{n}` is not a number of inner chunks per shard (a positive \
                 integer); a size needs a suffix K, M or G (e.g. 64M)"
            ),
        })
        .collect::<anyhow::Result<Vec<_>>>()
        .map(ShardShape::Chunks)
}

/// A size such as `64M` or `1.5G` (suffix K, M, G: powers of 1000, as in `-m`); `None`
/// when `text` has no such suffix.
fn size_of(arg: &str, text: &str) -> anyhow::Result<Option<u64>> {
    let Some(last) = text.chars().last() else {
        return Ok(None);
    };
    let multiplier = match last.to_ascii_uppercase() {
        'K' => 1e3,
        'M' => 1e6,
        'G' => 1e9,
        _ => return Ok(None),
    };
    match text[..text.len() - 1].trim().parse::<f64>() {
        Ok(n) if n > 0.0 && n.is_finite() => Ok(Some((n * multiplier) as u64)),
        _ => bail!("--shards {arg}: `{text}` is not a size; write e.g. 64M"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> ShardSpecs {
        match ShardSpecs::parse(args.iter().copied()) {
            Ok(specs) => specs,
            Err(e) => panic!("{args:?}: {e}"),
        }
    }

    fn root(name: &str) -> VarPath {
        VarPath::new(Vec::<String>::new(), name)
    }

    #[test]
    fn forms() {
        let specs = parse(&["*:64M", "t:4,1,1", "/g/v:1.5k", "w:none", "t:8,1,1"]);
        assert_eq!(specs.all, Some(ShardShape::TargetBytes(64_000_000)));
        assert_eq!(
            specs.of(&root("t")),
            Some(&ShardShape::Chunks(vec![8, 1, 1]))
        );
        assert_eq!(
            specs.of(&VarPath::new(["g"], "v")),
            Some(&ShardShape::TargetBytes(1500))
        );
        assert_eq!(specs.of(&root("w")), None);
        assert_eq!(
            specs.of(&root("other")),
            Some(&ShardShape::TargetBytes(64_000_000))
        );
        assert!(specs.is_set());
        assert!(!parse(&["*:none"]).is_set());
        assert!(!ShardSpecs::default().is_set());
    }

    #[test]
    fn bad_specs_are_errors() {
        for bad in [
            "t", "t:", "t:0", "t:x", "t:-1", "*:4,4", "t:0M", "t:M", ":4",
        ] {
            assert!(ShardSpecs::parse([bad]).is_err(), "{bad}");
        }
    }
}
