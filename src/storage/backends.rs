//! The process-wide facilities of the backends that the front ends use, gathered here so
//! that no front-end module reaches `ncio`, `h5filters` or `zarr` itself: the
//! registration of nctools' HDF5 filters, the HDF5 plugin search, and which Zarr codecs
//! can be read. (The crash guard is no backend's: the front ends use the `crash-guard`
//! crate directly.)

pub use h5filters::{in_filter_callback, is_nctools_plugin_name};
pub use ncio::{
    filter_available, filter_plugins_enabled, library_versions, plugin_codec_reports,
    plugin_search_path, scan_plugins, PluginCodecReport, PluginFile,
};
pub use zarr::{
    codec_available as zarr_codec_available, codec_id_available as zarr_codec_id_available,
};

/// Makes the filters available: nctools' own registered with HDF5 in-process, and the
/// NCZarr plugin pairs of HDF5's plugin path (an HDF5 filter with its codec library, as
/// netCDF-C pairs them) offered to the codec registry, loaded only when a codec nctools
/// lacks is asked for.
pub fn register_filters() {
    h5filters::register_builtin_filters();
    codecs::plugin::set_loader(ncio::load_plugin_codecs);
}
