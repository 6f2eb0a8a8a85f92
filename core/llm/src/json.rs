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
