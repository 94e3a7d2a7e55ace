//! The warning `ncdump -s` gives for a Zarr codec that neither nctools nor a plugin pair
//! of HDF5's plugin path knows: `_Codecs` still shows it, but `_Filter` cannot, and the
//! variable's data cannot be read (netCDF-C 4.10 leaves both attributes out without a
//! word).

use ncmodel::Group;
use serde_json::Value;

/// The codec ids of every variable of `group` and its subgroups that no codec of
/// nctools or of a plugin pair knows, as `(variable path, codec id)`.
pub fn unknown_codecs(group: &Group, prefix: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for var in &group.vars {
        let Some(text) = var.storage.as_ref().and_then(|s| s.codecs.as_deref()) else {
            continue;
        };
        let Ok(Value::Array(codecs)) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        for codec in &codecs {
            let id = codec.get("id").and_then(Value::as_str).unwrap_or_default();
            if codecs::zarr_codec::is_vlen_codec(id) {
                // Not a filter: the framing of a string array's values.
                continue;
            }
            if let Err(codecs::nczarr::CodecError::UnknownCodec { id }) =
                codecs::zarr_codec::filter_of_codec(codec)
            {
                found.push((format!("{prefix}/{}", var.name), id));
            }
        }
    }
    for child in &group.groups {
        found.extend(unknown_codecs(child, &format!("{prefix}/{}", child.name)));
    }
    found
}

/// The warning for one unknown codec of the variable `path`.
pub fn warning(path: &str, id: &str) -> String {
    format!(
        "variable {path}: codec \"{id}\" is neither one of nctools' nor one a plugin pair \
         provides (an HDF5 filter plugin with its NCZarr codec library, in HDF5_PLUGIN_PATH; \
         nctools --list-filters lists them), so _Filter leaves it out and the variable's \
         data cannot be read"
    )
}
