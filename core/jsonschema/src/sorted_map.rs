//! [`SortedMap`]: a map kept as a vector sorted by key, for the workspace's maps that the browser
//! bundle would otherwise pay for in B-tree or hash-table code: the schema compiler's lookup
//! tables here, and through `openagent_core::sorted_map` the in-memory filesystem's directories,
//! the shell's variables, a session's per-tool limits, a command's extra variables and a
//! request's metadata.
//!
//! Each key/value pair a `BTreeMap` or `HashMap` is used with brings its own copy of that
//! structure's code into the bundle: 2.8 KB gzipped of hash table and SipHash for the compiler's
//! tables, 4.7 KB raw of B-tree for the tool limits, 8.6 KB raw for the directories, 1.3 KB raw
//! for the string maps. A sorted
//! vector does the job with a binary search and a `Vec` insert or remove, a few hundred bytes for
//! each pair of types.
//!
//! The price is paid out of order: an insert or removal moves the entries after its slot. A
//! schema of 30,000 subschemas compiles as fast as with a `HashMap` (about 60 ms natively). One
//! directory of 10,000 files written in reverse order, or removed first to last, takes about
//! 0.1 s natively where the B-tree took 5 to 8 ms; 30,000 take about 1 s against 15 to 30 ms
//! (openagent-core's `memory_fs` benchmark). Inserting in key order appends (nothing moves). The
//! playground imports at most 5,000 files, and 1,000 in any order take a millisecond or two.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A map from `K` to `V`, iterated in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.position(key).ok().map(|at| &self.0[at].1)
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.position(key).ok().map(|at| &mut self.0[at].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.position(key).is_ok()
    }

    /// Sets `key`'s value; returns the one it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value)),
            Err(at) => {
                self.0.insert(at, (key, value));
                None
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.position(key).ok().map(|at| self.0.remove(at).1)
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&K, &V)> {
        self.into_iter()
    }

    /// The entries as they are kept: sorted by key.
    pub fn as_slice(&self) -> &[(K, V)] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn position<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = Self::new();
        for (key, value) in entries {
            map.insert(key, value);
        }
        map
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(key, value)| (key, value))
    }
}

/// Written as a map (a JSON object), in key order.
impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self)
    }
}

/// Read from a map (a JSON object); a key given twice keeps its last value, as `BTreeMap` does.
impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for SortedMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<K, V>(PhantomData<(K, V)>);

        impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Entries<K, V> {
            type Value = SortedMap<K, V>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Self::Value, A::Error> {
                let mut map = SortedMap::new();
                while let Some((key, value)) = entries.next_entry()? {
                    map.insert(key, value);
                }
                Ok(map)
            }
        }

        deserializer.deserialize_map(Entries(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::collections::BTreeMap;

    use super::SortedMap;

    #[test]
    fn behaves_as_a_btree_map() {
        let mut map = SortedMap::new();
        let mut model = BTreeMap::new();
        // Keys in and out of order, repeated, removed, one a prefix of another, non-ASCII, empty.
        let keys = ["m", "b", "z", "b", "a", "ab", "é", "", "zz", "m", "a"];
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(map.insert(key.to_string(), i), model.insert(key.to_string(), i), "insert {key}");
            if i % 3 == 2 {
                let gone = keys[i / 2];
                assert_eq!(map.remove(gone), model.remove(gone), "remove {gone}");
            }
            assert!(map.iter().map(|(k, v)| (k.clone(), *v)).eq(model.clone()), "after {key}");
        }
        for key in ["m", "b", "nothing", "", "é"] {
            assert_eq!(map.get(key), model.get(key));
            assert_eq!(map.contains_key(key), model.contains_key(key));
        }
        *map.get_mut("a").expect("a is there") += 100;
        assert_eq!(map.get("a"), Some(&110));
        assert_eq!((map.len(), map.is_empty()), (model.len(), false));
        assert_eq!(map.remove("nothing"), None);
    }

    #[test]
    fn collects_in_any_order_into_the_same_map() {
        let sorted: SortedMap<String, u8> = [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)].into_iter().collect();
        let shuffled: SortedMap<String, u8> = [("c".into(), 3), ("a".into(), 1), ("b".into(), 2)].into_iter().collect();
        assert_eq!(sorted, shuffled);
        assert_eq!(shuffled.as_slice(), [("a".to_owned(), 1), ("b".to_owned(), 2), ("c".to_owned(), 3)]);
    }

    #[test]
    fn reads_and_writes_a_json_object_as_a_btree_map_does() {
        let text = r#"{"b": "2", "a": "1", "b": "3"}"#;
        let map: SortedMap<String, String> = serde_json::from_str(text).expect("a map");
        let model: BTreeMap<String, String> = serde_json::from_str(text).expect("a map");
        assert!(map.iter().eq(model.iter()), "the last of a repeated key wins");
        assert_eq!(serde_json::to_string(&map).unwrap(), serde_json::to_string(&model).unwrap());
        for bad in [r#"["a", "1"]"#, r#"{"a": 1}"#, "null"] {
            assert!(serde_json::from_str::<SortedMap<String, String>>(bad).is_err(), "{bad}");
        }
    }
}
