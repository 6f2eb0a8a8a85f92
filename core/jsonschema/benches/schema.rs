//! How long checking one tool call takes: `cargo bench -p openagent-jsonschema --bench schema`.
//! A plain timing loop (no harness, no dependencies); it reports and asserts nothing.

use std::hint::black_box;
use std::time::Instant;

use openagent_jsonschema::Schema;
use serde_json::{json, Value};

fn time(label: &str, runs: u32, mut run: impl FnMut()) {
    let start = Instant::now();
    for _ in 0..runs {
        run();
    }
    println!("{label:<40} {:>8.0} ns", start.elapsed().as_nanos() as f64 / f64::from(runs));
}

fn main() {
    let document = json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "pattern": "^[^\\u0000]+$"},
            "mode": {"enum": ["read", "write"]},
            "offset": {"type": "integer", "minimum": 0},
            "edits": {"type": "array", "maxItems": 10, "items": {"$ref": "#/$defs/edit"}},
            "target": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["file_path"],
        "additionalProperties": false,
        "$defs": {"edit": {"type": "object", "required": ["old", "new"], "properties": {"old": {"type": "string"}, "new": {"type": "string"}}}},
    });
    let valid =
        json!({"file_path": "src/main.rs", "mode": "write", "offset": 3, "edits": [{"old": "a", "new": "b"}], "target": null});
    let invalid = json!({"file_path": "", "mode": "append", "offset": -1, "edits": [{"old": 1}], "extra": true});
    let unevaluated: Value = json!({
        "allOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {"b": {"type": "string"}}}],
        "unevaluatedProperties": false,
    });

    let runs = 100_000;
    time("compile (tool schema)", runs / 10, || drop(black_box(Schema::compile(black_box(&document)))));
    let schema = Schema::compile(&document).expect("schema compiles");
    time("is_valid (valid call)", runs, || assert!(schema.is_valid(black_box(&valid))));
    time("validate (valid call)", runs, || assert!(schema.validate(black_box(&valid)).is_ok()));
    let errors = schema.validate(&invalid).err().unwrap_or_default().len();
    time(&format!("validate (invalid call, {errors} errors)"), runs, || assert!(schema.validate(black_box(&invalid)).is_err()));
    let schema = Schema::compile(&unevaluated).expect("schema compiles");
    let instance = json!({"a": 1, "b": "x"});
    time("validate (unevaluatedProperties)", runs, || assert!(schema.validate(black_box(&instance)).is_ok()));
}
