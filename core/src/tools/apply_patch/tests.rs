//! The tool's definition and paths. The tool end to end over a `MemoryEnvironment` is tested in
//! `core/tests/in_memory/tools/apply_patch.rs`; the codex scenarios run against the
//! `openagent-apply-patch` crate (its `tests/codex_scenarios.rs`).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use serde_json::json;

use super::*;
use crate::tools::RegisteredTool;

#[test]
fn the_definition_registers() {
    let tool = RegisteredTool::new(definition(), Rc::new(ApplyPatchTool)).expect("valid schema");
    assert_eq!(tool.definition.name, "apply_patch");
    assert_eq!(tool.definition.parameters["required"], json!(["patch"]));
    assert!(tool.schema().is_valid(&json!({"patch": "x"})));
}
