//! `ncdump --filters FILE`: each variable with filters (every group, full paths), its
//! pipeline in stored order with parameters decoded by meaning and where each filter is
//! available, and its stored size against its uncompressed size. Only headers and
//! storage sizes are read, never data, so it works when filters are missing.

use std::io::Write;

use anyhow::anyhow;
use filterspec::FilterSpec;
use ncmodel::{Dataset, Group, Layout, TypeRef, Var, VarPath};
use serde_json::{json, Value};

use super::availability::{Availability, Inventory};
use codecs::params::{describe_params, Decoded};

/// One filter of a variable's pipeline, as the report shows it: an HDF5 filter, or a
/// Zarr codec (with its HDF5 equivalent when it has one).
#[derive(Debug, Clone)]
struct FilterReport {
    spec: Option<FilterSpec>,
    codec: Option<Value>,
    decoded: Decoded,
    availability: Availability,
}

impl FilterReport {
    /// An HDF5 filter of a netCDF-4 variable.
    fn of_filter(spec: &FilterSpec, inventory: &Inventory) -> Self {
        Self {
            spec: Some(spec.clone()),
            codec: None,
            decoded: describe_params(spec.id, &spec.params),
            availability: inventory.availability(spec.id),
        }
    }

    /// A codec of a Zarr variable; one without an HDF5 equivalent shows its JSON.
    fn of_codec(codec: &Value) -> Self {
        let spec = codecs::zarr_codec::filter_of_codec(codec).ok();
        let decoded = match &spec {
            Some(spec) => describe_params(spec.id, &spec.params),
            None => Decoded {
                text: codecs::zarr_codec::codecs_attribute(std::slice::from_ref(codec))
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string(),
                fields: codec.as_object().cloned().unwrap_or_default(),
            },
        };
        Self {
            spec,
            codec: Some(codec.clone()),
            decoded,
            availability: Availability::of_zarr_codec(codec),
        }
    }

    fn codec_id(&self) -> Option<&str> {
        self.codec.as_ref()?.get("id")?.as_str()
    }

    /// `bzip2 (307)`, `unknown (40000)`, or a Zarr codec without HDF5 equivalent:
    /// `codec zfpy`.
    fn title(&self) -> String {
        match &self.spec {
            Some(spec) => {
                let name = filterspec::known::name_of(spec.id).unwrap_or("unknown");
                format!("{name} ({})", spec.id)
            }
            None => format!("codec {}", self.codec_id().unwrap_or("?")),
        }
    }

    /// `available: built-in`, `available: plugin PATH`, or `not available (WHY)`.
    fn where_from(&self) -> String {
        if self.availability.available() {
            // Notes (plugins shadowed, built-ins turned off) are --list-filters' business.
            format!("available: {}", self.availability.source_text())
        } else {
            self.availability.describe()
        }
    }

    fn to_json(&self) -> Value {
        let id = self.spec.as_ref().map(|s| s.id);
        json!({
            "id": id,
            "name": id.and_then(filterspec::known::name_of),
            "params": self.spec.as_ref().map(|s| s.params.clone()),
            "codec": self.codec_id(),
            "decoded": self.decoded.fields,
            "description": self.decoded.text,
            "source": self.availability.source_key(),
            "path": self.availability.path().map(|p| p.display().to_string()),
            "available": self.availability.available(),
            "note": self.availability.note,
        })
    }
}

/// One filtered variable of a file, as `ncdump --filters` reports it.
#[derive(Debug, Clone)]
pub struct VarReport {
    /// The full path (`/v`, `/g/v`).
    pub path: String,
    /// The CDL type name.
    pub type_name: String,
    /// Dimension names and lengths, outermost first.
    pub dims: Vec<(String, usize)>,
    /// The layout.
    pub layout: Layout,
    /// Bytes of the data uncompressed: product of the dimension lengths and the type size.
    pub uncompressed_bytes: u64,
    /// Bytes stored on disk (after filters), if they can be told.
    pub stored_bytes: Option<u64>,
    filters: Vec<FilterReport>,
}

impl VarReport {
    /// `float(time=4, lat=6, lon=8)`, or `float` for a scalar.
    fn declaration(&self) -> String {
        if self.dims.is_empty() {
            return self.type_name.clone();
        }
        let dims: Vec<String> = self.dims.iter().map(|(n, l)| format!("{n}={l}")).collect();
        format!("{}({})", self.type_name, dims.join(", "))
    }

    fn layout_text(&self) -> String {
        match &self.layout {
            Layout::Chunked(chunks) => {
                let sizes: Vec<String> = chunks.iter().map(usize::to_string).collect();
                format!("chunks {}", sizes.join("x"))
            }
            Layout::Contiguous => "contiguous".to_string(),
            Layout::Compact => "compact".to_string(),
            Layout::Other => "other layout".to_string(),
        }
    }

    /// Stored bytes over uncompressed bytes (below 1: smaller).
    fn ratio(&self) -> Option<f64> {
        let stored = self.stored_bytes.filter(|s| *s > 0)?;
        (self.uncompressed_bytes > 0).then(|| stored as f64 / self.uncompressed_bytes as f64)
    }

    /// `stored 1.2 KiB of 7.5 KiB: 6.3:1, 84% saved`, or for data that grew
    /// `stored 43 B of 40 B: grew by 8% (0.93:1)`.
    fn size_text(&self) -> String {
        let whole = human_size(self.uncompressed_bytes);
        match (self.stored_bytes, self.ratio()) {
            (Some(stored), Some(ratio)) => format!(
                "stored {} of {whole}: {}",
                human_size(stored),
                compression_text(ratio)
            ),
            (Some(_), None) => {
                format!("nothing stored yet (no data written); {whole} uncompressed")
            }
            (None, _) => {
                format!("stored size unknown (not read through HDF5); {whole} uncompressed")
            }
        }
    }

    fn to_json(&self) -> Value {
        let (layout, chunks) = match &self.layout {
            Layout::Chunked(chunks) => ("chunked", json!(chunks)),
            Layout::Contiguous => ("contiguous", Value::Null),
            Layout::Compact => ("compact", Value::Null),
            Layout::Other => ("other", Value::Null),
        };
        let dims: Vec<Value> = self
            .dims
            .iter()
            .map(|(name, len)| json!({ "name": name, "length": len }))
            .collect();
        let filters: Vec<Value> = self.filters.iter().map(FilterReport::to_json).collect();
        json!({
            "variable": self.path,
            "type": self.type_name,
            "dims": dims,
            "layout": layout,
            "chunks": chunks,
            "filters": filters,
            "stored_bytes": self.stored_bytes,
            "uncompressed_bytes": self.uncompressed_bytes,
            "ratio": self.ratio().map(|r| (r * 10_000.0).round() / 10_000.0),
            "compression_ratio": self.ratio().map(|r| (10_000.0 / r).round() / 10_000.0),
            "space_saved_percent": self.ratio().map(|r| ((1.0 - r) * 10_000.0).round() / 100.0),
        })
    }
}

/// The compression of data stored in `ratio` (stored / uncompressed) of its size, as
/// h5dump gives it, uncompressed:stored (`3.2:1`), with the space saved; data that grew
/// says so first.
fn compression_text(ratio: f64) -> String {
    let factor = 1.0 / ratio;
    let factor = if factor >= 100.0 {
        format!("{factor:.0}:1")
    } else if !(0.1..0.995).contains(&factor) {
        format!("{factor:.1}:1")
    } else {
        format!("{factor:.2}:1")
    };
    if ratio <= 1.0 {
        // Rounded down: "100% saved" only when nothing at all is stored.
        let saved = ((1.0 - ratio) * 100.0).floor();
        format!("{factor}, {saved:.0}% saved")
    } else {
        let grew = ((ratio - 1.0) * 100.0).ceil();
        format!("grew by {grew:.0}% ({factor})")
    }
}

/// `768 B`, `1.2 KiB`, `3.4 MiB`, `5.6 GiB`.
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The codecs of a Zarr variable, as its `_Codecs` holds them.
fn codecs_of(var: &Var) -> Vec<Value> {
    let text = var.storage.as_ref().and_then(|s| s.codecs.as_deref());
    match text.and_then(|t| serde_json::from_str(t).ok()) {
        Some(Value::Array(codecs)) => codecs,
        _ => Vec::new(),
    }
}

/// Every variable with filters (or Zarr codecs) in `group` and below, with its full path.
fn filtered_vars<'a>(
    group: &'a Group,
    groups: &mut Vec<String>,
    found: &mut Vec<(VarPath, &'a Var)>,
) {
    for var in &group.vars {
        let storage = var.storage.as_ref();
        if storage.is_some_and(|s| !s.filters.is_empty() || s.codecs.is_some()) {
            found.push((VarPath::new(groups.iter().cloned(), var.name.clone()), var));
        }
    }
    for child in &group.groups {
        groups.push(child.name.clone());
        filtered_vars(child, groups, found);
        groups.pop();
    }
}

fn type_name(dataset: &Dataset, t: TypeRef) -> String {
    match t {
        TypeRef::Atomic(a) => a.cdl_name().to_string(),
        TypeRef::User(id) => dataset
            .user_type(id)
            .map_or_else(|| format!("type {}", id.0), |u| u.name.clone()),
    }
}

/// The reports of every filtered variable of `dataset`; `stored` gives stored sizes by
/// full path, in the order of the variables.
fn reports(
    dataset: &Dataset,
    inventory: &Inventory,
    stored: impl FnOnce(&[VarPath]) -> Vec<Option<u64>>,
) -> Vec<VarReport> {
    let mut vars = Vec::new();
    filtered_vars(&dataset.root, &mut Vec::new(), &mut vars);
    let paths: Vec<VarPath> = vars.iter().map(|(p, _)| p.clone()).collect();
    let sizes = if paths.is_empty() {
        Vec::new()
    } else {
        stored(&paths)
    };
    vars.into_iter()
        .enumerate()
        .map(|(i, (path, var))| {
            let dims: Vec<(String, usize)> = var
                .dim_ids
                .iter()
                .map(|id| {
                    dataset
                        .dim(*id)
                        .map_or_else(|| (format!("dim{id}"), 0), |d| (d.name.clone(), d.len))
                })
                .collect();
            let elements: u64 = dims.iter().map(|(_, len)| *len as u64).product();
            let storage = var.storage.as_ref();
            let codecs = codecs_of(var);
            let filters = if codecs.is_empty() {
                storage
                    .map(|s| s.filters.as_slice())
                    .unwrap_or_default()
                    .iter()
                    .map(|spec| FilterReport::of_filter(spec, inventory))
                    .collect()
            } else {
                codecs.iter().map(FilterReport::of_codec).collect()
            };
            VarReport {
                path: path.to_string(),
                type_name: type_name(dataset, var.type_ref),
                dims,
                layout: storage.map_or(Layout::Other, |s| s.layout.clone()),
                uncompressed_bytes: elements * dataset.type_size(var.type_ref) as u64,
                stored_bytes: sizes.get(i).copied().flatten(),
                filters,
            }
        })
        .collect()
}

/// Writes the filter report of the file at `path` to `out`, as text or (`json`) as a JSON
/// array with one object per filtered variable.
pub fn inspect_file(path: &str, json: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let file = crate::storage::open(path)?;
    let dataset = file.schema().map_err(|e| anyhow!(e))?;
    let inventory = Inventory::scan();
    let reports = reports(&dataset, &inventory, |paths| file.stored_sizes(paths));
    if json {
        let all: Vec<Value> = reports.iter().map(VarReport::to_json).collect();
        serde_json::to_writer_pretty(&mut *out, &all)?;
        writeln!(out)?;
        return Ok(());
    }
    write_text(out, path, &reports)
}

fn write_text(out: &mut impl Write, path: &str, reports: &[VarReport]) -> anyhow::Result<()> {
    if reports.is_empty() {
        writeln!(out, "{path}: no variable has filters")?;
        return Ok(());
    }
    let width = output_width();
    for (i, report) in reports.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let head = [
            report.path.clone(),
            report.declaration(),
            report.layout_text(),
        ];
        for line in fit(&head, "", "    ", width) {
            writeln!(out, "{line}")?;
        }
        for (n, filter) in report.filters.iter().enumerate() {
            let number = format!("  {}. ", n + 1);
            let parts = [
                filter.title(),
                filter.decoded.text.clone(),
                filter.where_from(),
            ];
            let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
            let indent = " ".repeat(number.len() + 2);
            for line in fit(&parts, &number, &indent, width) {
                writeln!(out, "{line}")?;
            }
        }
        for line in fit(&[report.size_text()], "  ", "    ", width) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The width to fit lines to: the terminal's, or 80 columns when standard output is not
/// a terminal.
fn output_width() -> usize {
    let term = console::Term::stdout();
    if term.is_term() {
        usize::from(term.size().1).max(40)
    } else {
        80
    }
}

/// `parts` on lines of at most `width` characters where they fit: joined by two spaces
/// after `first` on the first line, a part that does not fit going to a new line after
/// `indent`, and a part too long for any line broken between words.
fn fit(parts: &[String], first: &str, indent: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for part in parts {
        let joined = line.chars().count() + if empty { 0 } else { 2 } + part.chars().count();
        if !empty && joined > width {
            lines.push(std::mem::replace(&mut line, indent.to_string()));
            empty = true;
        }
        if !empty {
            line.push_str("  ");
        }
        for (k, word) in part.split(' ').enumerate() {
            let room = line.chars().count() + usize::from(k > 0) + word.chars().count();
            if k > 0 && room > width {
                lines.push(std::mem::replace(&mut line, indent.to_string()));
            } else if k > 0 {
                line.push(' ');
            }
            line.push_str(word);
        }
        empty = false;
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_reads_as_h5dump_gives_it_and_growth_as_growth() {
        assert_eq!(compression_text(1.0 / 3.2), "3.2:1, 68% saved");
        assert_eq!(compression_text(69.0 / 9600.0), "139:1, 99% saved");
        assert_eq!(compression_text(1.0), "1.0:1, 0% saved");
        assert_eq!(compression_text(43.0 / 40.0), "grew by 8% (0.93:1)");
        assert_eq!(compression_text(5.8), "grew by 480% (0.17:1)");
    }

    #[test]
    fn lines_fit_the_width_without_padding() {
        let parts = [
            "bzip2 (307)".to_string(),
            "block size 9".to_string(),
            "available: built-in".to_string(),
        ];
        assert_eq!(
            fit(&parts, "  1. ", "       ", 80),
            vec!["  1. bzip2 (307)  block size 9  available: built-in"]
        );
        assert_eq!(
            fit(&parts, "  1. ", "       ", 40),
            vec![
                "  1. bzip2 (307)  block size 9",
                "       available: built-in"
            ]
        );
        let long = ["not available (no plugin of id 40000 in /a/very/long/path)".to_string()];
        let lines = fit(&long, "  ", "    ", 30);
        assert!(lines.iter().all(|l| l.chars().count() <= 30), "{lines:?}");
        assert_eq!(lines.join(" ").split_whitespace().count(), 9);
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1024), "1.0 KiB");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(5 << 20), "5.0 MiB");
        assert_eq!(human_size(3 << 30), "3.0 GiB");
    }
}
