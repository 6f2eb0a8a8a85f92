//! Building request bodies by hand. `serde_json::json!` sends every value it interpolates through
//! `to_value(..).unwrap()`, code that costs the browser bundle several times what building the
//! `Value` directly does (DESIGN.md: the bundle is a budget), so the codecs build with [`object`]
//! and `Value::from`.

use serde_json::{Map, Value};

/// A JSON object from its fields, in order (a cheap stand-in for `json!({...})`).
pub(crate) fn object(fields: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (key, value) in fields {
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

/// `parts` joined by `separator`. `[T]::join` is generic, and every crate that calls it carries its
/// own copy of it in the bundle (a few KB); this one is shared by every codec.
pub(crate) fn join(parts: &mut dyn Iterator<Item = &str>, separator: &str) -> String {
    let mut joined = String::new();
    for (i, part) in parts.enumerate() {
        if i > 0 {
            joined.push_str(separator);
        }
        joined.push_str(part);
    }
    joined
}

/// Takes `key` out of `map` by rebuilding it without the key. `Map::remove` rebalances the
/// B-tree, code (6 KB raw) that only such removals of a request body's field would bring into the
/// browser bundle; the maps here have a few dozen fields, so a rebuild costs nothing.
pub(crate) fn remove(map: &mut Map<String, Value>, key: &str) {
    if map.contains_key(key) {
        for (name, value) in std::mem::take(map) {
            if name != key {
                map.insert(name, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    #[test]
    fn remove_takes_out_only_the_key() {
        let Value::Object(mut map) = json!({"a": 1, "b": {"c": 2}, "d": [3]}) else { unreachable!() };
        remove(&mut map, "b");
        assert_eq!(Value::Object(map.clone()), json!({"a": 1, "d": [3]}));
        remove(&mut map, "missing");
        assert_eq!(Value::Object(map.clone()), json!({"a": 1, "d": [3]}));
        remove(&mut map, "a");
        remove(&mut map, "d");
        assert!(map.is_empty());
    }
}
