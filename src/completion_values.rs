//! Values the shell completions offer for options whose values the tools parse
//! themselves (`-k`, `-b`, `-f`, `-l`, `-F`): the parser accepts any text, so that the
//! tools' own messages judge it, and lists the usual values for the completion scripts.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};

/// Accepts any UTF-8 text and offers `values` to shell completion.
#[derive(Debug, Clone, Copy)]
pub struct Offered(pub &'static [&'static str]);

impl TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        value
            .to_str()
            .map(str::to_string)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|v| PossibleValue::new(*v))))
    }
}

/// Output formats (`-k`), by names without spaces (one word each for the shells).
pub const KINDS: Offered = Offered(&[
    "classic",
    "nc3",
    "64-bit-offset",
    "nc6",
    "cdf5",
    "nc5",
    "netCDF-4",
    "nc4",
    "netcdf-4-classic",
    "nc7",
]);

/// Index languages of ncdump's `-b` and `-f`.
pub const INDEX_LANGUAGES: Offered = Offered(&["c", "f"]);

/// ncgen's output languages (`-l`).
pub const NCGEN_LANGUAGES: Offered = Offered(&["b", "c", "f77", "python", "java"]);

/// Filter specs for nccopy's `-F`: every filter by name, for every variable (`*,`; a
/// variable's name goes in place of `*`), and `none`.
pub const FILTER_SPECS: Offered = Offered(&[
    "none",
    "*,none",
    "*,deflate,5",
    "*,shuffle|deflate,5",
    "*,bzip2,9",
    "*,zstd,3",
    "*,shuffle|zstd,3",
    "*,lz4",
    "*,blosc",
    "*,fletcher32",
    "*,szip,32,32",
]);

/// Bash code appended to nccopy's completion: after `-F VAR,` (the word holds a comma),
/// completes the filter name after the last comma, every known name and `none`.
pub fn bash_filter_names() -> String {
    let mut names: Vec<&str> = filterspec::KNOWN_FILTERS
        .iter()
        .flat_map(|f| f.names.iter().copied())
        .collect();
    names.push("none");
    format!(
        r#"
# nctools: filter names after `-F VAR,` (the part after the last comma).
_nccopy_filter_names() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    if [[ "$prev" == "-F" && "$cur" == *,* ]]; then
        COMPREPLY=($(compgen -P "${{cur%,*}}," -W "{}" -- "${{cur##*,}}"))
        return 0
    fi
    _nccopy "$@"
}}
complete -F _nccopy_filter_names -o bashdefault -o default nccopy
"#,
        names.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offered_filter_spec_parses() {
        for spec in FILTER_SPECS
            .0
            .iter()
            .filter(|s| s.starts_with("*,") && **s != "*,none")
        {
            let list = &spec[2..];
            assert!(filterspec::parse_spec_list(list).is_ok(), "{spec}");
        }
        for kind in KINDS.0 {
            assert!(crate::formats::format_by_name(kind).is_some(), "{kind}");
        }
    }
}
