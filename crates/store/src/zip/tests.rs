use super::*;
use crate::key::StoreKey;
use crate::kv::KeyValueStore;

fn key(text: &str) -> StoreKey {
    StoreKey::parse(text).unwrap_or_default()
}

#[test]
fn placeholder() {
    assert_eq!(key("a").as_str(), "a");
}
