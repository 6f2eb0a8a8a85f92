#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::json;

use crate::testing::{memory_env, run_err, run_ok, write};
use openagent_core::tools::ListDirTool;

/// The most entries a listing shows (its note says "500 of 501").
const MAX_ENTRIES: usize = 500;

#[test]
fn lists_entries_to_the_given_depth() {
    let env = memory_env();
    write(&env, "README.md", "hello\n");
    write(&env, "src/main.rs", "fn main() {}\n");
    write(&env, "src/deep/x.rs", "");
    assert_eq!(run_ok(&ListDirTool, &env, json!({"depth": 1})), "README.md (6 bytes)\nsrc/");
    assert_eq!(run_ok(&ListDirTool, &env, json!({})), "README.md (6 bytes)\nsrc/\nsrc/deep/\nsrc/main.rs (13 bytes)");
    assert_eq!(run_ok(&ListDirTool, &env, json!({"path": "src/deep"})), "x.rs (0 bytes)");
}

#[test]
fn says_when_a_directory_is_empty_or_not_a_directory() {
    let env = memory_env();
    env.mkdir_p("empty").expect("created");
    write(&env, "f.txt", "");
    assert_eq!(run_ok(&ListDirTool, &env, json!({"path": "empty"})), "empty is empty.");
    assert_eq!(run_err(&ListDirTool, &env, json!({"path": "f.txt"})), "/workspace/f.txt is not a directory");
}

#[test]
fn long_listings_are_cut_with_a_note() {
    let env = memory_env();
    for n in 0..=MAX_ENTRIES {
        write(&env, &format!("d/{n:04}.txt"), "");
    }
    let out = run_ok(&ListDirTool, &env, json!({"path": "d"}));
    assert_eq!(out.lines().count(), MAX_ENTRIES + 1);
    assert!(out.ends_with("[Showing 500 of 501 entries. List a subdirectory, or use a smaller depth.]"), "{out}");
}
