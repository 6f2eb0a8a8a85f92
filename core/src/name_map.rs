//! [`NameMap`]: values by name, in a vector kept sorted by name.
//!
//! Every `BTreeMap<String, _>` value type brings its own copy of the B-tree's insert, remove and
//! rebalancing code into the browser bundle (4.7 KB raw for a session's per-tool limits, 8.6 KB
//! for the in-memory filesystem's directories). A sorted vector does the same job with a binary
//! search and a `Vec` insert or remove: a few hundred bytes for each value type.
//!
//! The price is paid out of order: an insert or removal moves the entries after its slot. One
//! directory of 10,000 files written in reverse order, or removed first to last, takes about
//! 90 ms natively where the B-tree took 5 to 8; 30,000 take 0.8 s against 15 to 30 ms (the
//! `memory_fs` benchmark). Filling in name order appends without a search, as a restored snapshot
//! does; the playground imports at most 5,000 files; a shell holds a few dozen variables.

/// Values by name, iterated in name order (byte order, as `BTreeMap<String, _>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameMap<V>(Vec<(String, V)>);

impl<V> Default for NameMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> NameMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, name: &str) -> Option<&V> {
        self.position(name).ok().map(|at| &self.0[at].1)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut V> {
        self.position(name).ok().map(|at| &mut self.0[at].1)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_ok()
    }

    /// Sets `name`'s value; returns the one it replaces.
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        match self.position(&name) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value)),
            Err(at) => {
                self.0.insert(at, (name, value));
                None
            }
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<V> {
        self.position(name).ok().map(|at| self.0.remove(at).1)
    }

    /// The entries, by name in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &V)> {
        self.0.iter().map(|(name, value)| (name.as_str(), value))
    }

    /// The entries as they are kept: sorted by name.
    pub fn as_slice(&self) -> &[(String, V)] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        // The last entry first: maps filled in name order append without a search.
        match self.0.last() {
            Some((last, _)) if last.as_str() < name => Err(self.0.len()),
            _ => self.0.binary_search_by(|(key, _)| key.as_str().cmp(name)),
        }
    }
}

impl<V> FromIterator<(String, V)> for NameMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        let mut map = Self::new();
        for (name, value) in entries {
            map.insert(name, value);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn behaves_as_a_btree_map_by_name() {
        let mut map = NameMap::new();
        let mut model = BTreeMap::new();
        // Names in and out of order, repeated, removed, with a prefix of another and non-ASCII.
        let names = ["m", "b", "z", "b", "a", "ab", "é", "", "zz", "m", "a"];
        for (i, name) in names.iter().enumerate() {
            assert_eq!(map.insert(name.to_string(), i), model.insert(name.to_string(), i), "insert {name}");
            if i % 3 == 2 {
                let gone = names[i / 2];
                assert_eq!(map.remove(gone), model.remove(gone), "remove {gone}");
            }
            assert!(map.iter().map(|(k, v)| (k.to_owned(), *v)).eq(model.clone()), "after {name}");
        }
        for name in ["m", "b", "nothing", "", "é"] {
            assert_eq!(map.get(name), model.get(name));
            assert_eq!(map.contains(name), model.contains_key(name));
        }
        *map.get_mut("a").expect("a is there") += 100;
        assert_eq!(map.get("a"), Some(&110));
        assert_eq!((map.len(), map.is_empty()), (model.len(), false));
        assert_eq!(map.remove("nothing"), None);
    }

    #[test]
    fn collects_in_any_order_into_the_same_map() {
        let sorted: NameMap<u8> = [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)].into_iter().collect();
        let shuffled: NameMap<u8> = [("c".into(), 3), ("a".into(), 1), ("b".into(), 2)].into_iter().collect();
        assert_eq!(sorted, shuffled);
        assert_eq!(shuffled.iter().collect::<Vec<_>>(), [("a", &1), ("b", &2), ("c", &3)]);
    }
}
