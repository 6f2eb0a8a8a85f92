#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::json;

use crate::testing::{memory_env, run_err, run_ok, write};
use openagent_core::tools::GlobTool;

#[test]
fn lists_matches_newest_first() {
    let env = memory_env();
    for path in ["src/b.rs", "src/a.rs", "notes.md", "src/deep/c.rs"] {
        write(&env, path, "");
    }
    assert_eq!(run_ok(&GlobTool, &env, json!({"pattern": "**/*.rs"})), "src/deep/c.rs\nsrc/a.rs\nsrc/b.rs");
    assert_eq!(run_ok(&GlobTool, &env, json!({"pattern": "*.rs", "path": "src"})), "src/a.rs\nsrc/b.rs");
}

#[test]
fn says_when_nothing_matched() {
    let env = memory_env();
    write(&env, "a.txt", "");
    assert_eq!(run_ok(&GlobTool, &env, json!({"pattern": "*.rs"})), "No files matched.");
}

#[test]
fn a_missing_base_directory_is_an_error() {
    let env = memory_env();
    assert_eq!(run_err(&GlobTool, &env, json!({"pattern": "*", "path": "/workspace/nope"})), "file not found: /workspace/nope");
}
