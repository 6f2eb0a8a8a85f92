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
