//! The sections of the man pages that clap does not write: EXAMPLES, EXIT STATUS,
//! ENVIRONMENT and SEE ALSO, per tool, as roff. The pages in `completions/` are these after
//! clap_mangen's own sections (a test keeps them current).

/// A man page section: its title and its paragraphs. A paragraph that starts with `$ ` is
/// a command, shown as is; one with a tab is a term and its description.
pub struct ManSection {
    /// The title (`EXAMPLES`).
    pub title: &'static str,
    /// The paragraphs.
    pub paragraphs: Vec<&'static str>,
}

/// The variables every tool reads, each a term and its description.
const ENVIRONMENT: &[&str] = &[
    "HDF5_PLUGIN_PATH\tWhere HDF5 looks for filter plugins (a colon-separated list of \
     directories); without it, HDF5's default directory. nctools' built-in filters (bzip2, \
     zstd, lz4, blosc) need no plugin.",
    "NCTOOLS_BUILTIN_FILTERS\tSet to 0 to turn the built-in filters off, so that plugins \
     found through HDF5_PLUGIN_PATH do the work.",
    "NCTOOLS_DIRECT_CHUNKS\tSet to 0 to have HDF5's pipeline encode and decode chunks one at \
     a time, instead of nctools on every core.",
    "NCTOOLS_CLASSIC_READER\tSet to libnetcdf to read classic (netCDF-3) files with \
     libnetcdf instead of nctools' own reader, for comparisons.",
];

const EXIT_STATUS: &[&str] = &[
    "0\tSuccess (warnings may have been printed).",
    "1\tThe input could not be read or the output written; the message says why and what \
     to do. No partial output is left.",
    "2\tA usage error: a bad option or option value.",
    "130, 143\tStopped by SIGINT (Ctrl-C) or SIGTERM; the temporary output was removed.",
];

/// The extra sections of `tool`'s man page (`ncdump`, `ncgen` or `nccopy`).
pub fn sections(tool: &str) -> Vec<ManSection> {
    let examples = match tool {
        "ncdump" => vec![
            "$ ncdump -h data.nc",
            "The header: dimensions, variables and attributes.",
            "$ ncdump -hs data.nc",
            "The header with the storage special attributes (_ChunkSizes, _Filter, ...).",
            "$ ncdump -v temp -t data.nc",
            "The data of temp, times as dates.",
            "$ ncdump --filters data.nc",
            "Each filtered variable's pipeline, whether its filters are available here, and \
             how much it was compressed.",
        ],
        "ncgen" => vec![
            "$ ncgen -o data.nc data.cdl",
            "A netCDF file from CDL (classic, or netCDF-4 when the CDL needs it).",
            "$ ncgen -k nc4 -o data.nc data.cdl",
            "A netCDF-4 file.",
            "$ ncgen -o 'file://store.zarr#mode=nczarr,file' data.cdl",
            "An NCZarr store.",
        ],
        _ => vec![
            "$ nccopy -d 1 -s in.nc out.nc",
            "Deflate (level 1) and shuffle every variable.",
            "$ nccopy -F '*,zstd,3' in.nc out.nc",
            "zstd (level 3) for every variable; no plugin needed.",
            "$ nccopy -F 'temp&rh,shuffle|bzip2,9' -F 'time,none' in.nc out.nc",
            "Shuffle and bzip2 for temp and rh, no filter for time.",
            "$ nccopy --try-filters in.nc",
            "Which filter to use: ratio and speeds of many pipelines on a sample of each \
             variable's chunks; writes nothing.",
            "$ nccopy --dry-run -F '*,zstd,3' in.nc out.nc",
            "The filters each variable would get, and why; writes nothing.",
        ],
    };
    let see_also = match tool {
        "ncdump" => "ncgen(1), nccopy(1), h5dump(1)",
        "ncgen" => "ncdump(1), nccopy(1)",
        _ => "ncdump(1), ncgen(1), h5repack(1), ncks(1)",
    };
    vec![
        ManSection {
            title: "EXAMPLES",
            paragraphs: examples,
        },
        ManSection {
            title: "EXIT STATUS",
            // ncdump writes no file: a signal ends it as it would any program.
            paragraphs: EXIT_STATUS
                .iter()
                .copied()
                .filter(|p| tool != "ncdump" || !p.starts_with("130"))
                .collect(),
        },
        ManSection {
            title: "ENVIRONMENT",
            paragraphs: ENVIRONMENT.to_vec(),
        },
        ManSection {
            title: "SEE ALSO",
            paragraphs: vec![see_also],
        },
    ]
}

/// The sections as roff, to follow clap_mangen's.
pub fn roff(tool: &str) -> String {
    let mut out = String::new();
    for section in sections(tool) {
        out.push_str(&format!(".SH {}\n", section.title));
        for paragraph in &section.paragraphs {
            if let Some(command) = paragraph.strip_prefix("$ ") {
                out.push_str(&format!(".PP\n.nf\n{}\n.fi\n", escape(command)));
            } else if let Some((term, text)) = paragraph.split_once('\t') {
                out.push_str(&format!(
                    ".TP\n\\fB{}\\fR\n{}\n",
                    escape(term),
                    escape(text)
                ));
            } else {
                out.push_str(&format!(".RS\n{}\n.RE\n", escape(paragraph)));
            }
        }
    }
    out
}

/// Text safe in roff: backslashes doubled, a leading `.` or `'` guarded, hyphens as
/// minus signs where they start an option.
fn escape(text: &str) -> String {
    let text = text.replace('\\', "\\\\").replace(" -", " \\-");
    match text.chars().next() {
        Some('.' | '\'') => format!("\\&{text}"),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_the_four_sections_and_the_variables_it_reads() {
        for tool in ["ncdump", "ncgen", "nccopy"] {
            let text = roff(tool);
            for title in ["EXAMPLES", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"] {
                assert!(text.contains(&format!(".SH {title}\n")), "{tool}: {title}");
            }
            assert!(text.contains("\\fBHDF5_PLUGIN_PATH\\fR"), "{tool}");
            assert!(text.contains("\\fBNCTOOLS_BUILTIN_FILTERS\\fR"), "{tool}");
        }
        assert!(roff("nccopy").contains("nccopy \\-d 1 \\-s in.nc out.nc"));
    }
}
