//! NCZarr's plugin pairs, as netCDF-C makes them: every library of HDF5's plugin search
//! path is loaded and asked for its HDF5 filter (`H5PLget_plugin_info`) and its NCZarr
//! codecs (`NCZ_get_codec_info`, `NCZ_codec_info_defaults`); each codec is paired with
//! the first filter of its HDF5 id in search order (the same library or another). The
//! pairs serve the codecs crate's registry ([`load_plugin_codecs`], the loader the
//! front end gives `codecs::plugin::set_loader`) for the ids nctools has no codec of;
//! [`plugin_codec_reports`] tells `--list-filters` what was found and what was not usable.
//!
//! Every call into a plugin takes the library lock and is marked for the crash guard, so
//! that a plugin that crashes ends the tool with a message naming it, not a core dump.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use codecs::plugin::PluginCodec;

use crate::sys::{load_plugin_parts, with_lib, PluginCodecClass, PluginFilter};
use crash_guard::PluginCall;

/// One NCZarr codec a codec library offers, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginCodecReport {
    /// The numcodecs id of the codec.
    pub codec_id: String,
    /// The HDF5 filter id it pairs with.
    pub hdf5_id: u32,
    /// The codec library.
    pub codec_library: PathBuf,
    /// The filter plugin it was paired with, if one of that id was found.
    pub filter_library: Option<PathBuf>,
    /// Why it is not used, when it is not.
    pub problem: Option<String>,
}

static REPORTS: OnceLock<Vec<PluginCodecReport>> = OnceLock::new();

/// A codec paired with its filter.
#[derive(Debug)]
struct Pair {
    codec_id: String,
    hdf5_id: u32,
    provider: String,
    filter: PluginFilter,
    codec: PluginCodecClass,
}

impl PluginCodec for Pair {
    fn codec_id(&self) -> &str {
        &self.codec_id
    }

    fn hdf5_id(&self) -> u32 {
        self.hdf5_id
    }

    fn provider(&self) -> &str {
        &self.provider
    }

    fn encodes(&self) -> bool {
        self.filter.encodes
    }

    fn params_of_codec(&self, json: &str) -> Result<Vec<u32>, String> {
        with_lib(|lib| {
            let _call = PluginCall::enter(&self.provider);
            self.codec.params_of_codec(lib, json)
        })
    }

    fn codec_of_params(&self, params: &[u32]) -> Result<String, String> {
        with_lib(|lib| {
            let _call = PluginCall::enter(&self.provider);
            self.codec.codec_of_params(lib, params)
        })
    }

    fn run(
        &self,
        params: &[u32],
        input: &[u8],
        decode: bool,
        max_output: usize,
    ) -> Result<Vec<u8>, String> {
        if decode && !self.filter.decodes {
            return Err("its HDF5 filter does not decode".into());
        }
        if let Some(declared) = decode
            .then(|| declared_too_large(self.hdf5_id, params, input, max_output))
            .flatten()
        {
            return Err(declared);
        }
        with_lib(|lib| {
            let _call = PluginCall::enter(&self.provider);
            if decode {
                self.filter
                    .decode_contained(lib, params, input, max_output)
                    .map_err(|e| contained_failure(&e))
            } else {
                self.filter.run(lib, params, input, false, max_output)
            }
        })
    }
}

/// What one library provides, with its path.
struct Loaded {
    path: PathBuf,
    parts: crate::sys::PluginParts,
}

/// Loads the libraries of `dirs` (HDF5's plugin search path) and pairs their codecs with
/// their filters as netCDF-C does: for each filter id, the first filter and the first
/// codec (`NCZ_get_codec_info`) in search order, a library whose filter and codec have
/// different ids being ignored; a defaults library's codecs (`NCZ_codec_info_defaults`)
/// only for the ids no other library has a codec for. The reports of every codec
/// offered go to [`plugin_codec_reports`].
fn pair_in(dirs: &[PathBuf]) -> (Vec<Box<dyn PluginCodec>>, Vec<PluginCodecReport>) {
    let libraries: Vec<Loaded> = dirs
        .iter()
        .flat_map(|dir| crate::plugin_scan::plugin_files(dir))
        .filter_map(|path| {
            let c_path = CString::new(path.as_os_str().as_bytes()).ok()?;
            let parts = with_lib(|lib| load_plugin_parts(lib, &c_path)).ok()?;
            Some(Loaded { path, parts })
        })
        .collect();
    let consistent = |l: &Loaded| match (&l.parts.filter, &l.parts.codec) {
        (Some(filter), Some(codec)) => filter.id == codec.hdf5_id,
        _ => true,
    };
    let filter_of = |id: u32| {
        libraries.iter().filter(|l| consistent(l)).find_map(|l| {
            l.parts
                .filter
                .filter(|f| f.id == id)
                .map(|f| (l.path.clone(), f))
        })
    };
    // The codecs in the order they are chosen: every library's own, then the defaults.
    let offers = libraries
        .iter()
        .filter_map(|l| l.parts.codec.as_ref().map(|c| (l, c, false)))
        .chain(
            libraries
                .iter()
                .flat_map(|l| l.parts.defaults.iter().map(move |c| (l, c, true))),
        );
    let mut chosen: Vec<u32> = Vec::new();
    let mut pairs: Vec<Box<dyn PluginCodec>> = Vec::new();
    let mut reports = Vec::new();
    for (library, offer, default) in offers {
        let filter = filter_of(offer.hdf5_id);
        let mut report = PluginCodecReport {
            codec_id: offer.codec_id.clone(),
            hdf5_id: offer.hdf5_id,
            codec_library: library.path.clone(),
            filter_library: filter.as_ref().map(|(path, _)| path.clone()),
            problem: None,
        };
        report.problem = if !consistent(library) {
            Some(
                "its library's own HDF5 filter has another id, so netCDF-C ignores the library"
                    .into(),
            )
        } else if chosen.contains(&offer.hdf5_id) {
            Some(if default {
                "a defaults library's codec, and another library has one for this filter".into()
            } else {
                "a codec for this filter comes earlier in the plugin path".into()
            })
        } else {
            match (&offer.class, &filter) {
                (Err(why), _) => Some(why.clone()),
                (Ok(_), None) => Some(format!(
                    "no HDF5 filter plugin of id {} in the plugin path",
                    offer.hdf5_id
                )),
                (Ok(class), Some((filter_path, filter))) => {
                    chosen.push(offer.hdf5_id);
                    with_lib(|lib| {
                        let _call = PluginCall::enter(&display(&library.path));
                        class.initialize(lib);
                    });
                    pairs.push(Box::new(Pair {
                        codec_id: offer.codec_id.clone(),
                        hdf5_id: offer.hdf5_id,
                        provider: provider(filter_path, &library.path),
                        filter: *filter,
                        codec: *class,
                    }));
                    None
                }
            }
        };
        reports.push(report);
    }
    (pairs, reports)
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The files of a pair, for people.
fn provider(filter: &Path, codec: &Path) -> String {
    if filter == codec {
        display(filter)
    } else {
        format!("{} with codec library {}", display(filter), display(codec))
    }
}

/// The plugin pairs of HDF5's plugin search path (none when HDF5's plugins are turned
/// off with `HDF5_PLUGIN_PRELOAD=::`): the loader of `codecs::plugin`.
pub fn load_plugin_codecs() -> Vec<Box<dyn PluginCodec>> {
    let (pairs, reports) = if crate::filter_plugins_enabled() {
        let dirs: Vec<PathBuf> = crate::plugin_search_paths()
            .into_iter()
            .map(PathBuf::from)
            .collect();
        pair_in(&dirs)
    } else {
        (Vec::new(), Vec::new())
    };
    let _ = REPORTS.set(reports);
    pairs
}

/// Every NCZarr codec the plugin path's codec libraries offer, paired or not (the
/// plugins are loaded first if they were not).
pub fn plugin_codec_reports() -> Vec<PluginCodecReport> {
    codecs::plugin::loaded();
    REPORTS.get().cloned().unwrap_or_default()
}

/// The filters of HDF5's plugin search path, each with its library, loaded on first use.
static FILTERS: OnceLock<Vec<(PathBuf, PluginFilter)>> = OnceLock::new();

/// Runs the plugin filter `id` of HDF5's plugin path (the first in search order) to
/// decode one chunk, its output at most `bound` bytes; `None` when the path has no such
/// filter, or it does not decode (HDF5's plugins turned off included). Used to check a
/// netCDF-4 chunk before HDF5 decodes it with the same plugin.
pub(crate) fn run_plugin_filter(
    id: u32,
    params: &[u32],
    data: &[u8],
    bound: usize,
) -> Option<Result<Vec<u8>, codecs::ForeignFailure>> {
    let filters = FILTERS.get_or_init(|| {
        if !crate::filter_plugins_enabled() {
            return Vec::new();
        }
        crate::plugin_search_paths()
            .into_iter()
            .flat_map(|dir| crate::plugin_scan::plugin_files(Path::new(&dir)))
            .filter_map(|path| {
                let c_path = CString::new(path.as_os_str().as_bytes()).ok()?;
                let parts = with_lib(|lib| load_plugin_parts(lib, &c_path)).ok()?;
                Some((path, parts.filter?))
            })
            .collect()
    });
    let (path, filter) = filters.iter().find(|(_, f)| f.id == id && f.decodes)?;
    let provider = display(path);
    if let Some(declared) = declared_too_large(id, params, data, bound) {
        return Some(Err(codecs::ForeignFailure::TooLarge(format!(
            "the plugin {provider}: {declared}"
        ))));
    }
    let ran = with_lib(|lib| {
        let _call = PluginCall::enter(&provider);
        filter.decode_contained(lib, params, data, bound)
    });
    Some(ran.map_err(|e| {
        let what = format!("the plugin {provider}: {}", contained_failure(&e));
        match e {
            crate::sys::ContainedError::Work(m) if m.starts_with(crate::sys::DECODED_PAST) => {
                codecs::ForeignFailure::TooLarge(what)
            }
            _ => codecs::ForeignFailure::Failed(what),
        }
    }))
}

/// What a plugin's contained decode of a chunk came to, in words.
fn contained_failure(failure: &crate::sys::ContainedError) -> String {
    use crate::sys::ContainedError;
    match failure {
        ContainedError::Work(message) => message.clone(),
        ContainedError::Ended(how) => format!("decoding the chunk, {how}"),
        ContainedError::Unavailable(why) => {
            format!("it could not be run apart to check the chunk: {why}")
        }
    }
}

/// HDF5's id of the bitshuffle filter (hdf5plugin, h5py's bitshuffle).
const BITSHUFFLE: u32 = 32008;

/// What a chunk's own header says it decodes to, when that is more than `bound`, for the
/// plugin filters whose header nctools knows (given their parameters `params`): a plugin allocates what its header says
/// before anything can check its output (a 34 KB file whose bitshuffle header said 1e9
/// bytes cost 2.97 GB). `None` when the header is within the bound or not known.
fn declared_too_large(id: u32, params: &[u32], chunk: &[u8], bound: usize) -> Option<String> {
    match id {
        // Bitshuffle with a compressor (its fifth parameter: 2 for lz4, 3 for zstd) puts
        // a header first: the decoded size, 8 bytes big-endian, then the block size.
        // Without one, the chunk is the shuffled data itself.
        BITSHUFFLE if matches!(params.get(4), Some(2 | 3)) => {
            let declared = u64::from_be_bytes(chunk.get(..8)?.try_into().ok()?);
            (declared > bound as u64).then(|| {
                format!(
                    "the chunk's bitshuffle header says {declared} bytes, more than its {bound}"
                )
            })
        }
        _ => None,
    }
}
