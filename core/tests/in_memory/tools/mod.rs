//! The tools of spec 3.3 over a `MemoryEnvironment`, one module per tool.

mod apply_patch;
mod args_adapter;
mod edit_file;
mod glob;
mod grep;
mod list_dir;
mod read_file;
mod read_many_files;
mod shell;
mod write_file;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::json;

use crate::testing::{memory_env, run_ok};
use openagent_core::tools::{register_core_tools, ToolRegistry};

#[test]
fn registered_executors_run() {
    let registry = {
        let mut registry = ToolRegistry::new();
        register_core_tools(&mut registry);
        registry
    };
    let env = memory_env();
    let tool = |name: &str| registry.get(name).map(|t| t.executor.clone()).expect("registered");
    run_ok(&*tool("write_file"), &env, json!({"file_path": "a.txt", "content": "hi\n"}));
    assert_eq!(run_ok(&*tool("read_file"), &env, json!({"file_path": "a.txt"})), "   1 | hi");
}
