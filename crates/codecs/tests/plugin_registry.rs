//! The registry's plugin codecs (`codecs::plugin`) through an injected loader, in a test
//! binary of its own: the loader is set once per process.

use codecs::plugin::{loaded, set_loader, PluginCodec};
use codecs::wire::WireError;
use codecs::FilterSpec;
use serde_json::Value;

/// A plugin pair that stores chunks as they are.
#[derive(Debug)]
struct Fake {
    id: &'static str,
    hdf5: u32,
}

impl PluginCodec for Fake {
    fn codec_id(&self) -> &str {
        self.id
    }
    fn hdf5_id(&self) -> u32 {
        self.hdf5
    }
    fn provider(&self) -> &str {
        "libfake.so"
    }
    fn encodes(&self) -> bool {
        true
    }
    fn params_of_codec(&self, json: &str) -> Result<Vec<u32>, String> {
        let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
        Ok(vec![value["level"].as_u64().unwrap_or(0) as u32])
    }
    fn codec_of_params(&self, params: &[u32]) -> Result<String, String> {
        Ok(format!(
            "{{\"id\": \"{}\", \"level\": {}}}",
            self.id,
            params.first().copied().unwrap_or(0)
        ))
    }
    fn run(&self, _: &[u32], input: &[u8], _: bool, max: usize) -> Result<Vec<u8>, String> {
        if input.len() > max {
            return Err("too long".into());
        }
        Ok(input.to_vec())
    }
}

fn fakes() -> Vec<Box<dyn PluginCodec>> {
    vec![
        Box::new(Fake {
            id: "zstd",
            hdf5: 32015,
        }),
        Box::new(Fake {
            id: "other",
            hdf5: 32015,
        }),
        Box::new(Fake {
            id: "fake",
            hdf5: 299,
        }),
        Box::new(Fake {
            id: "fake2",
            hdf5: 299,
        }),
    ]
}

#[test]
fn built_in_codecs_keep_priority_and_the_first_pair_of_an_id_wins() {
    set_loader(fakes);
    let ids: Vec<&str> = loaded().iter().map(|p| p.plugin().codec_id()).collect();
    assert_eq!(ids, ["fake"]);
    let zstd = codecs::registry::codec_of_numcodecs_id("zstd").map(|c| c.entry());
    assert_eq!(
        zstd,
        codecs::registry::CODECS
            .iter()
            .map(|c| c.entry())
            .find(|e| e.numcodecs_id == "zstd")
    );
    let fake = codecs::registry::codec_of_hdf5_id(299).map(|c| c.entry().numcodecs_id);
    assert_eq!(fake, Some("fake"));
    let json = serde_json::json!({"id": "fake", "level": 7});
    let filter = codecs::zarr_codec::filter_of_codec(&json).map_err(|e| e.to_string());
    assert_eq!(filter, Ok(FilterSpec::new(299, vec![7])));
    assert_eq!(
        codecs::zarr_codec::zarr_codec(&FilterSpec::new(299, vec![3]), 4).ok(),
        Some(serde_json::json!({"id": "fake", "level": 3}))
    );
    let chunk = codecs::numcodecs::decode(&FilterSpec::new(299, vec![3]), 4, &[1, 2, 3], 2);
    assert!(
        matches!(chunk, Err(WireError::Codec { id: 299, .. })),
        "{chunk:?}"
    );
    assert!(!codecs::registry::is_passthrough(299));
}
