//! The compiler's lookup tables (subschemas by address, resources by URI) as sorted lists.
//!
//! A `HashMap` would bring a hash table and SipHash into the browser bundle for these alone
//! (2.8 KB gzipped; DESIGN.md: the bundle is a budget). Lookups are binary searches; an insert
//! shifts the entries after it, which for a schema of 30,000 subschemas still compiles as fast
//! as the `HashMap` did (measured natively, about 60 ms).

use std::borrow::Borrow;

/// A map from `K` to `V`, sorted by key.
pub(super) struct Table<K, V>(Vec<(K, V)>);

impl<K: Ord, V> Table<K, V> {
    pub fn new() -> Self {
        Self(Vec::new())
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key)).ok().map(|i| &self.0[i].1)
    }

    /// Adds `key`, or replaces its value.
    pub fn insert(&mut self, key: K, value: V) {
        match self.0.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::Table;

    #[test]
    fn finds_what_was_inserted_last() {
        let mut table = Table::new();
        for (key, value) in [("b", 1), ("a", 2), ("c", 3), ("a", 4)] {
            table.insert(key.to_owned(), value);
        }
        assert_eq!([table.get("a"), table.get("b"), table.get("c"), table.get("d")], [Some(&4), Some(&1), Some(&3), None]);
    }
}
