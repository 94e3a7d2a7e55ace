//! `--quantize VARS,ALGORITHM,N` (ours; netCDF-C's nccopy has none): `VARS` as in `-F`
//! (`*` or full paths joined by `&`), ALGORITHM `bitgroom` or `granularbr` (N significant
//! digits) or `bitround` (N significant bits). Repeatable; a variable named explicitly
//! twice is an error, an explicit name wins over `*`.

use anyhow::{anyhow, bail};
use filterspec::{parse_var_selection, VarPath, VarSelection};
use ncmodel::{AtomicType, Quantize, QuantizeMode, TypeRef};

/// All `--quantize` options of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuantizeRequests {
    all: Option<Quantize>,
    explicit: Vec<(VarPath, Quantize)>,
}

/// What `--quantize` says for one variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantizeRequest {
    /// Nothing.
    Undefined,
    /// Through `*`.
    All(Quantize),
    /// By name.
    Named(Quantize),
}

impl QuantizeRequests {
    /// Parses every `--quantize` argument.
    pub fn parse<'a>(args: impl IntoIterator<Item = &'a str>) -> anyhow::Result<Self> {
        let mut requests = Self::default();
        for arg in args {
            requests.add(arg)?;
        }
        Ok(requests)
    }

    fn add(&mut self, arg: &str) -> anyhow::Result<()> {
        let usage = || {
            anyhow!(
                "--quantize {arg}: write VARS,ALGORITHM,N with ALGORITHM bitgroom, granularbr \
                 or bitround, e.g. --quantize 'temp&rh,bitround,10' or --quantize '*,bitgroom,3'"
            )
        };
        let (selection, rest) = parse_var_selection(arg)
            .map_err(|e| anyhow!("--quantize: {}", e.render().trim_end()))?;
        let (algorithm, digits) = arg[rest].split_once(',').ok_or_else(usage)?;
        let mode = match algorithm.trim().to_ascii_lowercase().as_str() {
            "bitgroom" => QuantizeMode::BitGroom,
            "granularbr" | "granularbitround" => QuantizeMode::GranularBitRound,
            "bitround" => QuantizeMode::BitRound,
            _ => return Err(usage()),
        };
        let nsd = match digits.trim().parse::<i32>() {
            Ok(n) if n > 0 => n,
            _ => bail!(
                "--quantize {arg}: `{}` is not a number of significant {} (a positive integer)",
                digits.trim(),
                unit(mode)
            ),
        };
        let quantize = Quantize { mode, nsd };
        match selection {
            VarSelection::All if self.all.is_some() => {
                bail!("--quantize {arg}: `*` is given twice; give it once")
            }
            VarSelection::All => self.all = Some(quantize),
            VarSelection::Named(named) => {
                for var in named {
                    if self.explicit.iter().any(|(p, _)| *p == var.path) {
                        bail!(
                            "--quantize {arg}: variable {} is named in two --quantize options; \
                             name it once",
                            var.path
                        );
                    }
                    self.explicit.push((var.path, quantize));
                }
            }
        }
        Ok(())
    }

    /// Whether any `--quantize` was given.
    pub fn is_set(&self) -> bool {
        self.all.is_some() || !self.explicit.is_empty()
    }

    /// What the options say for the variable at `path`.
    pub fn request_for(&self, path: &VarPath) -> QuantizeRequest {
        match self.explicit.iter().find(|(p, _)| p == path) {
            Some((_, q)) => QuantizeRequest::Named(*q),
            None => self
                .all
                .map_or(QuantizeRequest::Undefined, QuantizeRequest::All),
        }
    }

    /// The explicitly named paths.
    pub fn explicit_paths(&self) -> impl Iterator<Item = &VarPath> {
        self.explicit.iter().map(|(p, _)| p)
    }
}

/// What N counts for `mode`.
fn unit(mode: QuantizeMode) -> &'static str {
    match mode {
        QuantizeMode::BitRound => "bits",
        _ => "digits",
    }
}

/// The largest N the library accepts for `mode` on `t` (float or double), or `None` when
/// the type cannot be quantized.
pub fn max_digits(mode: QuantizeMode, t: TypeRef) -> Option<i32> {
    let double = match t {
        TypeRef::Atomic(AtomicType::Float) => false,
        TypeRef::Atomic(AtomicType::Double) => true,
        _ => return None,
    };
    Some(match (mode, double) {
        (QuantizeMode::BitRound, false) => 23,
        (QuantizeMode::BitRound, true) => 52,
        (_, false) => 7,
        (_, true) => 15,
    })
}

/// Checks `quantize` against the type of the variable at `path`.
pub fn check_digits(path: &VarPath, quantize: Quantize, t: TypeRef) -> anyhow::Result<()> {
    if let Some(max) = max_digits(quantize.mode, t) {
        if quantize.nsd > max {
            bail!(
                "--quantize: variable {path}: {} significant {} is more than its type holds \
                 (at most {max})",
                quantize.nsd,
                unit(quantize.mode)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(mode: QuantizeMode, nsd: i32) -> Quantize {
        Quantize { mode, nsd }
    }

    #[test]
    fn forms_and_precedence() {
        let r = QuantizeRequests::parse(["*,bitgroom,3", "t&/g/rh,BitRound,10"]);
        let r = r.unwrap_or_default();
        let t = VarPath::new(Vec::<String>::new(), "t");
        let rh = VarPath::new(["g"], "rh");
        let other = VarPath::new(Vec::<String>::new(), "x");
        assert_eq!(
            r.request_for(&t),
            QuantizeRequest::Named(q(QuantizeMode::BitRound, 10))
        );
        assert_eq!(
            r.request_for(&rh),
            QuantizeRequest::Named(q(QuantizeMode::BitRound, 10))
        );
        assert_eq!(
            r.request_for(&other),
            QuantizeRequest::All(q(QuantizeMode::BitGroom, 3))
        );
        let g = QuantizeRequests::parse(["v,granularbr,4"]).unwrap_or_default();
        assert_eq!(
            g.request_for(&VarPath::new(Vec::<String>::new(), "v")),
            QuantizeRequest::Named(q(QuantizeMode::GranularBitRound, 4))
        );
    }

    #[test]
    fn errors() {
        for bad in [
            "v,bitgroom",
            "v,fast,3",
            "v,bitgroom,0",
            "v,bitgroom,x",
            "v",
            ",bitgroom,3",
        ] {
            assert!(QuantizeRequests::parse([bad]).is_err(), "{bad}");
        }
        assert!(QuantizeRequests::parse(["v,bitgroom,3", "v,bitround,3"]).is_err());
        assert!(QuantizeRequests::parse(["*,bitgroom,3", "*,bitround,3"]).is_err());
    }

    #[test]
    fn digits_per_type() {
        let float = TypeRef::Atomic(AtomicType::Float);
        let double = TypeRef::Atomic(AtomicType::Double);
        let v = VarPath::new(Vec::<String>::new(), "v");
        assert!(check_digits(&v, q(QuantizeMode::BitGroom, 7), float).is_ok());
        assert!(check_digits(&v, q(QuantizeMode::BitGroom, 8), float).is_err());
        assert!(check_digits(&v, q(QuantizeMode::BitRound, 52), double).is_ok());
        assert!(check_digits(&v, q(QuantizeMode::BitRound, 53), double).is_err());
        assert_eq!(
            max_digits(QuantizeMode::BitGroom, TypeRef::Atomic(AtomicType::Int)),
            None
        );
    }
}
