//! The messages and paths a model sees, and the compile errors a tool author sees. Keyword
//! semantics are proven by the official suite in `tests/json_schema_suite.rs`.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::{json, Value};

use super::Schema;

/// The violations of `instance`, as displayed; also checks that `is_valid` agrees.
fn errors(schema: Value, instance: Value) -> Vec<String> {
    let schema = Schema::compile(&schema).expect("schema compiles");
    let result = schema.validate(&instance);
    assert_eq!(schema.is_valid(&instance), result.is_ok(), "is_valid and validate disagree on {instance}");
    result.err().unwrap_or_default().iter().map(ToString::to_string).collect()
}

fn compile_error(schema: Value) -> String {
    match Schema::compile(&schema) {
        Ok(_) => panic!("{schema} should not compile"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn reports_every_violation_with_its_path() {
    let schema = json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1},
            "edits": {"type": "array", "items": {
                "type": "object",
                "properties": {"line": {"type": "integer", "minimum": 1}},
                "required": ["line", "text"],
            }},
        },
        "required": ["file_path", "edits"],
    });
    assert_eq!(
        errors(schema, json!({"file_path": "", "edits": [{"line": 1, "text": "x"}, {"line": 0}, {"line": "2", "text": "y"}]})),
        [
            "/edits/1: missing required property \"text\"",
            "/edits/1/line: value 0 is less than the minimum 1",
            "/edits/2/line: expected integer, found string",
            "/file_path: string is 0 characters long, shorter than the minimum length 1",
        ]
    );
}

#[test]
fn numbers_with_zero_fraction_are_integers() {
    let schema = json!({"type": "integer", "maximum": 5, "multipleOf": 2});
    assert!(errors(schema.clone(), json!(4.0)).is_empty());
    assert_eq!(
        errors(schema.clone(), json!(7)),
        ["(root): value 7 is greater than the maximum 5", "(root): value 7 is not a multiple of 2"]
    );
    assert_eq!(
        errors(schema, json!(1.5)),
        ["(root): expected integer, found number", "(root): value 1.5 is not a multiple of 2"]
    );
    assert_eq!(errors(json!({"type": ["string", "null"]}), json!(3)), ["(root): expected string or null, found integer"]);
    assert_eq!(errors(json!({"exclusiveMaximum": 5}), json!(5)), ["(root): value 5 must be less than 5"]);
    assert_eq!(errors(json!({"exclusiveMinimum": 5}), json!(5.0)), ["(root): value 5.0 must be greater than 5"]);
}

#[test]
fn const_and_enum_name_the_allowed_values() {
    assert_eq!(errors(json!({"const": "read"}), json!("write")), ["(root): value must be \"read\""]);
    assert!(errors(json!({"const": 1}), json!(1.0)).is_empty());
    assert_eq!(
        errors(json!({"enum": (0..12).collect::<Vec<_>>()}), json!(12)),
        ["(root): value must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (2 more), found 12"]
    );
    assert_eq!(
        errors(json!({"enum": ["a", "b", null]}), json!("c")),
        ["(root): value must be one of \"a\", \"b\", null, found \"c\""]
    );
}

#[test]
fn strings_count_code_points_and_match_patterns() {
    assert!(errors(json!({"maxLength": 2}), json!("éé")).is_empty());
    assert_eq!(
        errors(json!({"maxLength": 2}), json!("ééé")),
        ["(root): string is 3 characters long, longer than the maximum length 2"]
    );
    assert_eq!(
        errors(json!({"pattern": "^[a-z]+$"}), json!("A1")),
        ["(root): string \"A1\" does not match the pattern \"^[a-z]+$\""]
    );
    // Patterns are searched for, not anchored.
    assert!(errors(json!({"pattern": "b"}), json!("abc")).is_empty());
}

#[test]
fn unknown_properties_name_the_allowed_ones() {
    let schema = json!({"properties": {"file_path": {}, "content": {}}, "additionalProperties": false});
    assert_eq!(
        errors(schema, json!({"file_path": "a", "fle_path": "b"})),
        ["(root): unexpected property \"fle_path\" (allowed: \"content\", \"file_path\")"]
    );
    let schema = json!({"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false});
    assert_eq!(errors(schema, json!({"a": 1, "b": 2})), ["(root): unexpected property \"b\""]);
}

#[test]
fn arrays_report_counts_duplicates_and_extra_items() {
    assert_eq!(errors(json!({"maxItems": 1}), json!([1, 2])), ["(root): array has 2 items, more than the maximum 1"]);
    assert_eq!(errors(json!({"minItems": 3}), json!([1])), ["(root): array has 1 item, fewer than the minimum 3"]);
    assert_eq!(
        errors(json!({"uniqueItems": true}), json!([1, 2, 1.0])),
        ["(root): array items 0 and 2 are equal, but items must be unique"]
    );
    assert_eq!(
        errors(json!({"prefixItems": [{"type": "string"}], "items": false}), json!(["a", 1, 2])),
        ["(root): array has 3 items, at most 1 allowed"]
    );
    assert_eq!(
        errors(json!({"contains": {"type": "string"}}), json!([1, 2])),
        ["(root): array contains no item that matches the \"contains\" schema"]
    );
    assert_eq!(
        errors(json!({"contains": {"type": "string"}, "maxContains": 1}), json!(["a", "b"])),
        ["(root): array contains 2 items that match the \"contains\" schema, more than maxContains 1"]
    );
    assert_eq!(
        errors(json!({"contains": {"type": "string"}, "minContains": 2}), json!(["a", 1])),
        ["(root): array contains 1 item that matches the \"contains\" schema, fewer than minContains 2"]
    );
}

#[test]
fn combinators_explain_each_branch() {
    let schema = json!({"anyOf": [{"type": "string"}, {"type": "object", "required": ["path"]}]});
    assert_eq!(
        errors(schema.clone(), json!({})),
        ["(root): value does not match any schema in anyOf (anyOf[0]: expected string, found object; anyOf[1]: missing required property \"path\")"]
    );
    assert!(errors(schema, json!("x")).is_empty());
    let schema = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
    assert_eq!(errors(schema, json!(1)), ["(root): value matches both oneOf[0] and oneOf[1], but must match exactly one"]);
    assert_eq!(errors(json!({"not": {"type": "null"}}), json!(null)), ["(root): value must not match the schema in \"not\""]);
    let schema = json!({"if": {"properties": {"kind": {"const": "file"}}}, "then": {"required": ["path"]}});
    assert_eq!(errors(schema, json!({"kind": "file"})), ["(root): missing required property \"path\""]);
}

#[test]
fn object_keywords_name_the_property() {
    assert_eq!(
        errors(json!({"dependentRequired": {"start": ["end"]}}), json!({"start": 1})),
        ["(root): missing property \"end\", which is required when \"start\" is present"]
    );
    assert_eq!(
        errors(json!({"propertyNames": {"maxLength": 3}}), json!({"long": 1})),
        ["(root): property name \"long\" is invalid: string is 4 characters long, longer than the maximum length 3"]
    );
    assert_eq!(
        errors(json!({"maxProperties": 1}), json!({"a": 1, "b": 2})),
        ["(root): object has 2 properties, more than the maximum 1"]
    );
    // Property names are escaped in paths (RFC 6901).
    assert_eq!(
        errors(json!({"properties": {"a/b~": {"type": "null"}}}), json!({"a/b~": 1})),
        ["/a~1b~0: expected null, found integer"]
    );
}

#[test]
fn refs_recurse_through_the_instance() {
    let schema = json!({
        "$defs": {"node": {
            "type": "object",
            "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        }},
        "$ref": "#/$defs/node",
    });
    assert_eq!(
        errors(schema, json!({"value": 1, "children": [{"value": 2, "children": [{"value": "3"}]}]})),
        ["/children/0/children/0/value: expected integer, found string"]
    );
    assert_eq!(errors(json!(false), json!(1)), ["(root): no value is allowed here (the schema is false)"]);
}

#[test]
fn malformed_schemas_name_the_keyword() {
    assert_eq!(
        compile_error(json!({"properties": {"path": {"type": "strng"}}})),
        "invalid schema at /properties/path/type: unknown type \"strng\"; the types are string, number, integer, boolean, object, array, null"
    );
    assert_eq!(compile_error(json!({"minLength": -1})), "invalid schema at /minLength: must be a non-negative integer");
    assert_eq!(compile_error(json!({"required": "path"})), "invalid schema at /required: must be an array of strings");
    assert_eq!(
        compile_error(json!("object")),
        "invalid schema at the root: a schema must be an object or a boolean, found string"
    );
    assert_eq!(
        compile_error(json!({"items": [{}]})),
        "invalid schema at /items: must be a schema; for a tuple use \"prefixItems\" (draft 2020-12)"
    );
    assert!(compile_error(json!({"pattern": "(unclosed"}))
        .starts_with("invalid schema at /pattern: is not a supported regular expression"));
    assert_eq!(
        compile_error(json!({"$ref": "https://example.com/other.json"})),
        "invalid schema at /$ref: cannot resolve \"https://example.com/other.json\": only references within this document (JSON Pointers, $anchor and $id) are supported"
    );
    assert_eq!(
        compile_error(json!({"definitions": {"a": {"type": "strng"}}, "$ref": "#/definitions/a"})),
        "invalid schema at /definitions/a/type: unknown type \"strng\"; the types are string, number, integer, boolean, object, array, null"
    );
    assert_eq!(compile_error(json!({"$dynamicRef": "#meta"})), "invalid schema at /$dynamicRef: is not supported; use \"$ref\"");
    assert!(compile_error(json!({"$defs": {"a": {"allOf": [{"$ref": "#"}]}}, "$ref": "#/$defs/a"}))
        .ends_with("without descending into it, so validation would never end"));
}

#[test]
fn refs_resolve_ids_and_anchors_in_the_document() {
    let schema = json!({
        "$id": "https://example.com/tool.json",
        "properties": {"a": {"$ref": "item.json"}, "b": {"$ref": "#positive"}},
        "$defs": {
            "item": {"$id": "item.json", "type": "string"},
            "positive": {"$anchor": "positive", "exclusiveMinimum": 0},
        },
    });
    assert_eq!(
        errors(schema, json!({"a": 1, "b": 0})),
        ["/a: expected string, found integer", "/b: value 0 must be greater than 0"]
    );
}
