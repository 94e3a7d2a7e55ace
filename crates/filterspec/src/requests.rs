//! All `-F` options of one nccopy run together: what they say for each variable, and the
//! names that match nothing in the input (DECISIONS D2).

use crate::error::{SpecError, SpecErrorKind};
use crate::precedence::VarRequest;
use crate::selector::{parse_filter_arg, FilterAction, FilterArg, VarPath, VarSelection};
use crate::spec::FilterSpec;
use known_filters::suggest;

/// The `-F` options of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterRequests {
    global_none: bool,
    all: Option<Vec<FilterSpec>>,
    explicit: Vec<(VarPath, FilterAction)>,
}

/// A variable named in `-F` that the input does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmatchedName {
    /// The path as given (normalised to a full path).
    pub path: VarPath,
    /// Input variables whose paths are close to it, closest first.
    pub suggestions: Vec<VarPath>,
}

impl FilterRequests {
    /// No `-F` option.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `-F` arguments in the order given.
    pub fn from_args<'a>(args: impl IntoIterator<Item = &'a str>) -> Result<Self, SpecError> {
        let mut requests = Self::new();
        for arg in args {
            requests.add(arg)?;
        }
        Ok(requests)
    }

    /// Adds one `-F` argument. Naming a variable explicitly in two options, or giving `*`
    /// filters twice, is an error: one option holds a variable's whole pipeline.
    pub fn add(&mut self, arg: &str) -> Result<(), SpecError> {
        match parse_filter_arg(arg)? {
            FilterArg::GlobalNone => self.global_none = true,
            FilterArg::Select {
                vars: VarSelection::All,
                action,
            } => {
                let FilterAction::Specs(specs) = action else {
                    // `*,none` is returned as GlobalNone by the parser.
                    self.global_none = true;
                    return Ok(());
                };
                if self.all.is_some() {
                    let span = 0..arg.find('*').map_or(arg.len(), |i| i + 1);
                    return Err(SpecError::new(SpecErrorKind::RepeatedStar, span, arg));
                }
                self.all = Some(specs);
            }
            FilterArg::Select {
                vars: VarSelection::Named(named),
                action,
            } => {
                for var in &named {
                    if self.explicit.iter().any(|(p, _)| *p == var.path) {
                        let path = var.path.to_string();
                        let kind = SpecErrorKind::RepeatedVariable { path };
                        return Err(SpecError::new(kind, var.span.clone(), arg));
                    }
                }
                for var in named {
                    self.explicit.push((var.path, action.clone()));
                }
            }
        }
        Ok(())
    }

    /// Whether any `-F` asks for output filters (`VARS,SPECLIST`).
    pub fn has_output_filters(&self) -> bool {
        self.all.is_some()
            || self
                .explicit
                .iter()
                .any(|(_, action)| matches!(action, FilterAction::Specs(_)))
    }

    /// Whether `-F none` or `-F '*,none'` was given.
    pub fn global_none(&self) -> bool {
        self.global_none
    }

    /// What the options say for one variable: an explicit name wins over `*`.
    pub fn request_for(&self, path: &VarPath) -> VarRequest<'_> {
        let explicit = self.explicit.iter().find(|(p, _)| p == path);
        match explicit.map(|(_, action)| action) {
            Some(FilterAction::None) => VarRequest::None,
            Some(FilterAction::Specs(specs)) => VarRequest::Specs(specs),
            None => match &self.all {
                Some(specs) => VarRequest::Specs(specs),
                None => VarRequest::Undefined,
            },
        }
    }

    /// Whether the variable is named explicitly (not only through `*`).
    pub fn is_explicit(&self, path: &VarPath) -> bool {
        self.explicit.iter().any(|(p, _)| p == path)
    }

    /// The explicitly named paths, in the order given.
    pub fn explicit_paths(&self) -> impl Iterator<Item = &VarPath> {
        self.explicit.iter().map(|(p, _)| p)
    }

    /// The explicitly named variables that are not among `available`, each with close
    /// matches to suggest.
    pub fn unmatched(&self, available: &[VarPath]) -> Vec<UnmatchedName> {
        let texts: Vec<String> = available.iter().map(VarPath::to_string).collect();
        self.explicit_paths()
            .filter(|p| !available.contains(p))
            .map(|path| {
                let wanted = path.to_string();
                let close = suggest::close_matches(&wanted, texts.iter().map(String::as_str));
                let suggestions = close
                    .into_iter()
                    .filter_map(|text| {
                        texts
                            .iter()
                            .position(|t| t == text)
                            .map(|i| available[i].clone())
                    })
                    .collect();
                UnmatchedName {
                    path: path.clone(),
                    suggestions,
                }
            })
            .collect()
    }
}
