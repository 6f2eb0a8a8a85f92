#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::json;

use crate::testing::{memory_env, run_ok, write};
use openagent_core::tools::ReadManyFilesTool;

/// The most files one call reads (its note says "the first 50").
const MAX_FILES: usize = 50;

#[test]
fn reads_paths_and_globs_once_each() {
    let env = memory_env();
    write(&env, "README.md", "# Demo\n");
    write(&env, "src/a.py", "a = 1");
    write(&env, "src/b.py", "b = 2\n");
    let out = run_ok(&ReadManyFilesTool, &env, json!({"paths": ["README.md", "src/*.py", "src/a.py"]}));
    assert_eq!(out, "--- README.md ---\n# Demo\n--- src/b.py ---\nb = 2\n--- src/a.py ---\na = 1");
}

#[test]
fn unreadable_files_are_noted_and_the_rest_still_read() {
    let env = memory_env();
    write(&env, "bin.dat", "a\0b");
    write(&env, "ok.txt", "fine\n");
    let out = run_ok(&ReadManyFilesTool, &env, json!({"paths": ["missing.txt", "bin.dat", "ok.txt"]}));
    assert_eq!(
        out,
        "--- missing.txt ---\n[skipped: file not found: /workspace/missing.txt]\n--- bin.dat ---\n\
         [skipped: /workspace/bin.dat is a binary file; it cannot be shown as text]\n--- ok.txt ---\nfine"
    );
    assert_eq!(run_ok(&ReadManyFilesTool, &env, json!({"paths": ["*.none"]})), "No files matched.");
}

#[test]
fn at_most_fifty_files() {
    let env = memory_env();
    for n in 0..=MAX_FILES {
        write(&env, &format!("f/{n:02}.txt"), "x\n");
    }
    let out = run_ok(&ReadManyFilesTool, &env, json!({"paths": ["f/*"]}));
    assert_eq!(out.matches("--- f/").count(), MAX_FILES);
    assert!(out.ends_with("[Read the first 50 files; more matched. Ask for the others in another call.]"), "{out}");
}
