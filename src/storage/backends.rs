//! The process-wide facilities of the backends that the front ends use, gathered here so
//! that no front-end module reaches `ncio`, `h5filters` or `zarr` itself: the crash
//! guard's notes on what is being done, the registration of nctools' HDF5 filters, the
//! HDF5 plugin search, and which Zarr codecs can be read.

pub use h5filters::{in_filter_callback, is_nctools_plugin_name, register_builtin_filters};
pub use ncio::{
    crash_guard, filter_available, filter_plugins_enabled, library_versions, plugin_search_path,
    scan_plugins, PluginFile,
};
pub use zarr::{
    codec_available as zarr_codec_available, codec_id_available as zarr_codec_id_available,
};
