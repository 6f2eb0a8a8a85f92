#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::json;

use crate::testing::{memory_env, run_err, run_ok, write};
use openagent_core::tools::GrepTool;
use openagent_memenv::MemoryEnvironment;

fn project() -> MemoryEnvironment {
    let env = memory_env();
    write(&env, "src/main.rs", "fn main() {\n    hello();\n}\n");
    write(&env, "src/lib.rs", "pub fn hello() {}\npub fn Hello() {}\n");
    write(&env, "README.md", "say hello\n");
    env
}

#[test]
fn lists_matching_lines_with_paths_and_numbers() {
    let out = run_ok(&GrepTool, &project(), json!({"pattern": "hello\\("}));
    assert_eq!(out, "src/lib.rs:1:pub fn hello() {}\nsrc/main.rs:2:    hello();");
}

#[test]
fn filters_by_glob_path_and_case() {
    let env = project();
    let rust = json!({"pattern": "hello", "glob_filter": "*.md"});
    assert_eq!(run_ok(&GrepTool, &env, rust), "README.md:1:say hello");
    let in_file = json!({"pattern": "fn hello", "path": "src/lib.rs", "case_insensitive": true});
    assert_eq!(run_ok(&GrepTool, &env, in_file), "src/lib.rs:1:pub fn hello() {}\nsrc/lib.rs:2:pub fn Hello() {}");
}

#[test]
fn says_when_nothing_matched() {
    assert_eq!(run_ok(&GrepTool, &project(), json!({"pattern": "absent"})), "No matches found.");
}

#[test]
fn says_when_the_limit_was_reached() {
    let out = run_ok(&GrepTool, &project(), json!({"pattern": "(?i)hello", "max_results": 2}));
    assert_eq!(
        out,
        "README.md:1:say hello\nsrc/lib.rs:1:pub fn hello() {}\n[Reached the limit of 2 lines; there may be \
         more matches. Narrow the pattern or path, or raise the limit.]"
    );
}

#[test]
fn lists_files_or_counts_per_file() {
    let env = project();
    let files = json!({"pattern": "(?i)hello", "output_mode": "files_with_matches"});
    assert_eq!(run_ok(&GrepTool, &env, files), "README.md\nsrc/lib.rs\nsrc/main.rs");
    let counts = json!({"pattern": "(?i)hello", "output_mode": "count"});
    assert_eq!(run_ok(&GrepTool, &env, counts), "README.md:1\nsrc/lib.rs:2\nsrc/main.rs:1");
    let limited = json!({"pattern": "(?i)hello", "output_mode": "count", "max_results": 1});
    assert_eq!(
        run_ok(&GrepTool, &env, limited),
        "README.md:1\n[Showing 1 of 3 files. Narrow the pattern, path or glob, or raise the limit.]"
    );
    let bad = run_err(&GrepTool, &env, json!({"pattern": "x", "output_mode": "lines"}));
    assert_eq!(bad, "Unknown output_mode \"lines\". Use content, files_with_matches or count.");
}

#[test]
fn a_bad_regex_is_an_error() {
    let err = run_err(&GrepTool, &project(), json!({"pattern": "(unclosed"}));
    assert!(err.starts_with("invalid pattern (unclosed: "), "{err}");
}
