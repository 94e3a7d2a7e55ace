//! `--list-filters`: every filter of the known table (DECISIONS D3) and every plugin of
//! HDF5's search path, with where each comes from; an aligned table or JSON.

use std::collections::BTreeMap;
use std::io::Write;

use filterspec::known::KNOWN_FILTERS;
use serde::Serialize;

use super::availability::{Availability, Inventory};

/// One line of `--list-filters` (one object of `--list-filters --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FilterEntry {
    /// The filter id; `None` for a plugin file that could not be loaded.
    pub id: Option<u32>,
    /// Every name of the known table, canonical first (empty for an unknown id).
    pub names: Vec<String>,
    /// The NCZarr codec id, if any.
    pub codec: Option<String>,
    /// `builtin`, `hdf5`, `plugin`, `codec-library` (a file that is an NCZarr codec
    /// library only) or `none`.
    pub source: &'static str,
    /// The plugin file that provides it (or that failed to load).
    pub path: Option<String>,
    /// Whether the filter can be used here (netCDF-4/HDF5).
    pub available: bool,
    /// Whether nctools reads and writes it as a codec in Zarr stores (always in-process,
    /// whatever HDF5's plugins).
    pub zarr: bool,
    /// A remark for the reader (why it is missing, what else provides it).
    pub note: Option<String>,
    /// The NCZarr codec library that pairs with its plugin (netCDF-C's
    /// `NCZ_get_codec_info`), when the codec comes from one.
    pub codec_library: Option<String>,
}

impl FilterEntry {
    fn new(id: u32, names: Vec<String>, codec: Option<String>, found: &Availability) -> Self {
        Self {
            id: Some(id),
            names,
            codec,
            source: found.source_key(),
            path: found.path().map(|p| p.display().to_string()),
            available: found.available(),
            zarr: codecs::numcodecs::has_codec(id),
            note: found.note.clone(),
            codec_library: None,
        }
    }

    /// Adds `remark` to the note.
    fn add_note(&mut self, remark: String) {
        self.note = Some(match self.note.take() {
            Some(note) => format!("{note}; {remark}"),
            None => remark,
        });
    }

    /// The SOURCE column: `built-in`, `HDF5`, `plugin PATH`, `not available`, with the note.
    fn describe(&self) -> String {
        let source = match (self.source, &self.path) {
            ("builtin", _) => "built-in".to_string(),
            ("hdf5", _) => "HDF5".to_string(),
            ("plugin", Some(path)) => format!("plugin {path}"),
            _ => "not available".to_string(),
        };
        match &self.note {
            Some(note) => format!("{source} ({note})"),
            None => source,
        }
    }
}

/// Every known filter and every plugin found, by id (plugins that could not be loaded
/// last, by path).
pub fn filter_entries(inventory: &Inventory) -> Vec<FilterEntry> {
    let mut by_id: BTreeMap<u32, FilterEntry> = KNOWN_FILTERS
        .iter()
        .map(|known| {
            let names = known.names.iter().map(|n| n.to_string()).collect();
            let codec = codecs::known::codec_of(known.id).map(str::to_string);
            let entry = FilterEntry::new(known.id, names, codec, &inventory.availability(known.id));
            (known.id, entry)
        })
        .collect();
    let mut broken = Vec::new();
    for plugin in inventory.plugins() {
        match plugin.id {
            Some(id) => {
                by_id.entry(id).or_insert_with(|| {
                    let mut entry =
                        FilterEntry::new(id, Vec::new(), None, &inventory.availability(id));
                    if let Some(name) = &plugin.name {
                        let named = format!("the plugin calls it \"{name}\"");
                        entry.note = Some(match entry.note.take() {
                            Some(note) => format!("{named}; {note}"),
                            None => named,
                        });
                    }
                    entry
                });
            }
            None => broken.push(FilterEntry {
                id: None,
                names: Vec::new(),
                codec: None,
                source: "none",
                path: Some(plugin.path.display().to_string()),
                available: false,
                zarr: false,
                codec_library: None,
                note: Some(
                    plugin
                        .error
                        .clone()
                        .unwrap_or_else(|| "unusable".to_string()),
                ),
            }),
        }
    }
    let reports = crate::storage::backends::plugin_codec_reports();
    add_plugin_codecs(&mut by_id, &reports);
    for entry in &mut broken {
        let offered: Vec<&str> = reports
            .iter()
            .filter(|r| Some(r.codec_library.display().to_string()) == entry.path)
            .map(|r| r.codec_id.as_str())
            .fold(Vec::new(), |mut ids, id| {
                if !ids.contains(&id) {
                    ids.push(id);
                }
                ids
            });
        if !offered.is_empty() {
            entry.source = "codec-library";
            entry.note = Some(format!(
                "an NCZarr codec library, no HDF5 filter plugin: codecs {}",
                offered.join(", ")
            ));
        }
    }
    by_id.into_values().chain(broken).collect()
}

/// Adds what the codec libraries of the plugin path offer for the filters nctools has
/// no codec of: the codec of a pair in use, or why an offered codec is not used.
fn add_plugin_codecs(
    by_id: &mut BTreeMap<u32, FilterEntry>,
    reports: &[crate::storage::backends::PluginCodecReport],
) {
    for report in reports {
        let builtin = codecs::plugin::is_builtin(&report.codec_id, report.hdf5_id);
        if builtin {
            continue;
        }
        let library = report.codec_library.display().to_string();
        let entry = by_id.entry(report.hdf5_id).or_insert_with(|| FilterEntry {
            id: Some(report.hdf5_id),
            names: Vec::new(),
            codec: None,
            source: "none",
            path: None,
            available: false,
            zarr: false,
            note: None,
            codec_library: None,
        });
        match &report.problem {
            None => {
                entry.codec = Some(report.codec_id.clone());
                entry.zarr = true;
                entry.codec_library = Some(library.clone());
                entry.add_note(format!("NCZarr codec from {library}"));
            }
            Some(problem) => entry.add_note(format!(
                "codec library {library} offers codec \"{}\", not used: {problem}",
                report.codec_id
            )),
        }
    }
}

/// Writes the list of filters to `out`: an aligned table followed by where plugins were
/// searched, or (`json`) a JSON array of [`FilterEntry`] objects.
pub fn list_filters(out: &mut impl Write, json: bool) -> anyhow::Result<()> {
    let entries = filter_entries(&Inventory::scan());
    if json {
        serde_json::to_writer_pretty(&mut *out, &entries)?;
        writeln!(out)?;
        return Ok(());
    }
    let rows: Vec<[String; 4]> = entries
        .iter()
        .map(|e| {
            let dash = || "-".to_string();
            let id = e.id.map_or_else(|| "?".to_string(), |id| id.to_string());
            let names = if e.names.is_empty() {
                dash()
            } else {
                e.names.join(", ")
            };
            let codec = match &e.codec {
                Some(codec) if !e.zarr => format!("{codec} (not in Zarr)"),
                Some(codec)
                    if codecs::registry::by_numcodecs_id(codec).is_some_and(|c| c.nczarr_only) =>
                {
                    format!("{codec} (NCZarr only)")
                }
                Some(codec) => codec.clone(),
                None => dash(),
            };
            let source = match (e.id, &e.path) {
                (None, Some(path)) if e.source == "codec-library" => {
                    format!("{path} ({})", e.note.as_deref().unwrap_or(""))
                }
                (None, Some(path)) => {
                    format!(
                        "not available: {path} ({})",
                        e.note.as_deref().unwrap_or("")
                    )
                }
                _ => e.describe(),
            };
            [id, names, codec, source]
        })
        .collect();
    let header = ["ID", "NAMES", "CODEC", "SOURCE"].map(str::to_string);
    let widths: Vec<usize> = (0..3)
        .map(|col| {
            std::iter::once(&header)
                .chain(&rows)
                .map(|r| r[col].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(&rows) {
        writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:<w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        )?;
    }
    writeln!(
        out,
        "\nplugins searched in {}",
        crate::plugins::plugin_search_path()
    )?;
    if !codecs::builtins_enabled() {
        writeln!(
            out,
            "nctools' built-in filters are turned off by {}=0",
            codecs::DISABLE_VARIABLE
        )?;
    }
    Ok(())
}

/// Prints the list of filters on standard output (`--list-filters`, `--json`).
pub fn print_filter_list(json: bool) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    list_filters(&mut out, json)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_read_as_documented() {
        let entry = |source, path: Option<&str>, note: Option<&str>| FilterEntry {
            id: Some(307),
            names: vec!["bzip2".into()],
            codec: None,
            source,
            path: path.map(str::to_string),
            available: source != "none",
            zarr: true,
            note: note.map(str::to_string),
            codec_library: None,
        };
        assert_eq!(entry("builtin", None, None).describe(), "built-in");
        assert_eq!(entry("hdf5", None, None).describe(), "HDF5");
        assert_eq!(
            entry("plugin", Some("/p/libh5bz2.so"), None).describe(),
            "plugin /p/libh5bz2.so"
        );
        assert_eq!(
            entry("none", None, Some("why")).describe(),
            "not available (why)"
        );
    }
}
