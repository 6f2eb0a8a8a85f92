//! The identifiers of one schema document: which subschemas `$id` makes resources, which `$anchor`s
//! they declare, and where every subschema sits. Built in one pass before compiling, so a `$ref` can
//! point forward, backward or at itself.

use super::sorted_map::SortedMap;

use serde_json::{Map, Value};

use super::uri::{self, escape_token, percent_decode, split_fragment, unescape_token};
use super::{invalid, SchemaError};

/// The keywords whose value is a subschema, a list of them, or a map of them (draft 2020-12).
const SUBSCHEMA: [&str; 10] = [
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
];
const SUBSCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS: [&str; 4] = ["properties", "patternProperties", "$defs", "dependentSchemas"];

/// Where a subschema sits: the base URI its `$id` (if any) resolves against, and its JSON Pointer
/// from the document root, for error messages.
#[derive(Debug, Clone)]
pub(super) struct Position {
    pub base: String,
    pub pointer: String,
}

pub(super) struct Resources<'a> {
    /// Every subschema, by address: the document is borrowed for the whole compilation.
    positions: SortedMap<*const Value, Position>,
    /// Resource roots by absolute URI without fragment.
    roots: SortedMap<String, &'a Value>,
    /// Anchors by `resource-uri#name`.
    anchors: SortedMap<String, &'a Value>,
}

impl<'a> Resources<'a> {
    pub fn scan(document: &'a Value) -> Result<Self, SchemaError> {
        let mut resources = Self { positions: SortedMap::new(), roots: SortedMap::new(), anchors: SortedMap::new() };
        resources.roots.insert(uri::DEFAULT_BASE.to_owned(), document);
        resources.walk(document, uri::DEFAULT_BASE, String::new())?;
        Ok(resources)
    }

    fn walk(&mut self, schema: &'a Value, base: &str, pointer: String) -> Result<(), SchemaError> {
        let Value::Object(object) = schema else {
            self.positions.insert(schema, Position { base: base.to_owned(), pointer });
            return Ok(());
        };
        let own = own_base(object, base, &pointer)?;
        if object.contains_key("$id") {
            self.roots.insert(own.clone(), schema);
        }
        // A $dynamicAnchor is also a plain anchor that `$ref` may name.
        for keyword in ["$anchor", "$dynamicAnchor"] {
            if let Some(name) = object.get(keyword) {
                let name = name.as_str().ok_or_else(|| invalid(&format!("{pointer}/{keyword}"), "must be a string"))?;
                self.anchors.insert(format!("{own}#{name}"), schema);
            }
        }
        for keyword in SUBSCHEMA {
            if let Some(subschema) = object.get(keyword) {
                self.walk(subschema, &own, format!("{pointer}/{keyword}"))?;
            }
        }
        for keyword in SUBSCHEMA_LISTS {
            if let Some(Value::Array(list)) = object.get(keyword) {
                for (i, subschema) in list.iter().enumerate() {
                    self.walk(subschema, &own, format!("{pointer}/{keyword}/{i}"))?;
                }
            }
        }
        for keyword in SUBSCHEMA_MAPS {
            if let Some(Value::Object(map)) = object.get(keyword) {
                for (name, subschema) in map {
                    self.walk(subschema, &own, format!("{pointer}/{keyword}/{}", escape_token(name)))?;
                }
            }
        }
        self.positions.insert(schema, Position { base: base.to_owned(), pointer });
        Ok(())
    }

    /// The value `reference` names when it appears in a schema whose base URI is `base`, and that
    /// value's position. `None` when the URI names no resource of this document (a remote ref) or
    /// the fragment leads nowhere.
    pub fn resolve(&self, base: &str, reference: &str) -> Option<(&'a Value, Position)> {
        let target = uri::resolve(base, reference);
        let (resource, fragment) = split_fragment(&target);
        let root = *self.roots.get(resource)?;
        let fragment = percent_decode(fragment);
        let value = if fragment.is_empty() || fragment.starts_with('/') {
            pointer(root, &fragment)?
        } else {
            *self.anchors.get(&format!("{resource}#{fragment}"))?
        };
        let position = match self.positions.get(&(value as *const Value)) {
            Some(position) => position.clone(),
            // A pointer into something that is not a subschema (an unknown keyword such as draft
            // 7's `definitions`): its base is the resource's.
            None => {
                let root_pointer = self.positions.get(&(root as *const Value)).map_or("", |p| p.pointer.as_str());
                Position { base: resource.to_owned(), pointer: format!("{root_pointer}{fragment}") }
            }
        };
        Some((value, position))
    }
}

/// The base URI inside `object`: its `$id` resolved against the enclosing base, or that base.
pub(super) fn own_base(object: &Map<String, Value>, base: &str, pointer: &str) -> Result<String, SchemaError> {
    let Some(id) = object.get("$id") else {
        return Ok(base.to_owned());
    };
    let at = format!("{pointer}/$id");
    let id = id.as_str().ok_or_else(|| invalid(&at, "must be a string (a URI reference)"))?;
    let resolved = uri::resolve(base, id);
    let (resource, fragment) = split_fragment(&resolved);
    if !fragment.is_empty() {
        return Err(invalid(&at, "must not have a fragment in draft 2020-12; use \"$anchor\" to name a subschema"));
    }
    Ok(resource.to_owned())
}

/// The value a JSON Pointer (RFC 6901) names in `root`: `""` is `root` itself, and each
/// `/`-separated token (`~1` for `/`, `~0` for `~`) an object member or an array index. `None`
/// when it leads nowhere. (Where serde_json's `Value::pointer` would do, this one is used, so the
/// browser bundle carries one.)
pub fn pointer<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    match pointer {
        "" => Some(root),
        _ => pointer.strip_prefix('/')?.split('/').try_fold(root, |value, token| step(value, &unescape_token(token))),
    }
}

fn step<'v>(value: &'v Value, token: &str) -> Option<&'v Value> {
    match value {
        Value::Object(object) => object.get(token),
        Value::Array(items) => items.get(token.parse::<usize>().ok()?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    #[test]
    fn a_pointer_reads_as_rfc_6901_says() {
        // The RFC's own examples.
        let document = json!({"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5,
                              "k\"l": 6, " ": 7, "m~n": 8});
        let cases = [
            ("", &document),
            ("/foo", &document["foo"]),
            ("/foo/0", &json!("bar")),
            ("/", &json!(0)),
            ("/a~1b", &json!(1)),
            ("/c%d", &json!(2)),
            ("/e^f", &json!(3)),
            ("/g|h", &json!(4)),
            ("/i\\j", &json!(5)),
            ("/k\"l", &json!(6)),
            ("/ ", &json!(7)),
            ("/m~0n", &json!(8)),
        ];
        for (at, expected) in cases {
            assert_eq!(pointer(&document, at), Some(expected), "{at}");
        }
        for nowhere in ["foo", "/foo/2", "/foo/bar", "/nope", "/foo/0/deeper"] {
            assert_eq!(pointer(&document, nowhere), None, "{nowhere}");
        }
    }
}
