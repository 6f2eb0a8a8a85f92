//! Validation runs on every tool call, so a valid instance must be checked without allocating.
//! A counting allocator (its own test binary, as it is global) holds the validator to that.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use openagent_jsonschema::Schema;
use serde_json::json;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged, only counting calls on this thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations(run: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    run();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn a_valid_tool_call_is_checked_without_allocating() {
    let schema = Schema::compile(&json!({
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
    }))
    .expect("schema compiles");
    let call = json!({
        "file_path": "src/main.rs",
        "mode": "write",
        "offset": 3.0,
        "edits": [{"old": "a", "new": "b"}, {"old": "c", "new": "d"}],
        "target": null,
    });
    // The first match of a regex may set up its scratch space.
    assert!(schema.is_valid(&call));
    assert_eq!(allocations(|| assert!(schema.is_valid(&call))), 0, "is_valid allocated");
    assert_eq!(allocations(|| assert!(schema.validate(&call).is_ok())), 0, "validate allocated");
    // The counter works: reporting a violation does allocate.
    let wrong = json!({"file_path": 1});
    assert!(allocations(|| assert!(schema.validate(&wrong).is_err())) > 0);
}
