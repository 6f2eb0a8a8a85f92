#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use async_trait::async_trait;
use serde_json::{json, Value};

use crate::testing::{memory_env, run_ok};
use openagent_core::tools::{ArgsAdapter, ToolContext, ToolError, ToolExecutor, ToolOutput};

/// Shows the arguments it was given.
struct Echo;

#[async_trait(?Send)]
impl ToolExecutor for Echo {
    async fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok(args.to_string().into())
    }
}

#[test]
fn renames_and_fills_in_defaults() {
    let adapter = ArgsAdapter { inner: Rc::new(Echo), renames: &[("-i", "case_insensitive")], defaults: &[("mode", "files")] };
    let env = memory_env();
    let run = |args| serde_json::from_str::<Value>(&run_ok(&adapter, &env, args)).expect("JSON");
    assert_eq!(run(json!({"-i": true, "pattern": "x"})), json!({"case_insensitive": true, "mode": "files", "pattern": "x"}));
    assert_eq!(run(json!({"mode": "count"})), json!({"mode": "count"}));
    // Given under both names, the family's name (the one the model was offered) wins.
    assert_eq!(run(json!({"case_insensitive": false, "-i": true})), json!({"case_insensitive": true, "mode": "files"}));
    assert_eq!(run(json!("not an object")), json!({"mode": "files"}));
}
