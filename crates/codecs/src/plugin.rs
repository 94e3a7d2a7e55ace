//! Codecs that plugin libraries provide: an HDF5 filter plugin paired with the NCZarr
//! codec library that translates between its HDF5 parameters and numcodecs JSON, as
//! netCDF-C pairs them (its filter guide's "Pre-Processing Filter Libraries" and codec
//! API). This crate links no C: the front end injects the loader ([`set_loader`]), which
//! finds and loads the pairs (netCDF-C's side lives in `ncio`); each pair becomes a
//! [`Codec`] of the registry, consulted only for the ids no built-in codec has (built-ins
//! keep priority). The plugins are loaded the first time such an id is looked up, never
//! for files whose codecs nctools has.
//!
//! What a plugin returns is checked here: a chunk it decodes to more than the chunk's
//! size is an error naming the plugin; the parameters it makes of JSON are words.

use std::fmt;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::kinds::ConfigReader;
use crate::nczarr::CodecError;
use crate::registry::{Codec, CodecEntry};
use crate::wire::WireError;

/// One codec a plugin pair provides: the functions of the HDF5 filter and of its NCZarr
/// codec, called by the loader's code (behind its crash containment).
pub trait PluginCodec: Send + Sync + fmt::Debug {
    /// The numcodecs id of the codec (`NCZ_codec_t.codecid`).
    fn codec_id(&self) -> &str;

    /// The HDF5 filter id it pairs with.
    fn hdf5_id(&self) -> u32;

    /// Which files provide it, for people (`lib__nch5misc.so with lib__nczmisc.so`).
    fn provider(&self) -> &str;

    /// Whether the HDF5 filter encodes (some plugins only decode).
    fn encodes(&self) -> bool;

    /// The HDF5 parameters of the codec's JSON text (`NCZ_codec_to_hdf5`).
    fn params_of_codec(&self, json: &str) -> Result<Vec<u32>, String>;

    /// The codec's JSON text for the HDF5 parameters `params` (`NCZ_hdf5_to_codec`).
    fn codec_of_params(&self, params: &[u32]) -> Result<String, String>;

    /// Runs the HDF5 filter on one chunk: forward (`decode` false) or in reverse. A
    /// result longer than `max_output` bytes is an error.
    fn run(
        &self,
        params: &[u32],
        input: &[u8],
        decode: bool,
        max_output: usize,
    ) -> Result<Vec<u8>, String>;
}

/// The function that finds and loads the plugin pairs, set once by the front end.
pub type Loader = fn() -> Vec<Box<dyn PluginCodec>>;

static LOADER: OnceLock<Loader> = OnceLock::new();
static LOADED: OnceLock<Vec<Plugged>> = OnceLock::new();

/// Sets the function that loads plugin pairs (once per process; later calls are
/// ignored). Without one, no plugin codec exists.
pub fn set_loader(loader: Loader) {
    let _ = LOADER.set(loader);
}

/// The plugin codecs, loaded on the first call: those whose codec id and filter id no
/// built-in codec has, the first of each id in the loader's order.
pub fn loaded() -> &'static [Plugged] {
    LOADED.get_or_init(|| {
        let Some(loader) = LOADER.get() else {
            return Vec::new();
        };
        let mut kept: Vec<Plugged> = Vec::new();
        for plugin in loader() {
            let builtin = is_builtin(plugin.codec_id(), plugin.hdf5_id());
            let repeated = kept.iter().any(|k| {
                k.plugin.codec_id() == plugin.codec_id() || k.plugin.hdf5_id() == plugin.hdf5_id()
            });
            if !builtin && !repeated {
                kept.push(Plugged::new(plugin));
            }
        }
        kept
    })
}

/// Whether nctools has a codec of its own with the numcodecs id `codec_id` or the HDF5
/// filter id `hdf5_id`: no plugin pair serves either.
pub fn is_builtin(codec_id: &str, hdf5_id: u32) -> bool {
    crate::registry::CODECS
        .iter()
        .any(|c| c.entry().numcodecs_id == codec_id || c.entry().hdf5_id == Some(hdf5_id))
}

/// The plugin codec that is the HDF5 filter `id`; the plugins are not loaded for an id
/// nctools has.
pub fn by_hdf5_id(id: u32) -> Option<&'static Plugged> {
    let own = crate::registry::CODECS
        .iter()
        .any(|c| c.entry().hdf5_id == Some(id));
    if own {
        return None;
    }
    loaded().iter().find(|p| p.plugin.hdf5_id() == id)
}

/// The plugin codec with the numcodecs id `id`; the plugins are not loaded for an id
/// nctools has.
pub fn by_codec_id(id: &str) -> Option<&'static Plugged> {
    let own = crate::registry::CODECS
        .iter()
        .any(|c| c.entry().numcodecs_id == id);
    if own {
        return None;
    }
    loaded().iter().find(|p| p.plugin.codec_id() == id)
}

/// A plugin pair as a codec of the registry.
#[derive(Debug)]
pub struct Plugged {
    entry: CodecEntry,
    plugin: Box<dyn PluginCodec>,
}

impl Plugged {
    fn new(plugin: Box<dyn PluginCodec>) -> Self {
        // The registry's facts hold static names; a plugin's lives as long as the process
        // (the libraries are never unloaded), and there are at most a few of them.
        let id: &'static str = Box::leak(plugin.codec_id().to_string().into_boxed_str());
        let mut entry = CodecEntry::hdf5(plugin.hdf5_id(), id);
        entry.encodes = plugin.encodes();
        // A Zarr store holds a plugin's working parameters; HDF5 gives a filter's
        // parameters to its `set_local` callback when a variable is defined, which may
        // change them (hdf5plugin's bitshuffle puts its version and element size first),
        // so a stored chunk moved as it is would be read with other parameters: chunks
        // are encoded anew instead.
        entry.passthrough = false;
        Self { entry, plugin }
    }

    /// The pair's functions.
    pub fn plugin(&self) -> &dyn PluginCodec {
        self.plugin.as_ref()
    }

    fn failed(&self, message: String) -> WireError {
        WireError::Codec {
            id: self.plugin.hdf5_id(),
            message: format!("plugin {}: {message}", self.plugin.provider()),
        }
    }

    fn untranslatable(&self, why: &str) -> CodecError {
        CodecError::PluginFailed {
            id: self.plugin.codec_id().to_string(),
            provider: self.plugin.provider().to_string(),
            message: why.to_string(),
        }
    }

    /// The codec's JSON object for `params`, as the codec library writes it.
    fn json_of(&self, params: &[u32]) -> Result<Value, CodecError> {
        let text = self
            .plugin
            .codec_of_params(params)
            .map_err(|e| self.untranslatable(&e))?;
        match serde_json::from_str::<Value>(&text) {
            Ok(value @ Value::Object(_)) => Ok(value),
            _ => Err(self.untranslatable(&format!(
                "NCZ_hdf5_to_codec made {text:?}, which is not a JSON object"
            ))),
        }
    }
}

impl Codec for Plugged {
    fn entry(&self) -> &CodecEntry {
        &self.entry
    }

    fn codecs_text(&self, params: &[u32]) -> String {
        match self.json_of(params) {
            Ok(value) => value.to_string(),
            Err(_) => format!("{{\"id\": \"{}\"}}", self.entry.numcodecs_id),
        }
    }

    fn hdf5_params(&self, read: &ConfigReader<'_>) -> Result<Vec<u32>, CodecError> {
        let text = Value::Object(read.object.clone()).to_string();
        self.plugin
            .params_of_codec(&text)
            .map_err(|e| self.untranslatable(&e))
    }

    fn store_json(&self, params: &[u32], _element_size: usize) -> Value {
        self.json_of(params).unwrap_or_else(|_| {
            let mut object = Map::new();
            object.insert("id".into(), Value::from(self.entry.numcodecs_id));
            Value::Object(object)
        })
    }

    fn zarr_encode(
        &self,
        params: &[u32],
        _element_size: usize,
        input: &[u8],
    ) -> Option<Result<Vec<u8>, WireError>> {
        if !self.entry.encodes {
            return Some(Err(self.failed("its HDF5 filter does not encode".into())));
        }
        // An encoded chunk may be larger than its input; HDF5 itself does not bound it.
        Some(
            self.plugin
                .run(params, input, false, usize::MAX)
                .map_err(|e| self.failed(e)),
        )
    }

    fn zarr_decode(
        &self,
        params: &[u32],
        _element_size: usize,
        input: &[u8],
        max_output: usize,
    ) -> Option<Result<Vec<u8>, WireError>> {
        Some(
            self.plugin
                .run(params, input, true, max_output)
                .map_err(|e| self.failed(e)),
        )
    }
}
