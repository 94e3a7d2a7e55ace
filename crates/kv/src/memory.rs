//! [`MemoryStore`]: a key-value store held in memory, for stores built in tests and by
//! fuzzers, and for small stores assembled before they are written elsewhere.

use std::collections::BTreeMap;
use std::sync::RwLock;

use crate::key::StoreKey;
use crate::traits::{list_keys, Listing, StorageError};
use crate::ReadableStore;

/// A store in memory: values by key.
#[derive(Debug, Default)]
pub struct MemoryStore {
    values: RwLock<BTreeMap<StoreKey, Vec<u8>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every key held, in order.
    pub fn keys(&self) -> Vec<StoreKey> {
        self.read().keys().cloned().collect()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<StoreKey, Vec<u8>>> {
        self.values
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ReadableStore for MemoryStore {
    fn describe(&self, key: &StoreKey) -> String {
        format!("memory:/{}", key.as_str())
    }

    fn get(&self, key: &StoreKey, cap: u64) -> Result<Option<Vec<u8>>, StorageError> {
        let values = self.read();
        let Some(value) = values.get(key) else {
            return Ok(None);
        };
        StorageError::within_cap(|| self.describe(key), value.len() as u64, cap)?;
        Ok(Some(value.clone()))
    }

    fn get_range(
        &self,
        key: &StoreKey,
        offset: u64,
        length: u64,
    ) -> Result<Option<Vec<u8>>, StorageError> {
        let values = self.read();
        Ok(values.get(key).map(|value| {
            let start = usize::try_from(offset)
                .unwrap_or(usize::MAX)
                .min(value.len());
            let end = usize::try_from(offset.saturating_add(length))
                .unwrap_or(usize::MAX)
                .min(value.len());
            value[start..end].to_vec()
        }))
    }

    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        Ok(self.read().get(key).map(|v| v.len() as u64))
    }
}

impl crate::ListableStore for MemoryStore {
    fn list_dir(&self, prefix: &StoreKey) -> Result<Listing, StorageError> {
        Ok(list_keys(self.read().keys(), prefix))
    }
}

impl crate::WritableStore for MemoryStore {
    fn set(&self, key: &StoreKey, value: &[u8]) -> Result<(), StorageError> {
        self.values
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.clone(), value.to_vec());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ListableStore, WritableStore};

    #[test]
    fn values_and_prefixes_are_listed_by_level() -> Result<(), StorageError> {
        let store = MemoryStore::new();
        for key in ["a/.zarray", "a/0.0", "b/c/.zgroup", ".zgroup"] {
            store.set(&StoreKey::parse(key)?, key.as_bytes())?;
        }
        let root = store.list_dir(&StoreKey::root())?;
        assert_eq!(
            (root.values, root.prefixes),
            (
                vec![".zgroup".to_string()],
                vec!["a".to_string(), "b".to_string()]
            )
        );
        let a = store.list_dir(&StoreKey::parse("a")?)?;
        assert_eq!(a.values, [".zarray", "0.0"]);
        assert!(store.get(&StoreKey::parse("a/0.0")?, 4).is_err());
        assert_eq!(
            store.get(&StoreKey::parse("a/0.0")?, 5)?,
            Some(b"a/0.0".to_vec())
        );
        assert_eq!(store.size(&StoreKey::parse("zz")?)?, None);
        let key = StoreKey::parse("a/0.0")?;
        assert_eq!(store.get_range(&key, 2, 2)?, Some(b"0.".to_vec()));
        assert_eq!(store.get_range(&key, 3, 100)?, Some(b".0".to_vec()));
        assert_eq!(store.get_range(&key, u64::MAX, 5)?, Some(Vec::new()));
        Ok(())
    }
}
