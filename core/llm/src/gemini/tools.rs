//! Tool declarations and the tool choice (spec 7.4), and tool parameter schemas in the form
//! `FunctionDeclaration.parameters` accepts: an OpenAPI 3.0
//! subset with upper-case type names. JSON Schema keywords outside it make Gemini refuse the whole
//! request (a captured request failed on `exclusiveMinimum`), so they are mapped where a close
//! equivalent exists and dropped otherwise. The model sees the converted schema; the session still
//! validates arguments against the tool's own schema, so a looser bound here never lets bad
//! arguments through.
//!
//! Mapped: `$ref` into the same document (inlined; a recursive reference becomes a bare `OBJECT`),
//! `allOf` (merged), `oneOf` (as `anyOf`), `null` among types or `anyOf` members (`nullable`),
//! `const` and string `enum`s (`enum`), `exclusiveMinimum`/`exclusiveMaximum` (the inclusive
//! bound), a missing `type` next to `properties` or `items`. Dropped: everything else, e.g.
//! `$schema`, `$defs`, `additionalProperties`, `patternProperties`, `not`, `if`/`then`/`else`,
//! `prefixItems`, `uniqueItems`, `multipleOf`, formats Gemini does not know, non-string enums.

use serde_json::{Map, Value};

use super::error::invalid;
use crate::error::LlmError;
use crate::json::object;
use crate::types::{Request, ToolChoice, ToolDefinition};

pub(super) fn declaration(tool: &ToolDefinition) -> Value {
    let mut declaration = vec![("name", tool.name.as_str().into())];
    if !tool.description.is_empty() {
        declaration.push(("description", tool.description.as_str().into()));
    }
    // A function without parameters declares none: Gemini rejects an OBJECT with no properties.
    let parameters = to_gemini(&tool.parameters);
    if parameters.get("properties").is_some() {
        declaration.push(("parameters", parameters));
    }
    object(declaration)
}

/// The `functionCallingConfig`, if there is anything to configure.
pub(super) fn tool_config(choice: &ToolChoice, request: &Request) -> Result<Option<Value>, LlmError> {
    let mode = |mode: &str| Ok(Some(object(vec![("mode", mode.into())])));
    match choice {
        // Without tools there is nothing to configure, and Gemini would refuse a toolConfig.
        ToolChoice::Auto | ToolChoice::None if request.tools.is_empty() => Ok(None),
        ToolChoice::Auto => mode("AUTO"),
        ToolChoice::None => mode("NONE"),
        ToolChoice::Required if request.tools.is_empty() => Err(invalid("tool_choice `required` needs at least one tool")),
        ToolChoice::Required => mode("ANY"),
        ToolChoice::Named { tool_name } if !request.tools.iter().any(|t| t.name == *tool_name) => {
            Err(invalid(format!("tool_choice names `{tool_name}`, which is not among the request's tools")))
        }
        ToolChoice::Named { tool_name } => {
            let allowed = Value::Array(vec![tool_name.as_str().into()]);
            Ok(Some(object(vec![("mode", "ANY".into()), ("allowedFunctionNames", allowed)])))
        }
    }
}

/// Keywords Gemini's schema has, copied as they are.
const KEPT: [&str; 15] = [
    "title",
    "description",
    "nullable",
    "example",
    "default",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "pattern",
    "propertyOrdering",
];

const FORMATS: [&str; 6] = ["enum", "date-time", "int32", "int64", "float", "double"];

fn to_gemini(schema: &Value) -> Value {
    Value::Object(convert(schema, schema, &mut Vec::new()))
}

/// `root` resolves `$ref`s; `expanding` holds the references being inlined, to stop at recursion.
fn convert(schema: &Value, root: &Value, expanding: &mut Vec<String>) -> Map<String, Value> {
    let Some(fields) = schema.as_object() else { return Map::new() }; // `true`: anything goes
    if let Some(reference) = fields.get("$ref").and_then(Value::as_str) {
        return inline(reference, fields, root, expanding);
    }
    let mut out = Map::new();
    for (key, value) in fields {
        match key.as_str() {
            "type" => types(value, &mut out),
            "properties" => {
                let mut properties = Map::new();
                for (name, property) in value.as_object().into_iter().flatten() {
                    properties.insert(name.clone(), Value::Object(convert(property, root, expanding)));
                }
                if !properties.is_empty() {
                    out.insert(key.clone(), Value::Object(properties));
                }
            }
            // An array of schemas is the old tuple form: its first member stands for all.
            "items" => {
                let items = value.as_array().and_then(|a| a.first()).unwrap_or(value);
                out.insert(key.clone(), Value::Object(convert(items, root, expanding)));
            }
            "anyOf" | "oneOf" => any_of(value, root, expanding, &mut out),
            "enum" if value.as_array().is_some_and(|v| v.iter().all(Value::is_string)) => {
                out.insert(key.clone(), value.clone());
            }
            "const" if value.is_string() => {
                out.insert("enum".into(), Value::Array(vec![value.clone()]));
            }
            "exclusiveMinimum" | "exclusiveMaximum" if value.is_number() => {
                let bound = if key == "exclusiveMinimum" { "minimum" } else { "maximum" };
                out.entry(bound).or_insert_with(|| value.clone());
            }
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {
                out.insert(key.clone(), value.clone());
            }
            key if KEPT.contains(&key) => {
                out.insert(key.to_owned(), value.clone());
            }
            _ => {}
        }
    }
    for member in fields.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        merge(&mut out, convert(member, root, expanding));
    }
    finish(&mut out, fields.get("required"));
    out
}

/// Inlines a local `$ref`; keywords beside it (a description, say) win over the target's.
fn inline(reference: &str, fields: &Map<String, Value>, root: &Value, expanding: &mut Vec<String>) -> Map<String, Value> {
    let target = reference.strip_prefix('#').and_then(|pointer| openagent_jsonschema::pointer(root, pointer));
    let (Some(target), false) = (target, expanding.iter().any(|r| r == reference)) else {
        // Recursive (or unresolvable): Gemini's schema cannot say it, so say "an object".
        let mut out = Map::new();
        out.insert("type".into(), "OBJECT".into());
        return out;
    };
    expanding.push(reference.to_owned());
    let mut out = convert(target, root, expanding);
    let mut siblings = Map::new();
    for (key, value) in fields.iter().filter(|(key, _)| *key != "$ref") {
        siblings.insert(key.clone(), value.clone());
    }
    let siblings = convert(&Value::Object(siblings), root, expanding);
    expanding.pop();
    out.extend(siblings);
    out
}

/// `"string"` as `STRING`; `["string", "null"]` as a nullable `STRING`; several types as `anyOf`.
fn types(value: &Value, out: &mut Map<String, Value>) {
    let names: Vec<&str> = match value {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        _ => return,
    };
    if names.contains(&"null") {
        out.insert("nullable".into(), true.into());
    }
    let mut types: Vec<Value> = names.into_iter().filter(|n| *n != "null").map(|n| n.to_ascii_uppercase().into()).collect();
    match types.len() {
        0 => {}
        1 => {
            out.insert("type".into(), types.remove(0));
        }
        _ => {
            let alternatives = types.into_iter().map(|name| object(vec![("type", name)])).collect();
            out.insert("anyOf".into(), Value::Array(alternatives));
        }
    }
}

/// `anyOf`/`oneOf` members; a `null` member makes the schema nullable, and a lone member left over
/// is merged into the schema itself.
fn any_of(value: &Value, root: &Value, expanding: &mut Vec<String>, out: &mut Map<String, Value>) {
    let mut members = Vec::new();
    for member in value.as_array().into_iter().flatten() {
        if member.get("type").and_then(Value::as_str) == Some("null") {
            out.insert("nullable".into(), true.into());
        } else {
            members.push(Value::Object(convert(member, root, expanding)));
        }
    }
    match members.len() {
        0 => {}
        1 => {
            if let Some(Value::Object(member)) = members.pop() {
                merge(out, member);
            }
        }
        _ => {
            out.insert("anyOf".into(), Value::Array(members));
        }
    }
}

/// Adds `from` to `into`: properties and `required` are united, other keywords kept where set.
fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(mine)), Value::Object(theirs)) if key == "properties" => mine.extend(theirs),
            (Some(Value::Array(mine)), Value::Array(theirs)) if key == "required" => {
                mine.extend(theirs.into_iter().filter(|name| !mine.contains(name)).collect::<Vec<_>>())
            }
            (None, value) => {
                into.insert(key, value);
            }
            _ => {}
        }
    }
}

/// Fills in an implied `type`, and `required` limited to declared properties (Gemini refuses others;
/// merged `allOf` members may have brought some already).
fn finish(out: &mut Map<String, Value>, required: Option<&Value>) {
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        if out.contains_key("properties") {
            out.insert("type".into(), "OBJECT".into());
        } else if out.contains_key("items") {
            out.insert("type".into(), "ARRAY".into());
        }
    }
    let mut names: Vec<Value> = required.and_then(Value::as_array).cloned().unwrap_or_default();
    if let Some(Value::Array(merged)) = out.get("required") {
        for name in merged {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    let declared = |name: &Value| name.as_str().is_some_and(|n| out.get("properties").and_then(|p| p.get(n)).is_some());
    names.retain(declared);
    if !names.is_empty() {
        out.insert("required".into(), Value::Array(names));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    #[test]
    fn plain_schemas_become_upper_case_openapi() {
        let schema = json!({"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema",
            "additionalProperties": false,
            "properties": {"location": {"type": "string", "description": "city", "format": "uri"},
                           "days": {"type": "integer", "minimum": 1, "format": "int32"},
                           "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}},
            "required": ["location", "ghost"]});
        assert_eq!(
            to_gemini(&schema),
            json!({"type": "OBJECT",
                "properties": {"location": {"type": "STRING", "description": "city"},
                               "days": {"type": "INTEGER", "minimum": 1, "format": "int32"},
                               "tags": {"type": "ARRAY", "items": {"type": "STRING"}}},
                "required": ["location"]})
        );
    }

    #[test]
    fn exclusive_bounds_const_and_enums_are_mapped() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10, "maximum": 5},
            "kind": {"const": "fixed"},
            "level": {"type": "string", "enum": ["low", "high"]},
            "code": {"type": "integer", "enum": [1, 2]}}});
        assert_eq!(
            to_gemini(&schema)["properties"],
            json!({"n": {"type": "NUMBER", "minimum": 0, "maximum": 5},
                   "kind": {"enum": ["fixed"]},
                   "level": {"type": "STRING", "enum": ["low", "high"]},
                   "code": {"type": "INTEGER"}})
        );
    }

    #[test]
    fn nullable_types_and_unions() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "maybe"},
            "c": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "d": {"type": ["string", "boolean"]}}});
        assert_eq!(
            to_gemini(&schema)["properties"],
            json!({"a": {"type": "STRING", "nullable": true},
                   "b": {"type": "INTEGER", "nullable": true, "description": "maybe"},
                   "c": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}]},
                   "d": {"anyOf": [{"type": "STRING"}, {"type": "BOOLEAN"}]}})
        );
    }

    #[test]
    fn refs_are_inlined_and_recursion_stops() {
        let schema = json!({"type": "object",
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
                      "node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {"at": {"$ref": "#/$defs/point", "description": "where"},
                           "list": {"$ref": "#/$defs/node"},
                           "lost": {"$ref": "https://example.com/elsewhere"}}});
        assert_eq!(
            to_gemini(&schema)["properties"],
            json!({"at": {"type": "OBJECT", "properties": {"x": {"type": "NUMBER"}}, "required": ["x"], "description": "where"},
                   "list": {"type": "OBJECT", "properties": {"next": {"type": "OBJECT"}}},
                   "lost": {"type": "OBJECT"}})
        );
    }

    #[test]
    fn all_of_merges_and_types_are_implied() {
        let schema = json!({"allOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"items": {"type": "string"}}}, "required": ["b", "a"]}]});
        assert_eq!(
            to_gemini(&schema),
            json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}, "b": {"type": "ARRAY", "items": {"type": "STRING"}}},
                   "required": ["a", "b"]})
        );
    }

    #[test]
    fn schemas_without_properties_stay_bare() {
        assert_eq!(to_gemini(&json!({"type": "object", "properties": {}})), json!({"type": "OBJECT"}));
        assert_eq!(to_gemini(&json!(true)), json!({}));
    }
}
