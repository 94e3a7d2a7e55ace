//! Where the implementation of a filter comes from on this machine.

use std::path::{Path, PathBuf};

use crate::storage::backends::PluginFile;

/// Filters native to HDF5: deflate, shuffle, fletcher32, szip (when HDF5 was built with
/// it), nbit, scaleoffset.
const HDF5_NATIVE: [u32; 6] = [1, 2, 3, 4, 5, 6];

/// Where a filter's implementation comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Carried inside nctools (`codecs`, through `h5filters`) and registered at start-up.
    Builtin,
    /// Native to HDF5 (or otherwise registered with it).
    Hdf5,
    /// The plugin file at this path.
    Plugin(PathBuf),
    /// nctools' own Zarr codec of this numcodecs id (a Zarr store's filters).
    ZarrCodec(String),
    /// Nowhere: the filter is not available.
    None,
}

/// A filter's availability: its source, and a note for the reader (why it is missing,
/// what else provides it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Availability {
    /// Where it comes from.
    pub source: Source,
    /// A remark, such as `built into nctools, turned off by NCTOOLS_BUILTIN_FILTERS=0`.
    pub note: Option<String>,
}

impl Availability {
    /// Whether the filter can be used here.
    pub fn available(&self) -> bool {
        self.source != Source::None
    }

    /// The source as scripts read it: `builtin`, `hdf5`, `plugin` or `none`.
    pub fn source_key(&self) -> &'static str {
        match self.source {
            Source::Builtin | Source::ZarrCodec(_) => "builtin",
            Source::Hdf5 => "hdf5",
            Source::Plugin(_) => "plugin",
            Source::None => "none",
        }
    }

    /// The plugin file, for a filter that comes from one.
    pub fn path(&self) -> Option<&Path> {
        match &self.source {
            Source::Plugin(path) => Some(path),
            _ => None,
        }
    }

    /// The source as people read it, without the note: `built-in`, `HDF5`, `plugin PATH`,
    /// `not available`.
    pub fn source_text(&self) -> String {
        match &self.source {
            Source::Builtin => "built-in".to_string(),
            Source::Hdf5 => "HDF5".to_string(),
            Source::Plugin(path) => format!("plugin {}", path.display()),
            Source::ZarrCodec(id) => format!("built-in Zarr codec {id}"),
            Source::None => "not available".to_string(),
        }
    }

    /// The source as people read it: `built-in`, `HDF5`, `plugin PATH`, `not available`,
    /// followed by the note in parentheses.
    pub fn describe(&self) -> String {
        let source = self.source_text();
        match &self.note {
            Some(note) => format!("{source} ({note})"),
            None => source,
        }
    }
}

impl Availability {
    /// Whether the Zarr codec `codec` (numcodecs JSON) can be decoded: by nctools' own
    /// codecs, or by a plugin pair (an HDF5 filter plugin with its NCZarr codec library).
    pub fn of_zarr_codec(codec: &serde_json::Value) -> Self {
        let id = codec.get("id").and_then(|v| v.as_str()).unwrap_or("?");
        // Only a codec nctools lacks makes the plugins load.
        let paired = codecs::plugin::by_codec_id(id).and_then(|_| {
            crate::storage::backends::plugin_codec_reports()
                .into_iter()
                .filter(|r| r.codec_id == id && r.problem.is_none())
                .find_map(|r| Some((r.filter_library?, r.codec_library)))
        });
        if let Some((filter, library)) = paired {
            return Self {
                source: Source::Plugin(filter),
                note: Some(format!("NCZarr codec from {}", library.display())),
            };
        }
        let ours = codecs::zarr_codec::filter_of_codec(codec)
            .is_ok_and(|f| crate::storage::backends::zarr_codec_available(f.id))
            || (codecs::zarr_codec::filter_of_codec(codec).is_err()
                && crate::storage::backends::zarr_codec_id_available(id));
        if ours {
            Self {
                source: Source::ZarrCodec(id.to_string()),
                note: None,
            }
        } else {
            Self {
                source: Source::None,
                note: Some(format!(
                    "nctools has no Zarr codec {id}, and no plugin pair in HDF5_PLUGIN_PATH \
                     provides one"
                )),
            }
        }
    }
}

/// Whether a plugin file is one of nctools' own (`scripts/install --plugins`), by the
/// name its filter has.
fn is_ours(plugin: &PluginFile) -> bool {
    plugin
        .name
        .as_deref()
        .is_some_and(crate::storage::backends::is_nctools_plugin_name)
}

/// How a note names a plugin file: `nctools plugin` for one of ours, else `plugin`.
fn plugin_kind(plugin: &PluginFile) -> &'static str {
    if is_ours(plugin) {
        "nctools plugin"
    } else {
        "plugin"
    }
}

/// What this process can use: the built-in filters' state and the plugins of HDF5's
/// search path, each loaded once to read its filter id.
#[derive(Debug, Clone)]
pub struct Inventory {
    plugins: Vec<PluginFile>,
    plugins_enabled: bool,
}

impl Inventory {
    /// Scans HDF5's plugin search path (loading every plugin file once).
    pub fn scan() -> Self {
        Self {
            plugins: crate::storage::backends::scan_plugins(),
            plugins_enabled: crate::storage::backends::filter_plugins_enabled(),
        }
    }

    /// The plugin files found, in search order.
    pub fn plugins(&self) -> &[PluginFile] {
        &self.plugins
    }

    /// Where the filter `id` comes from here, in the order HDF5 uses them: a registered
    /// filter (nctools' built-ins, HDF5's native ones) before a plugin file, and the first
    /// plugin of the search path that provides the id.
    pub fn availability(&self, id: u32) -> Availability {
        let carried = codecs::registry::is_carried_into_hdf5(id);
        let turned_off = carried && !codecs::builtins_enabled();
        let providers: Vec<&PluginFile> =
            self.plugins.iter().filter(|p| p.id == Some(id)).collect();
        if carried && !turned_off && crate::storage::backends::filter_available(id) {
            let shadowed: Vec<String> = providers
                .iter()
                .map(|p| format!("{} {} not used", plugin_kind(p), p.path.display()))
                .collect();
            return Availability {
                source: Source::Builtin,
                note: (!shadowed.is_empty()).then(|| shadowed.join("; ")),
            };
        }
        if HDF5_NATIVE.contains(&id) {
            return if crate::storage::backends::filter_available(id) {
                Availability {
                    source: Source::Hdf5,
                    note: None,
                }
            } else {
                Availability {
                    source: Source::None,
                    note: Some("this HDF5 library was built without it".to_string()),
                }
            };
        }
        let off_note = turned_off.then(|| {
            format!(
                "built into nctools, turned off by {}=0",
                codecs::DISABLE_VARIABLE
            )
        });
        if let Some(first) = providers.first() {
            if !self.plugins_enabled {
                return Availability {
                    source: Source::None,
                    note: Some(format!(
                        "{} is not loaded: HDF5_PLUGIN_PRELOAD turns plugins off",
                        first.path.display()
                    )),
                };
            }
            let others: Vec<String> = providers[1..]
                .iter()
                .map(|p| format!("also in {}", p.path.display()))
                .collect();
            let ours = is_ours(first).then(|| "nctools".to_string());
            let notes: Vec<String> = ours.into_iter().chain(off_note).chain(others).collect();
            return Availability {
                source: Source::Plugin(first.path.clone()),
                note: (!notes.is_empty()).then(|| notes.join("; ")),
            };
        }
        if crate::storage::backends::filter_available(id) {
            return Availability {
                source: Source::Hdf5,
                note: Some("registered with HDF5".to_string()),
            };
        }
        Availability {
            source: Source::None,
            note: off_note,
        }
    }
}
